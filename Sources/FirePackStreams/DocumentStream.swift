import CFirePackSystem  // stat(2), truncate(2)
import FirePack

/// The `.fpks` layout of Docs/FORMAT.md §8.
public enum DocumentStreamFormat {
    /// `\\x89FPS`, version 3, flags 0: what new streams start with.
    public static let header: [UInt8] = header(version: 3)
    /// The header of a stream of `version`.
    public static func header(version: UInt8) -> [UInt8] { [0x89, 0x46, 0x50, 0x53, version, 0x00] }
    /// The versions a reader accepts: 1 (no close record), 2 (records and a close record) and 3 (blocks, an index).
    public static let readableVersions: ClosedRange<UInt8> = 1...3
    /// The versions a writer writes: 2 for readers that have not upgraded, and 3.
    public static let writableVersions: ClosedRange<UInt8> = 2...3
    /// The 4-byte marker in front of every record (version 3: every block).
    public static let syncMarker: [UInt8] = [0xF3, 0x50, 0x52, 0x1E]
    /// The 4-byte marker of a close record (versions 2 and 3).
    public static let closeMarker: [UInt8] = [0xF3, 0x50, 0x52, 0x45]
    /// The 4-byte marker of a block index (version 3).
    public static let indexMarker: [UInt8] = [0xF3, 0x50, 0x52, 0x49]
    /// Marker, length and CRC: a record's header (version 3: a block's, and the index's).
    public static let recordHeaderLength = 12
    /// A record header with length and CRC still zero, for the writer to fill in.
    static let recordHeaderTemplate: [UInt8] = syncMarker + [0, 0, 0, 0, 0, 0, 0, 0]
    /// Marker, record count (uint64) and CRC: a version-2 close record.
    public static let closeRecordLength = 16
    /// Marker, record count and index offset (uint64 each) and CRC: a version-3 close record.
    public static let blockCloseRecordLength = 24

    /// The length of a close record of a stream of `version`.
    static func closeRecordLength(version: UInt8) -> Int { version >= 3 ? blockCloseRecordLength : closeRecordLength }

    /// The close record for a stream of `recordCount` records; version 3 adds the offset of its index (0: none).
    static func closeRecord(recordCount: Int, version: UInt8 = 2, indexOffset: Int = 0) -> [UInt8] {
        var body: [UInt8] = []
        withUnsafeBytes(of: UInt64(recordCount).littleEndian) { body += $0 }
        if version >= 3 { withUnsafeBytes(of: UInt64(indexOffset).littleEndian) { body += $0 } }
        var record = closeMarker + body
        withUnsafeBytes(of: body.withUnsafeBytes { crc32($0) }.littleEndian) { record += $0 }
        return record
    }
    /// The largest record a reader accepts by default (Firestore documents are at most 1 MiB); in version 3 also
    /// the largest block, stored or decompressed, and the largest index.
    public static let defaultMaxRecordLength = 64 << 20
    /// The most records a version-3 stream may number: a block whose `first` plus its count is higher is invalid
    /// (Docs/FORMAT.md §8), so that no count a crafted header claims brings a reader's numbers near overflow.
    public static let maxRecordNumber = 1 << 62
    /// The documents' bytes at which a version-3 writer closes a block by default (Docs/FORMAT.md §8, "Block size").
    public static let defaultBlockSize = 1 << 20
    /// How many bytes unpacking a version-3 block may give per byte of the block in the stream, by default: its data
    /// decompressed and, in the columns form, its rows rebuilt (Docs/FORMAT.md §8, "Expansion"). Writers make a
    /// block that would give more longer (a zstd skippable frame; with deflate, its rows, compressed or as they are);
    /// readers refuse one (`DocumentStreamReader.maxBlockExpansion`).
    public static let maxBlockExpansion = 1024
}

/// Appends documents to a `.fpks` stream (Docs/FORMAT.md §8). Version 3, the default: documents gathered into
/// blocks, each compressed on its own with `codec` and closed at `blockSize` bytes of documents, on `flush()` and
/// at the end; `close()` writes an index of the blocks and a close record that tells readers the stream is
/// complete. Version 2, for readers that have not upgraded: one record per document, then the close record.
///
/// Documents are encoded into reused buffers and passed to the sink as blocks (records) complete, so memory stays
/// constant whatever the stream's length: one block, one compressed block, and the index (a few bytes per block);
/// compressed blocks are compressed on a thread of their own (`BlockCompressor`), which holds one more block.
///
/// A writer released without `close()` loses nothing it was given: its deinit writes the open block and flushes to
/// the sink, and the stream reads as "not closed after record N" — except on an all-or-nothing destination
/// (`creatingAtomically(atPath:)`), where an unclosed writer means an unfinished job and leaves the destination
/// as it was.
public final class DocumentStreamWriter {
    let sink: ByteSink
    /// The output buffer: record and block headers, blocks and payloads are written straight into it, and its sink
    /// is the stream's.
    let writer: FirePackWriter
    /// The stream's format version: 3 for new streams unless asked for 2; appending keeps the stream's version (a
    /// version-1 stream has no close record).
    public let version: UInt8
    /// How blocks are stored (version 3).
    public let codec: BlockCodec
    /// The documents' bytes at which a block is closed (version 3).
    public let blockSize: Int
    /// Records in the stream before this writer started (when appending).
    let existingRecords: Int
    var closed = false
    /// Records written through this writer.
    @exclusivity(unchecked) public internal(set) var recordCount = 0
    /// Whether map keys are written sorted (deterministic records, written from trees).
    public var isDeterministic: Bool { writer.options.deterministic }
    /// Version 3: the open block's documents, one after another, and their lengths.
    // `@exclusivity(unchecked)` on the `var`s used per line, document or record: Docs/ARCHITECTURE.md, "Performance
    // mechanisms".
    @exclusivity(unchecked) var block: FirePackWriter?
    @exclusivity(unchecked) var blockLengths: [Int] = []
    @exclusivity(unchecked) var blockLengthBytes = 0
    /// Version 3: every block of the stream so far (its marker's offset and its record count), for the index.
    var blocks: [(offset: Int, count: Int)]
    /// The stream offset of the next byte written.
    var streamOffset: Int
    /// Version 3, compressed: the thread that compresses each block while the next one fills (made at the first).
    var compressor: BlockCompressor?
    /// Version 3: whether each full block is stored (split into columns, compressed) on a thread of its own while
    /// the next block fills — the default, up to two blocks at a time (`BlockCompressor`) — or in place, on the
    /// caller's thread. The stream's bytes, and what reaches the sink at each `flush()`, are the same either way;
    /// storing in the background costs about four more blocks of memory. Turn it off where every core already runs
    /// a writer of its own. It can change between blocks: blocks already handed to the thread still go out first.
    public var storesBlocksInBackground = true
    /// How blocks lay out their documents (Docs/FORMAT.md §8, "Columns"): `.automatic` but in tests and fuzzing.
    var blockLayout = BlockLayout.automatic

    /// Writes a new stream to `sink`, of `version` (3, or 2 for readers that have not upgraded); a version-3 stream
    /// stores its blocks with `codec` and closes each at `blockSize` bytes of documents.
    public convenience init(
        sink: ByteSink, deterministic: Bool = false, flushThreshold: Int = 1 << 20, version: UInt8 = 3,
        codec: BlockCodec = .zstd, blockSize: Int = DocumentStreamFormat.defaultBlockSize
    ) throws {
        try Self.check(version: version, blockSize: blockSize)
        self.init(
            sink: sink, header: true, version: version, existingRecords: 0, deterministic: deterministic,
            flushThreshold: flushThreshold, codec: codec, blockSize: blockSize, blocks: [], streamOffset: 0)
    }

    init(
        sink: ByteSink, header: Bool, version: UInt8, existingRecords: Int, deterministic: Bool,
        flushThreshold: Int = 1 << 20, codec: BlockCodec = .zstd,
        blockSize: Int = DocumentStreamFormat.defaultBlockSize,
        blocks: [(offset: Int, count: Int)], streamOffset: Int, limits: ReaderLimits = .default
    ) {
        self.sink = sink
        // Records of version-1 and 2 streams are values of format version 1, which has no decimal doubles: readers
        // that predate version 3 read them (Docs/FORMAT.md §8).
        let formatVersion = version >= 3 ? 3 : 1
        writer = FirePackWriter(
            options: .init(
                deterministic: deterministic, initialCapacity: flushThreshold + 4096,
                flushThreshold: flushThreshold, limits: limits, formatVersion: formatVersion),
            sink: FirePackWriter.Sink { try sink.write($0) })
        self.version = version
        self.codec = codec
        self.blockSize = blockSize
        self.existingRecords = existingRecords
        self.blocks = blocks
        self.streamOffset = streamOffset
        // A block's documents carry no key references: its columns number keys by path, so a reference would save
        // nothing there (Docs/FORMAT.md §8, "Documents without key references").
        block =
            version >= 3
            ? FirePackWriter(
                options: .init(
                    deterministic: deterministic, keyReferences: false, initialCapacity: blockSize + 4096,
                    formatVersion: formatVersion))
            : nil
        if header {
            writer.writeFraming(DocumentStreamFormat.header(version: version))
            self.streamOffset += DocumentStreamFormat.header.count
        }
    }

    static func check(version: UInt8, blockSize: Int) throws {
        guard DocumentStreamFormat.writableVersions.contains(version) else {
            throw FirePackError(.unsupportedVersion, "streams are written as version 2 or 3, not \(version)")
        }
        guard blockSize > 0 && blockSize <= DocumentStreamFormat.defaultMaxRecordLength / 2 else {
            throw FirePackError(
                .invalidValue,
                "a block size is between 1 byte and \(DocumentStreamFormat.defaultMaxRecordLength / 2), not \(blockSize)"
            )
        }
    }

    deinit {
        // Nothing appended is lost: the open block and buffered records reach the sink; the stream stays "not closed".
        if !closed {
            try? writeBlock()
            // Every block being stored, each on its own: one the sink refuses does not keep the next from it.
            while let compressor, !compressor.isEmpty { try? writeOldestCompressedBlock() }
            try? writer.flush()
        }
    }

    /// Writes a new stream at `path` all or nothing: records go to a temporary file beside it, and `close()`
    /// renames it over `path` (AtomicFileSink). Until then, and if the writer is released unclosed, whatever was
    /// at `path` is untouched.
    public static func creatingAtomically(
        atPath path: String, deterministic: Bool = false, version: UInt8 = 3, codec: BlockCodec = .zstd,
        blockSize: Int = DocumentStreamFormat.defaultBlockSize
    ) throws -> DocumentStreamWriter {
        try check(version: version, blockSize: blockSize)
        return try DocumentStreamWriter(
            sink: AtomicFileSink(destination: path), deterministic: deterministic, version: version, codec: codec,
            blockSize: blockSize)
    }

    /// Opens a stream file for appending, creating it (with its header, of `version`) when it does not exist; an
    /// existing file must be a stream, and keeps its version (`version` is then only checked against it, when
    /// given). Its records stay as they are; a close record (and index) at its end is superseded by the records
    /// appended after it, and `close()` writes a new one.
    public static func appending(
        toPath path: String, deterministic: Bool = false, version: UInt8? = nil, codec: BlockCodec = .zstd,
        blockSize: Int = DocumentStreamFormat.defaultBlockSize
    ) throws -> DocumentStreamWriter {
        try check(version: version ?? 3, blockSize: blockSize)
        // Only a file that is not there is made anew: one there that cannot be read is an error, never replaced.
        var status = stat()
        let exists = stat(SystemPath.bytes(path), &status) == 0
        guard exists || firepack_errno() == ENOENT else {
            throw FirePackError(.ioFailure, "\(path): cannot open for reading: \(systemError())")
        }
        if exists {
            let existing = try FileSource(path: path)
            var header = [UInt8](repeating: 0, count: DocumentStreamFormat.header.count)
            let count = try header.withUnsafeMutableBytes { try existing.read(into: $0) }
            if count > 0 {
                guard count == header.count, header[..<4] == DocumentStreamFormat.header[..<4],
                    DocumentStreamFormat.readableVersions.contains(header[4])
                else {
                    throw FirePackError(
                        .badMagic, offset: 0, "\(path) is not a FirePack document stream this version can extend")
                }
                if let version, version != header[4] {
                    throw FirePackError(
                        .unsupportedVersion, offset: 4,
                        "\(path) is a version-\(header[4]) stream; appending keeps its version (convert it to change it)"
                    )
                }
                // The close record counts every record and the index lists every block: count and list the existing
                // ones (one pass, one block in memory). Every block of the file being extended is counted, the ones
                // that FirePack wrote before the expansion rule (§8) too: a block left out here would be left out of
                // the new index.
                let reader = try DocumentStreamReader(source: FileSource(path: path), maxBlockExpansion: .max)
                reader.listsBlocks = true
                while try reader.nextRecord() != nil {}
                // Records are numbered on from the count its writer closed it with when records were lost (a damaged
                // block reads as one), so that the loss stays counted after the new close record; a count no writer
                // reaches (past half the numbers a stream may hold) is damage, not records, and is not followed.
                var existingRecords = reader.recordsFound
                if case .closed(let counted) = reader.completion, counted <= DocumentStreamFormat.maxRecordNumber / 2 {
                    existingRecords = max(existingRecords, counted)
                }
                // A stream that ends inside its closing (its writer stopped while closing it) has lost nothing: the
                // torn index or close record is cut off, where records written after it would read as damage.
                var streamOffset = reader.bytesRead
                if let torn = reader.tornClosingOffset {
                    guard truncate(SystemPath.bytes(path), off_t(torn)) == 0 else {
                        throw FirePackError(
                            .ioFailure, "\(path): cannot cut off its torn \(reader.tornClosing ?? ""): \(systemError())"
                        )
                    }
                    streamOffset = torn
                }
                return DocumentStreamWriter(
                    sink: try FileSink(path: path, append: true), header: false, version: header[4],
                    existingRecords: existingRecords, deterministic: deterministic, codec: codec,
                    blockSize: blockSize, blocks: reader.blockList, streamOffset: streamOffset)
            }
        }
        return try DocumentStreamWriter(
            sink: FileSink(path: path), deterministic: deterministic, version: version ?? 3, codec: codec,
            blockSize: blockSize)
    }

    /// Appends one document. Version 3: written into the open block; version 2: the record header, then the
    /// document written straight after it, then the length and CRC-32 filled in (one buffer, no copy).
    public func append(_ document: Document) throws {
        precondition(!closed, "append after close()")
        if let block {
            let start = block.writerIndex
            document.write(to: block)
            try finishBlockRecord(from: start)
            return
        }
        let recordStart = writer.writerIndex
        writer.writeFraming(DocumentStreamFormat.recordHeaderTemplate)  // length and CRC are set below
        let payloadStart = writer.writerIndex
        document.write(to: writer)
        try finishRecord(from: recordStart, payloadStart: payloadStart)
    }

    /// The error for a record that is not written because `violation`, a limit readers enforce, was met.
    ///
    /// Without the violation's offset, which counts in the bytes being written, not in anything the caller has: it
    /// once pointed past the end of the input file. The depth is counted in the record, where a document's fields
    /// are one level inside it, so the message says what that allows the document itself.
    package func refusal(_ violation: FirePackError) -> FirePackError {
        let depth =
            violation.code == .depthLimitExceeded
            ? " (a document's fields are one level inside its record: a document may nest \(max(0, writer.options.limits.maxDepth - 1)) deep)"
            : ""
        return FirePackError(
            violation.code,
            "record \(existingRecords + recordCount) not written: \(violation.message)\(depth)", path: violation.path)
    }

    /// The error for a record whose document takes `length` bytes, past the record limit.
    func oversized(_ length: Int) -> FirePackError {
        FirePackError(
            .limitExceeded,
            "record \(existingRecords + recordCount) not written: its document takes \(length) bytes, past the record limit of \(DocumentStreamFormat.defaultMaxRecordLength) that readers enforce (Docs/FORMAT.md §8)"
        )
    }

    /// Fills in the length and CRC-32 of the record that starts at `recordStart`, whose document is complete.
    private func finishRecord(from recordStart: Int, payloadStart: Int) throws {
        let length = writer.writerIndex - payloadStart
        // What readers refuse is never written: the record is dropped before it reaches the sink (Docs/FORMAT.md §6, §8).
        if let violation = writer.limitViolation {
            writer.resetLimitViolation()
            writer.discardCompleted(from: recordStart)
            throw refusal(violation)
        }
        guard length <= DocumentStreamFormat.defaultMaxRecordLength else {
            writer.discardCompleted(from: recordStart)
            throw oversized(length)
        }
        writer.setFraming(UInt32(length), at: recordStart + 4)
        writer.setFraming(writer.withUnsafeWrittenBytes(from: payloadStart) { crc32($0) }, at: recordStart + 8)
        recordCount += 1
        streamOffset += writer.writerIndex - recordStart
        try writer.flushIfNeeded()
    }

    /// Appends an `Encodable` value as the fields of the document at `reference`.
    ///
    /// A type with generated coding (`@FirePackCodable`) is written straight into the record; any other through a
    /// `Document`. On error nothing of the record stays.
    public func append<T: Encodable>(
        _ value: T, reference: DocumentReference, encoder: FirePackEncoder = FirePackEncoder()
    ) throws {
        if encoder.hasGeneratedCoding(T.self),
            try append(
                reference: reference,
                writingFields: { writer in try encoder.encodeGeneratedFields(value, into: writer) })
        {
            return
        }
        try append(Document(reference: reference, from: value, encoder: encoder))
    }

    /// Appends the document at `reference` whose fields `writeFields` writes into the record in place, as one map
    /// value; it returns false, having written nothing, when it cannot (the caller then takes another path).
    ///
    /// On error, or when `writeFields` returns false, nothing of the record stays.
    package func append(
        reference: DocumentReference, createTime: Timestamp? = nil, updateTime: Timestamp? = nil,
        writingFields writeFields: (FirePackWriter) throws -> Bool
    ) throws -> Bool {
        try appendRecord(
            reference: reference, createTime: createTime, updateTime: updateTime,
            writingFields: { writer in try writeFields(writer) ? reference : nil }) != nil
    }

    /// Appends a document whose fields `writeFields` writes into the record in place, as one map value, and whose
    /// reference it returns once they are written (the reference is then put ahead of them, where §9 has it); it
    /// returns nil, having written nothing, when it cannot. So a document named by one of its own members (a JSON
    /// line's `__name__`) is read in one pass.
    ///
    /// On error, or when `writeFields` returns nil, nothing of the record stays.
    package func append(namedAfter writeFields: (FirePackWriter) throws -> DocumentReference?) throws
        -> DocumentReference?
    {
        try appendRecord(reference: nil, createTime: nil, updateTime: nil, writingFields: writeFields)
    }

    /// One record in §9's order: `reference`, or when nil the one `writeFields` returns, put in its place after.
    private func appendRecord(
        reference: DocumentReference?, createTime: Timestamp?, updateTime: Timestamp?,
        writingFields writeFields: (FirePackWriter) throws -> DocumentReference?
    ) throws -> DocumentReference? {
        precondition(!closed, "append after close()")
        let target = block ?? writer
        let recordStart = target.writerIndex
        if block == nil { writer.writeFraming(DocumentStreamFormat.recordHeaderTemplate) }
        let payloadStart = target.writerIndex
        let named: DocumentReference?
        do {
            named = try Self.writeDocument(
                reference: reference, createTime: createTime, updateTime: updateTime, into: target,
                writingFields: writeFields)
        } catch {
            target.discardCompleted(from: recordStart)
            throw error
        }
        guard let named else {
            target.discardCompleted(from: recordStart)
            return nil
        }
        if block != nil {
            try finishBlockRecord(from: payloadStart)
        } else {
            try finishRecord(from: recordStart, payloadStart: payloadStart)
        }
        return named
    }

    /// Writes a document in §9's order into `target` as one root value: `reference`, or when nil the one
    /// `writeFields` returns, put in its place after the fields, which `writeFields` writes in place. Returns the
    /// reference, or nil when `writeFields` does; then, and on error, nothing of the document stays in `target`.
    /// What `append(namedAfter:)` writes into a record, for encoders that write documents elsewhere first
    /// (`append(encodedDocument:)`).
    package static func writeDocument(
        reference: DocumentReference?, createTime: Timestamp? = nil, updateTime: Timestamp? = nil,
        into target: FirePackWriter, writingFields writeFields: (FirePackWriter) throws -> DocumentReference?
    ) throws -> DocumentReference? {
        let start = target.writerIndex
        target.beginMap()
        target.writeKey("name")
        var deferredName = -1
        if let reference { target.writeReference(reference) } else { deferredName = target.deferValue() }
        target.writeKey("fields")
        let named: DocumentReference?
        do { named = try writeFields(target) } catch {
            target.abandonRootValue(truncatingTo: start)
            throw error
        }
        guard let named else {
            target.abandonRootValue(truncatingTo: start)
            return nil
        }
        if reference == nil { target.insertDeferredValue(at: deferredName) { $0.writeReference(named) } }
        Document.writeTimes(createTime: createTime, updateTime: updateTime, to: target)
        target.endMap()
        return named
    }

    /// The options of a writer that writes documents for `append(encodedDocument:)`: this stream's.
    package var documentOptions: FirePackWriter.Options {
        var options = (block ?? writer).options
        options.initialCapacity = 4096
        options.flushThreshold = .max
        return options
    }

    /// Appends the document `write` writes into the record as one root value (`writeDocument(reference:…)`'s), as
    /// `append(_:)` appends one: refused when past the readers' limits, the record limit checked, the block closed at
    /// its size. On error nothing of the record stays.
    package func append(writtenBy write: (FirePackWriter) throws -> Void) throws {
        precondition(!closed, "append after close()")
        let target = block ?? writer
        let recordStart = target.writerIndex
        if block == nil { writer.writeFraming(DocumentStreamFormat.recordHeaderTemplate) }
        let payloadStart = target.writerIndex
        do { try write(target) } catch {
            target.abandonRootValue(truncatingTo: payloadStart)
            target.discardCompleted(from: recordStart)
            throw error
        }
        if block != nil {
            try finishBlockRecord(from: payloadStart)
        } else {
            try finishRecord(from: recordStart, payloadStart: payloadStart)
        }
    }

    /// Appends a document that a writer with `documentOptions` wrote (`bytes`: one complete root value, within the
    /// readers' limits), as `append(_:)` appends one: the record limit checked, the block closed at its size.
    package func append(encodedDocument bytes: UnsafeRawBufferPointer) throws {
        try append(writtenBy: { target in
            target.writeFraming(atMost: bytes.count) { output in
                if bytes.count > 0 { output.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
                return bytes.count
            }
        })
    }

    /// Passes buffered records to the sink; version 3 closes the open block first.
    public func flush() throws {
        try writeBlock()
        try writeCompressedBlock()
        try writer.flush()
    }

    /// Passes buffered records to the sink and finishes it without the index and close record: the stream of a
    /// writer that stopped short (its input had damaged records), which its readers see as not closed. The writer
    /// takes no more records.
    public func finishUnclosed() throws {
        guard !closed else { return }
        try flush()
        closed = true
        try sink.finish()
    }

    /// Writes the open block, the index (version 3) and the close record (versions 2 and 3), flushes and finishes
    /// the sink; on an atomic destination this is when the file appears. The writer takes no more records.
    public func close() throws {
        guard !closed else { return }
        let total = existingRecords + recordCount
        if version >= 3 {
            try writeBlock()
            try writeCompressedBlock()
            let indexOffset = writeIndex()
            writer.writeFraming(
                DocumentStreamFormat.closeRecord(recordCount: total, version: 3, indexOffset: indexOffset))
        } else if version >= 2 {
            writer.writeFraming(DocumentStreamFormat.closeRecord(recordCount: total))
        }
        try writer.flush()
        closed = true
        try sink.finish()
    }
}
