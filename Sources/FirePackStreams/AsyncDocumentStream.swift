#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack

/// The documents of a `.fpks` stream that arrives as an `AsyncSequence` of byte chunks (a socket, a swift-nio
/// channel with FirePackNIO, a file read with `FileDescriptorChunks`, an HTTP body), read in `async` code.
///
/// The same reader as `DocumentStreamReader` — the same framing, checks, damage reports and completion — fed as
/// bytes arrive: a chunk is asked for only when a record needs more bytes than are buffered, so a slow consumer slows
/// the producer (back-pressure) and memory stays at what `DocumentStreamReader` holds for one record — up to twice the
/// record limit, which `maxRecordLength` lowers for a service that takes small documents — plus one chunk (Docs/SAFETY.md).
/// Cancelling the task that iterates
/// ends the iteration with `CancellationError` at its next step and asks for no more chunks.
///
/// Reading never ends silently: in `.skipAndReport` mode (the default) damaged records — and records that do not
/// decode, with `values(as:)` — are skipped into `problems`; in `.stopAtFirstError` mode the first is thrown. After
/// the loop, `completion` says whether the stream was closed cleanly. A stream is read once: iterators made from it
/// share its position.
public final class AsyncDocumentStream<Chunks: AsyncSequence>: AsyncSequence where Chunks.Element: ContiguousBytes {
    /// Each intact document.
    public typealias Element = Document

    private var chunks: Chunks.AsyncIterator
    private let source = ChunkSource()
    private var reader: DocumentStreamReader?
    /// Why the stream's header was refused: thrown again by every later step, as no reader of the rest exists (the
    /// header's bytes are taken; reading on would take the next bytes for a header).
    private var headerFailure: (any Error)?
    private let mode: DocumentStreamReader.ErrorMode
    private let maxRecordLength: Int
    private let maxBlockExpansion: Int
    private let limits: ReaderLimits
    /// The bytes the chunks have delivered so far.
    private var delivered = 0

    /// A stream read from `chunks`; nothing is read until the first document is asked for. The limits are those of
    /// `DocumentStreamReader` (`maxBlockExpansion`: see there).
    public init(
        chunks: Chunks, mode: DocumentStreamReader.ErrorMode = .skipAndReport,
        maxRecordLength: Int = DocumentStreamFormat.defaultMaxRecordLength,
        maxBlockExpansion: Int = DocumentStreamFormat.maxBlockExpansion, limits: ReaderLimits = .default
    ) {
        self.chunks = chunks.makeAsyncIterator()
        self.mode = mode
        self.maxRecordLength = maxRecordLength
        self.maxBlockExpansion = maxBlockExpansion
        self.limits = limits
    }

    /// The first damaged (or undecodable) records skipped so far (see `DocumentStreamReader.problems`).
    public var problems: [StreamProblem] { reader?.problems ?? [] }
    /// Every problem found so far, kept in `problems` or not.
    public var problemCount: Int { reader?.problemCount ?? 0 }
    /// Whether the stream was closed cleanly; nil until its end is reached.
    public var completion: StreamCompletion? { reader?.completion }
    /// Records found so far, intact or damaged.
    public var recordsFound: Int { reader?.recordsFound ?? 0 }
    /// Version-3 blocks refused so far as past `maxBlockExpansion` (see `DocumentStreamReader.blocksPastExpansion`).
    public var blocksPastExpansion: Int { reader?.blocksPastExpansion ?? 0 }
    /// The `maxBlockExpansion` that reads every one of them (at least; 0 when there is none).
    public var blockExpansionNeeded: Int { reader?.blockExpansionNeeded ?? 0 }
    /// Whether the stream's header has been read (a stream that is not one throws before).
    var isOpen: Bool { reader != nil }

    /// The next intact document with its record number and offset, or nil at the end.
    public func next() async throws -> (number: Int, offset: Int, document: Document)? {
        try await nextRecord { reader, record in
            try reader.document(in: record).map { (record.number, record.offset, $0) }
        }
    }

    /// The next intact document's fields decoded as `T` (with `@DocumentID` filled), or nil at the end; a record that
    /// does not decode is a problem, as with `DocumentStreamReader.next(as:)`.
    public func next<T: Decodable>(as type: T.Type, decoder: FirePackDecoder = FirePackDecoder()) async throws -> (
        reference: DocumentReference, value: T
    )? {
        try await nextRecord { reader, record in try reader.decode(record, as: type, decoder: decoder) }
    }

    /// The documents decoded as `T`, as an `AsyncSequence` over this same stream.
    public func values<T: Decodable>(as type: T.Type, decoder: FirePackDecoder = FirePackDecoder())
        -> AsyncDecodedStream<Chunks, T>
    {
        AsyncDecodedStream(stream: self, decoder: decoder)
    }

    /// Reads records until `body` makes something of one (nil: the record was reported and skipped), asking for
    /// chunks whenever the reader runs out of bytes.
    func nextRecord<R>(_ body: (DocumentStreamReader, StreamRecord) throws -> R?) async throws -> R? {
        while true {
            try Task.checkCancellation()
            do {
                let reader = try await openedReader()
                guard let record = try reader.nextRecord() else { return nil }
                if let result = try body(reader, record) { return result }
            } catch is ChunkSource.NeedsInput {
                try await pull()
            }
        }
    }

    /// The reader, made once the stream's header has arrived (or the chunks have ended: then it throws what
    /// `DocumentStreamReader` throws for a stream that is not one).
    private func openedReader() async throws -> DocumentStreamReader {
        if let reader { return reader }
        if let headerFailure { throw headerFailure }
        while source.buffered < DocumentStreamFormat.header.count && !source.isFinished { try await pull() }
        do {
            let reader = try DocumentStreamReader(
                source: source, mode: mode, maxRecordLength: maxRecordLength, maxBlockExpansion: maxBlockExpansion,
                limits: limits)
            self.reader = reader
            return reader
        } catch let error where !(error is ChunkSource.NeedsInput) {
            headerFailure = error
            throw error
        }
    }

    /// Buffers the next chunk, or marks the end. A source that ends because the task was cancelled (as `AsyncStream`
    /// does) is cancellation, not the stream's end: it would read as a stream cut short, its header or a record torn.
    ///
    /// A `FirePackError` of the chunks' own (a read that failed) gets the stream offset it happened at, where it
    /// names none; any other error is thrown as it is.
    private func pull() async throws {
        try Task.checkCancellation()
        let next: Chunks.Element?
        do { next = try await chunks.next() } catch var error as FirePackError where error.offset == nil {
            error.offset = delivered
            throw error
        }
        if let chunk = next {
            chunk.withUnsafeBytes {
                source.append($0)
                delivered += $0.count
            }
        } else {
            try Task.checkCancellation()
            source.isFinished = true
        }
    }

    /// An iterator over the stream's documents.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: AsyncDocumentStream

        /// The next intact document, or nil at the end.
        public mutating func next() async throws -> Document? { try await stream.next()?.document }
    }

    /// An iterator over this stream (each shares its position).
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: self) }
}

/// A stream's documents decoded as `T` (see `AsyncDocumentStream.values(as:)`).
public struct AsyncDecodedStream<Chunks: AsyncSequence, T: Decodable>: AsyncSequence
where Chunks.Element: ContiguousBytes {
    /// Each decoded value.
    public typealias Element = T

    /// The stream, for its `problems` and `completion` after the loop.
    public let stream: AsyncDocumentStream<Chunks>
    let decoder: FirePackDecoder

    /// An iterator over the decoded values.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let stream: AsyncDocumentStream<Chunks>
        let decoder: FirePackDecoder

        /// The next value, or nil at the end.
        public mutating func next() async throws -> T? { try await stream.next(as: T.self, decoder: decoder)?.value }
    }

    /// An iterator over the stream (each shares its position).
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: stream, decoder: decoder) }
}

extension DocumentStreamReader {
    /// The documents of a stream arriving as `chunks`, for `for try await` (see `AsyncDocumentStream`): records of at
    /// most `maxRecordLength` bytes (a service taking small documents from peers lowers it, and with it the memory a
    /// peer's record header can claim), values within `limits`, blocks read with `maxBlockExpansion`, as
    /// `DocumentStreamReader` reads them.
    public static func documents<Chunks: AsyncSequence>(
        from chunks: Chunks, mode: ErrorMode = .skipAndReport,
        maxRecordLength: Int = DocumentStreamFormat.defaultMaxRecordLength,
        maxBlockExpansion: Int = DocumentStreamFormat.maxBlockExpansion, limits: ReaderLimits = .default
    ) -> AsyncDocumentStream<Chunks> where Chunks.Element: ContiguousBytes {
        AsyncDocumentStream(
            chunks: chunks, mode: mode, maxRecordLength: maxRecordLength, maxBlockExpansion: maxBlockExpansion,
            limits: limits)
    }
}

/// The bytes an asynchronous stream has delivered and the reader has not taken yet: a `ByteSource` that, when it
/// has none but more may come, throws `NeedsInput` (the reader stops where it can resume: `nextRecord()`).
final class ChunkSource: ByteSource {
    /// Thrown by `read(into:)` when no byte is buffered and the chunks have not ended.
    struct NeedsInput: Error {}

    private var bytes: [UInt8] = []
    private var position = 0
    /// Whether the chunks have ended.
    var isFinished = false

    var buffered: Int { bytes.count - position }

    func append(_ chunk: UnsafeRawBufferPointer) {
        if position == bytes.count {
            bytes.removeAll(keepingCapacity: true)
            position = 0
        }
        bytes.append(contentsOf: chunk)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, buffered)
        if count == 0 {
            if isFinished || buffer.count == 0 { return 0 }
            throw NeedsInput()
        }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + position, byteCount: count)
        }
        position += count
        return count
    }
}
