#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fast encoder: one object for a whole value, writing straight into a `FirePackWriter`.
///
/// Codable never says when a container is finished, so containers are closed lazily: a container that is written
/// to first closes every container opened inside it since (those are finished, since Codable code writes in order),
/// and a value's `encode(to:)` returning closes whatever it left open. A container written to after it was closed,
/// a key written twice, or a super encoder, throw `NeedsTree` and the value is encoded through `ValueEncoder`.
final class StreamingEncoder: Encoder {
    /// Thrown when the fast path cannot honour what the type does; the caller re-encodes through a tree.
    struct NeedsTree: Error {}

    let writer: FirePackWriter
    let options: EncoderOptions
    /// The mutable state, accessed without exclusivity checks (see `DecoderState`).
    @exclusivity(unchecked) var state: StreamingEncoderState

    init(writer: FirePackWriter, options: EncoderOptions) {
        self.writer = writer
        self.options = options
        state = StreamingEncoderState()
    }

    var path: [PathEntry] {
        get { state.path }
        _modify { yield &state.path }
    }
    /// The identity of the Codable container behind each open writer container, outermost first.
    var openContainers: [Int] {
        get { state.openContainers }
        _modify { yield &state.openContainers }
    }
    var nextContainerID: Int {
        get { state.nextContainerID }
        set { state.nextContainerID = newValue }
    }
    /// Where the value being encoded started (to catch a second value written through one encoder).
    var valueStart: Int {
        get { state.valueStart }
        set { state.valueStart = newValue }
    }
    /// Set while encoding `[String: T]`, whose keys the key strategy must not touch.
    var bypassKeyStrategy: Bool {
        get { state.bypassKeyStrategy }
        set { state.bypassKeyStrategy = newValue }
    }

    var codingPath: [any CodingKey] { path.map(\.codingKey) }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func encodeRoot<T: Encodable>(_ value: T) throws {
        try encodeValue(value)
    }

    /// Writes one value at the writer's current position (a root value, an array element, or a map value).
    func encodeValue<T: Encodable>(_ value: T) throws {
        switch NativeType(T.self) {
        case .scalar(let scalar)?: try encodeScalar(scalar, value)
        case .special(let kind)?:
            switch try options.special(kind, value) {
            case .value(let native): writer.write(native)
            case .skip: throw NeedsTree()
            case .custom(let encode): try encodeNested { try encode(self) }
            }
        case nil:
            if !options.usesDefaultKeys {
                if T.self is StringKeyedDictionaryMarker.Type { bypassKeyStrategy = true }
            } else if options.usesGeneratedCoding,
                      let generated = state.generatedTypes.conformance(of: T.self, { $0 as? any FirePackEncodable.Type }) {
                // Generated coding (`@FirePackCodable`), at this same position.
                try generated.encodeGenerated(value, encoder: self)
                return
            }
            if state.rawKeyedTypes.conformance(of: T.self, { $0 as? any RawKeyedEncodableDictionary.Type }) != nil {
                try encodeNested { try (value as! any RawKeyedEncodableDictionary).encodeAsMap(to: self) }
                return
            }
            try encodeNested { try value.encode(to: self) }
        }
    }

    /// Runs an `encode(to:)` for the value at the current position, then closes what it opened; a value that wrote
    /// nothing is an empty map, as with JSONEncoder.
    func encodeNested(_ body: () throws -> Void) throws {
        let savedStart = valueStart
        let depth = writer.depth
        valueStart = writer.writerIndex
        defer { valueStart = savedStart }
        try body()
        try close(downTo: depth)
        if writer.writerIndex == valueStart {
            writer.beginMap()
            writer.endMap()
        }
    }

    /// Closes open containers until the writer is back at `depth`.
    func close(downTo depth: Int) throws {
        while writer.depth > depth {
            if writer.top.isMap {
                guard writer.top.expectingKey else { throw NeedsTree() }
                writer.endMap()
            } else {
                writer.endArray()
            }
            openContainers.removeLast()
        }
    }

    /// Makes the container `id` at writer depth `depth` the innermost open one, closing finished nested containers;
    /// throws `NeedsTree` if it was closed already.
    @inline(__always)
    func activate(_ id: Int, depth: Int) throws {
        if writer.depth != depth { try close(downTo: depth) }
        guard writer.depth == depth, openContainers.last == id else { throw NeedsTree() }
    }

    /// Opens a container for the value at the current position and returns its identity.
    func openContainer(map: Bool) -> Int {
        map ? writer.beginMap() : writer.beginArray()
        nextContainerID += 1
        openContainers.append(nextContainerID)
        return nextContainerID
    }

    /// Whether the value at the current position is already a container opened by this same encoder call.
    func reopenableContainer(map: Bool) -> Int? {
        guard writer.writerIndex != valueStart else { return nil }
        // Asking twice for the same kind of container of one value is allowed: it is the same container.
        guard writer.depth >= 1, writer.top.isMap == map, writer.top.headerStart == valueStart, let id = openContainers.last else { return nil }
        return id
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let bypass = bypassKeyStrategy
        bypassKeyStrategy = false
        if writer.writerIndex != valueStart {
            if let id = reopenableContainer(map: true) {
                return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, id: id, depth: writer.depth, pathDepth: path.count, rawKeys: bypass))
            }
            return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, id: -1, depth: -1, pathDepth: path.count, rawKeys: bypass))
        }
        let id = openContainer(map: true)
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, id: id, depth: writer.depth, pathDepth: path.count, rawKeys: bypass))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if writer.writerIndex != valueStart {
            let id = reopenableContainer(map: false) ?? -1
            return UnkeyedContainer(encoder: self, id: id, depth: id < 0 ? -1 : writer.depth, pathDepth: path.count)
        }
        let id = openContainer(map: false)
        return UnkeyedContainer(encoder: self, id: id, depth: writer.depth, pathDepth: path.count)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self, start: valueStart, depth: writer.depth, pathDepth: path.count)
    }

    /// Writes a map key (converted by the key strategy unless `raw`); a key already in the map needs the tree path.
    @inline(__always)
    func writeKey(_ key: some CodingKey, raw: Bool, pathDepth: Int) throws {
        let written: Bool
        if raw || options.usesDefaultKeys {
            written = writer.writeKey(key.stringValue)
        } else {
            written = writer.writeKey(options.mapKey(key, codingPath: self.path.prefix(pathDepth).map(\.codingKey)))
        }
        if !written { throw NeedsTree() }
    }

    /// Writes a double, or what the non-conforming float strategy makes of NaN and ±∞.
    @inline(__always)
    func writeDouble(_ double: Double) throws {
        if !double.isFinite, let string = try options.nonConforming(double, codingPath: codingPath) {
            writer.writeString(string)
        } else {
            writer.writeDouble(double)
        }
    }

    /// Writes a scalar without a detour (`NativeScalar`; the value is reinterpreted with `unsafeBitCast`).
    @inline(__always)
    func encodeScalar<T>(_ scalar: NativeScalar, _ value: T) throws {
        switch scalar {
        case .string: writer.writeString(unsafeBitCast(value, to: String.self))
        case .int: writer.writeInteger(Int64(unsafeBitCast(value, to: Int.self)))
        case .bool: writer.writeBoolean(unsafeBitCast(value, to: Bool.self))
        case .double: try writeDouble(unsafeBitCast(value, to: Double.self))
        case .int64: writer.writeInteger(unsafeBitCast(value, to: Int64.self))
        case .float: try writeDouble(Double(unsafeBitCast(value, to: Float.self)))
        case .int32: writer.writeInteger(Int64(unsafeBitCast(value, to: Int32.self)))
        case .int16: writer.writeInteger(Int64(unsafeBitCast(value, to: Int16.self)))
        case .int8: writer.writeInteger(Int64(unsafeBitCast(value, to: Int8.self)))
        case .uint: writer.writeInteger(try options.int64(unsafeBitCast(value, to: UInt.self), codingPath: codingPath))
        case .uint64: writer.writeInteger(try options.int64(unsafeBitCast(value, to: UInt64.self), codingPath: codingPath))
        case .uint32: writer.writeInteger(Int64(unsafeBitCast(value, to: UInt32.self)))
        case .uint16: writer.writeInteger(Int64(unsafeBitCast(value, to: UInt16.self)))
        case .uint8: writer.writeInteger(Int64(unsafeBitCast(value, to: UInt8.self)))
        }
    }
}

/// The streaming encoder's mutable state (see `StreamingEncoder.state`).
struct StreamingEncoderState {
    var path: [PathEntry] = []
    var openContainers: [Int] = []
    var nextContainerID = 0
    var valueStart = 0
    var bypassKeyStrategy = false
    /// Which types met so far have generated coding.
    var generatedTypes = GeneratedConformanceMemo<any FirePackEncodable.Type>()
    /// The last answers to "is this a dictionary keyed by raw values?" (RawKeyedDictionary.swift).
    var rawKeyedTypes = GeneratedConformanceMemo<any RawKeyedEncodableDictionary.Type>()
}
