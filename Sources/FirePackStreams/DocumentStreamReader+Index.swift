import CFirePackSystem  // lseek(2), fstat(2)
@_spi(Wire) import FirePack

/// One block of a version-3 stream, as its index lists it (Docs/FORMAT.md §8).
public struct StreamBlock: Hashable, Sendable {
    /// The stream offset of the block's sync marker.
    public var offset: Int
    /// The number of the block's first record: the records before it in the stream.
    public var firstRecord: Int
    /// How many records the block holds.
    public var recordCount: Int
}

// Seeking by record number: a closed version-3 stream ends with an index of its blocks, found from the close record
// in its last 24 bytes, so that record N is one binary search and one block away. A stream without a usable index —
// version 1 or 2, not closed (torn, or still being written), or with a damaged index — is scanned instead.
extension DocumentStreamReader {
    /// The blocks a closed version-3 stream file lists in its index, or nil when it has no usable index (then
    /// `reading(path:fromRecord:)` scans). Reads the close record and the index only; checks their CRC-32s, that
    /// the index ends where the close record starts, and that the blocks are in order before it.
    public static func blockIndex(
        path: String, maxRecordLength: Int = DocumentStreamFormat.defaultMaxRecordLength
    ) throws -> [StreamBlock]? {
        try indexedLayout(path: path, maxRecordLength: maxRecordLength)?.blocks
    }

    /// The blocks the index lists and where the index starts (`blockIndex(path:maxRecordLength:)`).
    static func indexedLayout(path: String, maxRecordLength: Int) throws -> (blocks: [StreamBlock], indexOffset: Int)? {
        try indexedLayout(of: FileSource(path: path), path: path, maxRecordLength: maxRecordLength)
    }

    /// The same for a stream file open as `file` (read at offsets, so that its position does not move).
    static func indexedLayout(of file: FileSource, path: String, maxRecordLength: Int) throws -> (
        blocks: [StreamBlock], indexOffset: Int
    )? {
        var status = stat()
        guard fstat(file.descriptor, &status) == 0 else {
            throw FirePackError(.ioFailure, "\(path): cannot read: \(systemError())")
        }
        // Only a regular file can be entered at its end; a pipe or device is scanned.
        guard status.st_mode & UInt32(S_IFMT) == UInt32(S_IFREG) else { return nil }
        let size = Int(status.st_size)
        let headerLength = DocumentStreamFormat.header.count
        let closeLength = DocumentStreamFormat.blockCloseRecordLength
        guard size >= headerLength + closeLength,
            // The header as a whole stream's reader checks it (magic, version 3, no flags): another is read from its
            // start, which says what is wrong.
            let header = try read(file, at: 0, count: headerLength),
            header.prefix(5).elementsEqual(DocumentStreamFormat.header.prefix(4) + [3]),
            header[5] == DocumentStreamFormat.header[5],
            let close = try read(file, at: size - closeLength, count: closeLength),
            close.starts(with: DocumentStreamFormat.closeMarker),
            close[4..<20].withUnsafeBytes({ crc32($0) }) == load32(close, at: 20)
        else { return nil }
        let indexOffset = load64(close, at: 12)
        let indexEnd = size - closeLength
        guard indexOffset >= headerLength, indexOffset <= indexEnd - DocumentStreamFormat.recordHeaderLength,
            let indexHeader = try read(file, at: indexOffset, count: DocumentStreamFormat.recordHeaderLength),
            indexHeader.starts(with: DocumentStreamFormat.indexMarker)
        else { return nil }
        let length = Int(load32(indexHeader, at: 4))
        guard length <= maxRecordLength, indexOffset + DocumentStreamFormat.recordHeaderLength + length == indexEnd,
            let body = try read(file, at: indexOffset + DocumentStreamFormat.recordHeaderLength, count: length),
            body.withUnsafeBytes({ crc32($0) }) == load32(indexHeader, at: 8)
        else { return nil }
        let blocks = body.withUnsafeBytes { body -> [StreamBlock]? in
            guard let base = body.baseAddress else { return nil }
            do throws(FirePackError) {
                let (count, afterCount) = try Varint.get(base, at: 0, limit: body.count)
                // Each block takes at least two bytes of the index.
                guard count <= body.count / 2 else { return nil }
                var blocks: [StreamBlock] = []
                blocks.reserveCapacity(count)
                var cursor = afterCount, offset = 0, first = 0
                for _ in 0..<count {
                    let (delta, afterDelta) = try Varint.get(base, at: cursor, limit: body.count)
                    let (records, next) = try Varint.get(base, at: afterDelta, limit: body.count)
                    // Checked before it is added: a delta is a varint, up to 2^63 − 1, and the sum would overflow.
                    guard delta < indexOffset - offset else { return nil }
                    offset += delta
                    guard offset >= max(headerLength, (blocks.last?.offset ?? 0) + 1),
                        records >= 1, records <= DocumentStreamFormat.maxRecordNumber - first
                    else { return nil }
                    blocks.append(StreamBlock(offset: offset, firstRecord: first, recordCount: records))
                    first += records
                    cursor = next
                }
                return cursor == body.count ? blocks : nil
            } catch {
                return nil
            }
        }
        return blocks.map { ($0, indexOffset) }
    }

    /// Opens the stream file at `path` so that its next record is record `number` (counting from 0, as a whole
    /// stream's reader counts): through the index of a closed version-3 stream, a binary search and the one block
    /// that holds it; in any other stream by reading the records before it. Past the last record, the reader is at
    /// the end. A record lost to damage is not returned: the reader then goes on with the next intact one (check
    /// its number).
    public static func reading(
        path: String, fromRecord number: Int, mode: ErrorMode = .skipAndReport,
        maxRecordLength: Int = DocumentStreamFormat.defaultMaxRecordLength,
        maxBlockExpansion: Int = DocumentStreamFormat.maxBlockExpansion, limits: ReaderLimits = .default
    ) throws -> DocumentStreamReader {
        guard number >= 0 else {
            throw FirePackError(.invalidValue, "a record number is 0 or more, not \(number)")
        }
        var seeking: DocumentStreamReader?
        if let blocks = try blockIndex(path: path, maxRecordLength: maxRecordLength), !blocks.isEmpty {
            seeking = try seekingReader(
                path: path, blocks, to: number, mode: mode, maxRecordLength: maxRecordLength,
                maxBlockExpansion: maxBlockExpansion, limits: limits)
        }
        let reader =
            try seeking
            ?? DocumentStreamReader(
                source: FileSource(path: path), mode: mode, maxRecordLength: maxRecordLength,
                maxBlockExpansion: maxBlockExpansion, limits: limits)
        // Records before `number` are passed over; the first at or after it (later than it when it was lost to
        // damage) is handed back to be read first.
        while reader.nextNumber <= number, let record = try reader.nextRecord() {
            if record.number >= number {
                reader.pushedBack = record
                break
            }
        }
        return reader
    }

    /// A reader at the block of `blocks` that holds record `number`, that record handed back to be read first; nil
    /// when the index names an offset where no block starts (an index whose checksums hold but whose offsets do not),
    /// so that the caller reads the stream from its start instead.
    private static func seekingReader(
        path: String, _ blocks: [StreamBlock], to number: Int, mode: ErrorMode, maxRecordLength: Int,
        maxBlockExpansion: Int, limits: ReaderLimits
    ) throws -> DocumentStreamReader? {
        // The last block whose first record is at or before `number`.
        var low = 0, high = blocks.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if blocks[middle].firstRecord <= number { low = middle } else { high = middle - 1 }
        }
        // The index counts the records of the blocks it lists, and a stream appended to after damage lists only the
        // blocks that were intact, so a block's own `first` (which counts the damaged ones) can be higher than the
        // index says: step back a block while the one found starts after `number`. Its first record is kept, to be
        // read first.
        var block = low
        guard
            var candidate = try blockReader(
                path: path, blocks[block], mode: mode, maxRecordLength: maxRecordLength,
                maxBlockExpansion: maxBlockExpansion, limits: limits)
        else { return nil }
        var first = try candidate.nextRecord()
        while block > 0, let record = first, record.number > number {
            block -= 1
            guard
                let earlier = try blockReader(
                    path: path, blocks[block], mode: mode, maxRecordLength: maxRecordLength,
                    maxBlockExpansion: maxBlockExpansion, limits: limits)
            else { return nil }
            candidate = earlier
            first = try candidate.nextRecord()
        }
        candidate.pushedBack = first
        return candidate
    }

    /// A reader of the stream file at `path` from `block` on, its records numbered from the block's own `first`
    /// (not the index's count, which may be lower: see `reading(path:fromRecord:)`); nil when the block's offset does
    /// not start with a block's marker.
    private static func blockReader(
        path: String, _ block: StreamBlock, mode: ErrorMode, maxRecordLength: Int, maxBlockExpansion: Int,
        limits: ReaderLimits
    ) throws -> DocumentStreamReader? {
        let file = try FileSource(path: path)
        guard
            try read(file, at: block.offset, count: DocumentStreamFormat.syncMarker.count)
                == DocumentStreamFormat.syncMarker
        else { return nil }
        guard lseek(file.descriptor, off_t(block.offset), SEEK_SET) == off_t(block.offset) else {
            throw FirePackError(.ioFailure, "\(path): cannot seek to byte \(block.offset): \(systemError())")
        }
        let reader = DocumentStreamReader(
            rangeOf: file, version: 3, offset: block.offset, end: Int.max, mode: mode,
            maxRecordLength: maxRecordLength, limits: limits)
        reader.maxBlockExpansion = maxBlockExpansion
        reader.synchronizing = false
        reader.numbersFromStreamStart = true
        // Below the block's `first`, so that it numbers the records: a gap is reported only from the stream's first
        // block, as a reader from the header does (`missingRecords`).
        reader.nextNumber = block.firstRecord
        return reader
    }

    /// `count` bytes at `offset` of `file`, or nil when the file ends before them; the file's position does not move
    /// (pread(2)), so that a reader reading it in order can look up its index.
    static func read(_ file: FileSource, at offset: Int, count: Int) throws -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes {
                pread(file.descriptor, $0.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if read < 0 {
                if firepack_errno() == EINTR { continue }
                throw FirePackError(.ioFailure, "cannot read at byte \(offset + filled): \(systemError())")
            }
            if read == 0 { return nil }
            filled += read
        }
        return bytes
    }

    /// The offsets of the units a closed version-3 stream file's index lists — its blocks, then the index — for a
    /// reader that meets damage to go on at the next of them, instead of searching for a marker that may lie inside a
    /// block's payload (a document holding a stream); nil when the source is not such a file (a pipe, standard input,
    /// a gzip stream) or its index is not usable. Looked up once, at the first damage.
    func listedUnits() throws -> [Int]? {
        if let units = indexedUnits { return units.isEmpty ? nil : units }
        indexedUnits = []
        guard version >= 3, let file = source.wholeFile,
            let layout = try? Self.indexedLayout(of: file, path: "the stream", maxRecordLength: maxRecordLength),
            layout.blocks.count < Self.maxListedUnits
        else { return nil }
        let units = layout.blocks.map(\.offset) + [layout.indexOffset]
        guard (try? Self.unitsHold(units, in: file, maxRecordLength: maxRecordLength)) == true else { return nil }
        indexedUnits = units
        return units
    }

    /// Whether an index's offsets can be followed past damage: each unit it lists starts with its marker, or is where
    /// the block listed before it ends (a block damaged since the index was written is still listed, its marker
    /// perhaps gone); and where bytes lie between a block's end and the next unit listed (a block damaged before an
    /// append, a superseded close record), the first unit there is not an intact block the index leaves out. An
    /// index that fails (offsets beside the blocks, an intact block left out) is not followed: the reader searches.
    /// One header read per block, and the payload of a block at the start of each such gap, once.
    /// `offsets`: each listed block's, then the index's.
    static func unitsHold(_ offsets: [Int], in file: FileSource, maxRecordLength: Int) throws -> Bool {
        let headerLength = DocumentStreamFormat.recordHeaderLength
        // Where the unit before ends, when its length is known.
        var reachedEnd: Int? = DocumentStreamFormat.header.count
        for (position, offset) in offsets.enumerated() {
            guard let header = try read(file, at: offset, count: headerLength) else { return false }
            let marker =
                position == offsets.count - 1 ? DocumentStreamFormat.indexMarker : DocumentStreamFormat.syncMarker
            let marked = header.starts(with: marker)
            guard marked || reachedEnd == offset else { return false }
            if let end = reachedEnd, end < offset {
                // A gap: what starts there must not be an intact block.
                if let gap = try read(file, at: end, count: headerLength),
                    gap.starts(with: DocumentStreamFormat.syncMarker)
                {
                    let length = Int(load32(gap, at: 4))
                    if length <= maxRecordLength, end + headerLength + length <= offset,
                        let payload = try read(file, at: end + headerLength, count: length),
                        payload.withUnsafeBytes({ crc32($0) }) == load32(gap, at: 8)
                    {
                        return false
                    }
                }
            }
            let length = Int(load32(header, at: 4))
            reachedEnd = marked && length <= maxRecordLength ? offset + headerLength + length : nil
        }
        return true
    }

    /// The most blocks an index may list for a reader to follow it after damage: about 40 MB while it is checked, 8
    /// bytes a block after (a stream of a million blocks of the default size is a terabyte); past it, the reader
    /// searches, as in a stream without an index.
    static let maxListedUnits = 1 << 20

    /// The first unit the index lists at or after stream offset `offset`, if the index is known and lists one.
    func listedUnit(atOrAfter offset: Int) throws -> Int? {
        guard let units = try listedUnits() else { return nil }
        var low = 0, high = units.count
        while low < high {
            let middle = (low + high) / 2
            if units[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low < units.count ? units[low] : nil
    }

    static func load32(_ bytes: [UInt8], at index: Int) -> UInt32 {
        bytes.withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: index, as: UInt32.self)) }
    }

    private static func load64(_ bytes: [UInt8], at index: Int) -> Int {
        bytes.withUnsafeBytes {
            Int(truncatingIfNeeded: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: index, as: UInt64.self)))
        }
    }
}
