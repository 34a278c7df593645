import FirePack
import FirePackStreams

/// Documents read one at a time from an input format: `JSONLinesReader`, `JSONArrayReader`, `FirestoreJSONReader`,
/// `FirestoreProtoReader`. Each holds one document (or one line, element or message) in memory, whatever the input's
/// size, and its errors give the input's byte offset (and the line and column of text).
public protocol DocumentSource: AnyObject {
    /// The next document, or nil at the end.
    func next() throws -> Document?
}

/// Documents written one at a time in an output format: `JSONLinesWriter`, `JSONArrayWriter`, `FirestoreJSONWriter`,
/// `FirestoreProtoWriter`, and `.fpks` streams (`DocumentStreamWriter`).
public protocol DocumentSink: AnyObject {
    /// Writes one document.
    func write(_ document: Document) throws
    /// Writes what is buffered and finishes the underlying byte sink; nothing is written afterwards.
    func finish() throws
    /// `finish()` for documents that are not all there (damaged input records skipped): a format that can say it
    /// was not finished says so — a `.fpks` stream gets no close record — and the others end as `finish()` ends them.
    func finishIncomplete() throws
}

extension DocumentSink {
    /// As `finish()`: the format cannot say more.
    public func finishIncomplete() throws { try finish() }

    /// Writes every document of `source` and finishes; returns how many were written. JSON lines into a stream and
    /// a stream into JSON lines take their direct paths (no `Document` built), with the same bytes and the same errors
    /// as document by document (`DocumentConversion`, which also reports repeated paths and Firestore's limits).
    @discardableResult
    public func write(from source: any DocumentSource) throws -> Int {
        try DocumentConversion(from: source, to: self, checksFirestoreLimits: false, checksRepeatedPaths: false).run()
    }
}

/// A `.fpks` stream is a sink like the others; from JSON lines it writes each line's fields straight into its
/// record (`JSONLinesReader.appendNext(to:)`) unless it sorts keys.
extension DocumentStreamWriter: DocumentSink {
    /// Appends one document as a record.
    public func write(_ document: Document) throws { try append(document) }

    /// Writes the close record and finishes the sink.
    public func finish() throws { try close() }

    /// Finishes the sink without the close record: readers see the stream was not finished.
    public func finishIncomplete() throws { try finishUnclosed() }
}

/// The intact documents of a `.fpks` stream as a `DocumentSource`: damaged records are stepped over and reported in
/// the reader's `problems`, as `DocumentStreamReader.next()` does. `JSONLinesWriter.write(from:)` writes its records
/// as JSON from their bytes.
public final class StreamDocuments: DocumentSource {
    /// The stream's reader (its `problems`, `completion` and `limits`).
    public let reader: DocumentStreamReader

    /// The documents `reader` reads.
    public init(_ reader: DocumentStreamReader) { self.reader = reader }

    /// The next intact document, or nil at the end.
    public func next() throws -> Document? { try reader.next()?.document }
}

extension DocumentSource {
    /// Every remaining document, in order (memory for all of them: for small inputs and tests).
    public func readAll() throws -> [Document] {
        var documents: [Document] = []
        while let document = try next() { documents.append(document) }
        return documents
    }
}

/// A buffer written to a sink in chunks of about a mebibyte: what the text and protobuf writers write into.
package final class ChunkedByteWriter {
    let sink: any ByteSink
    /// The bytes not written yet.
    package let buffer = ByteOutput(capacity: 1 << 20 + 1 << 16)

    package init(_ sink: any ByteSink) { self.sink = sink }

    /// Writes what is buffered once it holds a mebibyte or more.
    package func flushIfNeeded() throws {
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes what is buffered to the sink.
    package func flush() throws {
        try buffer.withUnsafeBytes { try sink.write($0) }
        buffer.removeAll()
    }

    /// Writes what is buffered and finishes the sink.
    package func finish() throws {
        try flush()
        try sink.finish()
    }
}
