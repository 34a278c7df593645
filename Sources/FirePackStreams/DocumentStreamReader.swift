import FirePack

/// A damaged or unreadable record: which one, where, and why.
public struct StreamProblem: Error, Hashable, Sendable, CustomStringConvertible {
    /// The record's number, counting from 0 (records lost to damage are not counted).
    public var recordNumber: Int
    /// The byte offset in the stream where the problem was found, counted from the stream's first byte (for a
    /// payload that is not a valid document: the offending byte inside the payload).
    public var offset: Int
    /// What is wrong, as a FirePackError code (Docs/FORMAT.md §8): `truncated` for a torn last record,
    /// `badSyncMarker`, `badChecksum`, `limitExceeded`, `lengthOutOfBounds` for a damaged length, `invalidBlock`,
    /// `missingRecords` for records cut out of a version-3 stream, `decodingFailed`, or the code of the error that
    /// made a payload an invalid document.
    public var code: FirePackError.Code
    /// What is wrong, in words.
    public var reason: String
    /// Whether the stream ends inside this record (a torn last record).
    public var isTruncated: Bool { code == .truncated }
    /// Whether this is a damaged index or close record, which costs no record (`DocumentStreamReader.damagedClosings`).
    public var isDamagedClosing = false

    /// `record N at byte O: reason`.
    public var description: String { "record \(recordNumber) at byte \(offset): \(reason)" }
}

/// One record read from a stream.
public struct StreamRecord {
    /// The record's number, counting from 0.
    public var number: Int
    /// The byte offset of the record's sync marker (version 3: its block's).
    public var offset: Int
    /// The record's payload (a FirePack-encoded document), valid until the next read.
    public var payload: UnsafeRawBufferPointer
    /// The stream offset of the payload's first byte; nil when the payload was decompressed (version 3 blocks
    /// stored with a codec), where no byte of the stream holds it.
    public var payloadOffset: Int?

    package init(number: Int, offset: Int, payload: UnsafeRawBufferPointer, payloadOffset: Int?) {
        self.number = number
        self.offset = offset
        self.payload = payload
        self.payloadOffset = payloadOffset
    }
}

/// Whether a stream was closed cleanly, known once its end is reached (Docs/FORMAT.md §8).
public enum StreamCompletion: Hashable, Sendable {
    /// The stream ends with a close record counting `recordCount` records: its writer closed it.
    case closed(recordCount: Int)
    /// The stream ends without a close record, after `recordCount` records: a crash, an interrupted copy, or a
    /// writer never closed. Every intact record before the end still reads.
    case notClosed(recordCount: Int)
    /// A version-1 stream, written before close records existed: whether it is complete cannot be told.
    case unknown
}

/// Reads a `.fpks` stream record by record, holding one record at a time.
///
/// Reading never ends silently. In `.skipAndReport` mode (the default) a damaged record — or, with `next(as:)`
/// and `values(as:)`, a record that does not decode into the requested type — is added to `problems` with its
/// number, offset and reason, and reading goes on with the next intact record (Docs/FORMAT.md §8). In
/// `.stopAtFirstError` mode the first problem is thrown by `nextRecord()`, `next()` and `next(as:)`: the throwing
/// iteration API; the reader then stays stopped, and every later read throws the same problem. A damaged index or
/// close record costs no record, so it stops nothing in either mode: it is added to `problems` and counted in
/// `damagedClosings`, and the stream reads on as one without it (not closed, unless a later closing follows). At the end, `completion` says whether the stream was closed cleanly.
public final class DocumentStreamReader {
    /// What to do with a damaged record.
    public enum ErrorMode: Sendable {
        /// Throw the problem.
        case stopAtFirstError
        /// Record it in `problems` and go on with the next intact record.
        case skipAndReport
    }

    let source: ByteSource
    let mode: ErrorMode
    let maxRecordLength: Int
    package let limits: ReaderLimits
    /// Manually allocated, so a record's payload view stays valid until the next read.
    var storage: UnsafeMutableRawPointer
    var capacity: Int
    /// Unconsumed bytes are `storage[start ..< end]`; `storage[0]` is at stream offset `bufferOffset`.
    var start = 0
    var end = 0
    var bufferOffset = 0
    var sourceEnded = false
    // `@exclusivity(unchecked)` on the `var`s used per line, document or record: Docs/ARCHITECTURE.md, "Performance
    // mechanisms".
    @exclusivity(unchecked) var nextNumber = 0
    /// Version 3: the number after the last intact block's records, below which numbers never go (FORMAT.md §8);
    /// `nextNumber` above it means damage since.
    var intactEnd = 0
    /// Versions 1 and 2: the intact records read so far; fewer than `nextNumber` means damage took numbers (whose
    /// count is then an estimate: damage can hide record boundaries).
    var intactRecords = 0
    /// The first `maxKeptProblems` damaged records skipped so far (`problemCount` counts them all).
    public private(set) var problems: [StreamProblem] = []
    /// How many problems `problems` keeps: past it, problems are only counted (`problemCount`, `problemCounts`), so
    /// that a reader holds one record whatever the stream holds (a million damaged records would otherwise be
    /// a million descriptions).
    public var maxKeptProblems = 1_000
    /// Every problem found so far, kept in `problems` or not.
    public private(set) var problemCount = 0
    /// Every problem found so far, by kind.
    public private(set) var problemCounts: [FirePackError.Code: Int] = [:]
    /// How many of the problems are a damaged index or close record, by kind: damage that costs no record (the stream
    /// is read as one without them; Docs/FORMAT.md §8), though a seek then scans and completeness cannot be told.
    public private(set) var damagedClosings: [FirePackError.Code: Int] = [:]
    /// All of `damagedClosings`.
    public var damagedClosingCount: Int { damagedClosings.values.reduce(0, +) }
    /// Whether the last thing read so far is a damaged index or close record, with no record (intact or damaged)
    /// after it: an unclosed stream that ends so was likely closed, where one with records after it (appended to
    /// after a closing that later took damage) was not.
    public var endsAtDamagedClosing: Bool { numberAfterDamagedClosing == nextNumber }
    /// `nextNumber` just after the last damaged index or close record was reported.
    var numberAfterDamagedClosing: Int?
    /// How many of the problems are places where whole records are missing (`missingRecords`), not damage: one
    /// problem however many records it stands for.
    public var missingRecordPlaces: Int { problemCounts[.missingRecords] ?? 0 }
    /// Version 3: how many blocks were refused as past `maxBlockExpansion` (each one problem, `limitExceeded`):
    /// not damage; a reader allowing `blockExpansionNeeded` reads them.
    public internal(set) var blocksPastExpansion = 0
    /// The most any block refused as past `maxBlockExpansion` needs (at least; 0 when none was refused).
    public internal(set) var blockExpansionNeeded = 0
    /// `.stopAtFirstError`: the problem that stopped the reader, thrown again by every later read.
    @exclusivity(unchecked) var stopProblem: StreamProblem?
    /// The error that ended a `documents` or `values(as:)` sequence early, if one did.
    public internal(set) var stoppedBy: (any Error)?
    /// The stream's format version (1, 2 or 3).
    public private(set) var version: UInt8 = 0
    /// Whether the stream was closed cleanly; nil until its end is reached.
    public private(set) var completion: StreamCompletion?
    /// Records found so far, intact or damaged (what a close record counts).
    public var recordsFound: Int { nextNumber }
    /// Bytes of payloads whose CRC-32 did not match: checking work that resynchronisation spent on damage.
    var failedChecksumBytes = 0
    /// How much failed checking the reader accepts at its position: twice the bytes read so far, plus two records.
    /// Damage from the outside world (bit flips, a torn copy) stays far below it; a reader of a crafted stream stops
    /// checking claims it cannot afford and reports them instead, so its time stays linear in the stream's size.
    var checksumAllowance: Int { 2 * (bufferOffset + start) + 2 * maxRecordLength }
    /// A range reader's end (`DocumentStreamReader+Range.swift`): the first intact record at or past it ends reading.
    var rangeEnd = Int.max
    /// Whether a range reader stopped at the next range's first record: it reads nothing more, and its stream's end,
    /// which it did not reach, stays unknown (`completion` nil), however often it is asked again.
    var stoppedAtRangeEnd = false
    /// Whether a range reader is still looking for its first intact record: what it passes over belongs to the range
    /// before, so nothing is reported.
    var synchronizing = false
    /// Whether a resynchronisation is waiting for bytes (`continueResynchronizing()`).
    @exclusivity(unchecked) var resynchronizing = false
    /// Why the source ended before its input's end (gzip data cut short: a download stopped early), if it did: the
    /// stream is then torn where its bytes stop. Not a problem of its own — a unit the cut tears is reported as any
    /// torn unit, and a stream cut before its close record is not closed — but what a caller says (the tool warns).
    public internal(set) var sourceCut: FirePackError?
    /// The offsets of the units the stream file's index lists, once looked up (`listedUnits()`); empty when it has
    /// no usable one.
    var indexedUnits: [Int]?
    /// The count of the last close record read, until bytes after it show it superseded.
    var closedCount: Int?
    /// The offset of the close record `closedCount` came from.
    var closedOffset = 0
    /// What the stream ends inside when it ends inside its closing — "an index" or "a close record" (the writer
    /// stopped while closing it): not damage, every record before it is there; the stream is not closed.
    public internal(set) var tornClosing: String?
    /// Where the torn index or close record of `tornClosing` starts: what an appender cuts off before it writes.
    package internal(set) var tornClosingOffset: Int?
    /// The stream offset of the last unit start found by searching for a marker (or where a range reader without an
    /// index started): a unit there may lie inside another's payload, so its length is not trusted to pass over it.
    var searchLanding = -1
    /// Whether the close record that completed the stream counted records this reader did not find, and the reader
    /// reported them (`missingRecords`, `reportMissingBeforeClose`).
    package private(set) var reportedMissingAtClose = false
    /// Version 3: the open block's records (DocumentStreamReader+Blocks.swift).
    @exclusivity(unchecked) var openBlock = OpenBlock()
    /// Version 3: the next block being unpacked on another thread (`readsBlocksAhead`).
    var readAhead: BlockReadAhead?
    /// Version 3: how many bytes unpacking a block may give per byte of the block in the stream (its marker, length,
    /// CRC-32 and body): its data decompressed and, in the columns form, its rows rebuilt. A block that claims more is
    /// refused before that work is done — `limitExceeded` at its marker, whose message says how much reading it
    /// needs — so that no stream makes a reader decompress more than this many bytes per byte it reads
    /// (Docs/FORMAT.md §8, "Expansion"). FirePack's writers keep to the default since the rule was made (2026-12-02);
    /// raise it only to read a stream that does not: another writer's, or one that FirePack wrote before then holding
    /// megabytes of one byte repeated (or of one document repeated); set it before the first read, or pass it to the
    /// initializer. By default `DocumentStreamFormat.maxBlockExpansion` (1,024, about gzip's own most, 1,032).
    public var maxBlockExpansion = DocumentStreamFormat.maxBlockExpansion {
        didSet { maxBlockExpansion = Swift.max(maxBlockExpansion, 1) }
    }
    /// Version 3: whether the next block is decompressed and its rows rebuilt on another thread while this block's
    /// records are handed out: read early from a source that never waits (a file, memory), and from others when
    /// its bytes have come already. The records, their numbers and every problem reported are the same, in the same
    /// order, as without (a block unpacked ahead is used only for the same bytes at the same offset); it costs a
    /// second block of memory and a copy of the block as stored. Off by default; on where another thread is free to
    /// take the work, as in `firepack convert` with more than one thread.
    public var readsBlocksAhead: Bool {
        get { readAhead != nil }
        set {
            guard newValue != readsBlocksAhead else { return }
            readAhead?.finish()
            readAhead = newValue ? BlockReadAhead() : nil
        }
    }
    /// Whether record numbers count from the stream's first record (not a range's): then a version-3 block's header
    /// sets them, so records lost to a damaged block are counted.
    var numbersFromStreamStart = true
    /// A range reader (`numbersFromStreamStart` false): in version 3 the stream's number after the last intact block
    /// it read (its `first`, or the number before it when higher, + count); 0 for the range that starts at the
    /// stream's beginning (in version 2 it stays so), nil while a range that starts elsewhere has read no block.
    var blockNumbersEnd: Int? = 0
    /// The stream's number after the last intact unit read, when this reader knows it: a whole-stream reader's own
    /// count; a version-3 range's from the blocks it read; a version-2 range's only when it starts at byte 0. What a
    /// block's `first` and the close record's count are held against (`missingRecords`).
    package var streamNumber: Int? {
        if numbersFromStreamStart { return nextNumber }
        if version >= 3 { return blockNumbersEnd }
        return blockNumbersEnd == nil ? nil : nextNumber
    }
    /// Version 3: whether to list each block read (its offset and record count) in `blockList`.
    package var listsBlocks = false
    package var blockList: [(offset: Int, count: Int)] = []
    /// A record read ahead and handed back (`reading(path:fromRecord:)`): the next `nextRecord()` returns it. Its
    /// payload stays valid, since nothing is read before it is returned.
    @exclusivity(unchecked) var pushedBack: StreamRecord?
    /// Bytes read from the source so far: at the end, the stream's size.
    package var bytesRead: Int { bufferOffset + end }
    /// Where the next unit the reader has not taken starts in the stream (records of an open block aside).
    package var consumedOffset: Int { bufferOffset + start }

    /// Reads the stream header from `source`; throws `badMagic` or `unsupportedVersion` when it is not a stream.
    public convenience init(
        source: ByteSource, mode: ErrorMode = .skipAndReport,
        maxRecordLength: Int = DocumentStreamFormat.defaultMaxRecordLength,
        maxBlockExpansion: Int = DocumentStreamFormat.maxBlockExpansion, limits: ReaderLimits = .default
    ) throws {
        self.init(uncheckedSource: source, mode: mode, maxRecordLength: maxRecordLength, limits: limits, version: 0)
        self.maxBlockExpansion = maxBlockExpansion
        try fill(atLeast: DocumentStreamFormat.header.count)
        // Front to back (Docs/FORMAT.md §5, §8): a byte that differs from the magic is `badMagic` at that byte; a
        // header cut short while its bytes match is `truncated` at its first byte; then the version, then the flags.
        let header = DocumentStreamFormat.header
        let available = end - start
        let cut = FirePackError(.truncated, offset: 0, "the stream header is cut short")
        for index in 0..<4 {
            guard index < available else { throw cut }
            guard byte(index) == header[index] else {
                throw FirePackError(.badMagic, offset: index, "not a FirePack document stream (expected 89 46 50 53)")
            }
        }
        guard available > 4 else { throw cut }
        guard DocumentStreamFormat.readableVersions.contains(byte(4)) else {
            throw FirePackError(
                .unsupportedVersion, offset: 4, "stream version \(byte(4)); this reader implements 1, 2 and 3")
        }
        version = byte(4)
        guard available > 5 else { throw cut }
        guard byte(5) == header[5] else {
            throw FirePackError(
                .unsupportedVersion, offset: 5,
                "stream flags 0x\(String(byte(5), radix: 16)); version \(version) defines none (the byte must be 00)")
        }
        start = header.count
    }

    /// A reader whose header was read elsewhere (a range reader's): nothing is read yet.
    init(
        uncheckedSource source: ByteSource, mode: ErrorMode, maxRecordLength: Int, limits: ReaderLimits, version: UInt8
    ) {
        self.source = source
        self.mode = mode
        self.maxRecordLength = maxRecordLength
        capacity = 1 << 16
        storage = .allocate(byteCount: capacity, alignment: 16)
        self.limits = limits
        self.version = version
    }

    deinit {
        readAhead?.finish()
        storage.deallocate()
        openBlock.data?.deallocate()
        openBlock.columns?.deallocate()
    }

    /// What the stream frames: a record (versions 1 and 2) or a block of records (version 3), for reports.
    var unit: String { version >= 3 ? "block" : "record" }

    @inline(__always)
    func byte(_ index: Int) -> UInt8 { storage.load(fromByteOffset: index, as: UInt8.self) }

    /// The next intact record's payload, or nil at the end of the stream.
    ///
    /// Resumable: a source that has no bytes yet but more to come (an asynchronous one, `AsyncDocumentStream`) throws
    /// out of `fill` with nothing consumed but what is settled — a record reported, a resynchronisation under way
    /// (`resynchronizing`), a close record read (`closedCount`) — so that the next call goes on where this one stopped.
    public func nextRecord() throws -> StreamRecord? {
        if let stopProblem { throw stopProblem }
        if let record = pushedBack {
            pushedBack = nil
            return record
        }
        if stoppedAtRangeEnd { return nil }
        if resynchronizing { try continueResynchronizing() }
        if openBlock.remaining > 0 { return nextInBlock() }
        while true {
            try fill(atLeast: DocumentStreamFormat.closeRecordLength(version: version))
            let available = end - start
            if available == 0 {
                if completion == nil {
                    if let closedCount {
                        completion = .closed(recordCount: closedCount)
                        try reportMissingBeforeClose(count: closedCount)
                    } else {
                        completion = version >= 2 ? .notClosed(recordCount: nextNumber) : .unknown
                    }
                }
                return nil
            }
            // Bytes after a close record: it was superseded by later appends.
            closedCount = nil
            let recordOffset = bufferOffset + start
            if version >= 2 && matchesCloseMarker(at: start) {
                try readCloseRecord(at: recordOffset)
                continue
            }
            if version >= 3 && matchesIndexMarker(at: start) {
                try skipIndex(at: recordOffset)
                continue
            }
            if available < DocumentStreamFormat.recordHeaderLength && startsMarker(at: start) {
                try report(recordOffset, .truncated, "the stream ends inside a \(unit) header")
                start = end
                // A version-2 stream that ends in a torn record (its close record never written, or overwritten) is
                // not closed, as one that ends at a record boundary is.
                if completion == nil { completion = version >= 2 ? .notClosed(recordCount: nextNumber) : .unknown }
                return nil
            }
            guard available >= 4 && matchesMarker(at: start) else {
                try report(recordOffset, .badSyncMarker, "no sync marker where a \(unit) should start")
                try resynchronize()
                continue
            }
            guard let payload = try checkedPayload(at: recordOffset, unit: unit) else { continue }
            let length = payload.count
            let payloadStart = start + DocumentStreamFormat.recordHeaderLength
            if recordOffset >= rangeEnd {
                // The first intact record of the next range: this range ends here, whatever was reported before it.
                // A gap between this range's last block and that one is this range's to report (the next range
                // does not know what came before it).
                if version >= 3, case .success(let header) = unpack(block: payload, at: recordOffset) {
                    try reportMissingRecords(before: header.first, at: recordOffset)
                }
                start = end
                sourceEnded = true
                stoppedAtRangeEnd = true
                return nil
            }
            synchronizing = false
            start = payloadStart + length
            if version >= 3 {
                if try open(block: payload, at: recordOffset) { return nextInBlock() }
                continue
            }
            let number = nextNumber
            nextNumber += 1
            intactRecords += 1
            return StreamRecord(
                number: number, offset: recordOffset, payload: payload,
                payloadOffset: recordOffset + DocumentStreamFormat.recordHeaderLength)
        }
    }

    /// The payload of the framed unit — a record, a block or the index — whose header is at `start`, its marker matched
    /// and its header in the buffer: checked against the length limit, the end of the stream, the checksum allowance
    /// and its CRC-32, in that order (Docs/FORMAT.md §8). Nil when it is damaged: then it has been reported, as the
    /// `unit` named and numbered `number` (nil: the next record's number, which it takes), and the reader has moved
    /// on to the next plausible sync marker. Moves nothing when it returns the payload.
    func checkedPayload(at recordOffset: Int, unit: String, number: Int? = nil) throws -> UnsafeRawBufferPointer? {
        let named = unit == "index" ? "an index" : "a \(unit)"
        let length = Int(load32(at: start + 4))
        let checksum = load32(at: start + 8)
        guard length <= maxRecordLength else {
            try report(
                recordOffset, .limitExceeded, "\(unit) length \(length) exceeds the limit of \(maxRecordLength)",
                number: number)
            try resynchronize()
            return nil
        }
        try fill(atLeast: DocumentStreamFormat.recordHeaderLength + length)
        guard end - start >= DocumentStreamFormat.recordHeaderLength + length else {
            // Either the last unit is torn, or its length is damaged: look for a later one before giving up.
            if try resynchronize() {
                try report(
                    recordOffset, .lengthOutOfBounds,
                    "\(unit) length \(length) is damaged (it runs past the end of the stream)", number: number)
            } else if unit == "index" {
                // The writer stopped while closing the stream: no record is lost, and it is not closed (§8).
                (tornClosing, tornClosingOffset) = (named, recordOffset)
            } else {
                try report(
                    recordOffset, .truncated,
                    "the stream ends inside \(named) of \(length) bytes (a torn last \(unit))", number: number)
            }
            return nil
        }
        let payload = UnsafeRawBufferPointer(
            start: storage + start + DocumentStreamFormat.recordHeaderLength, count: length)
        guard failedChecksumBytes + length <= checksumAllowance else {
            // Resynchronisation never rescans without bound: record headers that each claim a long record over the
            // same bytes would make every byte checked once per header (Docs/FORMAT.md §8, "Bounded work").
            try report(
                recordOffset, .limitExceeded,
                "\(named) of \(length) bytes left unchecked: \(unit == "index" ? "record" : unit)s that failed their CRC-32 have already cost more checking than the stream's size allows (the stream looks crafted)",
                number: number)
            try resynchronize()
            return nil
        }
        guard crc32(payload) == checksum else {
            // Version 3: a payload may hold bytes that are a block (a document's bytes holding a stream, stored as
            // they are), so reading on from inside it could return records no writer wrote. When the damaged unit's
            // start was reached by the length before it (not found by a search) and its own length ends where a
            // unit or the stream starts, it is whole: read on from there. (Had the length been damaged so as to land
            // on a later unit, the next block's `first` accounts for the records passed over.) The four bytes after
            // it are made available first — before anything is reported, as a source short of bytes (an
            // asynchronous one) brings the reader back here — so that no chunk boundary changes the outcome.
            // With the stream file's index, the next unit it lists is where reading goes on, whatever the damaged
            // length says (one damaged so as to land on a later block would pass over the blocks between).
            let indexed = try listedUnits() != nil
            let trusted = version >= 3 && bufferOffset + start != searchLanding && !indexed
            if trusted || unit == "index" { try fill(atLeast: DocumentStreamFormat.recordHeaderLength + length + 4) }
            let after = start + DocumentStreamFormat.recordHeaderLength + length
            // An index is followed by its close record: a damaged one costs no record. Anything else with the index's
            // marker is a block whose marker byte was damaged.
            let isIndex = unit == "index" && matchesCloseMarker(at: after)
            failedChecksumBytes += length
            try report(
                recordOffset, .badChecksum,
                isIndex
                    ? "CRC-32 mismatch (the index is damaged; no record is lost)"
                    : "CRC-32 mismatch (the \(unit == "index" ? "unit with an index's marker" : unit) is damaged)",
                number: number, inClosing: isIndex)
            if trusted && (after == end && sourceEnded || after + 4 <= end && startsUnit(at: after)) {
                start = after
                return nil
            }
            try resynchronize()
            return nil
        }
        return payload
    }

    /// The next intact document, or nil at the end; a record that checks out but is not a document is a problem.
    public func next() throws -> (number: Int, offset: Int, document: Document)? {
        guard let (record, document) = try nextDocumentRecord() else { return nil }
        return (record.number, record.offset, document)
    }

    /// The next intact document with its record (whose payload stays valid until the next read), or nil at the end.
    public func nextDocumentRecord() throws -> (record: StreamRecord, document: Document)? {
        while let record = try nextRecord() {
            if let document = try document(in: record) { return (record, document) }
        }
        return nil
    }

    /// The next intact document's record and name, or nil at the end: the records `next()` gives, checked as strictly
    /// (every byte of the fields) and with the same problems reported, without building a tree of the fields — memory
    /// for one record's bytes, whatever its values hold (a tree can cost a hundred times the bytes, Docs/SAFETY.md).
    /// For checking a stream from outside, or passing its records on; the payload stays valid until the next read.
    public func nextCheckedRecord() throws -> (record: StreamRecord, reference: DocumentReference)? {
        while let record = try nextRecord() {
            do {
                return (record, try Document.checkRecord(record.payload, limits: limits))
            } catch {
                try reportInvalidDocument(error, in: record)
            }
        }
        return nil
    }

    /// The document `record` holds, or nil when it is not a valid one: a problem like a damaged record, thrown in
    /// `.stopAtFirstError` mode, else added to `problems`.
    package func document(in record: StreamRecord) throws -> Document? {
        do {
            return try Document(firePackBytes: record.payload, limits: limits)
        } catch {
            try reportInvalidDocument(error, in: record)
            return nil
        }
    }

    /// The next intact document's fields decoded as `T` (with `@DocumentID` filled), or nil at the end. A record
    /// that does not decode as `T` is a problem like a damaged one (code `decodingFailed`, the record's offset, the
    /// `DecodingError` in the reason): thrown in `.stopAtFirstError` mode, else added to `problems` and skipped.
    public func next<T: Decodable>(as type: T.Type, decoder: FirePackDecoder = FirePackDecoder()) throws -> (
        reference: DocumentReference, value: T
    )? {
        while let record = try nextRecord() {
            if let decoded = try decode(record, as: type, decoder: decoder) { return decoded }
        }
        return nil
    }

    /// The document `record` holds, its fields decoded as `T`; nil when it is not a document or does not decode (a
    /// problem, reported as `next(as:)` says).
    func decode<T: Decodable>(_ record: StreamRecord, as type: T.Type, decoder: FirePackDecoder) throws -> (
        reference: DocumentReference, value: T
    )? {
        // Straight from the record's bytes: the document's shape is checked, its fields decoded in place.
        let reference: DocumentReference
        var fields: FirePackReader?
        do {
            reference = try Document.scanRecord(record.payload, limits: limits) { reader throws(FirePackError) in
                fields = reader
                try reader.skipValue()
            }.reference
        } catch {
            try reportInvalidDocument(error, in: record)
            return nil
        }
        do {
            return (reference, try decoder.decode(type, from: &fields!, in: reference))
        } catch {
            try report(
                record.offset, .decodingFailed, "\(reference.path) does not decode as \(T.self): \(error)",
                number: record.number)
            return nil
        }
    }

    /// Reports a record whose payload checks out but is not a document; offsets inside the payload are counted from
    /// the stream's first byte, as everywhere (FORMAT.md §7).
    /// A document inside a compressed block has no stream offset: it is reported at its block's marker, with the
    /// byte inside the document in the reason.
    ///
    /// `keptBefore`: where the problem goes among the kept ones, for a reader that has read past the record since (it
    /// goes where it would have gone had it been reported when the record was read: after the `keptBefore` kept
    /// then). By default, last.
    package func reportInvalidDocument(_ error: FirePackError, in record: StreamRecord, keptBefore: Int? = nil) throws {
        guard let payloadStart = record.payloadOffset else {
            let inside = error.offset.map { " (byte \($0) of the document, in a compressed block)" } ?? ""
            try report(
                record.offset, error.code, "not a valid document\(inside): \(error)", number: record.number,
                keptBefore: keptBefore)
            return
        }
        let inStream = FirePackError(
            error.code, offset: error.offset.map { $0 + payloadStart }, error.message, path: error.path)
        // A damaged version byte (3 read as 1 or 2) makes every block a record holding more than a document, which
        // nothing else would tell: said at the first record, when it reads as a stream's first block.
        var hint = ""
        if version < 3, record.number == 0,
            let header = try? Self.blockHeader(record.payload, maxSize: maxRecordLength),
            header.first == 0, header.codec != .none || record.payload.count - header.dataStart == header.size
        {
            hint =
                " (it reads as a version-3 block: the stream's header says version \(version); is that byte damaged?)"
        }
        try report(
            inStream.offset ?? record.offset, error.code, "not a valid document: \(inStream)\(hint)",
            number: record.number, keptBefore: keptBefore)
    }

    /// Reads the close record at `start`: its count is kept (`closedCount`), and completes the stream if nothing
    /// follows it (followed by more bytes, it was superseded by later appends); damaged or torn, it is reported.
    func readCloseRecord(at recordOffset: Int) throws {
        let length = DocumentStreamFormat.closeRecordLength(version: version)
        guard end - start >= length else {
            // The writer stopped while writing it: no record is lost, and the stream is not closed (FORMAT.md §8).
            (tornClosing, tornClosingOffset) = ("a close record", recordOffset)
            start = end
            return
        }
        guard
            crc32(UnsafeRawBufferPointer(start: storage + start + 4, count: length - 8))
                == load32(at: start + length - 4)
        else {
            // A close record ends the stream or, superseded, is followed by a unit: anything else with its marker may
            // be a record or block whose marker byte was damaged, which costs records.
            try fill(atLeast: length + 4)
            let isClosing =
                (end - start == length && sourceEnded) || (end - start >= length + 4 && startsUnit(at: start + length))
            if isClosing {
                try report(
                    recordOffset, .badChecksum, "CRC-32 mismatch in a close record (it is damaged; no record is lost)",
                    number: nextNumber, inClosing: true)
            } else {
                // Numbered as a damaged close record is (Docs/FORMAT.md §8), but counted as damage, not as a closing.
                try report(
                    recordOffset, .badChecksum,
                    "CRC-32 mismatch in a unit with a close record's marker, neither at the stream's end nor followed by another unit: a damaged close record, record or block",
                    number: nextNumber)
            }
            try resynchronize()
            return
        }
        closedCount = Int(
            truncatingIfNeeded: UInt64(littleEndian: storage.loadUnaligned(fromByteOffset: start + 4, as: UInt64.self)))
        closedOffset = recordOffset
        start += length
    }

    /// Reports `missingRecords` at the close record that ends the stream when its count is above the records found
    /// (intact, and one per damaged record or block) and nothing damaged could explain it — in version 3 nothing
    /// since the last intact block, in version 2 nothing at all (Docs/FORMAT.md §8, "Complete or not"): records were
    /// cut out at the end, or, in version 2, anywhere. Only a reader that knows the stream's numbers can tell
    /// (`streamNumber`).
    func reportMissingBeforeClose(count: Int) throws {
        let found = streamNumber
        // Version 3 numbers are exact from an intact block on; version-2 numbers only while nothing was damaged.
        let undamaged = version >= 3 ? nextNumber == intactEnd : intactRecords == nextNumber
        let counted = UInt64(bitPattern: Int64(count))
        guard let found, undamaged, counted > UInt64(found) else { return }
        reportedMissingAtClose = true
        try report(
            closedOffset, .missingRecords,
            "records \(found)–\(counted - 1) are missing: the close record counts \(counted) record(s) but \(found) were found, and no damaged record or block lies between",
            number: nextNumber)
    }

    /// Reports a problem (see `problems`); `inClosing` for a damaged index or close record (`damagedClosings`).
    func report(
        _ offset: Int, _ code: FirePackError.Code, _ reason: String, number: Int? = nil, keptBefore: Int? = nil,
        inClosing: Bool = false
    ) throws {
        if synchronizing { return }
        if inClosing { damagedClosings[code, default: 0] += 1 }
        var problem = StreamProblem(recordNumber: number ?? nextNumber, offset: offset, code: code, reason: reason)
        problem.isDamagedClosing = inClosing
        if number == nil { nextNumber += 1 }
        numberAfterDamagedClosing = inClosing ? nextNumber : numberAfterDamagedClosing
        if mode == .stopAtFirstError && !inClosing {
            // Stopped where the problem is: reading on from there would meet it again, under the next number.
            stopProblem = problem
            throw problem
        }
        problemCount += 1
        problemCounts[code, default: 0] += 1
        // The first `maxKeptProblems` in stream order: one reported late goes before those found after it.
        let index = Swift.min(keptBefore ?? problems.count, problems.count)
        guard index < maxKeptProblems else { return }
        problems.insert(problem, at: index)
        if problems.count > maxKeptProblems { problems.removeLast() }
    }

    /// Makes at least `count` unconsumed bytes available unless the source ends first; the buffer never holds more
    /// than twice one record plus one chunk.
    ///
    /// Linear in the stream however many records claim more bytes than follow them: unconsumed bytes are moved to the
    /// front only once the consumed part is at least half the buffer (so each move is paid for by as many bytes passed
    /// over), and the buffer otherwise grows by doubling. Moving them on every call cost a rescan of the rest per
    /// fake record header (HostileInputTests).
    func fill(atLeast count: Int) throws {
        guard end - start < count, !sourceEnded else { return }
        if start + count > capacity {
            let kept = end - start
            if start >= capacity / 2 && count <= capacity {
                if kept > 0 { storage.copyMemory(from: storage + start, byteCount: kept) }
            } else {
                let grown = max(capacity * 2, count + (1 << 16))
                let buffer = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
                if kept > 0 { buffer.copyMemory(from: storage + start, byteCount: kept) }
                storage.deallocate()
                storage = buffer
                capacity = grown
            }
            bufferOffset += start
            end = kept
            start = 0
        }
        while end - start < count && !sourceEnded {
            let read: Int
            do {
                read = try source.read(into: UnsafeMutableRawBufferPointer(start: storage + end, count: capacity - end))
            } catch let error as FirePackError where error.code == .truncated {
                // A source whose input was cut short (gzip data without its end) is a torn stream: what it gave is
                // read, as the bytes of a file cut there would be (`sourceCut`).
                (sourceEnded, sourceCut) = (true, error)
                return
            }
            if read == 0 { sourceEnded = true } else { end += read }
        }
    }
}
