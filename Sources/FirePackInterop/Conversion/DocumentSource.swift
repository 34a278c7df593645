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
/// `FirestoreProtoWriter`.
public protocol DocumentSink: AnyObject {
    /// Writes one document.
    func write(_ document: Document) throws
    /// Writes what is buffered and finishes the underlying byte sink; nothing is written afterwards.
    func finish() throws
}

extension DocumentSource {
    /// Every remaining document, in order (memory for all of them: for small inputs and tests).
    public func readAll() throws -> [Document] {
        var documents: [Document] = []
        while let document = try next() { documents.append(document) }
        return documents
    }
}

extension DocumentSink {
    /// Writes every document of `source` and finishes; returns how many were written.
    @discardableResult
    public func write(from source: any DocumentSource) throws -> Int {
        var count = 0
        while let document = try source.next() {
            try write(document)
            count += 1
        }
        try finish()
        return count
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
