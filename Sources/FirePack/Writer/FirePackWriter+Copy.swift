extension FirePackWriter {
    /// Writes a copy of a value read elsewhere, re-encoding its keys for this writer's key table and checking every
    /// byte on the way; no `Value` tree is built. In deterministic mode map keys are sorted by their UTF-8 bytes, as
    /// `write(_: Value)` sorts them: the same bytes as writing the value's tree.
    ///
    /// If the bytes are malformed this throws; a root value in progress is then discarded (nested inside an open
    /// container, the partial copy stays and the writer should be cleared).
    public func write(_ view: ValueView) throws(FirePackError) { try write(view, resolvingServerTimestamps: nil) }

    /// `write(_:)`, writing each pending server timestamp as `time` when one is given: the bytes of
    /// `write(try view.value().resolvingServerTimestamps(at: time))`, without the tree.
    package func write(_ view: ValueView, resolvingServerTimestamps time: Timestamp?) throws(FirePackError) {
        let startedAtRoot = depth == 0
        let savedIndex = writerIndex
        do {
            // An element or row of a packed array has no tag to copy from: it is written as the value it is.
            if view.packedElement != nil { return write(try view.value()) }
            var copy = ValueCopy(materializer: Materializer(input: view.input, sharing: view.sharedKeys))
            copy.serverTime = time
            _ = try copyValue(from: view.input, at: view.offset, limit: view.endOffset, depth: view.depth, using: &copy)
        } catch {
            if startedAtRoot { abandonRootValue(truncatingTo: savedIndex) }
            throw error
        }
    }

    /// Copies the entries of the map at `reader`'s cursor into the map open in this writer, in their order, each
    /// value as `write(_: ValueView)` copies it, and moves `reader` past the map. Where the entries come from a
    /// document record's fields, this copies a record without its tree; with `time`, its pending server timestamps
    /// are written as that time (`Document.resolvingServerTimestamps(at:)`).
    package func writeEntries(
        copying reader: inout FirePackReader, resolvingServerTimestamps time: Timestamp? = nil
    ) throws(FirePackError) {
        let map = try reader.enterMap()
        for _ in 0..<map.count {
            writeKey(utf8: try reader.readKey().utf8)
            try write(reader.peekValueView(), resolvingServerTimestamps: time)
            try reader.skipValue()
        }
        try reader.exitMap(map)
    }

    private func copyValue(
        from input: ReaderInput, at offset: Int, limit: Int, depth level: Int,
        using copy: inout ValueCopy
    ) throws(FirePackError) -> Int {
        let tag = try input.tag(at: offset, limit: limit)
        switch tag {
        case 0x80...0x9F, Tag.string:
            let (start, count, next) = try input.getString(at: offset, limit: limit)
            writeString(utf8: input.bytes(from: start, count: count))
            return next
        case Tag.bytes:
            let (start, count, next) = try input.getLengthPrefixed(
                at: offset, limit: limit, tag: Tag.bytes, expecting: "bytes")
            writeBytes(input.bytes(from: start, count: count))
            return next
        case 0xA0...0xBF, Tag.array, Tag.map:
            let header = try input.getContainerHeader(at: offset, limit: limit, depth: level + 1)
            header.isMap ? beginMap() : beginArray()
            if header.isMap && options.deterministic && header.count > 1 {
                let end = try copySortedEntries(from: input, header, depth: level, using: &copy)
                try Materializer.checkEnd(end, header, containerAt: offset)
                endMap()
                return header.end
            }
            var cursor = header.bodyStart
            for _ in 0..<header.count {
                if header.isMap {
                    let (start, count, afterKey) = try input.getKey(at: cursor, limit: header.end)
                    try copy.materializer.validateKey(start: start, count: count, at: cursor)
                    guard copy.writeKey(at: cursor, start: start, count: count, from: input, to: self) else {
                        throw FirePackError(.duplicateKey, offset: cursor, "a key appears twice in one map")
                    }
                    cursor = afterKey
                }
                cursor = try copyValue(from: input, at: cursor, limit: header.end, depth: level + 1, using: &copy)
            }
            try Materializer.checkEnd(cursor, header, containerAt: offset)
            header.isMap ? endMap() : endArray()
            return header.end
        case Tag.packedArray, Tag.packedRows:
            // Number by number (a row as an array of them), as `write(_: Value)` writes the array, which this writer
            // then packs by its own rule: the same bytes, without a tree, which costs more than a hundred times a
            // packed row's bytes (Docs/SAFETY.md).
            let header = try input.getContainerHeader(at: offset, limit: limit, depth: level + 1)
            let view = ValueView(input: input, offset: offset, endOffset: header.end, depth: level)
            beginArray()
            for index in 0..<header.count {
                let element = view.element(index, in: header)
                guard element.packedRow else {
                    write(try element.value())
                    continue
                }
                let row = try element.containerHeader()
                beginArray()
                for column in 0..<row.count { write(try element.element(column, in: row).value()) }
                endArray()
            }
            endArray()
            return header.end
        default:
            let (value, next) = try copy.materializer.value(at: offset, limit: limit, depth: level)
            if case .serverTimestamp = value, let time = copy.serverTime {
                write(.timestamp(time))
            } else {
                write(value)
            }
            return next
        }
    }

    /// Copies a map's entries in ascending unsigned-byte order of their keys (each key checked as it is found, each
    /// value as it is copied); returns where the entries end. Memory for one position per entry; time for the keys'
    /// bytes, long keys that references repeat compared by rank.
    private func copySortedEntries(
        from input: ReaderInput, _ header: ContainerHeader, depth level: Int, using copy: inout ValueCopy
    ) throws(FirePackError) -> Int {
        var entries: [(keyOffset: Int, start: Int, count: Int, value: Int)] = []
        entries.reserveCapacity(header.count)
        var cursor = header.bodyStart
        for _ in 0..<header.count {
            let (start, count, afterKey) = try input.getKey(at: cursor, limit: header.end)
            try copy.materializer.validateKey(start: start, count: count, at: cursor)
            entries.append((cursor, start, count, afterKey))
            cursor = try input.valueEnd(at: afterKey, limit: header.end)
        }
        // Long keys by their rank in the key table (`LongKeyRanks`): a pair that references repeat in every map is
        // compared once per value, not once per map.
        if copy.ranks == nil && entries.contains(where: { LongKeyRanks.isLong($0.count) }) {
            copy.ranks = LongKeyRanks(input)
        }
        let ranks = copy.ranks ?? LongKeyRanks.none
        entries.sort {
            ranks.precedes(input.bytes(from: $0.start, count: $0.count), input.bytes(from: $1.start, count: $1.count))
        }
        for entry in entries {
            guard copy.writeKey(at: entry.keyOffset, start: entry.start, count: entry.count, from: input, to: self)
            else { throw FirePackError(.duplicateKey, offset: entry.keyOffset, "a key appears twice in one map") }
            _ = try copyValue(from: input, at: entry.value, limit: header.end, depth: level + 1, using: &copy)
        }
        return cursor
    }

    /// Drops a root value in progress, or one just completed that the coder refuses (past the readers' limits), as
    /// if it had never been started.
    @usableFromInline
    package func abandonRootValue(truncatingTo index: Int) {
        writerIndex = index
        // A completed value counted as complete: `writtenBytes`, `takeBytes()` and the next `flush()` sent it on.
        if completedEnd > index { completedEnd = index }
        depth = 0
        outerFrames.removeAll()
        resetKeys()
        state.limitViolation = nil
    }
}

/// What one `write(_: ValueView)` keeps while it copies: the materializer of its scalars (and of the long keys that
/// references resolve to, checked once), and the key-table entry each long referenced key became in the writer, so
/// that a key of L bytes referenced N times is hashed and compared once, not N times (Docs/SAFETY.md, "key
/// references").
struct ValueCopy {
    var materializer: Materializer
    private var entries: [KeySpan: Int] = [:]
    /// The ranks of the input's long keys, made when a map with one is first sorted (deterministic writers).
    var ranks: LongKeyRanks?
    /// The time pending server timestamps are written as, if any.
    var serverTime: Timestamp?

    init(materializer: Materializer) { self.materializer = materializer }

    /// Writes the key at `offset`, whose bytes `getKey` found and the materializer checked, to `writer`; returns
    /// `writeKey(utf8:)`'s answer.
    mutating func writeKey(
        at offset: Int, start: Int, count: Int, from input: ReaderInput, to writer: FirePackWriter
    ) -> Bool {
        let key = input.bytes(from: start, count: count)
        guard input.isLongReference(count: count, at: offset) else {
            return writer.writeKey(utf8: key)
        }
        let span = KeySpan(start: start, count: count)
        if let entry = entries[span] { return writer.writeKey(utf8: key, tableEntry: entry) }
        let written = writer.writeKey(utf8: key)
        if written, let entry = writer.lastKeyEntry { entries[span] = entry }
        return written
    }
}
