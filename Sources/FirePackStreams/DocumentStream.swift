import FirePack

/// The `.fpks` layout of Docs/FORMAT.md §8.
public enum DocumentStreamFormat {
    /// `\\x89FPS`, version 2, flags 0: what new streams start with.
    public static let header: [UInt8] = [0x89, 0x46, 0x50, 0x53, 0x02, 0x00]
    /// The versions a reader accepts: 1 (no close record) and 2.
    public static let readableVersions: ClosedRange<UInt8> = 1...2
    /// The 4-byte marker in front of every record.
    public static let syncMarker: [UInt8] = [0xF3, 0x50, 0x52, 0x1E]
    /// The 4-byte marker of a close record (version 2).
    public static let closeMarker: [UInt8] = [0xF3, 0x50, 0x52, 0x45]
    /// Marker, length and CRC.
    public static let recordHeaderLength = 12
    /// A record header with length and CRC still zero, for the writer to fill in.
    static let recordHeaderTemplate: [UInt8] = syncMarker + [0, 0, 0, 0, 0, 0, 0, 0]
    /// Marker, record count (uint64) and CRC.
    public static let closeRecordLength = 16

    /// The close record for a stream of `recordCount` records.
    static func closeRecord(recordCount: Int) -> [UInt8] {
        var record = closeMarker
        withUnsafeBytes(of: UInt64(recordCount).littleEndian) { count in
            record += count
            withUnsafeBytes(of: crc32(count).littleEndian) { record += $0 }
        }
        return record
    }
    /// The largest record a reader accepts by default (Firestore documents are at most 1 MiB).
    public static let defaultMaxRecordLength = 64 << 20
}

/// Appends documents to a `.fpks` stream: one record each (marker, length, CRC-32, FirePack payload), and on
/// `close()` a close record that tells readers the stream is complete (Docs/FORMAT.md §8).
///
/// Records are encoded into one reused writer and passed to the sink as they complete, so memory stays constant
/// whatever the stream's length. `flush()` pushes buffered records to the sink.
///
/// A writer released without `close()` loses nothing it was given: its deinit flushes the buffered records to the
/// sink, and the stream reads as "not closed after record N" — except on an all-or-nothing destination
/// (`creatingAtomically(atPath:)`), where an unclosed writer means an unfinished job and leaves the destination
/// as it was.
public final class DocumentStreamWriter {
    let sink: ByteSink
    /// The one buffer: record headers and payloads are written straight into it, and its sink is the stream's.
    let writer: FirePackWriter
    /// The stream's format version: 2 for new streams; appending to a version-1 stream keeps it version 1, which
    /// has no close record.
    public let version: UInt8
    /// Records in the stream before this writer started (when appending).
    let existingRecords: Int
    var closed = false
    /// Records written through this writer.
    public private(set) var recordCount = 0
    /// Whether map keys are written sorted (deterministic records, written from trees).
    public var isDeterministic: Bool { writer.options.deterministic }

    /// Writes a new stream to `sink`.
    public convenience init(sink: ByteSink, deterministic: Bool = false, flushThreshold: Int = 1 << 20) throws {
        self.init(
            sink: sink, header: true, version: DocumentStreamFormat.header[4], existingRecords: 0,
            deterministic: deterministic, flushThreshold: flushThreshold)
    }

    init(
        sink: ByteSink, header: Bool, version: UInt8, existingRecords: Int, deterministic: Bool,
        flushThreshold: Int = 1 << 20
    ) {
        self.sink = sink
        writer = FirePackWriter(
            options: .init(
                deterministic: deterministic, initialCapacity: flushThreshold + 4096,
                flushThreshold: flushThreshold),
            sink: FirePackWriter.Sink { try sink.write($0) })
        self.version = version
        self.existingRecords = existingRecords
        if header { writer.writeFraming(DocumentStreamFormat.header) }
    }

    deinit {
        // Nothing appended is lost: buffered records reach the sink; the stream stays "not closed".
        if !closed { try? writer.flush() }
    }

    /// Writes a new stream at `path` all or nothing: records go to a temporary file beside it, and `close()`
    /// renames it over `path` (AtomicFileSink). Until then, and if the writer is released unclosed, whatever was
    /// at `path` is untouched.
    public static func creatingAtomically(atPath path: String, deterministic: Bool = false) throws
        -> DocumentStreamWriter
    {
        try DocumentStreamWriter(sink: AtomicFileSink(destination: path), deterministic: deterministic)
    }

    /// Opens a stream file for appending, creating it (with its header) when it does not exist; an existing file
    /// must be a stream. Its records stay as they are; a close record at its end is superseded by the records
    /// appended after it, and `close()` writes a new one.
    public static func appending(toPath path: String, deterministic: Bool = false) throws -> DocumentStreamWriter {
        if let existing = try? FileSource(path: path) {
            var header = [UInt8](repeating: 0, count: DocumentStreamFormat.header.count)
            let count = try header.withUnsafeMutableBytes { try existing.read(into: $0) }
            if count > 0 {
                guard count == header.count, header[..<4] == DocumentStreamFormat.header[..<4],
                    DocumentStreamFormat.readableVersions.contains(header[4])
                else {
                    throw FirePackError(
                        .badMagic, offset: 0, "\(path) is not a FirePack document stream this version can extend")
                }
                // The close record counts every record; count the existing ones (one pass, one record in memory).
                let reader = try DocumentStreamReader(source: FileSource(path: path))
                while try reader.nextRecord() != nil {}
                return DocumentStreamWriter(
                    sink: try FileSink(path: path, append: true), header: false, version: header[4],
                    existingRecords: reader.recordsFound, deterministic: deterministic)
            }
        }
        return try DocumentStreamWriter(sink: FileSink(path: path), deterministic: deterministic)
    }

    /// Appends one document: the record header, then the document written straight after it, then the length and
    /// CRC-32 filled in (one buffer, no copy).
    public func append(_ document: Document) throws {
        precondition(!closed, "append after close()")
        let recordStart = writer.writerIndex
        writer.writeFraming(DocumentStreamFormat.recordHeaderTemplate)  // length and CRC are set below
        let payloadStart = writer.writerIndex
        document.write(to: writer)
        try finishRecord(from: recordStart, payloadStart: payloadStart)
    }

    /// Fills in the length and CRC-32 of the record that starts at `recordStart`, whose document is complete.
    private func finishRecord(from recordStart: Int, payloadStart: Int) throws {
        let length = writer.writerIndex - payloadStart
        // What readers refuse is never written: the record is dropped before it reaches the sink (Docs/FORMAT.md §6, §8).
        if let violation = writer.limitViolation {
            writer.resetLimitViolation()
            writer.discardCompleted(from: recordStart)
            throw FirePackError(
                violation.code, offset: violation.offset,
                "record \(existingRecords + recordCount) not written: \(violation.message)",
                path: violation.path)
        }
        guard length <= DocumentStreamFormat.defaultMaxRecordLength else {
            writer.discardCompleted(from: recordStart)
            throw FirePackError(
                .limitExceeded,
                "record \(existingRecords + recordCount) not written: its document takes \(length) bytes, past the record limit of \(DocumentStreamFormat.defaultMaxRecordLength) that readers enforce (Docs/FORMAT.md §8)"
            )
        }
        writer.setFraming(UInt32(length), at: recordStart + 4)
        writer.setFraming(writer.withUnsafeWrittenBytes(from: payloadStart) { crc32($0) }, at: recordStart + 8)
        recordCount += 1
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
        precondition(!closed, "append after close()")
        let recordStart = writer.writerIndex
        writer.writeFraming(DocumentStreamFormat.recordHeaderTemplate)
        let payloadStart = writer.writerIndex
        // The document's entries in §9's order, the fields written in place.
        writer.beginMap()
        writer.writeKey("name")
        writer.writeReference(reference)
        writer.writeKey("fields")
        let written: Bool
        do { written = try writeFields(writer) } catch {
            writer.abandonRootValue(truncatingTo: payloadStart)
            writer.discardCompleted(from: recordStart)
            throw error
        }
        guard written else {
            writer.abandonRootValue(truncatingTo: payloadStart)
            writer.discardCompleted(from: recordStart)
            return false
        }
        Document.writeTimes(createTime: createTime, updateTime: updateTime, to: writer)
        writer.endMap()
        try finishRecord(from: recordStart, payloadStart: payloadStart)
        return true
    }

    /// Passes buffered records to the sink.
    public func flush() throws {
        try writer.flush()
    }

    /// Writes the close record (version 2), flushes and finishes the sink; on an atomic destination this is when
    /// the file appears. The writer takes no more records.
    public func close() throws {
        guard !closed else { return }
        if version >= 2 {
            writer.writeFraming(DocumentStreamFormat.closeRecord(recordCount: existingRecords + recordCount))
        }
        try flush()
        closed = true
        try sink.finish()
    }
}
