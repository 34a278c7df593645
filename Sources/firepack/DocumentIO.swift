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
    /// The path of the document `appendNextJSONLine(to:naming:options:)` wrote last.
    private(set) var lastPath = ""
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

    /// Appends the next intact record's document to `output` as one JSON line — written from the record's bytes, no
    /// tree built — and returns false at the end. Records the direct path does not take (sorted keys, a field named
    /// like the document's path member, bytes it refuses) go through the tree, which also reports damaged ones.
    func appendNextJSONLine(to output: ChunkedOutput, naming: DocumentNaming, options: JSONOptions) throws -> Bool {
        while let record = try reader.nextRecord() {
            var fields: FirePackReader?
            var written = false
            if let reference = try? Document.scanRecord(
                record.payload, limits: reader.limits,
                readFields: { reader throws(FirePackError) in
                    fields = reader
                    try reader.skipValue()
                }
            ).reference {
                lastPath = reference.path
                // No fields map: an empty document.
                written = JSONTranscoding.appendObject(
                    fields, appending: naming.member(for: reference), options: options, to: output.buffer)
            }
            if written {
                output.buffer.append(0x0A)
            } else {
                guard let document = try reader.document(in: record) else { continue }
                lastPath = document.reference.path
                try output.encodeIntoBuffer(document)
            }
            try output.flushIfNeeded()
            return true
        }
        reportNotClosed()
        return false
    }

    private func reportNotClosed() {
        if case .notClosed(let count) = reader.completion {
            StandardStreams.writeError(
                "firepack: warning: \(file) was not closed after record \(count) (interrupted or still being written); converted what it holds\n"
            )
        }
    }
}

final class JSONLinesInput: DocumentInput {
    let lines: LineReader
    /// The path of the document `appendNext(to:)` wrote last.
    private(set) var lastPath = ""
    let naming: DocumentNaming
    let jsonOptions: JSONOptions
    init(_ source: ByteSource, naming: DocumentNaming) {
        lines = LineReader(source)
        self.naming = naming
        jsonOptions = JSONOptions(largeIntegers: naming.largeIntegers)
    }

    func next() throws -> Document? {
        while let line = try lines.next() {
            if isBlank(line) { continue }
            return try document(from: line)
        }
        return nil
    }

    /// Appends the next line's document to `stream` — its fields written straight from the text into the record, no
    /// tree built — and returns false at the end. Lines the direct path does not take (not a plain object, an
    /// escaped key, a malformed line) go through `document(from:)`, which also reports what is wrong, so both paths
    /// write the same bytes and throw the same errors. The stream must not be deterministic (sorted keys).
    func appendNext(to stream: DocumentStreamWriter) throws -> Bool {
        while let line = try lines.next() {
            if isBlank(line) { continue }
            let appended = try line.withUnsafeBytes { text in
                // `__name__` where FirePack writes it, last, is found from the end; anywhere else by a scan of the members.
                let name: Value?, id: Value?
                if let path = JSONTranscoding.lastMemberString(named: naming.memberNames[0], in: text) {
                    (name, id) = (.string(path), nil)
                } else {
                    guard
                        let members = JSONTranscoding.members(named: naming.memberNames, in: text, options: jsonOptions)
                    else { return false }
                    (name, id) = (members[0], members.count > 1 ? members[1] : nil)
                }
                // A line that fails here fails on the tree path too (which says why); a record is counted twice only then.
                guard let (reference, consumedKey) = try? naming.reference(name: name, id: id, line: lines.lineNumber)
                else { return false }
                lastPath = reference.path
                let skipping =
                    consumedKey == nil ? nil : consumedKey == "__name__" ? naming.memberNames[0] : naming.memberNames[1]
                // Errors of the sink pass through; text the direct path cannot write leaves no record behind.
                return try stream.append(
                    reference: reference,
                    writingFields: { writer in
                        do {
                            try JSONTranscoding.writeObject(
                                text, skipping: skipping, options: jsonOptions, into: writer)
                        } catch { return false }
                        return true
                    })
            }
            if !appended {
                let document = try document(from: line)
                lastPath = document.reference.path
                try stream.append(document)
            }
            return true
        }
        return false
    }

    /// `appendNext(to:)`, with a refusal of the stream writer (a document past the readers' limits) naming the line.
    func appendNextNamingLine(to stream: DocumentStreamWriter) throws -> Bool {
        do { return try appendNext(to: stream) } catch let error as FirePackError
            where !error.message.hasPrefix("line ")
        {
            throw FirePackError(
                error.code, offset: error.offset, "line \(lines.lineNumber): \(error.message)", path: error.path)
        }
    }

    private func isBlank(_ line: ArraySlice<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
    }

    /// The line's document through a tree, with errors naming the line and column.
    private func document(from line: ArraySlice<UInt8>) throws -> Document {
        // A line that is an array or a string is not a document, however long: said without building its tree (a
        // 40 MiB line of numbers once took a gigabyte to be told so).
        if let first = line.first(where: {
            $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF
        }),
            first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
        {
            throw FirePackError(
                .invalidValue,
                "line \(lines.lineNumber): a document must be a JSON object, not \(first == UInt8(ascii: "[") ? "array" : "string")"
            )
        }
        let value: Value
        do { value = try Value(json: line, options: jsonOptions) } catch {
            // The column is the line's; the byte offset the file's, as for every other input.
            throw FirePackError(
                error.code, offset: error.offset.map { $0 + lines.lineOffset },
                "line \(lines.lineNumber)\(error.offset.map { ", column \(TextPosition.column(of: $0, in: line))" } ?? ""): \(error.message)",
                path: error.path)
        }
        return try naming.document(from: value, line: lines.lineNumber)
    }

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

    /// Adds the document's encoding to the buffer without flushing.
    func encodeIntoBuffer(_ document: Document) throws { try encode(document, buffer) }

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
        case .jsonl:
            let naming = options.naming
            var lineOptions = json
            lineOptions.pretty = false
            return ChunkedOutput(sink) { document, buffer in
                buffer.append(contentsOf: naming.value(of: document).jsonBytes(options: lineOptions))
                buffer.append(0x0A)
            }
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
        case .jsonl: JSONLinesInput(source, naming: naming)
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
