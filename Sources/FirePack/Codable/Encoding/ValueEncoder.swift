#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes `Encodable` types into a `Value` tree, honouring every container pattern Codable allows (containers
/// written in any order, super encoders, a key written twice keeps its last value, as JSONEncoder does).
struct ValueEncoder {
    let options: EncoderOptions

    func encodeRoot<T: Encodable>(_ value: T) throws -> Value {
        try ValueEncoderImpl(options: options, path: []).box(value)
    }
}

/// A node of the tree being built: finished values, or boxes still open for writing.
enum EncodingNode {
    case value(Value)
    case map(MapBox)
    case array(ArrayBox)
    case encoder(ValueEncoderImpl)

    func resolve() -> Value {
        switch self {
        case .value(let value): value
        case .map(let box): .map(MapValue(zip(box.keys, box.nodes.map { $0.resolve() })))
        case .array(let box): .array(box.nodes.map { $0.resolve() })
        case .encoder(let encoder): encoder.resolved()
        }
    }
}

/// A map under construction; a key set twice keeps its first position and its last value.
final class MapBox {
    var keys: [String] = []
    var nodes: [EncodingNode] = []
    var positions: [ByteKey: Int] = [:]

    func set(_ key: String, _ node: EncodingNode) {
        if let position = positions[ByteKey(key)] {
            nodes[position] = node
        } else {
            positions[ByteKey(key)] = keys.count
            keys.append(key)
            nodes.append(node)
        }
    }
}

/// An array under construction.
final class ArrayBox {
    var nodes: [EncodingNode] = []
}

final class ValueEncoderImpl: Encoder {
    let options: EncoderOptions
    let path: [PathEntry]
    var storage: EncodingNode?
    var bypassKeyStrategy = false

    init(options: EncoderOptions, path: [PathEntry]) {
        self.options = options
        self.path = path
    }

    var codingPath: [any CodingKey] { path.map(\.codingKey) }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    /// What this encoder holds; a type that encoded nothing is an empty map, as with JSONEncoder.
    func resolved() -> Value { storage?.resolve() ?? .map(MapValue()) }

    /// Encodes `value` at `path` into a `Value`.
    func box<T: Encodable>(_ value: T) throws -> Value {
        switch NativeType(T.self) {
        case .scalar(let scalar)?: return try box(scalar, value)
        case .special(let kind)?:
            switch try options.special(kind, value) {
            case .value(let native): return native
            case .skip:
                throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "@DocumentID can only be a property of a keyed type"))
            case .custom(let encode):
                let nested = ValueEncoderImpl(options: options, path: path)
                try encode(nested)
                return nested.resolved()
            }
        case nil: break
        }
        let nested = ValueEncoderImpl(options: options, path: path)
        if !options.usesDefaultKeys && T.self is StringKeyedDictionaryMarker.Type { nested.bypassKeyStrategy = true }
        if let dictionary = value as? any RawKeyedEncodableDictionary {
            try dictionary.encodeAsMap(to: nested)
        } else {
            try value.encode(to: nested)
        }
        return nested.resolved()
    }

    func child(_ entry: PathEntry) -> ValueEncoderImpl { ValueEncoderImpl(options: options, path: path + [entry]) }

    /// A double, or what the non-conforming float strategy makes of NaN and ±∞.
    func boxDouble(_ double: Double) throws -> Value {
        if !double.isFinite, let string = try options.nonConforming(double, codingPath: codingPath) { return .string(string) }
        return .double(double)
    }

    /// A scalar as a `Value` (`NativeScalar`; the value is reinterpreted with `unsafeBitCast`).
    func box<T>(_ scalar: NativeScalar, _ value: T) throws -> Value {
        switch scalar {
        case .string: return .string(unsafeBitCast(value, to: String.self))
        case .int: return .integer(Int64(unsafeBitCast(value, to: Int.self)))
        case .bool: return .boolean(unsafeBitCast(value, to: Bool.self))
        case .double: return try boxDouble(unsafeBitCast(value, to: Double.self))
        case .int64: return .integer(unsafeBitCast(value, to: Int64.self))
        case .float: return try boxDouble(Double(unsafeBitCast(value, to: Float.self)))
        case .int32: return .integer(Int64(unsafeBitCast(value, to: Int32.self)))
        case .int16: return .integer(Int64(unsafeBitCast(value, to: Int16.self)))
        case .int8: return .integer(Int64(unsafeBitCast(value, to: Int8.self)))
        case .uint: return .integer(try options.int64(unsafeBitCast(value, to: UInt.self), codingPath: codingPath))
        case .uint64: return .integer(try options.int64(unsafeBitCast(value, to: UInt64.self), codingPath: codingPath))
        case .uint32: return .integer(Int64(unsafeBitCast(value, to: UInt32.self)))
        case .uint16: return .integer(Int64(unsafeBitCast(value, to: UInt16.self)))
        case .uint8: return .integer(Int64(unsafeBitCast(value, to: UInt8.self)))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let map: MapBox
        if case .map(let existing) = storage {
            map = existing
        } else {
            map = MapBox()
            storage = .map(map)
        }
        let raw = bypassKeyStrategy
        bypassKeyStrategy = false
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, map: map, rawKeys: raw))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: ArrayBox
        if case .array(let existing) = storage {
            array = existing
        } else {
            array = ArrayBox()
            storage = .array(array)
        }
        return UnkeyedContainer(encoder: self, array: array)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { SingleValueContainer(encoder: self) }

    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: ValueEncoderImpl
        let map: MapBox
        let rawKeys: Bool

        var codingPath: [any CodingKey] { encoder.codingPath }

        func mapKey(_ key: Key) -> String {
            rawKeys ? key.stringValue : encoder.options.mapKey(key, codingPath: encoder.codingPath)
        }

        mutating func encodeNil(forKey key: Key) throws { map.set(mapKey(key), .value(.null)) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if T.self == DocumentIDMarker.self { return }
            if T.self == FirePackUnknownFields.self { return map.addUnknownFields(value as! FirePackUnknownFields) }
            map.set(mapKey(key), .value(try encoder.child(.key(key)).box(value)))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = MapBox()
            map.set(mapKey(key), .map(nested))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder.child(.key(key)), map: nested, rawKeys: false))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = ArrayBox()
            map.set(mapKey(key), .array(nested))
            return UnkeyedContainer(encoder: encoder.child(.key(key)), array: nested)
        }

        mutating func superEncoder() -> any Encoder {
            let nested = encoder.child(.superKey)
            map.set(AnyCodingKey.superKey.stringValue, .encoder(nested))
            return nested
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            let nested = encoder.child(.key(key))
            map.set(mapKey(key), .encoder(nested))
            return nested
        }
    }

    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: ValueEncoderImpl
        let array: ArrayBox

        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { array.nodes.count }

        mutating func encodeNil() throws { array.nodes.append(.value(.null)) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            array.nodes.append(.value(try encoder.child(.index(count)).box(value)))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = MapBox()
            let child = encoder.child(.index(count))
            array.nodes.append(.map(nested))
            return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: child, map: nested, rawKeys: false))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = ArrayBox()
            let child = encoder.child(.index(count))
            array.nodes.append(.array(nested))
            return UnkeyedContainer(encoder: child, array: nested)
        }

        mutating func superEncoder() -> any Encoder {
            let nested = encoder.child(.index(count))
            array.nodes.append(.encoder(nested))
            return nested
        }
    }

    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: ValueEncoderImpl
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil() throws { encoder.storage = .value(.null) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            encoder.storage = .value(try encoder.box(value))
        }
    }
}
