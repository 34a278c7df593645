import Dispatch
import FirePack

/// Compresses a version-3 stream's blocks on a thread of its own, one block at a time, while the writer fills the
/// next one.
///
/// Blocks are compressed independently (Docs/FORMAT.md §8), so compressing one does not have to wait for the
/// encoding of the next, nor the next for it: a writer hands its full block here (`start`), takes back an empty
/// buffer, and collects the stored block (`finish`) before it writes anything after it — so the stream's bytes are
/// the same, in the same order, as compressing in place (`BlockStreamTests` compares both). On two cores this takes
/// compression (zstd at level 3 is about a quarter of a JSON-lines conversion; `BENCHMARKS.md`, stream sizes) off the
/// encoding thread. Memory: one more block buffer and one stored block.
///
/// One block is in flight at most; the writer's thread is the only caller.
final class BlockCompressor: @unchecked Sendable {
    // @unchecked: `data`, `body`, `bodyCount` and `failure` belong to the writer's thread except between `start` and
    // the `wait()` in `finish`, when they belong to the job on `queue`; the semaphore orders the two.
    private let queue = DispatchQueue(label: "FirePackStreams.BlockCompressor")
    private let done = DispatchSemaphore(value: 0)
    let codec: BlockCodec
    /// The block being compressed, or the spare buffer when none is.
    private var data: FirePackWriter
    /// The stored block: its header, then its data as `codec` compresses it (or as it is).
    private var body: [UInt8] = []
    private var bodyCount = 0
    private var failure: (any Error)?
    /// The record count of the block in flight, or nil when none is.
    private var inFlight: Int?

    /// A compressor for blocks stored with `codec` (not `.none`); `spare` is the buffer the first `start` hands back.
    init(codec: BlockCodec, spare: FirePackWriter) {
        precondition(codec != .none, "blocks stored as they are need no compressor")
        self.codec = codec
        data = spare
    }

    /// Starts storing `block` — its `count` documents (`documents` bytes, `first` records before them) and their
    /// lengths — and returns an empty buffer for the next block. Call `finish()` first when a block is in flight.
    func start(_ block: FirePackWriter, count: Int, first: Int, documents: Int) -> FirePackWriter {
        precondition(inFlight == nil, "finish() the block in flight first")
        let spare = data
        spare.clear()
        data = block
        inFlight = count
        queue.async { [self] in
            do {
                bodyCount = try data.withUnsafeWrittenBytes(from: 0) { block in
                    try DocumentStreamWriter.storeBlock(
                        block, codec: codec, count: count, first: first, documents: documents, into: &body)
                }
            } catch {
                failure = error
            }
            done.signal()
        }
        return spare
    }

    /// Waits for the block in flight and returns its stored bytes (header and data) and record count, or nil when no
    /// block is in flight; rethrows what compressing threw.
    func finish<R>(_ body: (UnsafeRawBufferPointer, Int) throws -> R) throws -> R? {
        guard let count = inFlight else { return nil }
        done.wait()
        inFlight = nil
        if let failure {
            self.failure = nil
            throw failure
        }
        return try self.body.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<bodyCount]), count) }
    }
}
