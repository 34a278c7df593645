import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// A source of documents, one at a time.
protocol DocumentInput: AnyObject {
    /// The next document, or nil at the end.
    func next() throws -> Document?
    /// Damaged records skipped so far (streams only), as one-line descriptions (the first ones, when there are many).
    var problems: [String] { get }
    /// How many damaged records were skipped, all counted (`problems` may keep only the first ones).
    var problemCount: Int { get }
}

extension DocumentInput {
    var problemCount: Int { problems.count }
}

/// A destination for documents, one at a time.
protocol DocumentOutput: AnyObject {
    func write(_ document: Document) throws
    func finish() throws
}

final class StreamInput: DocumentInput {
    let reader: DocumentStreamReader
    let file: String
    init(_ source: ByteSource, file: String) throws {
        reader = try DocumentStreamReader(source: source)
        self.file = file
    }
    func next() throws -> Document? {
        guard let (_, _, document) = try reader.next() else {
            reportNotClosed()
            return nil
        }
        return document
    }
    var problems: [String] { reader.problems.map { "\(file): \($0)" } }
    var problemCount: Int { reader.problemCount }

    /// Warns that the stream was not closed after its last record (interrupted or still being written).
    func reportNotClosed() {
        if case .notClosed(let count) = reader.completion {
            StandardStreams.writeError(
                "firepack: warning: \(file) was not closed after record \(count) (interrupted or still being written); converted what it holds\n"
            )
        }
    }
}

/// JSON lines, read by FirePackInterop's reader (`appendNext(to:)` writes each line straight into a stream).
extension JSONLinesReader: DocumentInput {
    var problems: [String] { [] }
}

/// Varint-length-delimited Document messages, read one at a time; a file holding one message without a length
/// prefix is read as that one document.
///
/// Memory is one message: a length above the record limit is an error before anything is read, and the one-message
/// fallback reads at most that much (a file of zeros once made it read everything).
final class FirestoreProtoInput: DocumentInput {
    let source: ByteSource
    /// Unread bytes are `buffer[start...]`.
    var buffer: [UInt8] = []
    var start = 0
    var ended = false
    var count = 0
    /// The largest message read (FirePack's record limit; a Firestore document is at most 1 MiB).
    let maxMessageLength = DocumentStreamFormat.defaultMaxRecordLength

    init(_ source: ByteSource) { self.source = source }

    var available: Int { buffer.count - start }

    /// Makes `needed` unread bytes available unless the input ends first; moves unread bytes to the front only once
    /// half the buffer is read (linear however many messages there are).
    func fill(_ needed: Int) throws {
        guard available < needed, !ended else { return }
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while available < needed && !ended {
            let read = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if read == 0 { ended = true } else { buffer += chunk[..<read] }
        }
    }

    /// Delimited when the first length prefix frames a decodable Document; otherwise the whole input is one message.
    func next() throws -> Document? {
        try fill(10)
        guard available > 0 else { return nil }
        let header = buffer.withUnsafeBytes {
            FirestoreProto.delimitedPrefix(UnsafeRawBufferPointer(rebasing: $0[start...]))
        }
        let terminated = header != nil
        let length = header.map { Int(clamping: $0.length) } ?? 0
        let prefix = header?.prefixCount ?? 0
        if terminated && length <= maxMessageLength {
            try fill(prefix + length)  // may move the unread bytes to the front: positions are relative to `start`
            let body = start + prefix
            if prefix + length <= available,
                let document = try? Document(firestoreProto: Array(buffer[body..<body + length]))
            {
                start = body + length
                count += 1
                return document
            }
        }
        guard count == 0 else {
            throw FirePackError(.invalidValue, "document message \(count) is damaged or cut short")
        }
        // One message without a prefix: at most the limit.
        try fill(maxMessageLength + 1)
        guard available <= maxMessageLength else {
            throw FirePackError(
                .limitExceeded, offset: 0,
                "not varint-delimited Document messages, and more than \(maxMessageLength) bytes for a single message")
        }
        let message = Array(buffer[start...])
        buffer = []
        start = 0
        count = 1
        return try Document(firestoreProto: message)
    }
    var problems: [String] { [] }
}

/// The documents of a single value: an array of objects, or one object.
final class ValueInput: DocumentInput {
    var iterator: IndexingIterator<[Value]>
    let naming: DocumentNaming
    /// Whether the value is one object (one document) rather than an array of them.
    let isSingleObject: Bool
    init(_ value: Value, naming: DocumentNaming) {
        if case .array(let elements) = value {
            iterator = elements.makeIterator()
        } else {
            iterator = [value].makeIterator()
        }
        if case .map = value { isSingleObject = true } else { isSingleObject = false }
        self.naming = naming
    }
    func next() throws -> Document? { try iterator.next().map { try naming.document(from: $0, line: nil) } }
    var problems: [String] { [] }
}

/// How documents are written: naming (for plain JSON), key order and JSON style.
struct DocumentOutputOptions {
    var naming: DocumentNaming
    var deterministic: Bool
    var pretty: Bool
    var plain: Bool
    /// One document in, one out: a single protobuf message rather than a delimited stream.
    var singleDocument: Bool

    var json: JSONOptions { JSONOptions(form: plain ? .plain : .reversible, pretty: pretty, sortedKeys: deterministic) }
}

/// A single-value format (fpk, json): the documents collected and written at the end as one array.
final class CollectingOutput: DocumentOutput {
    let format: FileFormat
    let sink: ByteSink
    let options: DocumentOutputOptions
    var values: [Value] = []
    init(_ format: FileFormat, _ sink: ByteSink, options: DocumentOutputOptions) {
        (self.format, self.sink, self.options) = (format, sink, options)
    }
    func write(_ document: Document) throws { values.append(options.naming.value(of: document)) }
    func finish() throws { try format.write(.array(values), to: sink, options: options) }
}

final class StreamOutput: DocumentOutput {
    let writer: DocumentStreamWriter
    /// Whether map keys are sorted (then records are written from trees).
    let deterministic: Bool
    init(_ sink: ByteSink, deterministic: Bool) throws {
        writer = try DocumentStreamWriter(sink: sink, deterministic: deterministic)
        self.deterministic = deterministic
    }
    func write(_ document: Document) throws { try writer.append(document) }
    func finish() throws { try writer.close() }
}

/// Text outputs (JSON lines, Firestore JSON lines, delimited protobuf) buffered and written in chunks.
final class ChunkedOutput: DocumentOutput {
    let sink: ByteSink
    let encode: (Document, ByteOutput) throws -> Void
    let buffer = ByteOutput(capacity: 1 << 20 + 1 << 16)
    init(_ sink: ByteSink, encode: @escaping (Document, ByteOutput) throws -> Void) {
        self.sink = sink
        self.encode = encode
    }
    func write(_ document: Document) throws {
        try encode(document, buffer)
        try flushIfNeeded()
    }

    /// Writes the buffer to the sink once it holds 1 MiB or more.
    func flushIfNeeded() throws {
        if buffer.count >= 1 << 20 { try flush() }
    }
    func flush() throws {
        try buffer.withUnsafeBytes { try sink.write($0) }
        buffer.removeAll()
    }
    func finish() throws {
        try flush()
        try sink.finish()
    }
}

extension FileFormat {
    /// Where documents go in this format: streams document by document, single values (fpk, json) collected.
    func documentOutput(_ sink: ByteSink, options: DocumentOutputOptions) throws -> DocumentOutput {
        let json = options.json
        switch self {
        case .fpk, .json: return CollectingOutput(self, sink, options: options)
        case .firestoreExport:
            throw CommandFailure.usage(
                "firestore-export is read, not written: convert to fpks, jsonl, firestore-json or firestore-proto")
        case .fpks: return try StreamOutput(sink, deterministic: options.deterministic)
        case .jsonl: return JSONLinesWriter(sink, naming: options.naming, options: json)
        case .firestoreJSON:
            return ChunkedOutput(sink) { document, buffer in
                buffer.append(contentsOf: try document.firestoreJSONBytes())
                buffer.append(0x0A)
            }
        case .firestoreProto:
            if options.singleDocument {
                return ChunkedOutput(sink) { document, buffer in
                    buffer.append(contentsOf: try document.firestoreProtoBytes())
                }
            }
            return ChunkedOutput(sink) { document, buffer in
                var delimited: [UInt8] = []
                try document.appendFirestoreProtoDelimited(to: &delimited)
                buffer.append(contentsOf: delimited)
            }
        }
    }

    /// Writes one whole value in this single-value format (fpk, or json for every other format) and finishes the sink.
    func write(_ value: Value, to sink: ByteSink, options: DocumentOutputOptions) throws {
        let bytes = encode(value, deterministic: options.deterministic, pretty: options.pretty, plain: options.plain)
        try bytes.withUnsafeBytes { try sink.write($0) }
        try sink.finish()
    }

    /// A JSON file's documents: its top-level array's elements one at a time, or its one value.
    static func jsonDocuments(_ source: ByteSource, file: String, naming: DocumentNaming) throws -> DocumentInput {
        let (reader, restored) = try JSONArrayReader.open(
            source, options: JSONOptions(largeIntegers: naming.largeIntegers))
        if let reader { return JSONArrayInput(reader, naming: naming) }
        let rest = try FirePackStreams.readAll(source)
        return ValueInput(
            try FileFormat.json.readValue(restored + rest, file: file, largeIntegers: naming.largeIntegers),
            naming: naming)
    }

    /// The documents in `source`: stream formats record by record, single values (fpk, json) read whole.
    func documentInput(_ source: ByteSource, file: String, naming: DocumentNaming) throws -> DocumentInput {
        switch self {
        case .fpks: try StreamInput(source, file: file)
        case .jsonl: JSONLinesReader(source, naming: naming)
        case .firestoreJSON: FirestoreJSONInput(source)
        case .firestoreProto: FirestoreProtoInput(source)
        case .firestoreExport: try FirestoreExportInput(path: file)
        case .json:
            // A top-level array streams element by element; any other JSON text is read whole.
            try Self.jsonDocuments(source, file: file, naming: naming)
        case .fpk:
            ValueInput(
                try readValue(FirePackStreams.readAll(source), file: file, largeIntegers: naming.largeIntegers),
                naming: naming)
        }
    }
}

/// JSON lines, written by FirePackInterop's writer (`appendNext(from:)` writes each record straight from its bytes).
extension JSONLinesWriter: DocumentOutput {}
