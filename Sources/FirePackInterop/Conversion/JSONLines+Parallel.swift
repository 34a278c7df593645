import Dispatch
@_spi(Buffers) import FirePack
import FirePackStreams

// JSON lines into a `.fpks` stream on several cores. Lines are independent documents, so batches of them are encoded
// on worker threads (each into a writer with the stream's options) while this thread appends the finished documents
// to the stream in input order, names them and counts them. The stream's bytes, the documents' names and every error
// (its line, column, byte offset and message, and which records were written before it) are those of
// `JSONLinesReader.appendNext(to:)`, line by line (`ParallelJSONLinesTests` compares both on generated streams and on
// damaged input), also when the caller goes on after an error: the lines read ahead of a line that failed are then
// encoded on this thread, in order, before batches start again. Memory: two batches per worker of about `batchBytes`
// of text and their documents, plus the one being appended; at most `workers` batches are encoded at once.

/// Lines of a JSON-lines input encoded as documents by worker threads, handed out in input order.
final class ParallelJSONLines {
    let reader: JSONLinesReader
    let stream: DocumentStreamWriter
    /// Batches being encoded or waiting to be appended.
    private var pipeline: WorkerPipeline<LineBatch>
    /// The batch being appended, and its next record.
    private var current: LineBatch?
    private var nextRecord = 0
    /// Lines read ahead of a line that failed, encoded on this thread before batches start again; and what reading
    /// threw after them, if anything.
    private var pending: [(text: [UInt8], number: Int, offset: Int)] = []
    private var pendingIndex = 0
    private var pendingReadFailure: (any Error)?
    private let batchBytes: Int
    private let settings: LineBatch.Settings

    /// Encodes the lines of `reader` for `stream` on `workers` threads (at least one), `batchBytes` of text per batch
    /// (by default `WorkerQueues.batchBytes(workers:)`).
    init(reader: JSONLinesReader, stream: DocumentStreamWriter, workers: Int, batchBytes: Int? = nil) {
        let batchBytes = batchBytes ?? WorkerQueues.batchBytes(workers: workers)
        precondition(batchBytes > 0, "a batch holds at least one byte of text")
        self.reader = reader
        self.stream = stream
        pipeline = WorkerPipeline(workers: workers, label: "FirePackInterop.ParallelJSONLines")
        self.batchBytes = batchBytes
        settings = LineBatch.Settings(
            naming: reader.naming, members: reader.documentMembers, jsonOptions: reader.jsonOptions,
            writerOptions: stream.documentOptions)
    }

    deinit { pipeline.waitForWorkers() }

    /// The path of the document the last `appendNext()` appended, as its worker noted it, unless it was appended on
    /// this thread (a line read ahead of one that failed): then nil, and `reader.lastPath` is the path (it is left as
    /// it was otherwise).
    var lastPath: NotedPath? { current.map { $0.records[nextRecord - 1].path } }

    /// The path noted as `noted` by the last `appendNext()`.
    func text(of noted: NotedPath) -> String { current!.paths.path(noted) }

    /// Appends the next line's document to the stream and returns true; false at the end of the input. Throws what
    /// `JSONLinesReader.appendNext(to:)` throws for the same line, after the same records.
    func appendNext() throws -> Bool {
        while true {
            if pendingIndex < pending.count {
                let line = pending[pendingIndex]
                pendingIndex += 1
                try reader.append(line.text[...], number: line.number, offset: line.offset, to: stream)
                return true
            }
            if !pending.isEmpty {
                pending.removeAll()
                pendingIndex = 0
            }
            if let failure = pendingReadFailure {
                pendingReadFailure = nil
                throw failure
            }
            if let batch = current {
                if nextRecord < batch.records.count {
                    let record = batch.records[nextRecord]
                    nextRecord += 1
                    try append(record, of: batch)
                    return true
                }
                current = nil
                pipeline.recycle(batch)
                if let failure = batch.failure {
                    reader.naming.count(failure.outcome)
                    readAheadBecomesPending(after: failure.index, of: batch)
                    throw converted(failure.error, line: batch.lines[failure.index].number)
                }
                if let failure = batch.readFailure { throw failure }
            }
            submitBatches()
            guard let batch = pipeline.takeOldest() else { return false }
            current = batch
            nextRecord = 0
        }
    }

    /// The error a line's failure is thrown as, as `JSONLinesReader.appendNext(to:)` throws it: a refusal counts the
    /// records written before it.
    private func converted(_ error: any Error, line: Int) -> any Error {
        if let violation = error as? LimitViolation {
            return reader.prefixing(stream.refusal(violation.error), line: line)
        }
        if let error = error as? FirePackError { return reader.prefixing(error, line: line) }
        return error
    }

    /// After the line `index` of `batch` failed: the lines after it and those of every batch read since are encoded
    /// on this thread (their record numbers depend on what the failing line counted); what reading threw after them
    /// is thrown once they are.
    private func readAheadBecomesPending(after index: Int, of batch: LineBatch) {
        var lines = batch.lineTexts(from: index + 1)
        var readFailure = batch.readFailure
        for later in pipeline.takeAll() {
            lines += later.lineTexts(from: 0)
            readFailure = later.readFailure ?? readFailure
            pipeline.recycle(later)
        }
        pending = lines
        pendingIndex = 0
        pendingReadFailure = readFailure
    }

    /// One encoded record into the stream: counted (its name was found), appended, its path noted.
    private func append(_ record: LineBatch.Record, of batch: LineBatch) throws {
        reader.naming.count(record.outcome)
        let range = record.start..<record.end
        do {
            try batch.output.withUnsafeWrittenBytes(from: 0) { bytes in
                try stream.append(encodedDocument: UnsafeRawBufferPointer(rebasing: bytes[range]))
            }
        } catch let error as FirePackError {
            throw reader.prefixing(error, line: record.line)
        }
        reader.noteAppended(line: record.line)
    }

    /// Reads lines into batches and starts encoding them (`WorkerPipeline.submit`). What reading throws ends the
    /// batch, to be thrown after its lines.
    private func submitBatches() {
        pipeline.submit(make: { LineBatch(settings: settings) }) { batch, inFlight in
            batch.reset(firstRecord: reader.naming.recordCount + inFlight.reduce(0) { $0 + $1.lines.count })
            while batch.text.count < batchBytes, let line = try reader.lines.next() {
                if reader.isBlank(line) { continue }
                batch.add(line, number: reader.lines.lineNumber, offset: reader.lines.lineOffset)
            }
            return batch.text.count < batchBytes
        }
    }
}

/// Consecutive lines of the input and, once `done` is signalled, their documents.
final class LineBatch: WorkerBatch, @unchecked Sendable {
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

    /// A line's document: where it is in `output`, its line number, path (in `paths`), and what naming it counts.
    struct Record {
        let start: Int, end: Int, line: Int
        let path: NotedPath
        let outcome: NamingOutcome
    }

    let settings: Settings
    let done = DispatchSemaphore(value: 0)
    private(set) var text: [UInt8] = []
    private(set) var lines: [Line] = []
    private var firstRecord = 0
    /// The documents, one after another.
    let output: FirePackWriter
    private(set) var records: [Record] = []
    /// The records' paths, one after another.
    private(set) var paths = NotedPaths()
    /// What the first line that could not be encoded threw, its index in `lines` and what naming it counts (the
    /// records before it are in `records`).
    private(set) var failure: (error: any Error, index: Int, outcome: NamingOutcome)?
    /// What reading the input threw after the batch's lines.
    var readFailure: (any Error)?

    init(settings: Settings) {
        self.settings = settings
        output = FirePackWriter(options: settings.writerOptions)
    }

    var isEmpty: Bool { lines.isEmpty }

    func work() { encode() }

    func reset(firstRecord: Int) {
        self.firstRecord = firstRecord
        text.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        output.clear()
        paths.removeAll()
        failure = nil
        readFailure = nil
    }

    func add(_ line: ArraySlice<UInt8>, number: Int, offset: Int) {
        let start = text.count
        text.append(contentsOf: line)
        lines.append(Line(start: start, end: text.count, number: number, offset: offset))
    }

    /// The lines from `index` on, as copies.
    func lineTexts(from index: Int) -> [(text: [UInt8], number: Int, offset: Int)] {
        lines[Swift.min(index, lines.count)...].map { (Array(text[$0.start..<$0.end]), $0.number, $0.offset) }
    }

    /// Encodes every line, stopping at the first that throws; then signals `done`. Record numbers assume every line
    /// before the one encoded took one (a line that fails stops the batch).
    func encode() {
        defer { done.signal() }
        let naming = settings.naming
        for (index, line) in lines.enumerated() {
            let start = output.writerIndex
            let slice = text[line.start..<line.end]
            var outcome = NamingOutcome()
            do {
                let reference = try JSONLinesReader.writeDocument(
                    slice, line: line.number, lineOffset: line.offset, record: firstRecord + index, naming: naming,
                    members: settings.members, options: settings.jsonOptions, outcome: &outcome, into: output)
                if let violation = output.limitViolation {
                    output.abandonRootValue(truncatingTo: start)
                    throw LimitViolation(error: violation)
                }
                records.append(
                    Record(
                        start: start, end: output.writerIndex, line: line.number, path: paths.note(reference.path),
                        outcome: outcome))
            } catch {
                output.abandonRootValue(truncatingTo: start)
                failure = (error, index, outcome)
                return
            }
        }
    }
}

/// A document past the readers' limits, found by a worker: the stream refuses it when its turn comes.
struct LimitViolation: Error {
    let error: FirePackError
}

// A `.fpks` stream into JSON lines on several cores. This thread reads the stream — framing, checksums, decompression and
// every damaged record reported, as one reader does — and copies each intact record's document into a batch; worker
// threads write each batch's documents as JSON lines (the direct path of `JSONLinesWriter.appendNext(from:)`, its
// tree fallback, and the check that a record holds a document); this thread writes the lines in stream order. The
// text, the paths and the problems (in stream order, however far the reading has gone ahead) are those of
// `appendNext(from:)` record by record (`ParallelJSONLinesTests`). A conversion stopped early has read ahead: the
// reader's counts and completion then include the batches read but not written.

/// Records of a `.fpks` stream written as JSON lines by worker threads, handed out in stream order.
final class ParallelStreamLines {
    let reader: DocumentStreamReader
    let writer: JSONLinesWriter
    private var pipeline: WorkerPipeline<RecordBatch>
    private var current: RecordBatch?
    private var nextRecord = 0
    /// Problems reported late (invalid documents) so far: each went before the ones read after its record.
    private var reportedLate = 0
    /// The problem that stopped a reader in `.stopAtFirstError` mode, found late: thrown again by every later call,
    /// as the reader throws it (the records read ahead of it are not written).
    private var stopped: (any Error)?
    private let batchBytes: Int
    private let settings: RecordBatch.Settings

    /// Writes the records of `reader` into `writer` on `workers` threads (at least one), about `batchBytes` of
    /// documents per batch (by default `WorkerQueues.batchBytes(workers:)`).
    init(
        reader: DocumentStreamReader, writer: JSONLinesWriter, workers: Int, batchBytes: Int? = nil,
        resolvingServerTimestamps serverTime: Timestamp? = nil
    ) {
        let batchBytes = batchBytes ?? WorkerQueues.batchBytes(workers: workers)
        precondition(batchBytes > 0, "a batch holds at least one byte of documents")
        self.reader = reader
        self.writer = writer
        pipeline = WorkerPipeline(workers: workers, label: "FirePackInterop.ParallelStreamLines")
        self.batchBytes = batchBytes
        settings = RecordBatch.Settings(
            naming: writer.naming, options: writer.options, limits: reader.limits, serverTime: serverTime)
    }

    deinit { pipeline.waitForWorkers() }

    /// The path of the document the last `appendNext()` wrote, as its worker noted it (`writer.lastPath` is left
    /// as it was).
    var lastPath: NotedPath { current!.records[nextRecord - 1].path }

    /// The path noted as `noted` by the last `appendNext()`.
    func text(of noted: NotedPath) -> String { current!.paths.path(noted) }

    /// Writes the next intact document as one line and returns true; false at the end of the stream. Throws what
    /// `JSONLinesWriter.appendNext(from:)` throws, after the same lines.
    func appendNext() throws -> Bool {
        if let stopped { throw stopped }
        if let problem = settings.naming.idFieldProblem { throw FirePackError(.invalidValue, problem) }
        while true {
            if let batch = current {
                while nextRecord < batch.records.count {
                    let record = batch.records[nextRecord]
                    nextRecord += 1
                    if let refused = record.refused {
                        stopped = refused
                        throw refused
                    }
                    if let invalid = record.invalid {
                        // Where the reader would have put it, had it been reported when the record was read.
                        do {
                            try batch.withRecord(record) { streamRecord in
                                try reader.reportInvalidDocument(
                                    invalid, in: streamRecord, keptBefore: record.problemsBefore + reportedLate)
                            }
                        } catch {
                            stopped = error
                            throw error
                        }
                        reportedLate += 1
                        continue
                    }
                    batch.output.withUnsafeBytes { text in
                        writer.buffer.storage.pointee.append(UnsafeRawBufferPointer(rebasing: text[record.text]))
                    }
                    try writer.flushIfNeeded()
                    return true
                }
                current = nil
                pipeline.recycle(batch)
                if let failure = batch.readFailure { throw failure }
            }
            submitBatches()
            guard let batch = pipeline.takeOldest() else { return false }
            current = batch
            nextRecord = 0
        }
    }

    /// Reads records into batches and starts writing them (`WorkerPipeline.submit`). What the reader throws ends the
    /// batch, to be thrown after its records; the next call reads on from there, as the reader resumes after what it
    /// threw.
    private func submitBatches() {
        pipeline.submit(make: { RecordBatch(settings: settings) }) { batch, _ in
            batch.reset()
            while batch.payloadBytes < batchBytes, let record = try reader.nextRecord() {
                // Problems found reading up to this record; the ones reported late so far are all before it.
                batch.add(record, problemsBefore: reader.problems.count - reportedLate)
            }
            return batch.payloadBytes < batchBytes
        }
    }
}

/// Consecutive records of a stream and, once `done` is signalled, their JSON lines.
final class RecordBatch: WorkerBatch, @unchecked Sendable {
    // @unchecked: a batch belongs to the reading thread until it is handed to a worker, and to that worker until
    // `done` is signalled; the naming's `member(for:)` and `value(of:)` read only its settings.

    /// What every batch of one conversion writes with.
    struct Settings: @unchecked Sendable {
        let naming: DocumentNaming
        let options: JSONOptions
        let limits: ReaderLimits
        /// The time pending server timestamps are written as, if any.
        let serverTime: Timestamp?
    }

    /// A record: its number, offsets and document (in `payloads`); once written, its line (in `output`) and path
    /// (in `paths`), or the error that makes it no document.
    struct Record {
        let number: Int, offset: Int, payloadOffset: Int?
        let payload: Range<Int>
        /// How many problems the reader had kept when it returned the record, not counting those reported late
        /// (`ParallelStreamLines.reportedLate`).
        let problemsBefore: Int
        var text = 0..<0
        var path = NotedPath()
        var invalid: FirePackError?
        /// An intact document that plain JSON cannot hold (`DocumentNaming.value(of:)`): the conversion stops there.
        var refused: (any Error)?
    }

    let settings: Settings
    let done = DispatchSemaphore(value: 0)
    private var payloads: [UInt8] = []
    private(set) var records: [Record] = []
    let output = ByteOutput(capacity: 1 << 20)
    /// The records' paths, one after another.
    private(set) var paths = NotedPaths()
    /// What the reader threw after the batch's records.
    var readFailure: (any Error)?

    init(settings: Settings) { self.settings = settings }

    var payloadBytes: Int { payloads.count }
    var isEmpty: Bool { records.isEmpty }

    func reset() {
        payloads.removeAll(keepingCapacity: true)
        records.removeAll(keepingCapacity: true)
        output.removeAll()
        paths.removeAll()
        readFailure = nil
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

    func work() { write() }

    /// Writes every record's line, as `JSONLinesWriter.appendNext(from:)` does; then signals `done`.
    func write() {
        defer { done.signal() }
        let (naming, options, limits, serverTime) = (
            settings.naming, settings.options, settings.limits, settings.serverTime
        )
        payloads.withUnsafeBytes { bytes in
            for index in records.indices {
                let payload = UnsafeRawBufferPointer(rebasing: bytes[records[index].payload])
                let start = output.count
                var reference = JSONTranscoding.appendDocument(
                    record: payload, limits: limits, naming: naming, options: options, to: output,
                    serverTime: serverTime)
                if reference == nil {
                    let document: Document
                    do {
                        document = try Document(firePackBytes: payload, limits: limits)
                            .resolvingServerTimestamps(ifAt: serverTime)
                    } catch {
                        records[index].invalid =
                            error as? FirePackError ?? FirePackError(.invalidDocument, "\(error)")
                        continue
                    }
                    do {
                        output.append(contentsOf: try document.jsonLine(naming: naming, options: options))
                    } catch {
                        records[index].refused = error
                        continue
                    }
                    reference = document.reference
                }
                output.append(0x0A)
                records[index].text = start..<output.count
                records[index].path = paths.note(reference!.path)
            }
        }
    }
}
