#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Codable encoder: the one implementation of `Encoder` behind `FirePackEncoder`, over a sink that decides where
/// values go (`EncodingSink`: bytes in order, or a tree).
///
/// The rules of Codable live here once: the coding path, the key strategy, the native types (`NativeType`) and the
/// strategies for them, generated coding, `@DocumentID`, unknown fields. The containers are in
/// `EncoderImpl+Containers.swift`.
final class EncoderImpl<Sink: EncodingSink>: Encoder {
    /// Where values go. Accessed without exclusivity checks, as the decoder's state is (see `DecoderState`): an
    /// encoder is used by one call on one thread, and no access overlaps another.
    @exclusivity(unchecked) var sink: Sink
    let options: EncoderOptions
    /// The coding path. With a sink that writes in order, one stack serves the whole value: a container keeps its
    /// depth and cuts the stack back to it before each entry.
    @exclusivity(unchecked) var path: [PathEntry]
    /// Where the value whose `encode(to:)` is running goes: what `container(keyedBy:)` and its siblings write at.
    @exclusivity(unchecked) var valueStart: Sink.Position
    /// Set while encoding `[String: T]`, whose keys the key strategy must not touch.
    @exclusivity(unchecked) var bypassKeyStrategy = false
    /// The last answers to "is this a dictionary keyed by raw values?" (RawKeyedDictionary.swift).
    @exclusivity(unchecked) var rawKeyedTypes = GeneratedConformanceMemo<any RawKeyedEncodableDictionary.Type>()

    init(sink: Sink, options: EncoderOptions, path: [PathEntry] = [], at position: Sink.Position) {
        self.sink = sink
        self.options = options
        self.path = path
        valueStart = position
    }

    var codingPath: [any CodingKey] { path.map(\.codingKey) }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    /// Writes one value at `position` (a root value, an array element, or a map value).
    func encodeValue<T: Encodable>(_ value: T, at position: Sink.Position) throws {
        switch NativeType(T.self) {
        case .scalar(let scalar)?: try writeScalar(scalar, value, at: position, codingPath: codingPath)
        case .special(let kind)?: try writeSpecial(kind, value, at: position)
        case nil:
            if !options.usesDefaultKeys {
                if T.self is StringKeyedDictionaryMarker.Type { bypassKeyStrategy = true }
            } else if options.usesGeneratedCoding, try Sink.encodeGenerated(value, encoder: self) {
                return
            }
            if rawKeyedTypes.conformance(of: T.self, { $0 as? any RawKeyedEncodableDictionary.Type }) != nil {
                try encodeNested(at: position) { try (value as! any RawKeyedEncodableDictionary).encodeAsMap(to: self) }
                return
            }
            try encodeNested(at: position) { try value.encode(to: self) }
        }
    }

    /// Writes a value of a type `NativeSpecial` names, by this encoder's strategies.
    func writeSpecial<T>(_ kind: NativeSpecial, _ value: T, at position: Sink.Position) throws {
        switch try options.special(kind, value) {
        case .value(let native): sink.write(native, at: position)
        case .skip:
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath,
                debugDescription: "@DocumentID can only be a property of a keyed type"))
        case .custom(let encode): try encodeNested(at: position) { try encode(self) }
        }
    }

    /// Runs an `encode(to:)` for the value at `position`, then lets the sink close what it left open.
    func encodeNested(at position: Sink.Position, _ body: () throws -> Void) throws {
        let saved = valueStart
        valueStart = position
        defer { valueStart = saved }
        try body()
        try sink.finishValue(at: position)
    }

    /// Writes the value of an entry (`.key`) or element (`.index`) of a container at `pathDepth`, at `position`.
    @inline(__always)
    func encodeChild<T: Encodable>(_ value: T, at position: Sink.Position, pathDepth: Int, entry: PathEntry) throws {
        if Sink.writesInOrder {
            cutPath(to: pathDepth)
            let depth = path.count
            path.append(entry)
            defer { cutPath(to: depth) }
            try encodeValue(value, at: position)
        } else if let scalar = NativeScalar(T.self) {
            try writeScalar(scalar, value, at: position, codingPath: self.path(to: pathDepth, then: entry))
        } else {
            try descendant(at: position, pathDepth: pathDepth, entry: entry).encodeValue(value, at: position)
        }
    }

    /// The encoder for a container nested at `position` under `entry`: this one, its path cut back and extended, when
    /// the sink writes in order; otherwise one of its own, since the container may be used after its siblings.
    func descendant(at position: Sink.Position, pathDepth: Int, entry: PathEntry) -> EncoderImpl {
        if Sink.writesInOrder {
            cutPath(to: pathDepth)
            path.append(entry)
            return self
        }
        return EncoderImpl(sink: sink, options: options, path: Array(path.prefix(pathDepth)) + [entry], at: position)
    }

    /// Cuts the coding path back to `depth` entries (those of a container being written again).
    @inline(__always)
    func cutPath(to depth: Int) {
        if path.count > depth { path.removeSubrange(depth...) }
    }

    /// The coding path of a container at `depth`, followed by `entry`.
    func path(to depth: Int, then entry: PathEntry) -> [any CodingKey] {
        path.prefix(depth).map(\.codingKey) + [entry.codingKey]
    }

    /// The map key for a coding key of a container at `pathDepth`: converted by the key strategy unless `raw`.
    @inline(__always)
    func mapKey(_ key: some CodingKey, raw: Bool, pathDepth: Int) -> String {
        if raw || options.usesDefaultKeys { return key.stringValue }
        return options.mapKey(key, codingPath: path.prefix(pathDepth).map(\.codingKey))
    }

    /// Writes a double, or what the non-conforming float strategy makes of NaN and ±∞.
    @inline(__always)
    func writeDouble(_ double: Double, at position: Sink.Position, codingPath: @autoclosure () -> [any CodingKey]) throws {
        if !double.isFinite, let string = try options.nonConforming(double, codingPath: codingPath()) {
            sink.writeString(string, at: position)
        } else {
            sink.writeDouble(double, at: position)
        }
    }

    /// Writes a scalar without a detour (`NativeScalar`; the value is reinterpreted with `unsafeBitCast`, the types
    /// being identical): the one place the coders turn Swift's scalars into FirePack's.
    @inline(__always)
    func writeScalar<T>(_ scalar: NativeScalar, _ value: T, at position: Sink.Position,
                        codingPath: @autoclosure () -> [any CodingKey]) throws {
        switch scalar {
        case .string: sink.writeString(unsafeBitCast(value, to: String.self), at: position)
        case .int: sink.writeInteger(Int64(unsafeBitCast(value, to: Int.self)), at: position)
        case .bool: sink.writeBoolean(unsafeBitCast(value, to: Bool.self), at: position)
        case .double: try writeDouble(unsafeBitCast(value, to: Double.self), at: position, codingPath: codingPath())
        case .int64: sink.writeInteger(unsafeBitCast(value, to: Int64.self), at: position)
        case .float: try writeDouble(Double(unsafeBitCast(value, to: Float.self)), at: position, codingPath: codingPath())
        case .int32: sink.writeInteger(Int64(unsafeBitCast(value, to: Int32.self)), at: position)
        case .int16: sink.writeInteger(Int64(unsafeBitCast(value, to: Int16.self)), at: position)
        case .int8: sink.writeInteger(Int64(unsafeBitCast(value, to: Int8.self)), at: position)
        case .uint:
            sink.writeInteger(try options.int64(unsafeBitCast(value, to: UInt.self), codingPath: codingPath()), at: position)
        case .uint64:
            sink.writeInteger(try options.int64(unsafeBitCast(value, to: UInt64.self), codingPath: codingPath()), at: position)
        case .uint32: sink.writeInteger(Int64(unsafeBitCast(value, to: UInt32.self)), at: position)
        case .uint16: sink.writeInteger(Int64(unsafeBitCast(value, to: UInt16.self)), at: position)
        case .uint8: sink.writeInteger(Int64(unsafeBitCast(value, to: UInt8.self)), at: position)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let raw = bypassKeyStrategy
        bypassKeyStrategy = false
        let map = sink.container(at: valueStart, isMap: true)
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, map: map, pathDepth: path.count, rawKeys: raw))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(encoder: self, array: sink.container(at: valueStart, isMap: false), pathDepth: path.count)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self, position: valueStart, pathDepth: path.count)
    }
}

extension EncoderImpl where Sink == ByteSink {
    /// An encoder writing at `writer`'s position.
    convenience init(writer: FirePackWriter, options: EncoderOptions) {
        let sink = ByteSink(writer: writer)
        self.init(sink: sink, options: options, at: sink.currentPosition)
    }
}

extension EncoderImpl where Sink == TreeSink {
    /// `value` as a `Value` tree, by `options`.
    static func tree<T: Encodable>(of value: T, options: EncoderOptions) throws -> Value {
        let sink = TreeSink()
        let encoder = EncoderImpl(sink: sink, options: options, at: sink.root)
        try encoder.encodeValue(value, at: sink.root)
        return encoder.sink.value
    }
}
