import Dispatch
import FirePack
import FirePackStreams

// JSON lines into a `.fpks` stream on every core. Lines are independent documents, so batches of them are encoded on
// worker threads (each into a writer with the stream's options) while this thread appends the finished documents to
// the stream in input order, names them and counts them. The stream's bytes, the documents' names and every error
// (its line, column, byte offset and message, and which records were written before it) are those of
// `JSONLinesReader.appendNext(to:)`, line by line (`ParallelJSONLinesTests` compares both on generated streams and on
// damaged input). Memory: `depth` batches of about `batchBytes` of text and their documents.

/// Lines of a JSON-lines input encoded as documents by worker threads, handed out in input order.
final class ParallelJSONLines {
    let reader: JSONLinesReader
    let stream: DocumentStreamWriter
    /// Batches being encoded or waiting to be appended, in input order.
    private var inFlight: [LineBatch] = []
    /// The batch being appended, and its next record.
    private var current: LineBatch?
    private var nextRecord = 0
    /// Encoded batches, for reuse.
    private var spares: [LineBatch] = []
    private var inputEnded = false
    /// The record number the next line read gets.
    private var recordsRead: Int
    private let depth: Int
    private let batchBytes: Int
    private let settings: LineBatch.Settings

    /// Encodes the lines of `reader` for `stream` on `workers` threads (at least one), `batchBytes` of text per batch.
    init(reader: JSONLinesReader, stream: DocumentStreamWriter, workers: Int, batchBytes: Int = 256 << 10) {
        self.reader = reader
        self.stream = stream
        depth = 2 * Swift.max(1, workers)
        self.batchBytes = batchBytes
        recordsRead = reader.naming.recordCount
        settings = LineBatch.Settings(
            naming: reader.naming, members: reader.documentMembers, jsonOptions: reader.jsonOptions,
            writerOptions: stream.documentOptions)
    }

    deinit {
        // A worker may still hold a batch that this conversion no longer wants (it stopped at an error).
        for batch in inFlight { batch.done.wait() }
    }

    /// Appends the next line's document to the stream and returns true; false at the end of the input. Throws what
    /// `JSONLinesReader.appendNext(to:)` throws for the same line, after the same records.
    func appendNext() throws -> Bool {
        while true {
            if let batch = current {
                if nextRecord < batch.records.count {
                    try append(batch.records[nextRecord], of: batch)
                    nextRecord += 1
                    return true
                }
                current = nil
                if let (error, line) = batch.failure {
                    // As `JSONLinesReader.appendNext(to:)` throws it: a refusal counts the records written before.
                    if let violation = error as? LimitViolation {
                        throw reader.prefixing(stream.refusal(violation.error), line: line)
                    }
                    if let error = error as? FirePackError { throw reader.prefixing(error, line: line) }
                    throw error
                }
                spares.append(batch)
            }
            try submitBatches()
            guard !inFlight.isEmpty else { return false }
            let batch = inFlight.removeFirst()
            batch.done.wait()
            current = batch
            nextRecord = 0
        }
    }

    /// One encoded record into the stream: its document, its name counted, its path noted.
    private func append(_ record: LineBatch.Record, of batch: LineBatch) throws {
        let range = record.start..<record.end
        do {
            try batch.output.withUnsafeWrittenBytes(from: 0) { bytes in
                try stream.append(encodedDocument: UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
        } catch let error as FirePackError {
            throw reader.prefixing(error, line: record.line)
        }
        reader.naming.count(records: 1, generated: record.generated ? 1 : 0)
        reader.noteAppended(path: record.path, line: record.line)
    }

    /// Reads lines into batches and starts encoding them until `depth` are in flight or the input ends.
    private func submitBatches() throws {
        while !inputEnded && inFlight.count < depth {
            let batch = spares.popLast() ?? LineBatch(settings: settings)
            batch.reset(firstRecord: recordsRead)
            while batch.text.count < batchBytes, let line = try reader.lines.next() {
                if reader.isBlank(line) { continue }
                batch.add(line, number: reader.lines.lineNumber, offset: reader.lines.lineOffset)
            }
            if batch.lines.isEmpty {
                inputEnded = true
                spares.append(batch)
                break
            }
            if batch.text.count < batchBytes { inputEnded = true }
            recordsRead += batch.lines.count
            inFlight.append(batch)
            DispatchQueue.global().async { batch.encode() }
        }
    }
}

/// Consecutive lines of the input and, once `done` is signalled, their documents.
final class LineBatch: @unchecked Sendable {
    // @unchecked: a batch belongs to the appending thread until it is handed to a worker, and to that worker until
    // `done` is signalled; the naming's counting-free functions read only its settings.

    /// What every batch of one conversion encodes with.
    struct Settings: @unchecked Sendable {
        let naming: DocumentNaming
        let members: DocumentMembers
        let jsonOptions: JSONOptions
        let writerOptions: FirePackWriter.Options
    }

    /// A line: where it is in `text`, its 1-based number and its offset in the input.
    struct Line {
        let start: Int, end: Int, number: Int, offset: Int
    }

    /// A line's document: where it is in `output`, its line number, path, and whether its ID is new.
    struct Record {
        let start: Int, end: Int, line: Int
        let path: String
        let generated: Bool
    }

    let settings: Settings
    let done = DispatchSemaphore(value: 0)
    private(set) var text: [UInt8] = []
    private(set) var lines: [Line] = []
    private var firstRecord = 0
    /// The documents, one after another.
    let output: FirePackWriter
    private(set) var records: [Record] = []
    /// What the first line that could not be encoded threw, and its number (the records before it are in `records`).
    private(set) var failure: (error: any Error, line: Int)?

    init(settings: Settings) {
        self.settings = settings
        output = FirePackWriter(options: settings.writerOptions)
    }

    func reset(firstRecord: Int) {
        self.firstRecord = firstRecord
        text.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        output.clear()
        failure = nil
    }

    func add(_ line: ArraySlice<UInt8>, number: Int, offset: Int) {
        let start = text.count
        text.append(contentsOf: line)
        lines.append(Line(start: start, end: text.count, number: number, offset: offset))
    }

    /// Encodes every line, stopping at the first that throws; then signals `done`.
    func encode() {
        defer { done.signal() }
        let naming = settings.naming
        for (index, line) in lines.enumerated() {
            let start = output.writerIndex
            let slice = text[line.start..<line.end]
            var generated = false
            do {
                let reference = try JSONLinesReader.writeDocument(
                    slice, line: line.number, lineOffset: line.offset, record: firstRecord + index, naming: naming,
                    members: settings.members, options: settings.jsonOptions, generated: &generated, into: output)
                if let violation = output.limitViolation {
                    output.abandonRootValue(truncatingTo: start)
                    throw LimitViolation(error: violation)
                }
                records.append(
                    Record(
                        start: start, end: output.writerIndex, line: line.number, path: reference.path,
                        generated: generated))
            } catch {
                output.abandonRootValue(truncatingTo: start)
                failure = (error, line.number)
                return
            }
        }
    }
}

/// A document past the readers' limits, found by a worker: the stream refuses it when its turn comes.
struct LimitViolation: Error {
    let error: FirePackError
}

// A `.fpks` stream into JSON lines on every core. This thread reads the stream — framing, checksums, decompression and
// every damaged record reported, as one reader does — and copies each intact record's document into a batch; worker
// threads write each batch's documents as JSON lines (the direct path of `JSONLinesWriter.appendNext(from:)`, its
// tree fallback, and the check that a record holds a document); this thread writes the lines in stream order. The
// text, the paths and the problems (in stream order, however far the reading has gone ahead) are those of
// `appendNext(from:)` record by record (`ParallelJSONLinesTests`).

/// Records of a `.fpks` stream written as JSON lines by worker threads, handed out in stream order.
final class ParallelStreamLines {
    let reader: DocumentStreamReader
    let writer: JSONLinesWriter
    private var inFlight: [RecordBatch] = []
    private var current: RecordBatch?
    private var nextRecord = 0
    private var spares: [RecordBatch] = []
    private var inputEnded = false
    /// Problems reported late (invalid documents) so far: each went before the ones read after its record.
    private var reportedLate = 0
    private let depth: Int
    private let batchBytes: Int
    private let settings: RecordBatch.Settings

    /// Writes the records of `reader` into `writer` on `workers` threads (at least one), about `batchBytes` of
    /// documents per batch.
    init(reader: DocumentStreamReader, writer: JSONLinesWriter, workers: Int, batchBytes: Int = 256 << 10) {
        self.reader = reader
        self.writer = writer
        depth = 2 * Swift.max(1, workers)
        self.batchBytes = batchBytes
        settings = RecordBatch.Settings(naming: writer.naming, options: writer.options, limits: reader.limits)
    }

    deinit {
        for batch in inFlight { batch.done.wait() }
    }

    /// Writes the next intact document as one line and returns true; false at the end of the stream. Throws what
    /// `JSONLinesWriter.appendNext(from:)` throws, after the same lines.
    func appendNext() throws -> Bool {
        while true {
            if let batch = current {
                while nextRecord < batch.records.count {
                    let record = batch.records[nextRecord]
                    nextRecord += 1
                    if let invalid = record.invalid {
                        // Where the reader would have put it, had it been reported when the record was read.
                        try batch.withRecord(record) { streamRecord in
                            try reader.reportInvalidDocument(
                                invalid, in: streamRecord, keptBefore: record.problemsBefore + reportedLate)
                        }
                        reportedLate += 1
                        continue
                    }
                    batch.output.withUnsafeBytes { text in
                        writer.buffer.storage.pointee.append(UnsafeRawBufferPointer(rebasing: text[record.text]))
                    }
                    writer.noteWritten(path: record.path)
                    try writer.flushIfNeeded()
                    return true
                }
                current = nil
                if let failure = batch.failure { throw failure }
                spares.append(batch)
            }
            submitBatches()
            guard !inFlight.isEmpty else { return false }
            let batch = inFlight.removeFirst()
            batch.done.wait()
            current = batch
            nextRecord = 0
        }
    }

    /// Reads records into batches and starts writing them until `depth` are in flight or the stream ends. What the
    /// reader throws ends the batch, to be thrown after its records.
    private func submitBatches() {
        while !inputEnded && inFlight.count < depth {
            let batch = spares.popLast() ?? RecordBatch(settings: settings)
            batch.reset()
            do {
                while batch.payloadBytes < batchBytes, let record = try reader.nextRecord() {
                    // Problems found reading up to this record; the ones reported late so far are all before it.
                    batch.add(record, problemsBefore: reader.problems.count - reportedLate)
                }
                if batch.payloadBytes < batchBytes { inputEnded = true }
            } catch {
                batch.failure = error
                inputEnded = true
            }
            if batch.isEmpty && batch.failure == nil {
                spares.append(batch)
                break
            }
            inFlight.append(batch)
            DispatchQueue.global().async { batch.write() }
        }
    }
}

/// Consecutive records of a stream and, once `done` is signalled, their JSON lines.
final class RecordBatch: @unchecked Sendable {
    // @unchecked: a batch belongs to the reading thread until it is handed to a worker, and to that worker until
    // `done` is signalled; the naming's `member(for:)` and `value(of:)` read only its settings.

    /// What every batch of one conversion writes with.
    struct Settings: @unchecked Sendable {
        let naming: DocumentNaming
        let options: JSONOptions
        let limits: ReaderLimits
    }

    /// A record: its number, offsets and document (in `payloads`); once written, its line (in `output`) and path,
    /// or the error that makes it no document.
    struct Record {
        let number: Int, offset: Int, payloadOffset: Int?
        let payload: Range<Int>
        /// How many problems the reader had kept when it returned the record, not counting those reported late
        /// (`ParallelStreamLines.reportedLate`).
        let problemsBefore: Int
        var text = 0..<0
        var path = ""
        var invalid: FirePackError?
    }

    let settings: Settings
    let done = DispatchSemaphore(value: 0)
    private var payloads: [UInt8] = []
    private(set) var records: [Record] = []
    let output = ByteOutput(capacity: 1 << 20)
    /// What the reader threw after the batch's records.
    var failure: (any Error)?

    init(settings: Settings) { self.settings = settings }

    var payloadBytes: Int { payloads.count }
    var isEmpty: Bool { records.isEmpty }

    func reset() {
        payloads.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        output.removeAll()
        failure = nil
    }

    func add(_ record: StreamRecord, problemsBefore: Int) {
        let start = payloads.count
        payloads.append(contentsOf: record.payload)
        records.append(
            Record(
                number: record.number, offset: record.offset, payloadOffset: record.payloadOffset,
                payload: start..<payloads.count, problemsBefore: problemsBefore))
    }

    /// `body` with `record` as the reader returned it (its payload in this batch).
    func withRecord<R>(_ record: Record, _ body: (StreamRecord) throws -> R) rethrows -> R {
        try payloads.withUnsafeBytes { bytes in
            try body(
                StreamRecord(
                    number: record.number, offset: record.offset,
                    payload: UnsafeRawBufferPointer(rebasing: bytes[record.payload]),
                    payloadOffset: record.payloadOffset))
        }
    }

    /// Writes every record's line, as `JSONLinesWriter.appendNext(from:)` does; then signals `done`.
    func write() {
        defer { done.signal() }
        let (naming, options, limits) = (settings.naming, settings.options, settings.limits)
        payloads.withUnsafeBytes { bytes in
            for index in records.indices {
                let payload = UnsafeRawBufferPointer(rebasing: bytes[records[index].payload])
                let start = output.count
                var fields: FirePackReader?
                var written = false
                let scanned = try? Document.scanRecord(
                    payload, limits: limits,
                    readFields: { reader throws(FirePackError) in
                        fields = reader
                        try reader.skipValue()
                    })
                if let reference = scanned?.reference {
                    records[index].path = reference.path
                    written = JSONTranscoding.appendObject(
                        fields, appending: naming.member(for: reference), options: options, to: output)
                }
                if !written {
                    do {
                        let document = try Document(firePackBytes: payload, limits: limits)
                        output.append(contentsOf: naming.value(of: document).jsonBytes(options: options))
                        records[index].path = document.reference.path
                    } catch {
                        records[index].invalid =
                            error as? FirePackError ?? FirePackError(.invalidDocument, "\(error)")
                        continue
                    }
                }
                output.append(0x0A)
                records[index].text = start..<output.count
            }
        }
    }
}
