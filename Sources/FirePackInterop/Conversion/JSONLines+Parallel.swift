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
