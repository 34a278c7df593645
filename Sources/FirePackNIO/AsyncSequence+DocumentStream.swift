#if FirePackNIO
public import FirePack
public import FirePackStreams
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import NIOCore

extension DocumentStreamReader {
    /// The documents of a `.fpks` stream arriving as swift-nio `ByteBuffer`s — a `NIOAsyncChannel`'s inbound stream,
    /// for instance — for `for try await` in `async` code: the same reader, damage reports and completion as
    /// `AsyncDocumentStream`, with its back-pressure (a buffer is asked for only when a record needs more bytes) and
    /// cancellation. Each buffer's readable bytes are copied into an array, which the reader's buffer takes in. Records
    /// are at most `maxRecordLength` bytes (lower it for peers that send small documents: a record header claiming the
    /// limit makes the reader's buffer that large), values within `limits`, blocks read with `maxBlockExpansion`, as
    /// `DocumentStreamReader` reads them.
    public static func documents<Buffers: AsyncSequence>(
        fromBuffers buffers: Buffers, mode: ErrorMode = .skipAndReport,
        maxRecordLength: Int = DocumentStreamFormat.defaultMaxRecordLength,
        maxBlockExpansion: Int = DocumentStreamFormat.maxBlockExpansion, limits: ReaderLimits = .default
    ) -> AsyncDocumentStream<AsyncMapSequence<Buffers, [UInt8]>> where Buffers.Element == ByteBuffer {
        AsyncDocumentStream(
            chunks: buffers.map { Array($0.readableBytesView) }, mode: mode, maxRecordLength: maxRecordLength,
            maxBlockExpansion: maxBlockExpansion, limits: limits)
    }
}
#endif
