extension StreamingEncoder {
    /// A map being written; `id`/`depth` identify its writer container (−1 when it cannot be written in place).
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: StreamingEncoder
        let id: Int
        let depth: Int
        let pathDepth: Int
        let rawKeys: Bool

        var codingPath: [any CodingKey] { encoder.path.prefix(pathDepth).map(\.codingKey) }

        /// Positions the writer for an entry of this map and writes its key.
        @inline(__always)
        func beginEntry(_ key: Key) throws {
            guard id >= 0 else { throw NeedsTree() }
            try encoder.activate(id, depth: depth)
            try encoder.writeKey(key, raw: rawKeys, pathDepth: pathDepth)
        }

        @inline(__always)
        func with(_ key: Key, _ body: () throws -> Void) throws {
            if encoder.path.count != pathDepth { encoder.path.removeSubrange(min(pathDepth, encoder.path.count)...) }
            encoder.path.append(.key(key))
            defer { encoder.path.removeLast() }
            try body()
        }

        mutating func encodeNil(forKey key: Key) throws {
            try beginEntry(key)
            encoder.writer.writeNull()
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            // A @DocumentID is never written.
            if T.self == DocumentIDMarker.self { return }
            if T.self == FirePackUnknownFields.self {
                // Its entries are this map's (UnknownFields.swift); a key the map holds already takes the tree path.
                guard id >= 0 else { throw NeedsTree() }
                try encoder.activate(id, depth: depth)
                guard encoder.writer.writeUnknownFields(value as! FirePackUnknownFields, sortingKeys: false) else { throw NeedsTree() }
                return
            }
            try beginEntry(key)
            try with(key) { try encoder.encodeValue(value) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            do {
                try beginEntry(key)
                let nestedID = encoder.openContainer(map: true)
                return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, id: nestedID, depth: encoder.writer.depth,
                                                                         pathDepth: pathDepth + 1, rawKeys: false))
            } catch {
                return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, id: -1, depth: -1, pathDepth: pathDepth + 1, rawKeys: false))
            }
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            do {
                try beginEntry(key)
                let nestedID = encoder.openContainer(map: false)
                return UnkeyedContainer(encoder: encoder, id: nestedID, depth: encoder.writer.depth, pathDepth: pathDepth + 1)
            } catch {
                return UnkeyedContainer(encoder: encoder, id: -1, depth: -1, pathDepth: pathDepth + 1)
            }
        }

        /// Super encoders write later than their key; they go through the tree path.
        mutating func superEncoder() -> any Encoder { FailingEncoder(codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { FailingEncoder(codingPath: codingPath) }
    }

    /// An array being written.
    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: StreamingEncoder
        let id: Int
        let depth: Int
        let pathDepth: Int
        private(set) var count = 0

        init(encoder: StreamingEncoder, id: Int, depth: Int, pathDepth: Int) {
            self.encoder = encoder
            self.id = id
            self.depth = depth
            self.pathDepth = pathDepth
        }

        var codingPath: [any CodingKey] { encoder.path.prefix(pathDepth).map(\.codingKey) }

        @inline(__always)
        func beginElement() throws {
            guard id >= 0 else { throw NeedsTree() }
            try encoder.activate(id, depth: depth)
        }

        mutating func encodeNil() throws {
            try beginElement()
            encoder.writer.writeNull()
            count += 1
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try beginElement()
            if encoder.path.count != pathDepth { encoder.path.removeSubrange(min(pathDepth, encoder.path.count)...) }
            encoder.path.append(.index(count))
            defer { encoder.path.removeLast() }
            try encoder.encodeValue(value)
            count += 1
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            do {
                try beginElement()
                count += 1
                let nestedID = encoder.openContainer(map: true)
                return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, id: nestedID, depth: encoder.writer.depth,
                                                                         pathDepth: pathDepth + 1, rawKeys: false))
            } catch {
                return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, id: -1, depth: -1, pathDepth: pathDepth + 1, rawKeys: false))
            }
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            do {
                try beginElement()
                count += 1
                let nestedID = encoder.openContainer(map: false)
                return UnkeyedContainer(encoder: encoder, id: nestedID, depth: encoder.writer.depth, pathDepth: pathDepth + 1)
            } catch {
                return UnkeyedContainer(encoder: encoder, id: -1, depth: -1, pathDepth: pathDepth + 1)
            }
        }

        mutating func superEncoder() -> any Encoder { FailingEncoder(codingPath: codingPath) }
    }

    /// The value at the current position, written once.
    /// Three words, so that the `any SingleValueEncodingContainer` holding it needs no box (four words, it cost an
    /// allocation per value: two per `BookWithTags`, for its tags' colours, callgrind).
    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: StreamingEncoder
        let start: Int
        /// The writer's depth (high 32 bits) and the coding path's (low 32 bits) when the container was made.
        private let depths: UInt64

        init(encoder: StreamingEncoder, start: Int, depth: Int, pathDepth: Int) {
            self.encoder = encoder
            self.start = start
            depths = UInt64(UInt32(truncatingIfNeeded: depth)) << 32 | UInt64(UInt32(truncatingIfNeeded: pathDepth))
        }

        var depth: Int { Int(depths >> 32) }
        var pathDepth: Int { Int(depths & 0xFFFF_FFFF) }

        var codingPath: [any CodingKey] { encoder.path.prefix(pathDepth).map(\.codingKey) }

        @inline(__always)
        func checkUnused() throws {
            guard encoder.writer.writerIndex == start, encoder.writer.depth == depth else {
                throw EncodingError.invalidValue(Never?.none as Any, .init(codingPath: codingPath,
                    debugDescription: "A single value container was asked to encode a second value"))
            }
        }

        mutating func encodeNil() throws {
            try checkUnused()
            encoder.writer.writeNull()
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try checkUnused()
            try encoder.encodeValue(value)
        }
    }

    /// Handed out where the streaming path cannot follow (super encoders): any use throws `NeedsTree`.
    struct FailingEncoder: Encoder {
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            KeyedEncodingContainer(FailingKeyedContainer<Key>(codingPath: codingPath))
        }
        func unkeyedContainer() -> any UnkeyedEncodingContainer { FailingUnkeyedContainer(codingPath: codingPath) }
        func singleValueContainer() -> any SingleValueEncodingContainer { FailingUnkeyedContainer(codingPath: codingPath) }
    }

    struct FailingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let codingPath: [any CodingKey]
        mutating func encodeNil(forKey key: Key) throws { throw NeedsTree() }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw NeedsTree() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(FailingKeyedContainer<NestedKey>(codingPath: codingPath))
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { FailingUnkeyedContainer(codingPath: codingPath) }
        mutating func superEncoder() -> any Encoder { FailingEncoder(codingPath: codingPath) }
        mutating func superEncoder(forKey key: Key) -> any Encoder { FailingEncoder(codingPath: codingPath) }
    }

    struct FailingUnkeyedContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
        let codingPath: [any CodingKey]
        var count: Int { 0 }
        mutating func encodeNil() throws { throw NeedsTree() }
        mutating func encode<T: Encodable>(_ value: T) throws { throw NeedsTree() }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            KeyedEncodingContainer(FailingKeyedContainer<NestedKey>(codingPath: codingPath))
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
        mutating func superEncoder() -> any Encoder { FailingEncoder(codingPath: codingPath) }
    }
}
