#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Marks `[String: T]`, whose keys no key strategy may change.
protocol StringKeyedDictionaryMarker {}
extension Dictionary: StringKeyedDictionaryMarker where Key == String {}

/// A map read in place; everything a keyed container does that does not depend on its key type.
///
/// `find` starts where the previous match ended (the resume point lives in the decoder, one per depth, tagged with
/// the map's offset) and wraps around once, so keys asked for in written order cost one key comparison each, and
/// any order still works. Kept non-generic so that none of this runs as unspecialized generic code.
struct MapReader {
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
            convertedKeys = try Self.convertKeys(decoder: decoder, header: header, codingPath: decoder.codingPath)
        }
        let cursor = KeyCursor(map: mapOffset, offset: header.bodyStart, index: 0)
        if decoder.keyCursors.count > depth {
            decoder.keyCursors[depth] = cursor
        } else {
            while decoder.keyCursors.count < depth { decoder.keyCursors.append(KeyCursor(map: -1, offset: 0, index: 0)) }
            decoder.keyCursors.append(cursor)
        }
    }

    var codingPath: [any CodingKey] { decoder.path.prefix(pathDepth).map(\.codingKey) }

    /// The keys as strings (converted by the key strategy). `allKeys` cannot throw, so an entry that cannot be read
    /// (a key that is not UTF-8, a damaged length) ends the list with a *damaged-key marker* naming its offset:
    /// decoding that key — as `Dictionary.init(from:)` does for every key it is given — throws the entry's error
    /// with its byte offset. Nothing is skipped in silence.
    func keyNames() -> [String] {
        if let convertedKeys { return convertedKeys.map(\.key) }
        var names: [String] = []
        let input = decoder.input
        var position = header.bodyStart
        for _ in 0..<header.count {
            guard let (start, count, afterKey) = try? input.getKey(at: position, limit: header.end),
                  UTF8Validation.firstInvalidOffset(input.base, start: start, count: count) == nil,
                  let valueEnd = try? input.valueEnd(at: afterKey, limit: header.end) else {
                names.append(Self.damagedKeyMarker + String(position))
                break
            }
            names.append(UTF8Validation.makeString(validated: input.bytes(from: start, count: count)))
            position = valueEnd
        }
        return names
    }

    /// Starts the name `keyNames()` gives an entry that cannot be read (U+FFFD, the replacement character, then the
    /// entry's offset).
    static let damagedKeyMarker = "\u{FFFD}damaged key at byte "

    /// Throws the error of the damaged entry a damaged-key marker names (see `keyNames()`); returns when `name` is not
    /// one, or its entry reads after all.
    func throwIfDamagedKeyMarker(_ name: String) throws {
        guard name.hasPrefix(Self.damagedKeyMarker), let position = Int(name.dropFirst(Self.damagedKeyMarker.count)),
              position >= header.bodyStart, position < header.end else { return }
        let input = decoder.input, limit = header.end
        try decoder.wrap { () throws(FirePackError) in
            let (start, count, afterKey) = try input.getKey(at: position, limit: limit)
            try input.validateUTF8(start: start, count: count, what: "key")
            _ = try input.valueEnd(at: afterKey, limit: limit)
        }
    }

    static func convertKeys(decoder: DecoderImpl, header: ContainerHeader, codingPath: [any CodingKey]) throws -> [(key: String, entry: Int)] {
        var result: [(key: String, entry: Int)] = []
        let input = decoder.input
        var position = header.bodyStart
        for _ in 0..<header.count {
            let entry = position
            let (start, count, afterKey) = try decoder.wrap { () throws(FirePackError) in try input.getKey(at: position, limit: header.end) }
            try decoder.wrap { () throws(FirePackError) in try input.validateUTF8(start: start, count: count, what: "key") }
            let raw = UTF8Validation.makeString(validated: input.bytes(from: start, count: count))
            switch decoder.options.keyStrategy {
            case .useDefaultKeys: result.append((raw, entry))
            case .convertFromSnakeCase: result.append((KeyConversion.camelCase(raw), entry))
            case .custom(let convert): result.append((convert(codingPath + [AnyCodingKey(stringValue: raw)]).stringValue, entry))
            }
            position = try decoder.wrap { () throws(FirePackError) in try input.valueEnd(at: afterKey, limit: header.end) }
        }
        return result
    }

    /// Where the value for the key called `name` is, or nil when the map does not hold it.
    func find(named name: String) throws -> (offset: Int, end: Int)? {
        if let convertedKeys {
            guard let entry = convertedKeys.first(where: { $0.key == name })?.entry else { return nil }
            let input = decoder.input
            let (_, _, afterKey) = try decoder.wrap { () throws(FirePackError) in try input.getKey(at: entry, limit: header.end) }
            return (afterKey, try decoder.wrap { () throws(FirePackError) in try input.valueEnd(at: afterKey, limit: header.end) })
        }
        var name = name
        if let found = try name.withUTF8({ try search(for: UnsafeRawBufferPointer($0)) }) { return found }
        try throwIfDamagedKeyMarker(name)
        return nil
    }

    private func search(for wanted: UnsafeRawBufferPointer) throws -> (offset: Int, end: Int)? {
        var cursor = decoder.keyCursors[depth]
        if cursor.map != mapOffset { cursor = KeyCursor(map: mapOffset, offset: header.bodyStart, index: 0) }
        do {
            var progress = MapEntryCache.Progress()
            guard let found = try Self.search(for: wanted, in: decoder.input, header: header, position: &cursor.offset, index: &cursor.index,
                                              progress: &progress, keys: &decoder.state.keyReferences) else {
                return nil
            }
            decoder.keyCursors[depth] = cursor
            return found
        } catch {
            throw decoder.corrupted(error)
        }
    }

    /// Finds the entry whose key's bytes are `wanted`, starting at entry `index` (at `position`) and wrapping around
    /// once; on a match, moves `position`/`index` past it. The one key search of both the Codable path and generated
    /// coding (`FirePackValueReader`), which passes the entries it has located before (`MapEntryCache`): entries
    /// below `progress.located` are read from `cache`, and each entry located next is added to it. Key references resolve
    /// through the call's `KeyReferenceMemo`.
    @inline(__always)
    static func search(for wanted: UnsafeRawBufferPointer, in input: ReaderInput, header: ContainerHeader,
                       position start: inout Int, index startIndex: inout Int,
                       cache: UnsafeMutablePointer<MapEntry>? = nil, progress: inout MapEntryCache.Progress,
                       keys: inout KeyReferenceMemo) throws(FirePackError) -> (offset: Int, end: Int)? {
        if cache != nil && progress.located == header.count
            && progress.signature & MapEntryCache.Progress.signatureBit(wanted.baseAddress, count: wanted.count) == 0 {
            return nil
        }
        var position = start, index = startIndex
        for _ in 0..<header.count {
            if index == header.count {
                index = 0
                position = header.bodyStart
            }
            let entry: MapEntry
            if let cache, index < progress.located {
                entry = cache[index]
            } else {
                let (keyStart, count, afterKey) = try keys.getKey(at: position, limit: header.end, in: input)
                entry = MapEntry(keyStart: keyStart, keyCount: count, valueOffset: afterKey,
                                 valueEnd: try input.valueEnd(at: afterKey, limit: header.end))
                if let cache, index == progress.located {
                    cache[index] = entry
                    progress.located += 1
                    progress.signature |= MapEntryCache.Progress.signatureBit(input.base + keyStart, count: count)
                }
            }
            if entry.keyCount == wanted.count
                && (entry.keyCount == 0 || ByteComparison.equal(input.base + entry.keyStart, wanted.baseAddress!, count: entry.keyCount)) {
                start = entry.valueEnd
                startIndex = index + 1
                return (entry.valueOffset, entry.valueEnd)
            }
            position = entry.valueEnd
            index += 1
        }
        return nil
    }

    func keyNotFound(_ key: any CodingKey) -> DecodingError {
        .keyNotFound(key, decoder.contextAtPath(codingPath, "No value for key \(key.stringValue.debugDescription) in the map", at: mapOffset))
    }

    /// Decodes the value at `location` as `T`, with `entry` on top of the coding path.
    @inline(__always)
    func decode<T: Decodable>(_ type: T.Type, at location: (offset: Int, end: Int), entry: PathEntry) throws -> T {
        if decoder.path.count != pathDepth { decoder.path.removeSubrange(min(pathDepth, decoder.path.count)...) }
        decoder.path.append(entry)
        defer { decoder.path.removeLast() }
        return try decoder.decode(type, at: location.offset, end: location.end, depth: depth + 1)
    }

    func isNull(at location: (offset: Int, end: Int)) -> Bool {
        (try? decoder.input.tag(at: location.offset, limit: location.end)) == Tag.null
    }

    /// A separate decoder for the value at `name`, or a null one when the map lacks it (as Foundation does).
    func nestedDecoder(named name: String, entry: PathEntry, requireKey key: (any CodingKey)?) throws -> DecoderImpl {
        let path = Array(decoder.path.prefix(pathDepth)) + [entry]
        guard let (offset, end) = try find(named: name) else {
            if let key { throw keyNotFound(key) }
            return DecoderImpl.null(options: decoder.options, path: path)
        }
        return decoder.child(at: offset, end: end, depth: depth + 1, path: path)
    }
}

extension DecoderImpl {
    /// The keyed container: a thin, key-typed front for `MapReader`.
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let map: MapReader

        var codingPath: [any CodingKey] { map.codingPath }
        var allKeys: [Key] { map.keyNames().compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { (try? map.find(named: key.stringValue)) != nil }

        @inline(__always)
        func locate(_ key: Key) throws -> (offset: Int, end: Int) {
            guard let location = try map.find(named: key.stringValue) else { throw map.keyNotFound(key) }
            return location
        }

        /// What a missing `key` of type `T` gives: the missing-key strategy's default, or `keyNotFound`.
        @inline(never)
        func missing<T>(_ key: Key, _ type: T.Type) throws -> T {
            if let value = decoder.defaultForMissingKey(T.self) { return value }
            throw map.keyNotFound(key)
        }

        func decodeNil(forKey key: Key) throws -> Bool { map.isNull(at: try locate(key)) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            // A bag for unknown fields is filled from the map's other keys, never from its own (UnknownFields.swift).
            if T.self == FirePackUnknownFields.self { return try unknownFields(key) as! T }
            guard let location = try map.find(named: key.stringValue) else { return try missing(key, T.self) }
            return try map.decode(type, at: location, entry: .key(key))
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            if T.self == DocumentIDMarker.self { return unsafeBitCast(DocumentIDMarker(reference: map.decoder.options.reference), to: T.self) }
            if T.self == FirePackUnknownFields.self { return try unknownFields(key) as? T }
            guard let location = try map.find(named: key.stringValue), !map.isNull(at: location) else { return nil }
            return try map.decode(type, at: location, entry: .key(key))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
            try map.nestedDecoder(named: key.stringValue, entry: .key(key), requireKey: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try map.nestedDecoder(named: key.stringValue, entry: .key(key), requireKey: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            try map.nestedDecoder(named: AnyCodingKey.superKey.stringValue, entry: .superKey, requireKey: nil)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            try map.nestedDecoder(named: key.stringValue, entry: .key(key), requireKey: nil)
        }

        func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(key, read: decoder.decodeString) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key, read: decoder.decodeBool) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(key) { try decoder.decodeDouble(at: $0, end: $1) } }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(key, read: decoder.decodeFloat) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

        // The scalar `decodeIfPresent` overloads: the protocol's default versions ask `contains(_:)`, which cannot
        // throw, so damaged bytes would read as a missing key; these find the key once and throw what they find.
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try scalarIfPresent(key, read: decoder.decodeString) }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try scalarIfPresent(key, read: decoder.decodeBool) }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try scalarIfPresent(key) { try decoder.decodeDouble(at: $0, end: $1) } }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try scalarIfPresent(key, read: decoder.decodeFloat) }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(type, key) }

        private var decoder: DecoderImpl { map.decoder }

        @inline(never)
        private func unknownFields(_ key: Key) throws -> FirePackUnknownFields {
            try map.unknownFields(keyedBy: Key.self, bagKey: key)
        }

        /// Reads a scalar at `location` with `key` on the coding path of any error.
        @inline(__always)
        private func scalar<T>(_ key: Key, at location: (offset: Int, end: Int), read: (Int, Int) throws -> T) throws -> T {
            try map.withEntry(.key(key)) { try read(location.offset, location.end) }
        }

        /// Reads the scalar for `key`; a missing key is `missing(_:_:)`'s.
        @inline(__always)
        private func scalar<T>(_ key: Key, read: (Int, Int) throws -> T) throws -> T {
            guard let location = try map.find(named: key.stringValue) else { return try missing(key, T.self) }
            return try scalar(key, at: location, read: read)
        }

        /// nil when the map lacks `key` or holds null there; otherwise the scalar.
        @inline(__always)
        private func scalarIfPresent<T>(_ key: Key, read: (Int, Int) throws -> T) throws -> T? {
            guard let location = try map.find(named: key.stringValue), !map.isNull(at: location) else { return nil }
            return try scalar(key, at: location, read: read)
        }

        @inline(__always)
        private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
            try scalar(key) { try decoder.decodeInteger(type, at: $0, end: $1) }
        }

        @inline(__always)
        private func integerIfPresent<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I? {
            try scalarIfPresent(key) { try decoder.decodeInteger(type, at: $0, end: $1) }
        }
    }
}

extension MapReader {
    /// Runs a scalar read with `entry` on top of the coding path only if it throws (scalars need no path otherwise).
    @inline(__always)
    func withEntry<R>(_ entry: PathEntry, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as DecodingError {
            throw error.appendingToPath(entry, under: codingPath)
        }
    }
}

extension DecodingError {
    /// The same error with its coding path set to `base` + `entry` (for errors raised before the entry was pushed).
    func appendingToPath(_ entry: PathEntry, under base: [any CodingKey]) -> DecodingError {
        let path = base + [entry.codingKey]
        switch self {
        case .typeMismatch(let type, let context):
            return .typeMismatch(type, .init(codingPath: path, debugDescription: context.debugDescription, underlyingError: context.underlyingError))
        case .valueNotFound(let type, let context):
            return .valueNotFound(type, .init(codingPath: path, debugDescription: context.debugDescription, underlyingError: context.underlyingError))
        case .dataCorrupted(let context):
            return .dataCorrupted(.init(codingPath: path, debugDescription: context.debugDescription, underlyingError: context.underlyingError))
        default:
            return self
        }
    }
}
