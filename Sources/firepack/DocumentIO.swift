import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// A source of documents (the library's `DocumentSource`) that may step over damaged records and say so.
protocol DocumentInput: DocumentSource {
    /// Damaged records skipped so far (streams only), as one-line descriptions (the first ones, when there are many).
    var problems: [String] { get }
    /// How many damaged records were skipped, all counted (`problems` may keep only the first ones).
    var problemCount: Int { get }
    /// How many of those problems are places where whole records are missing (`missingRecords`), not damage.
    var missingRecordPlaces: Int { get }
    /// How many of those problems are version-3 blocks past the block-expansion limit, not damage, and how much
    /// reading them needs (`DocumentStreamReader.blocksPastExpansion`).
    var pastExpansion: (blocks: Int, needed: Int) { get }
    /// The records a closed stream's close record counts, once its end is reached; nil for other inputs.
    var closedRecordCount: Int? { get }
    /// The documents as the library's conversion takes them (a stream's records as `StreamDocuments`, for its direct
    /// path into JSON lines).
    var documents: any DocumentSource { get }
    /// Says what the end of the input means when it is not a clean end (a stream that was not closed).
    func reportEnd()
    /// A stream's damaged index or close record, one line each: damage that costs no record, said as a warning.
    var damagedClosings: [String] { get }
}

extension DocumentInput {
    var problems: [String] { [] }
    var problemCount: Int { problems.count }
    var missingRecordPlaces: Int { 0 }
    var pastExpansion: (blocks: Int, needed: Int) { (0, 0) }
    var closedRecordCount: Int? { nil }
    var documents: any DocumentSource { self }
    func reportEnd() {}
    var damagedClosings: [String] { [] }
}

final class StreamInput: DocumentInput {
    let reader: DocumentStreamReader
    let file: String
    let documents: any DocumentSource
    convenience init(_ source: ByteSource, file: String, maxBlockExpansion: Int, limits: ReaderLimits = .default)
        throws
    {
        try self.init(
            DocumentStreamReader(source: source, maxBlockExpansion: maxBlockExpansion, limits: limits), file: file)
    }
    init(_ reader: DocumentStreamReader, file: String) {
        self.reader = reader
        self.file = file
        documents = StreamDocuments(reader)
    }
    func next() throws -> Document? {
        guard let (_, _, document) = try reader.next() else {
            reportNotClosed()
            return nil
        }
        return document
    }
    /// Damage that lost records; a damaged index or close record, which loses none, is in `damagedClosings`.
    var problems: [String] { reader.problems.filter { !$0.isDamagedClosing }.map { "\(file): \($0)" } }
    var problemCount: Int { reader.problemCount - reader.damagedClosingCount }
    var damagedClosings: [String] { reader.problems.filter(\.isDamagedClosing).map { "\(file): \($0)" } }
    var missingRecordPlaces: Int { reader.missingRecordPlaces }
    var pastExpansion: (blocks: Int, needed: Int) { (reader.blocksPastExpansion, reader.blockExpansionNeeded) }
    var closedRecordCount: Int? {
        if case .closed(let count)? = reader.completion { return count }
        return nil
    }
    func reportEnd() {
        reportNotClosed()
        reportDamageThatLosesNothing()
    }

    /// Warns of a damaged index or close record, and of compressed input cut short: what costs no record of those read.
    func reportDamageThatLosesNothing() {
        for line in damagedClosings {
            StandardStreams.writeError(
                "firepack: warning: \(line) (firepack validate --repair writes the stream again with a new index and close record)\n"
            )
        }
        if let cut = reader.sourceCut {
            StandardStreams.writeError(
                "firepack: warning: \(file): the compressed input is cut short (\(cut.message), at its byte \(cut.offset ?? 0)): the stream ends where it stops\n"
            )
        }
        // More records than the close record counts, all intact (damage makes counts estimates): nothing is lost, but
        // the stream holds records its writer did not write (`firepack validate` says it is invalid).
        if case .closed(let count)? = reader.completion, count >= 0, count < reader.recordsFound,
            reader.problemCount == 0
        {
            StandardStreams.writeError(
                "firepack: warning: \(file) holds \(reader.recordsFound) records but its close record counts \(count) (a spliced stream, or a block repeated); converted all of them\n"
            )
        }
    }

    /// Warns that the stream was not closed after its last record (interrupted or still being written), saying what
    /// was `done` with what it holds.
    func reportNotClosed(done: String = "converted") {
        if case .notClosed(let count) = reader.completion {
            StandardStreams.writeError(
                "firepack: warning: \(file) was not closed after record \(count) (interrupted or still being written); \(done) what it holds\n"
            )
        }
    }
}

/// JSON lines, read by FirePackInterop's reader (`appendNext(to:)` writes each line straight into a stream).
extension JSONLinesReader: DocumentInput {}

/// What the commands say of the problems a reader met: `problems` of which `missingPlaces` are places where whole
/// records are missing and `pastExpansion` blocks past the block-expansion limit, the rest damaged records ("2
/// damaged record(s) and records missing in 1 place"); with `records`, the intact records read and the close
/// record's count, how many of them were not read — a damaged version-3 block is one problem however many records
/// it held.
func problemSummary(
    _ problems: Int, missingPlaces: Int, pastExpansion: Int = 0, records: (read: Int, total: Int?)? = nil
) -> String {
    let damaged = problems - missingPlaces - pastExpansion
    var parts: [String] = []
    if damaged > 0 || (missingPlaces == 0 && pastExpansion == 0) { parts.append("\(damaged) damaged record(s)") }
    if pastExpansion > 0 {
        parts.append("\(pastExpansion) block\(pastExpansion == 1 ? "" : "s") past the block-expansion limit")
    }
    if missingPlaces > 0 { parts.append("records missing in \(missingPlaces) place\(missingPlaces == 1 ? "" : "s")") }
    var summary =
        parts.count == 1 ? parts[0] : parts.dropLast().joined(separator: ", ") + " and " + parts.last!
    if let read = records?.read, let total = records?.total, total > read {
        summary += ": \(total - read) of \(total) records not read"
    }
    return summary
}

/// How to read the blocks refused as past the block-expansion limit (`DocumentInput.pastExpansion`): nil when none
/// was.
func expansionAdvice(_ past: (blocks: Int, needed: Int)) -> String? {
    guard past.blocks > 0 else { return nil }
    let (them, were, it) = past.blocks == 1 ? ("the block", "was", "it") : ("the \(past.blocks) blocks", "were", "them")
    return
        "\(them) \(were) refused before being unpacked, not as damage: read \(it) with --max-block-expansion \(past.needed) or more (a stream written before 2026-12-02, or by another writer)"
}

/// The library's readers of each format: no damaged records are skipped (they are errors).
extension JSONArrayReader: DocumentInput {}
extension FirestoreJSONReader: DocumentInput {
    /// A last list response with a `nextPageToken` is one page of more: the documents of the pages after it are not
    /// here.
    func reportEnd() {
        guard lastPageHasNextPageToken else { return }
        StandardStreams.writeError(
            "firepack: warning: the last list response page has a nextPageToken: the documents of the pages after it are not in this input (fetch them with pageToken)\n"
        )
    }
}
extension FirestoreProtoReader: DocumentInput {}

/// The documents of a single value read whole (fpk): an array of objects, or one object.
final class ValueInput: DocumentInput, NamingDocumentSource {
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
}

/// How documents are written: naming (for plain JSON), key order and JSON style.
struct DocumentOutputOptions {
    var naming: DocumentNaming
    var deterministic: Bool
    var pretty: Bool
    var plain: Bool
    /// One document in, one out: a single protobuf message rather than a delimited stream.
    var singleDocument: Bool
    /// An fpk output's format version (3, or 1 for readers that predate it).
    var fpkVersion = 3
    /// An fpks output's version, and (version 3) how its blocks are stored and when each is closed.
    var streamVersion: UInt8 = 3
    var codec: BlockCodec = .zstd
    var blockSize = DocumentStreamFormat.defaultBlockSize

    var json: JSONOptions { JSONOptions(form: plain ? .plain : .reversible, pretty: pretty, sortedKeys: deterministic) }
}

/// A single FirePack value (fpk): the documents written one by one into an open array, the file written at the end.
/// A stream's records are copied from their bytes (`write(record:limits:resolvingServerTimestamps:)`): memory for the
/// output's bytes, not for a tree of every document (a tree of packed rows is about 110 bytes a row, Docs/SAFETY.md).
final class CollectingOutput: DocumentSink, RecordSink {
    let sink: ByteSink
    let options: DocumentOutputOptions
    let writer: FirePackWriter

    init(_ sink: ByteSink, options: DocumentOutputOptions) {
        (self.sink, self.options) = (sink, options)
        writer = FirePackWriter(options: .init(deterministic: options.deterministic, formatVersion: options.fpkVersion))
        writer.writeFileHeader()
        writer.beginArray()
    }

    func write(_ document: Document) throws { writer.write(try options.naming.value(of: document)) }

    /// Writes the document a stream's record holds as `write(_:)` writes it: its fields copied from the record's
    /// bytes (`FirePackWriter.write(_: ValueView)`; pending server timestamps written as `time` when one is given)
    /// and its create and update times and naming member after them, where nothing needs the naming's judgement (a
    /// field named like a member, sorted keys); else through the document.
    func write(record: UnsafeRawBufferPointer, limits: ReaderLimits, resolvingServerTimestamps time: Timestamp?) throws
    {
        let naming = options.naming
        let parts = try Document.recordParts(record, limits: limits)
        func throughTree() throws {
            let document = try Document(firePackBytes: record, limits: limits)
            try write(document.resolvingServerTimestamps(ifAt: time))
        }
        guard !options.deterministic, naming.appendsMemberDirectly, naming.idFieldProblem == nil else {
            return try throughTree()
        }
        // The fields first, as `value(of:)` judges them before it names the document (its errors, and the
        // collection a naming under an ID field takes from the first document it names).
        let memberKey = naming.idField ?? DocumentNaming.nameMember
        var (keys, fields) = (parts.fields, parts.fields)
        let map = try keys.enterMap()
        for _ in 0..<map.count {
            let key = try keys.readKey()
            if key == memberKey || DocumentNaming.namingMembers.contains(where: { key == $0 }) {
                return try throughTree()
            }
            try keys.skipValue()
        }
        let member = try naming.member(for: parts.reference)
        writer.beginMap()
        try writer.writeEntries(copying: &fields, resolvingServerTimestamps: time)
        if let createTime = parts.createTime {
            writer.writeKey(DocumentNaming.createTimeMember)
            writer.writeTimestamp(createTime)
        }
        if let updateTime = parts.updateTime {
            writer.writeKey(DocumentNaming.updateTimeMember)
            writer.writeTimestamp(updateTime)
        }
        writer.writeKey(member.key)
        writer.writeString(member.value)
        writer.endMap()
    }

    func finish() throws {
        writer.endArray()
        // What readers would refuse (nested past the depth limit, past the input limit) is not written.
        if let violation = writer.limitViolation { throw CommandFailure(message: "not written: \(violation)") }
        try writer.withUnsafeWrittenBytes { try sink.write($0) }
        try sink.finish()
    }
}

extension FileFormat {
    /// Where documents go in this format: document by document, a single FirePack value (fpk) collected.
    func documentOutput(_ sink: ByteSink, options: DocumentOutputOptions) throws -> DocumentSink {
        let json = options.json
        switch self {
        case .fpk: return CollectingOutput(sink, options: options)
        case .json: return JSONArrayWriter(sink, naming: options.naming, options: json)
        case .firestoreExport:
            throw CommandFailure.usage(
                "firestore-export is read, not written: convert to fpks, jsonl, firestore-json or firestore-proto")
        case .fpks:
            return try DocumentStreamWriter(
                sink: sink, deterministic: options.deterministic, version: options.streamVersion,
                codec: options.codec, blockSize: options.blockSize)
        case .jsonl: return JSONLinesWriter(sink, naming: options.naming, options: json)
        case .firestoreJSON: return FirestoreJSONWriter(sink)
        case .firestoreProto: return FirestoreProtoWriter(sink, delimited: !options.singleDocument)
        }
    }

    /// Writes one whole value in this single-value format (fpk, or json for every other format) and finishes the sink.
    /// A top-level JSON array is written element by element (the same bytes): memory for one element's text, not
    /// the whole, which keys the input repeats by reference can make thousands of times the input.
    func write(_ value: Value, to sink: ByteSink, options: DocumentOutputOptions) throws {
        if self != .fpk, case .array(let elements) = value {
            let json = JSONOptions(
                form: options.plain ? .plain : .reversible, pretty: options.pretty, sortedKeys: options.deterministic)
            let writer = JSONArrayWriter(sink, naming: options.naming, options: json)
            var room = JSONTextLimits.value - writer.closingLength  // what the whole text may be, its newline aside
            for element in elements {
                do { room -= try writer.write(element: element, room: room) } catch let error as FirePackError
                    where error.code == .limitExceeded
                {
                    throw JSONTextLimits.tooLong("the value", limit: JSONTextLimits.value)
                }
            }
            try writer.finish()
            return
        }
        let bytes = try encode(
            value, deterministic: options.deterministic, pretty: options.pretty, plain: options.plain,
            fpkVersion: options.fpkVersion)
        try bytes.withUnsafeBytes { try sink.write($0) }
        try sink.finish()
    }

    /// The documents in `source`: stream formats record by record, a JSON array and an fpk file's array element by
    /// element (one object is one document); `maxBlockExpansion` is the stream reader's (`--max-block-expansion`),
    /// `limits` FirePack input's (`--max-key-expansion`).
    func documentInput(
        _ source: ByteSource, file: String, naming: DocumentNaming,
        maxBlockExpansion: Int = DocumentStreamFormat.maxBlockExpansion, limits: ReaderLimits = .default
    ) throws -> DocumentInput {
        switch self {
        case .fpks: try StreamInput(source, file: file, maxBlockExpansion: maxBlockExpansion, limits: limits)
        case .jsonl: JSONLinesReader(source, naming: naming)
        case .firestoreJSON: FirestoreJSONReader(source)
        case .firestoreProto: FirestoreProtoReader(source)
        case .firestoreExport: try FirestoreExportInput(path: file)
        case .json:
            // A top-level array streams element by element; any other JSON text is read whole.
            try JSONArrayReader(source, naming: naming)
        case .fpk: try FirePackFileInput(FirePackStreams.readAll(source), file: file, limits: limits, naming: naming)
        }
    }
}
