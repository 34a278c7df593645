extension EncoderImpl {
    /// A map being written: its sink container and the depth of the coding path at it.
    struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: EncoderImpl
        var map: EncoderImpl.Container
        let pathDepth: Int

        var codingPath: [any CodingKey] { encoder.path.prefix(pathDepth).map(\.codingKey) }

        @inline(__always)
        func mapKey(_ key: Key) -> String { encoder.mapKey(key, pathDepth: pathDepth) }

        mutating func encodeNil(forKey key: Key) throws {
            let position = try encoder.entry(mapKey(key), of: map)
            encoder.setNull(at: position)
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            // A @DocumentID is never written.
            if T.self == DocumentIDMarker.self { return }
            // A bag's entries are this map's own (UnknownFields.swift).
            if T.self == FirePackUnknownFields.self {
                return try encoder.addUnknownFields(value as! FirePackUnknownFields, to: map)
            }
            let position = try encoder.entry(mapKey(key), of: map)
            try encoder.encodeChild(value, at: position, pathDepth: pathDepth, entry: .key(key))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type,
            forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            guard let position = encoder.place({ try encoder.containerEntry(mapKey(key), of: map) }) else {
                return KeyedEncodingContainer(
                    KeyedContainer<NestedKey>(
                        encoder: encoder, map: EncoderImpl.unusableContainer,
                        pathDepth: pathDepth + 1))
            }
            let nested = encoder.descendant(at: position, pathDepth: pathDepth, entry: .key(key))
            return KeyedEncodingContainer(
                KeyedContainer<NestedKey>(
                    encoder: nested, map: nested.container(at: position, isMap: true),
                    pathDepth: pathDepth + 1))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            guard let position = encoder.place({ try encoder.containerEntry(mapKey(key), of: map) }) else {
                return UnkeyedContainer(
                    encoder: encoder, array: EncoderImpl.unusableContainer, pathDepth: pathDepth + 1)
            }
            let nested = encoder.descendant(at: position, pathDepth: pathDepth, entry: .key(key))
            return UnkeyedContainer(
                encoder: nested, array: nested.container(at: position, isMap: false), pathDepth: pathDepth + 1)
        }

        mutating func superEncoder() -> any Encoder {
            laterEncoder(mapKey: AnyCodingKey.superKey.stringValue, entry: .superKey)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            laterEncoder(mapKey: mapKey(key), entry: .key(key))
        }

        /// A super encoder: it writes later, after its siblings, which only a tree allows. Over bytes, its entry is
        /// written at once as an empty map, what an unused one leaves (as JSONEncoder does, and as the tree does);
        /// a write to it is out of order, and the value is encoded again into a tree.
        func laterEncoder(mapKey: String, entry: PathEntry) -> any Encoder {
            if encoder.writesInOrder, let position = encoder.place({ try encoder.entry(mapKey, of: map) }) {
                try? encoder.finishValue(at: position)
            }
            guard !encoder.writesInOrder, let position = try? encoder.entry(mapKey, of: map) else {
                return UnusableEncoder(codingPath: codingPath, standsInFor: encoder)
            }
            return EncoderImpl(
                tree: encoder.tree.unsafelyUnwrapped, options: encoder.options,
                path: Array(encoder.path.prefix(pathDepth)) + [entry], at: position)
        }
    }

    /// An array being written.
    struct UnkeyedContainer: UnkeyedEncodingContainer {
        let encoder: EncoderImpl
        let array: EncoderImpl.Container
        let pathDepth: Int
        private(set) var count = 0

        init(encoder: EncoderImpl, array: EncoderImpl.Container, pathDepth: Int) {
            self.encoder = encoder
            self.array = array
            self.pathDepth = pathDepth
        }

        var codingPath: [any CodingKey] { encoder.path.prefix(pathDepth).map(\.codingKey) }

        mutating func encodeNil() throws {
            let position = try encoder.element(of: array)
            encoder.setNull(at: position)
            count += 1
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            let position = try encoder.element(of: array)
            try encoder.encodeChild(value, at: position, pathDepth: pathDepth, entry: .index(count))
            count += 1
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
            NestedKey
        > {
            guard let position = encoder.place({ try encoder.element(of: array) }) else {
                return KeyedEncodingContainer(
                    KeyedContainer<NestedKey>(
                        encoder: encoder, map: EncoderImpl.unusableContainer,
                        pathDepth: pathDepth + 1))
            }
            let nested = encoder.descendant(at: position, pathDepth: pathDepth, entry: .index(count))
            count += 1
            return KeyedEncodingContainer(
                KeyedContainer<NestedKey>(
                    encoder: nested, map: nested.container(at: position, isMap: true),
                    pathDepth: pathDepth + 1))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            guard let position = encoder.place({ try encoder.element(of: array) }) else {
                return UnkeyedContainer(
                    encoder: encoder, array: EncoderImpl.unusableContainer, pathDepth: pathDepth + 1)
            }
            let nested = encoder.descendant(at: position, pathDepth: pathDepth, entry: .index(count))
            count += 1
            return UnkeyedContainer(
                encoder: nested, array: nested.container(at: position, isMap: false), pathDepth: pathDepth + 1)
        }

        /// An element's super encoder; over bytes, an empty map at once, as `KeyedContainer.laterEncoder` says.
        mutating func superEncoder() -> any Encoder {
            if encoder.writesInOrder, let position = encoder.place({ try encoder.element(of: array) }) {
                try? encoder.finishValue(at: position)
                count += 1
            }
            guard !encoder.writesInOrder, let position = try? encoder.element(of: array) else {
                return UnusableEncoder(codingPath: codingPath, standsInFor: encoder)
            }
            defer { count += 1 }
            return EncoderImpl(
                tree: encoder.tree.unsafelyUnwrapped, options: encoder.options,
                path: Array(encoder.path.prefix(pathDepth)) + [.index(count)], at: position)
        }
    }

    /// The value at one position, written once.
    /// Three words (the encoder, the twelve-byte position, then the path depth in the last four bytes), so that the
    /// `any SingleValueEncodingContainer` holding it needs no box: a box is an allocation per value.
    struct SingleValueContainer: SingleValueEncodingContainer {
        let encoder: EncoderImpl
        let position: EncoderImpl.Position
        private let depth: Int32

        init(encoder: EncoderImpl, position: EncoderImpl.Position, pathDepth: Int) {
            self.encoder = encoder
            self.position = position
            depth = Int32(truncatingIfNeeded: pathDepth)
        }

        var pathDepth: Int { Int(depth) }
        var codingPath: [any CodingKey] { encoder.path.prefix(pathDepth).map(\.codingKey) }

        @inline(__always)
        func checkUnused() throws {
            guard !encoder.hasValue(at: position) else {
                throw EncodingError.invalidValue(
                    Never?.none as Any,
                    .init(
                        codingPath: codingPath,
                        debugDescription: "A single value container was asked to encode a second value"))
            }
            if encoder.writesInOrder { encoder.cutPath(to: pathDepth) }
        }

        mutating func encodeNil() throws {
            try checkUnused()
            encoder.setNull(at: position)
        }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try checkUnused()
            try encoder.encodeValue(value, at: position)
        }
    }
}

/// Handed out where a sink cannot follow (a super encoder over bytes): any write throws `EncoderImpl.OutOfOrder`, and
/// the value is encoded again into a tree.
struct UnusableEncoder: Encoder {
    let codingPath: [any CodingKey]
    /// The encoder over bytes whose super encoder it stands in for: any container asked of it, even left unused, may
    /// leave something else than the empty map written at once (an empty array, nested entries), so the value takes
    /// the tree (`needsTree`). Only a super encoder never used keeps the bytes.
    var standsInFor: EncoderImpl? = nil
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        standsInFor?.needsTree = true
        return KeyedEncodingContainer(UnusableKeyedContainer<Key>(codingPath: codingPath))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        standsInFor?.needsTree = true
        return UnusableContainer(codingPath: codingPath)
    }
    func singleValueContainer() -> any SingleValueEncodingContainer {
        standsInFor?.needsTree = true
        return UnusableContainer(codingPath: codingPath)
    }
}

/// `UnusableEncoder`'s keyed container.
struct UnusableKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let codingPath: [any CodingKey]
    mutating func encodeNil(forKey key: Key) throws { throw EncoderImpl.OutOfOrder() }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { throw EncoderImpl.OutOfOrder() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(UnusableKeyedContainer<NestedKey>(codingPath: codingPath))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        UnusableContainer(codingPath: codingPath)
    }
    mutating func superEncoder() -> any Encoder { UnusableEncoder(codingPath: codingPath) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { UnusableEncoder(codingPath: codingPath) }
}

/// `UnusableEncoder`'s unkeyed and single-value containers.
struct UnusableContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let codingPath: [any CodingKey]
    var count: Int { 0 }
    mutating func encodeNil() throws { throw EncoderImpl.OutOfOrder() }
    mutating func encode<T: Encodable>(_ value: T) throws { throw EncoderImpl.OutOfOrder() }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        KeyedEncodingContainer(UnusableKeyedContainer<NestedKey>(codingPath: codingPath))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { UnusableEncoder(codingPath: codingPath) }
}
