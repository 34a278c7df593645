#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
            while decoder.keyCursors.count < depth {
                decoder.keyCursors.append(KeyCursor(map: -1, offset: 0, index: 0))
            }
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
            guard
                let (name, afterKey) = try? decoder.state.keyReferences.keyString(
                    at: position, limit: header.end, in: input),
                let valueEnd = try? input.valueEnd(at: afterKey, limit: header.end)
            else {
                names.append(Self.damagedKeyMarker + String(position))
                break
            }
            names.append(name)
            position = valueEnd
        }
        return names
    }

    /// Starts the name `keyNames()` gives an entry that cannot be read (U+FFFD, the replacement character, then the
    /// entry's offset).
    static let damagedKeyMarker = "\u{FFFD}damaged key at byte "

    /// Notes that `allKeys` left out the damaged entry `marker` names, its key type having no key for the marker.
    func noteDamagedEntry(_ marker: String) {
        guard marker.hasPrefix(Self.damagedKeyMarker),
            let position = Int(marker.dropFirst(Self.damagedKeyMarker.count)),
            decoder.keyCursors.count > depth, decoder.keyCursors[depth].map == mapOffset
        else { return }
        decoder.keyCursors[depth].damagedEntry = position
    }

    /// Throws the error of the damaged entry a damaged-key marker names (see `keyNames()`); returns when `name` is not
    /// one, or its entry reads after all.
    func throwIfDamagedKeyMarker(_ name: String) throws {
        guard name.hasPrefix(Self.damagedKeyMarker), let position = Int(name.dropFirst(Self.damagedKeyMarker.count)),
            position >= header.bodyStart, position < header.end
        else { return }
        let input = decoder.input, limit = header.end
        try decoder.wrap { () throws(FirePackError) in
            let (start, count, afterKey) = try input.getKey(at: position, limit: limit)
            try input.validateUTF8(start: start, count: count, what: "key")
            _ = try input.valueEnd(at: afterKey, limit: limit)
        }
    }

    static func convertKeys(decoder: DecoderImpl, header: ContainerHeader, codingPath: [any CodingKey]) throws -> [(
        key: String, entry: Int
    )] {
        var result: [(key: String, entry: Int)] = []
        try decoder.forEachEntry(of: header) { raw, entry, _ in
            switch decoder.options.keyStrategy {
            case .useDefaultKeys: result.append((raw, entry))
            case .convertFromSnakeCase: result.append((KeyConversion.camelCase(raw), entry))
            case .custom(let convert):
                result.append((convert(codingPath + [AnyCodingKey(stringValue: raw)]).stringValue, entry))
            }
        }
        return result
    }

    /// Where the value for the key called `name` is, or nil when the map does not hold it.
    func find(named name: String) throws -> (offset: Int, end: Int)? {
        if let convertedKeys {
            guard let entry = convertedKeys.first(where: { $0.key == name })?.entry else { return nil }
            let input = decoder.input
            let (_, _, afterKey) = try decoder.wrap { () throws(FirePackError) in
                try input.getKey(at: entry, limit: header.end)
            }
            return (
                afterKey,
                try decoder.wrap { () throws(FirePackError) in try input.valueEnd(at: afterKey, limit: header.end) }
            )
        }
        if let found = try name.withUTF8Bytes({ try search(for: $0) }) { return found }
        try throwIfDamagedKeyMarker(name)
        return nil
    }

    private func search(for wanted: UnsafeRawBufferPointer) throws -> (offset: Int, end: Int)? {
        var cursor = decoder.keyCursors[depth]
        if cursor.map != mapOffset { cursor = KeyCursor(map: mapOffset, offset: header.bodyStart, index: 0) }
        do {
            var progress = MapEntryCache.Progress()
            guard
                let found = try Self.search(
                    for: wanted, in: decoder.input, header: header, position: &cursor.offset, index: &cursor.index,
                    progress: &progress, keys: &decoder.state.keyReferences)
            else {
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
    static func search(
        for wanted: UnsafeRawBufferPointer, in input: ReaderInput, header: ContainerHeader,
        position start: inout Int, index startIndex: inout Int,
        cache: UnsafeMutablePointer<MapEntry>? = nil, progress: inout MapEntryCache.Progress,
        keys: inout KeyReferenceMemo
    ) throws(FirePackError) -> (offset: Int, end: Int)? {
        if let cache {
            // Keys looked up in the order they were written: the next entry, already located, is the one.
            if startIndex < progress.located {
                let entry = cache[startIndex]
                if entry.keyCount == wanted.count
                    && ByteComparison.equal(
                        input.base + entry.keyStart, wanted.baseAddress ?? input.base, count: entry.keyCount)
                {
                    start = entry.valueEnd
                    startIndex += 1
                    return (entry.valueOffset, entry.valueEnd)
                }
            }
            if progress.located == header.count
                && !progress.mayContain(wanted.baseAddress ?? input.base, count: wanted.count)
            {
                return nil
            }
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
                entry = MapEntry(
                    keyStart: keyStart, keyCount: count, valueOffset: afterKey,
                    valueEnd: try input.valueEnd(at: afterKey, limit: header.end))
                if let cache, index == progress.located {
                    cache[index] = entry
                    progress.located += 1
                    progress.insert(input.base + keyStart, count: count)
                }
            }
            if entry.keyCount == wanted.count
                && (entry.keyCount == 0
                    || ByteComparison.equal(input.base + entry.keyStart, wanted.baseAddress!, count: entry.keyCount))
            {
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
        .keyNotFound(
            key,
            decoder.contextAtPath(
                codingPath, "No value for key \(key.stringValue.debugDescription) in the map", at: mapOffset))
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
        // After `allKeys` left out an entry it could not read (see `noteDamagedEntry`), as a synthesized enum's
        // decoding does before it asks for the case's container: that entry's error, not a case read past it.
        if decoder.keyCursors.count > depth, decoder.keyCursors[depth].map == mapOffset,
            decoder.keyCursors[depth].damagedEntry >= 0
        {
            try throwIfDamagedKeyMarker(Self.damagedKeyMarker + String(decoder.keyCursors[depth].damagedEntry))
        }
        let path = Array(decoder.path.prefix(pathDepth)) + [entry]
        guard let (offset, end) = try find(named: name) else {
            if let key { throw keyNotFound(key) }
            return DecoderImpl.null(options: decoder.options, path: path)
        }
        return decoder.child(at: offset, end: end, depth: depth + 1, path: path)
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

extension DecoderImpl {
    /// Calls `body` with each entry of the map `header`, in order: its stored key, where the entry starts, and where
    /// its value is. A damaged entry throws `dataCorrupted` with its byte offset.
    func forEachEntry(
        of header: ContainerHeader,
        _ body: (_ key: String, _ entry: Int, _ value: (offset: Int, end: Int)) throws -> Void
    ) throws {
        let input = self.input
        var position = header.bodyStart
        for _ in 0..<header.count {
            let entry = position
            let (key, afterKey) = try wrap { () throws(FirePackError) in
                try state.keyReferences.keyString(at: entry, limit: header.end, in: input)
            }
            position = try wrap { () throws(FirePackError) in try input.valueEnd(at: afterKey, limit: header.end) }
            try body(key, entry, (afterKey, position))
        }
    }
}
