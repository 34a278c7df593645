import FirePack
import CFirePackSystem  // lseek(2)

/// Reading one byte range of a stream: how N readers over N adjacent ranges share a stream (Docs/ARROW.md, "Splits").
///
/// The rule is Avro's: a range holds exactly the intact records whose sync marker starts inside it. A reader of
/// `[offset, offset + length)` that does not start at the stream's beginning scans from `offset` (in a closed
/// version-3 stream, from the first block its index lists at or after `offset`) for its first
/// intact record (sync marker, length within the limit, matching CRC-32), reporting nothing it passes over: those
/// bytes belong to the range before. It then reads record after record, past the range's end if need be, and stops
/// at the first intact record whose marker is at or past the end. Damaged records are reported by the range whose
/// walk meets them: the one that holds the last intact record before them. So every intact record is returned by
/// exactly one range, and every damaged one reported by exactly one, wherever the boundaries fall — inside a record
/// or inside a damaged region. Blocks cut out cleanly (`missingRecords`) are reported by the range that read the
/// block before the gap, which sees the next block's `first` when it stops there. Record numbers count from the
/// range's first record; offsets are the stream's.
extension DocumentStreamReader {
    /// Opens the part `[offset, offset + length)` of the stream file at `path` (`length` nil: to the end).
    ///
    /// The stream header is read and checked first (`badMagic`, `unsupportedVersion` as for a whole stream); a range
    /// that starts inside the header starts at the first record.
    public static func reading(
        path: String, offset: Int, length: Int?, mode: ErrorMode = .skipAndReport,
        maxRecordLength: Int = DocumentStreamFormat.defaultMaxRecordLength,
        maxBlockExpansion: Int = DocumentStreamFormat.maxBlockExpansion, limits: ReaderLimits = .default
    ) throws -> DocumentStreamReader {
        guard offset >= 0, (length ?? 0) >= 0 else {
            throw FirePackError(
                .invalidValue, "a byte range needs offset ≥ 0 and length ≥ 0 (got \(offset), \(length ?? 0))")
        }
        let end = length.map { offset.addingReportingOverflow($0).overflow ? Int.max : offset + $0 } ?? Int.max
        let whole = try DocumentStreamReader(
            source: FileSource(path: path), mode: mode, maxRecordLength: maxRecordLength,
            maxBlockExpansion: maxBlockExpansion, limits: limits)
        if offset <= DocumentStreamFormat.header.count {
            whole.rangeEnd = end
            whole.numbersFromStreamStart = false
            // Inside the header: the first record is this range's, but damage before it, and records cut out
            // before it, are the range at 0's.
            whole.synchronizing = offset > 0
            whole.blockNumbersEnd = offset > 0 ? nil : 0
            return whole
        }
        // A closed version-3 stream lists its blocks: the range starts at the first that starts in it (or, with none,
        // at the index), so that its scan never starts inside a block, whose payload may hold bytes that are blocks
        // (a document's bytes holding a stream) and would pass for records no writer wrote.
        var indexed: Int?
        let file = try FileSource(path: path)
        if whole.version >= 3, let layout = try indexedLayout(path: path, maxRecordLength: maxRecordLength) {
            // Where the bytes before the next listed unit are not all the block before it (a block damaged there),
            // the range starts at that unit all the same when the index holds (`unitsHold`): a marker found by
            // searching from `offset` may lie inside a payload, and the range before this one reads on past its end
            // to that unit, reporting the damage.
            indexed = try indexedStart(of: offset, in: layout, file: file)
            if indexed == nil,
                try unitsHold(
                    layout.blocks.map(\.offset) + [layout.indexOffset], in: file, maxRecordLength: maxRecordLength)
            {
                indexed = layout.blocks.first { $0.offset >= offset }?.offset ?? layout.indexOffset
            }
        }
        let start = indexed ?? offset
        guard lseek(file.descriptor, off_t(start), SEEK_SET) == off_t(start) else {
            throw FirePackError(.ioFailure, "\(path): cannot seek to byte \(start): \(systemError())")
        }
        let range = DocumentStreamReader(
            rangeOf: file, version: whole.version, offset: start, end: end, mode: mode,
            maxRecordLength: maxRecordLength, limits: limits)
        // Found by the index, the start is a unit's; anywhere else, a unit there may lie inside another's payload.
        if indexed == nil { range.searchLanding = offset }
        range.maxBlockExpansion = maxBlockExpansion
        return range
    }

    /// Where a range at `offset` starts by the index: at the first block it lists at or after `offset` (or at the
    /// index, when none is), provided the block it lists before that one ends exactly there — so the bytes passed
    /// over are that block's, and nothing the index leaves out (a damaged block, a superseded close record after an
    /// append, a block an untrue index omits) lies between. Nil where that does not hold: the range scans.
    static func indexedStart(
        of offset: Int, in layout: (blocks: [StreamBlock], indexOffset: Int), file: FileSource
    ) throws -> Int? {
        let next = layout.blocks.firstIndex { $0.offset >= offset } ?? layout.blocks.count
        let listed = next < layout.blocks.count ? layout.blocks[next].offset : layout.indexOffset
        guard let marker = try read(file, at: listed, count: 4),
            marker == DocumentStreamFormat.syncMarker || marker == DocumentStreamFormat.indexMarker
        else { return nil }
        if listed == offset { return offset }
        guard next > 0,
            let header = try read(
                file, at: layout.blocks[next - 1].offset, count: DocumentStreamFormat.recordHeaderLength),
            header.starts(with: DocumentStreamFormat.syncMarker)
        else { return nil }
        let end = layout.blocks[next - 1].offset + DocumentStreamFormat.recordHeaderLength + Int(load32(header, at: 4))
        return end == listed ? listed : nil
    }

    /// A reader positioned at `offset` of a stream of `version`, looking for its first intact record.
    convenience init(
        rangeOf source: ByteSource, version: UInt8, offset: Int, end: Int, mode: ErrorMode,
        maxRecordLength: Int, limits: ReaderLimits
    ) {
        self.init(
            uncheckedSource: source, mode: mode, maxRecordLength: maxRecordLength, limits: limits, version: version)
        bufferOffset = offset
        rangeEnd = end
        synchronizing = true
        numbersFromStreamStart = false
        blockNumbersEnd = nil
    }
}
