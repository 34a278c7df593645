import Foundation

/// Marks `[String: T]`, whose keys no key strategy may change.
protocol StringKeyedDictionaryMarker {}
extension Dictionary: StringKeyedDictionaryMarker where Key == String {}

extension DecoderImpl {
    /// A map read in place. `find` starts where the previous match ended (its resume point lives in the decoder,
    /// one per depth, tagged with the map's offset) and wraps around once, so keys asked for in written order cost
    /// one key comparison each, and any order still works.
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let decoder: DecoderImpl
        let header: ContainerHeader
        let mapOffset: Int
        /// Containers enclosing the map itself; its values are one deeper.
        let depth: Int
        let pathDepth: Int
        /// Stored keys converted by the key strategy, with where each entry starts (nil with default keys).
        let convertedKeys: [(key: String, entry: Int)]?

        init(decoder: DecoderImpl, header: ContainerHeader) throws {
            self.decoder = decoder
            self.header = header
            mapOffset = decoder.offset
            depth = decoder.depth
            pathDepth = decoder.path.count
            if decoder.options.usesDefaultKeys || decoder.bypassKeyStrategy {
                decoder.bypassKeyStrategy = false
                convertedKeys = nil
            } else {
                convertedKeys = try Self.convertKeys(decoder: decoder, header: header)
            }
            while decoder.keyCursors.count <= depth { decoder.keyCursors.append(KeyCursor(map: -1, offset: 0, index: 0)) }
            decoder.keyCursors[depth] = KeyCursor(map: mapOffset, offset: header.bodyStart, index: 0)
        }

        var codingPath: [any CodingKey] { decoder.path.prefix(pathDepth).map(\.codingKey) }

        var allKeys: [Key] {
            if let convertedKeys { return convertedKeys.compactMap { Key(stringValue: $0.key) } }
            var keys: [Key] = []
            try? forEachEntry { start, count, _, _ in
                guard UTF8Validation.firstInvalidOffset(decoder.input.base, start: start, count: count) == nil else { return }
                if let key = Key(stringValue: UTF8Validation.makeString(validated: decoder.input.bytes(from: start, count: count))) {
                    keys.append(key)
                }
            }
            return keys
        }

        func contains(_ key: Key) -> Bool { (try? find(key)) != nil }

        /// Calls `body` with each entry's key bytes and value position.
        func forEachEntry(_ body: (Int, Int, Int, Int) throws -> Void) throws {
            let input = decoder.input
            var position = header.bodyStart
            for _ in 0..<header.count {
                let (start, count, afterKey) = try decoder.wrap { () throws(FirePackError) in try input.readKey(at: position, limit: header.end) }
                let valueEnd = try decoder.wrap { () throws(FirePackError) in try input.valueEnd(at: afterKey, limit: header.end) }
                try body(start, count, afterKey, valueEnd)
                position = valueEnd
            }
        }

        static func convertKeys(decoder: DecoderImpl, header: ContainerHeader) throws -> [(key: String, entry: Int)] {
            var result: [(key: String, entry: Int)] = []
            let input = decoder.input
            var position = header.bodyStart
            for _ in 0..<header.count {
                let entry = position
                let (start, count, afterKey) = try decoder.wrap { () throws(FirePackError) in try input.readKey(at: position, limit: header.end) }
                try decoder.wrap { () throws(FirePackError) in try input.validateUTF8(start: start, count: count, what: "key") }
                let raw = UTF8Validation.makeString(validated: input.bytes(from: start, count: count))
                switch decoder.options.keyStrategy {
                case .useDefaultKeys: result.append((raw, entry))
                case .convertFromSnakeCase: result.append((KeyConversion.camelCase(raw), entry))
                case .custom(let convert):
                    result.append((convert(decoder.codingPath.prefix(decoder.path.count) + [AnyCodingKey(stringValue: raw)]).stringValue, entry))
                }
                position = try decoder.wrap { () throws(FirePackError) in try input.valueEnd(at: afterKey, limit: header.end) }
            }
            return result
        }

        /// Where the value for `key` is, or nil when the map does not hold it.
        @inline(__always)
        func find(_ key: Key) throws -> (offset: Int, end: Int)? {
            try find(named: key.stringValue)
        }

        /// Where the value for the key called `name` is, or nil when the map does not hold it.
        func find(named name: String) throws -> (offset: Int, end: Int)? {
            let input = decoder.input
            if let convertedKeys {
                guard let entry = convertedKeys.first(where: { $0.key == name })?.entry else { return nil }
                let (_, _, afterKey) = try decoder.wrap { () throws(FirePackError) in try input.readKey(at: entry, limit: header.end) }
                return (afterKey, try decoder.wrap { () throws(FirePackError) in try input.valueEnd(at: afterKey, limit: header.end) })
            }
            var cursor = decoder.keyCursors[depth]
            if cursor.map != mapOffset { cursor = KeyCursor(map: mapOffset, offset: header.bodyStart, index: 0) }
            return try name.utf8.withContiguousStorageIfAvailable { wanted in
                try search(for: UnsafeRawBufferPointer(wanted), from: cursor)
            } ?? search(for: Array(name.utf8), from: cursor)
        }

        private func search(for wanted: [UInt8], from cursor: KeyCursor) throws -> (offset: Int, end: Int)? {
            try wanted.withUnsafeBytes { try search(for: $0, from: cursor) }
        }

        private func search(for wanted: UnsafeRawBufferPointer, from cursor: KeyCursor) throws -> (offset: Int, end: Int)? {
            let input = decoder.input
            var position = cursor.offset, index = cursor.index
            for _ in 0..<header.count {
                if index == header.count {
                    index = 0
                    position = header.bodyStart
                }
                let (start, count, afterKey) = try decoder.wrap { () throws(FirePackError) in try input.readKey(at: position, limit: header.end) }
                let valueEnd = try decoder.wrap { () throws(FirePackError) in try input.valueEnd(at: afterKey, limit: header.end) }
                if count == wanted.count && (count == 0 || memcmp(input.base + start, wanted.baseAddress!, count) == 0) {
                    decoder.keyCursors[depth] = KeyCursor(map: mapOffset, offset: valueEnd, index: index + 1)
                    return (afterKey, valueEnd)
                }
                position = valueEnd
                index += 1
            }
            return nil
        }

        func keyNotFound(_ key: Key) -> DecodingError {
            .keyNotFound(key, decoder.contextAtPath(codingPath, "No value for key \(key.stringValue.debugDescription) in the map", at: mapOffset))
        }

        /// Runs `body` with `key` on top of the coding path.
        @inline(__always)
        func with<R>(_ key: Key, _ body: () throws -> R) rethrows -> R {
            if decoder.path.count != pathDepth { decoder.path.removeSubrange(min(pathDepth, decoder.path.count)...) }
            decoder.path.append(.key(key))
            defer { decoder.path.removeLast() }
            return try body()
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            guard let (offset, end) = try find(key) else { throw keyNotFound(key) }
            return (try? decoder.input.tag(at: offset, limit: end)) == Tag.null
        }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            guard let (offset, end) = try find(key) else { throw keyNotFound(key) }
            return try with(key) { try decoder.decode(type, at: offset, end: end, depth: depth + 1) }
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            if T.self == DocumentIDMarker.self { return DocumentIDMarker(reference: decoder.options.reference) as? T }
            guard let (offset, end) = try find(key) else { return nil }
            if (try? decoder.input.tag(at: offset, limit: end)) == Tag.null { return nil }
            return try with(key) { try decoder.decode(type, at: offset, end: end, depth: depth + 1) }
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try nestedDecoder(for: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try nestedDecoder(for: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            try nestedDecoder(entry: .superKey, name: AnyCodingKey.superKey.stringValue)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            try nestedDecoder(entry: .key(key), name: key.stringValue)
        }

        private func nestedDecoder(for key: Key) throws -> DecoderImpl {
            guard let (offset, end) = try find(key) else { throw keyNotFound(key) }
            return decoder.child(at: offset, end: end, depth: depth + 1, path: Array(decoder.path.prefix(pathDepth)) + [.key(key)])
        }

        /// A decoder for the value at `name` (null when the map lacks it, as Foundation does).
        private func nestedDecoder(entry: PathEntry, name: String) throws -> DecoderImpl {
            let path = Array(decoder.path.prefix(pathDepth)) + [entry]
            guard let (offset, end) = try find(named: name) else {
                return DecoderImpl.null(options: decoder.options, path: path)
            }
            return decoder.child(at: offset, end: end, depth: depth + 1, path: path)
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type as Bool.Type, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type as String.Type, key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type as Double.Type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type as Float.Type, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type as Int.Type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type as Int8.Type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type as Int16.Type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type as Int32.Type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type as Int64.Type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type as UInt.Type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type as UInt8.Type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type as UInt16.Type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type as UInt32.Type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type as UInt64.Type, key) }

        /// The scalar overloads share one generic path (`decodeScalar` dispatches on the type).
        @inline(__always)
        private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            guard let (offset, end) = try find(key) else { throw keyNotFound(key) }
            return try with(key) { try decoder.decode(type, at: offset, end: end, depth: depth + 1) }
        }
    }
}
