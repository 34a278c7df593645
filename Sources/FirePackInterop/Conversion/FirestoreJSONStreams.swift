import FirePack
import FirePackStreams

/// Firestore REST JSON documents in the shapes the REST API and `gcloud` hand out for reading documents, one after
/// another (a `batchGet` response or a bare array of documents is refused, naming its place):
///
/// - a document per line (what `firepack convert --to firestore-json` writes), or pretty-printed as `curl` shows a
///   `GET …/documents/c/d` response — any top-level documents separated by white space;
/// - list responses, `{"documents": [doc, …], "nextPageToken": "…"}` (one page each; an empty page is `{}` or
///   only its `nextPageToken`);
/// - `runQuery` responses, a top-level array of `{"document": doc, "readTime": "…"}` (streamed element by element;
///   the response's `readTime`, `skippedResults` and `transaction` describe the query, not a document, and are read
///   past).
///
/// A member these shapes do not define is an error, never dropped; errors give the file's line, column and offset.
/// Memory is one top-level value (one list-response page, one runQuery element) at a time.
public final class FirestoreJSONReader: DocumentSource {
    private let scanner: JSONValueScanner
    /// Documents of the current list response or runQuery element not yet returned.
    private var pending: [Document] = []
    private var pendingIndex = 0
    /// A top-level array (runQuery) being read element by element.
    private var array: JSONArrayScanner?
    /// Whether the last list response read carries a `nextPageToken`: a page after it exists, whose documents this
    /// input does not hold when it ends there (a caller says so; the REST API gives the last page none).
    public private(set) var lastPageHasNextPageToken = false

    /// A reader of the Firestore REST JSON documents `source` holds.
    public init(_ source: any ByteSource) { scanner = JSONValueScanner(source) }

    /// The next document, or nil at the end.
    public func next() throws -> Document? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            pending = []
            pendingIndex = 0
            if let array {
                guard let element = try array.nextElement() else {
                    self.array = nil
                    continue
                }
                try queryResult(element.bytes, at: element.place)
                continue
            }
            guard let first = try scanner.peekValueStart() else { return nil }
            if first == UInt8(ascii: "[") {
                array = try scanner.arrayScanner()
                continue
            }
            let value = try scanner.nextValue()
            try topLevelObject(value.bytes, at: value.place)
        }
    }

    /// A document, or a list response.
    private func topLevelObject(_ bytes: ArraySlice<UInt8>, at place: JSONPlace) throws {
        let members = try place.wrap(bytes) { () throws(FirePackError) in try JSONMembers.of(bytes) }
        // A page without documents leaves them out (proto3 JSON omits an empty repeated field): `{}`, or only a
        // `nextPageToken`; a document always has its name.
        let isPage =
            members.contains { $0.key == "documents" } || members.allSatisfy { $0.key == "nextPageToken" }
        if isPage {
            for member in members where member.key != "documents" && member.key != "nextPageToken" {
                throw place.error(
                    FirePackError.Code.invalidJSON, at: member.keyOffset, in: bytes,
                    "unknown member \(member.key.debugDescription) of a list response: it has documents and nextPageToken"
                )
            }
            let token = members.first { $0.key == "nextPageToken" }.map { bytes[$0.value] }
            lastPageHasNextPageToken = token.map { $0.count > 2 && $0.first == UInt8(ascii: "\"") } ?? false
            guard let documents = members.first(where: { $0.key == "documents" }) else { return }
            let elements = try place.wrap(bytes) { () throws(FirePackError) in
                try JSONMembers.elements(of: bytes[documents.value])
            }
            pending = try elements.map { range in try document(bytes[range], within: bytes, at: place) }
        } else {
            pending = [try document(bytes, within: bytes, at: place)]
        }
    }

    /// A runQuery element: `{"document": …, "readTime": …}`, or one without a document (progress, the end).
    private func queryResult(_ bytes: ArraySlice<UInt8>, at place: JSONPlace) throws {
        let members = try place.wrap(bytes) { () throws(FirePackError) in try JSONMembers.of(bytes) }
        let known: Set<String> = ["document", "readTime", "skippedResults", "transaction", "done", "explainMetrics"]
        for member in members where !known.contains(member.key) {
            throw place.error(
                FirePackError.Code.invalidJSON, at: member.keyOffset, in: bytes,
                "unknown member \(member.key.debugDescription) of a runQuery result: it has \(known.sorted().joined(separator: ", "))"
            )
        }
        if let document = members.first(where: { $0.key == "document" }) {
            pending = [try self.document(bytes[document.value], within: bytes, at: place)]
        }
    }

    private func document(_ bytes: ArraySlice<UInt8>, within whole: ArraySlice<UInt8>, at place: JSONPlace) throws
        -> Document
    {
        do { return try Document(firestoreJSON: bytes) } catch {
            throw place.error(
                error.code, at: bytes.startIndex - whole.startIndex + (error.offset ?? 0), in: whole, error.message,
                path: error.path)
        }
    }
}

/// Documents written as Firestore REST JSON, one document per line (`Document.firestoreJSONBytes()`), buffered and
/// written to the sink in chunks of about a mebibyte. `FirestoreJSONReader` reads them back.
public final class FirestoreJSONWriter: DocumentSink {
    let chunks: ChunkedByteWriter

    /// A writer of Firestore REST JSON lines into `sink`.
    public init(_ sink: any ByteSink) { chunks = ChunkedByteWriter(sink) }

    /// Writes one document as one line.
    public func write(_ document: Document) throws {
        chunks.buffer.append(contentsOf: try document.firestoreJSONBytes())
        chunks.buffer.append(0x0A)
        try chunks.flushIfNeeded()
    }

    /// Writes the document a stream's record holds as one line, from the record's bytes: what `write(_:)` writes for
    /// it (after `resolvingServerTimestamps(at: time)` when a time is given), without a tree of its fields.
    package func write(record: UnsafeRawBufferPointer, limits: ReaderLimits, resolvingServerTimestamps time: Timestamp?)
        throws
    {
        try FirestoreJSON.appendLine(record: record, limits: limits, serverTime: time, to: chunks.buffer)
        try chunks.flushIfNeeded()
    }

    /// Writes what is buffered and finishes the sink.
    public func finish() throws { try chunks.finish() }
}
