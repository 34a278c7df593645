import FirePack
import FirePackStreams

/// Firestore `google.firestore.v1.Document` messages read one at a time: varint-length-delimited (protobuf's
/// `writeDelimitedTo`, what `FirestoreProtoWriter` writes), or one message without a length prefix (a single
/// document's bytes) when the first prefix does not frame a decodable Document.
///
/// Memory is one message: a length above `maxMessageLength` is an error before anything is read, and the
/// one-message fallback reads at most that much (a file of zeros once made it read everything). A damaged or cut
/// message after the first is an error naming its record number and the input's byte offset.
public final class FirestoreProtoReader: DocumentSource {
    let source: any ByteSource
    /// Unread bytes are `buffer[start...]`; `buffer[0]` is at input offset `bufferOffset`.
    var buffer: [UInt8] = []
    var start = 0
    var bufferOffset = 0
    var ended = false
    /// Messages returned so far.
    public private(set) var count = 0
    /// The largest message read.
    public let maxMessageLength: Int
    let limits: ReaderLimits

    /// A reader of the messages `source` holds; the default largest message is FirePack's record limit (a Firestore
    /// document is at most 1 MiB).
    public init(
        _ source: any ByteSource, maxMessageLength: Int = DocumentStreamFormat.defaultMaxRecordLength,
        limits: ReaderLimits = .default
    ) {
        self.source = source
        self.maxMessageLength = maxMessageLength
        self.limits = limits
    }

    var available: Int { buffer.count - start }

    /// Makes `needed` unread bytes available unless the input ends first (`fillWindow`).
    func fill(_ needed: Int) throws {
        try fillWindow(&buffer, start: &start, offset: &bufferOffset, ended: &ended, needed: needed, from: source)
    }

    /// The next document, or nil at the end.
    public func next() throws -> Document? {
        try fill(10)
        guard available > 0 else { return nil }
        let header = buffer.withUnsafeBytes {
            FirestoreProto.delimitedPrefix(UnsafeRawBufferPointer(rebasing: $0[start...]))
        }
        let messageOffset = bufferOffset + start
        // What is wrong with the message as delimited: thrown for any message but the first, and for the first when
        // it is not one undelimited message either (then its framing said more than the other reading's error).
        var delimitedProblem: FirePackError?
        if let header, header.length <= UInt64(maxMessageLength) {
            let length = Int(header.length)
            try fill(header.prefixCount + length)  // may move the unread bytes: positions are relative to `start`
            let body = start + header.prefixCount
            if header.prefixCount + length <= available {
                let bytes = buffer[body..<body + length]
                let limits = limits
                switch Result(catching: { () throws(FirePackError) in
                    try Document(firestoreProto: bytes, limits: limits)
                }) {
                case .success(let document):
                    start = body + length
                    count += 1
                    return document
                case .failure(let error):
                    delimitedProblem = FirePackError(
                        error.code, offset: messageOffset + header.prefixCount + (error.offset ?? 0),
                        "record \(count) (the message at byte \(messageOffset)): \(error.message)", path: error.path)
                }
            }
        }
        let problem =
            delimitedProblem
            ?? FirePackError(
                header == nil || header!.length <= UInt64(maxMessageLength) ? .truncated : .limitExceeded,
                offset: messageOffset,
                "record \(count) (the message at byte \(messageOffset)): "
                    + (header == nil
                        ? "its length prefix is cut short or longer than ten bytes"
                        : header!.length > UInt64(maxMessageLength)
                            ? "its length prefix claims \(header!.length) bytes, above the limit of \(maxMessageLength)"
                            : "the input ends inside it"))
        // The first message may be a whole undelimited one (below); any later one is damaged.
        guard count == 0 else { throw problem }
        // One message without a prefix: at most the limit. When it is not one either, the error is the framing's
        // when the input is a chain of non-empty frames to its end and that reading got at least as far (a damaged
        // first record, reported as the second would be); the undelimited reading's when it got further (a single
        // message damaged inside: every such message starts with 0x0A, which also reads as a prefix of 10); else
        // both. (A Document message is never empty: it has a name. A run of zeros frames nothing.)
        try fill(maxMessageLength + 1)
        guard available <= maxMessageLength else {
            // Past the window the input is not read: frames up to it, the last one running on, are enough.
            if unreadIsChainOfFrames(mayContinue: true) { throw problem }
            throw FirePackError(
                .limitExceeded, offset: 0,
                "not varint-delimited Document messages, and more than \(maxMessageLength) bytes for a single message")
        }
        let message = Array(buffer[start...])
        let document: Document
        switch Result(catching: { () throws(FirePackError) in try Document(firestoreProto: message, limits: limits) }) {
        case .success(let read): document = read
        case .failure(let undelimited):
            let delimitedReach = problem.offset ?? 0, undelimitedReach = undelimited.offset ?? 0
            if header == nil || undelimitedReach > delimitedReach { throw undelimited }
            if unreadIsChainOfFrames(mayContinue: false) { throw problem }
            throw FirePackError(
                undelimited.code, offset: undelimited.offset,
                "\(problem.message); read as one message without a length prefix instead: \(undelimited.message)",
                path: undelimited.path)
        }
        buffer = []
        start = 0
        count = 1
        return document
    }

    /// Whether the unread bytes are varint-length-delimited frames, each non-empty, ending exactly at their end (or,
    /// when `mayContinue`, with the last one running past it).
    func unreadIsChainOfFrames(mayContinue: Bool) -> Bool {
        buffer.withUnsafeBytes { raw in
            Self.isChainOfFrames(UnsafeRawBufferPointer(rebasing: raw[start...]), mayContinue: mayContinue)
        }
    }

    static func isChainOfFrames(_ bytes: UnsafeRawBufferPointer, mayContinue: Bool) -> Bool {
        var position = 0
        while position < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[position...])
            guard let next = FirestoreProto.delimitedPrefix(rest) else { return mayContinue && rest.count < 10 }
            guard next.length > 0 else { return false }
            guard next.prefixCount <= rest.count, next.length <= UInt64(rest.count - next.prefixCount) else {
                return mayContinue
            }
            position += next.prefixCount + Int(next.length)
        }
        return true
    }
}

/// Documents written as Firestore `google.firestore.v1.Document` messages: varint-length-delimited one after another
/// (protobuf's `writeDelimitedTo`), or, with `delimited: false`, one message without a prefix (then at most one
/// document may be written). Buffered and written to the sink in chunks of about a mebibyte.
public final class FirestoreProtoWriter: DocumentSink {
    let chunks: ChunkedByteWriter
    /// Whether each message has its length prefix.
    public let delimited: Bool
    private var count = 0

    /// A writer of Document messages into `sink`.
    public init(_ sink: any ByteSink, delimited: Bool = true) {
        chunks = ChunkedByteWriter(sink)
        self.delimited = delimited
    }

    /// Writes one document as one message.
    public func write(_ document: Document) throws {
        try checkRoomForAnother()
        try append(message: try document.firestoreProtoBytes(), path: document.reference.path)
    }

    /// Writes the document a stream's record holds as one message, from the record's bytes: what `write(_:)` writes
    /// for it (after `resolvingServerTimestamps(at: time)` when a time is given), without a tree of its fields.
    package func write(record: UnsafeRawBufferPointer, limits: ReaderLimits, resolvingServerTimestamps time: Timestamp?)
        throws
    {
        try checkRoomForAnother()
        let message = try FirestoreProto.encode(record: record, limits: limits, serverTime: time)
        try append(message: message, path: try Document.checkRecord(record, limits: limits).path)
    }

    /// Throws, before a document is encoded, when it would be a second one for a single undelimited message.
    private func checkRoomForAnother() throws {
        guard delimited || count == 0 else {
            throw FirePackError(
                .invalidValue, "a second document for a single undelimited message: write delimited messages")
        }
    }

    /// Appends a document's message, with its length before it when delimited.
    private func append(message: [UInt8], path: @autoclosure () throws -> String) throws {
        if delimited {
            var prefix = ProtoWriter()
            prefix.writeVarint(UInt64(message.count))
            chunks.buffer.append(contentsOf: prefix.bytes)
            chunks.buffer.append(contentsOf: message)
        } else {
            let path = try path()
            // Read back, bytes that a length prefix frames as a Document are delimited messages: a message that
            // reads so (its first field's bytes can, in a document name with control characters) would come back as
            // other documents, so it is refused rather than written.
            let reader = FirestoreProtoReader(MemorySource(message))
            let readBack = Result { () throws -> [Document] in
                var documents: [Document] = []
                while let next = try reader.next() { documents.append(next) }
                return documents
            }
            guard case .success(let documents) = readBack, documents.count == 1,
                documents[0].reference.path.utf8.elementsEqual(path.utf8)
            else {
                throw FirePackError(
                    .invalidValue,
                    "document \(path.debugDescription): its single message would read back as "
                        + "length-delimited messages, other documents: write it delimited (one document in [ ])")
            }
            chunks.buffer.append(contentsOf: message)
        }
        count += 1
        try chunks.flushIfNeeded()
    }

    /// Writes what is buffered and finishes the sink.
    public func finish() throws { try chunks.finish() }
}
