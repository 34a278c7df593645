#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack
import FirePackStreams

/// Documents read from JSON lines: one JSON object per line, each named by `DocumentNaming` (its `__name__`, its ID
/// field, or a new ID). Blank lines are skipped; memory is one line at a time.
///
/// `appendNext(to:)` is the fast way into a `.fpks` stream (what `firepack convert` takes): each line's fields are
/// written from the text straight into the record, without a `Value` tree. Errors name the line, the column within
/// it, and the byte offset in the whole input, whichever way a line is read.
public final class JSONLinesReader: DocumentSource {
    let lines: LineReader
    /// How each line's document is named.
    public let naming: DocumentNaming
    let jsonOptions: JSONOptions
    /// What each line's one pass reads instead of writing (`appendNext(to:)`).
    let documentMembers: DocumentMembers
    // `@exclusivity(unchecked)` on the `var`s used per line, document or record: Docs/ARCHITECTURE.md, "Performance
    // mechanisms".
    /// The path of the document the last call read or appended (a `DocumentConversion` on several threads reads
    /// the paths from its batches, and sets this only for the lines it appends on its own thread after a line that
    /// failed).
    @exclusivity(unchecked) public private(set) var lastPath = ""
    /// The 1-based number of the line whose document was read or appended last (`lineNumber` can be ahead of it
    /// when lines are encoded on several threads).
    @exclusivity(unchecked) public private(set) var lastLineNumber = 0

    /// A reader of the JSON lines `source` holds; lines longer than `maxLineLength` bytes are an error.
    public init(_ source: any ByteSource, naming: DocumentNaming, maxLineLength: Int = 256 << 20) {
        lines = LineReader(source, maxLineLength: maxLineLength)
        self.naming = naming
        jsonOptions = JSONOptions(largeIntegers: naming.largeIntegers)
        documentMembers = DocumentMembers(idField: naming.idField, keepsIDField: naming.keepsIDField)
    }

    /// The 1-based number of the line read last.
    public var lineNumber: Int { lines.lineNumber }

    /// The next line's document, or nil at the end.
    public func next() throws -> Document? {
        while let line = try lines.next() {
            if isBlank(line) { continue }
            let document = try document(from: line)
            noteAppended(path: document.reference.path, line: lines.lineNumber)
            return document
        }
        return nil
    }

    /// The next line's document, or the error that makes the line not one (naming the line; reading goes on at the
    /// line after it), or nil at the end: what a validator reports line by line. An error reading the lines
    /// themselves (a line past the length limit, a failing input) is thrown: nothing after it can be read as lines.
    public func nextLine() throws -> Result<Document, FirePackError>? {
        while let line = try lines.next() {
            if isBlank(line) { continue }
            do {
                let document = try document(from: line)
                noteAppended(path: document.reference.path, line: lines.lineNumber)
                return .success(document)
            } catch let error as FirePackError {
                return .failure(prefixing(error, line: lines.lineNumber))
            }
        }
        return nil
    }

    /// Appends the next line's document to `stream` — its fields written straight from the text into the record, no
    /// tree built — and returns false at the end. The stream must not be deterministic (sorted keys). A refusal of
    /// the stream writer (a document past the readers' limits) names the line.
    public func appendNext(to stream: DocumentStreamWriter) throws -> Bool {
        while let line = try lines.next() {
            if isBlank(line) { continue }
            try append(line, number: lines.lineNumber, offset: lines.lineOffset, to: stream)
            return true
        }
        return false
    }

    /// Appends the document of the non-blank line `line` (number `number`, at `offset` in the input) to `stream`,
    /// counts it with the naming (once its name is sought, whether or not the stream takes it) and notes its path;
    /// errors name the line.
    func append(_ line: ArraySlice<UInt8>, number: Int, offset: Int, to stream: DocumentStreamWriter) throws {
        var outcome = NamingOutcome()
        defer { naming.count(outcome) }
        var reference: DocumentReference?
        do {
            try stream.append(writtenBy: { writer in
                reference = try Self.writeDocument(
                    line, line: number, lineOffset: offset, record: naming.recordCount, naming: naming,
                    members: documentMembers, options: jsonOptions, outcome: &outcome, into: writer)
            })
        } catch let error as FirePackError {
            throw prefixing(error, line: number)
        }
        noteAppended(path: reference!.path, line: number)
    }

    /// `error` with its line named, unless its message names one already.
    func prefixing(_ error: FirePackError, line: Int) -> FirePackError {
        guard !error.message.hasPrefix("line ") else { return error }
        return FirePackError(error.code, offset: error.offset, "line \(line): \(error.message)", path: error.path)
    }

    /// Notes the path and line number of the document just appended (`lastPath`, `lastLineNumber`).
    func noteAppended(path: String, line: Int) {
        lastPath = path
        lastLineNumber = line
    }

    /// Notes the line number of a document appended from another thread's batch, whose path the batch holds
    /// (`ParallelJSONLines.lastPath`).
    func noteAppended(line: Int) { lastLineNumber = line }

    /// Writes the document of the JSON line `line` (its number `number`, at `lineOffset` in the input, the record
    /// numbered `record`) into `writer` as one root value, in one pass over the text: its members written as the
    /// document's fields while the ones that name it are read, the name put ahead of the fields once known, and
    /// errors — the tree path's, as `JSONLinesTests` checks — thrown from that pass. Lines it does not take (not an
    /// object, a first key that may be a marker, an ID field before `__name__`) go through a tree, which writes the
    /// same bytes. Counts nothing (`outcome` says whether the line takes a record number and has a new ID): safe on
    /// several threads at once.
    static func writeDocument(
        _ line: ArraySlice<UInt8>, line number: Int, lineOffset: Int, record: Int, naming: DocumentNaming,
        members: DocumentMembers, options: JSONOptions, outcome: inout NamingOutcome, into writer: FirePackWriter
    ) throws -> DocumentReference {
        let named = try line.withUnsafeBytes { text in
            try DocumentStreamWriter.writeDocument(reference: nil, into: writer) {
                writer throws -> DocumentReference? in
                let read: DocumentMembers?
                do throws(FirePackError) {
                    read = try JSONTranscoding.writeDocumentFields(
                        text, naming: members, options: options, into: writer)
                } catch { throw lineError(error, in: line, number: number, offset: lineOffset) }
                guard let read else { return nil }
                outcome.counted = true
                return try naming.reference(
                    name: read.name, id: read.id, line: number, record: record, generated: &outcome.generated
                ).0
            }
        }
        if let named { return named }
        let document = try document(
            from: line, number: number, offset: lineOffset, record: record, naming: naming, options: options,
            outcome: &outcome)
        document.write(to: writer)
        return document.reference
    }

    func isBlank(_ line: ArraySlice<UInt8>) -> Bool { line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D } }

    /// The line's document through a tree, with errors naming the line and column.
    func document(from line: ArraySlice<UInt8>) throws -> Document {
        var outcome = NamingOutcome()
        defer { naming.count(outcome) }
        return try Self.document(
            from: line, number: lines.lineNumber, offset: lines.lineOffset, record: naming.recordCount,
            naming: naming, options: jsonOptions, outcome: &outcome)
    }

    /// The document of line `number` (at `offset` in the input, the record numbered `record`) through a tree, with
    /// errors naming the line and column; counts nothing (`outcome` says what to count).
    static func document(
        from line: ArraySlice<UInt8>, number: Int, offset: Int, record: Int, naming: DocumentNaming,
        options: JSONOptions, outcome: inout NamingOutcome
    ) throws -> Document {
        // A line that is an array or a string is not a document, however long: said without building its tree (a
        // 40 MiB line of numbers once took a gigabyte to be told so).
        if let first = line.first(where: {
            $0 != 0x20 && $0 != 0x09 && $0 != 0x0D && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF
        }),
            first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
        {
            throw FirePackError(
                .invalidValue,
                "line \(number): a document must be a JSON object, not \(first == UInt8(ascii: "[") ? "array" : "string")"
            )
        }
        let value: Value
        do { value = try Value(json: line, options: options) } catch {
            throw lineError(error, in: line, number: number, offset: offset)
        }
        outcome.counted = true
        return try naming.document(from: value, line: number, record: record, generated: &outcome.generated)
    }

    /// An error at an offset within `line` (number `number`, at `offset` in the input), told by the line, the column
    /// within it (characters) and the byte offset in the whole input, as for every other input.
    static func lineError(_ error: FirePackError, in line: ArraySlice<UInt8>, number: Int, offset: Int)
        -> FirePackError
    {
        let column = error.offset.map { ", column \(TextPosition.column(of: $0, in: line))" } ?? ""
        return FirePackError(
            error.code, offset: error.offset.map { $0 + offset }, "line \(number)\(column): \(error.message)",
            path: error.path)
    }
}

/// Documents written as JSON lines: one plain JSON object per document, its fields plus its ID or path
/// (`DocumentNaming.value(of:)`), buffered and written to the sink in chunks of about a mebibyte.
///
/// `appendNext(from:)` is the fast way out of a `.fpks` stream (what `firepack convert` takes): each record's fields
/// are written as JSON from its bytes, without a `Value` tree.
public final class JSONLinesWriter: DocumentSink {
    let chunks: ChunkedByteWriter
    /// How each document's ID or path is written.
    public let naming: DocumentNaming
    /// How values are written (`pretty` is ignored: one line per document).
    public let options: JSONOptions
    var buffer: ByteOutput { chunks.buffer }
    // `@exclusivity(unchecked)` on the `var`s used per line, document or record: Docs/ARCHITECTURE.md, "Performance
    // mechanisms".
    /// The path of the document the last call wrote (a `DocumentConversion` on several threads reads the paths
    /// from its batches, and leaves this as it was).
    @exclusivity(unchecked) public private(set) var lastPath = ""

    /// A writer of JSON lines into `sink`.
    public init(_ sink: any ByteSink, naming: DocumentNaming, options: JSONOptions = JSONOptions()) {
        chunks = ChunkedByteWriter(sink)
        self.naming = naming
        var lineOptions = options
        lineOptions.pretty = false
        self.options = lineOptions
    }

    /// Writes one document as one line.
    public func write(_ document: Document) throws {
        try append(document)
        try chunks.flushIfNeeded()
    }

    func append(_ document: Document) throws {
        buffer.append(contentsOf: try document.jsonLine(naming: naming, options: options))
        buffer.append(0x0A)
        lastPath = document.reference.path
    }

    /// Writes the next intact record of `reader` as one line — from the record's bytes, no tree built — and returns
    /// false at the end. Records the direct path does not take (a field named like one of the document's members,
    /// bytes it refuses) go through the tree, which also reports damaged ones (`reader.problems`). With
    /// `serverTime`, pending server timestamps are written as that time (`Document.resolvingServerTimestamps(at:)`).
    public func appendNext(from reader: DocumentStreamReader, resolvingServerTimestamps serverTime: Timestamp? = nil)
        throws -> Bool
    {
        if let problem = naming.idFieldProblem { throw FirePackError(.invalidValue, problem) }  // as `value(of:)`
        while let record = try reader.nextRecord() {
            if let reference = JSONTranscoding.appendDocument(
                record: record.payload, limits: reader.limits, naming: naming, options: options, to: buffer,
                serverTime: serverTime)
            {
                lastPath = reference.path
                buffer.append(0x0A)
            } else {
                guard let document = try reader.document(in: record) else { continue }
                try append(document.resolvingServerTimestamps(ifAt: serverTime))
            }
            try chunks.flushIfNeeded()
            return true
        }
        return false
    }

    /// Passes the buffered lines to the sink once there are enough of them.
    func flushIfNeeded() throws { try chunks.flushIfNeeded() }

    /// Writes what is buffered to the sink.
    public func flush() throws { try chunks.flush() }

    /// Writes what is buffered and finishes the sink.
    public func finish() throws { try chunks.finish() }
}

extension JSONTranscoding {
    /// Appends the document record `payload` (read with `limits`) as one JSON object — its fields written from its
    /// bytes, its create and update times and the naming's member with them: what `document.jsonLine(naming:options:)`
    /// writes — and returns its name. Returns nil, leaving `output` as it was, when the tree must write it: a naming
    /// that writes no member or refuses the name, or whatever
    /// `appendObject(_:appending:options:to:)` leaves to the tree, which then also reports a damaged record as damaged
    /// before its name is judged. The one direct way out of a stream for JSON lines (on one thread and on several)
    /// and JSON arrays. With `serverTime`, pending server timestamps are written as that time: what
    /// `document.resolvingServerTimestamps(at: serverTime)` writes.
    static func appendDocument(
        record payload: UnsafeRawBufferPointer, limits: ReaderLimits, naming: DocumentNaming, options: JSONOptions,
        to output: ByteOutput, maxLength: Int = JSONTextLimits.document, depth: Int = 0, serverTime: Timestamp? = nil
    ) -> DocumentReference? {
        guard let record = try? Document.recordParts(payload, limits: limits), naming.appendsMemberDirectly,
            let member = try? naming.member(for: record.reference),
            appendObject(
                record.fields,
                appending: AddedMembers(createTime: record.createTime, updateTime: record.updateTime, name: member),
                options: options, to: output, maxLength: maxLength, depth: depth, serverTime: serverTime)
        else { return nil }
        return record.reference
    }
}
