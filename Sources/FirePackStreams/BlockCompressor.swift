import Dispatch
import FirePack

/// Stores a version-3 stream's blocks (columns, compression) on threads of their own, up to two blocks at a time,
/// while the writer fills the next one.
///
/// Blocks are stored independently (Docs/FORMAT.md §8), so storing one does not have to wait for the encoding of
/// the next, nor the next for it: a writer hands its full block here (`start`), takes back an empty buffer, and
/// collects the stored blocks in order (`finishOldest`) before it writes anything after them — so the stream's bytes
/// are the same, in the same order, as storing in place (`BlockStreamTests` compares both). Two blocks in flight
/// keep a block's splitting into columns and its compression off the critical path when documents are encoded on
/// two threads: with one, every block waited for the one before it to be stored. Memory: two more block buffers,
/// two stored blocks, and each job's column buffers and columns form (about a block each), kept for the next block.
///
/// The writer's thread is the only caller.
final class BlockCompressor: @unchecked Sendable {
    // @unchecked: a job's fields belong to the writer's thread except between `start` and the `wait()` in
    // `finishOldest`, when they belong to the job on `queue`; the job's semaphore orders the two.
    private let queue = DispatchQueue(label: "FirePackStreams.BlockCompressor", attributes: .concurrent)
    let codec: BlockCodec
    /// The most blocks being stored at once.
    static let maxInFlight = 2

    /// One block being stored (or a buffer waiting for one), with what storing it gave.
    private final class Job: @unchecked Sendable {
        let done = DispatchSemaphore(value: 0)
        /// The block being stored, or a spare buffer when the job is idle.
        var data: FirePackWriter
        /// The stored block: its header, then its data as stored.
        var body: [UInt8] = []
        var bodyCount = 0
        var failure: (any Error)?
        var count = 0
        /// Splits blocks into columns, its buffers kept from block to block.
        let splitter = ColumnSplitter()

        init(data: FirePackWriter) { self.data = data }
    }

    /// The blocks being stored, oldest first.
    private var inFlight: [Job] = []
    /// Jobs whose buffers are free.
    private var idle: [Job]

    /// A compressor for blocks stored with `codec`; `spare` is the buffer the first `start` hands back.
    init(codec: BlockCodec, spare: FirePackWriter) {
        self.codec = codec
        idle = [Job(data: spare)]
    }

    /// Whether `maxInFlight` blocks are being stored: `finishOldest()` first.
    var isFull: Bool { inFlight.count == Self.maxInFlight }

    /// Whether a block is being stored.
    var isEmpty: Bool { inFlight.isEmpty }

    /// Starts storing `block` — its `count` documents (`documents` bytes, `first` records before them) and their
    /// lengths — and returns an empty buffer for the next block. Call `finishOldest()` first when `isFull`.
    func start(_ block: FirePackWriter, count: Int, first: Int, documents: Int) -> FirePackWriter {
        precondition(!isFull, "finishOldest() first")
        let job = idle.popLast() ?? Job(data: DocumentStreamWriter.blockBuffer(like: block))
        let spare = job.data
        spare.clear()
        job.data = block
        job.count = count
        inFlight.append(job)
        let codec = codec
        queue.async {
            do {
                job.bodyCount = try job.data.withUnsafeWrittenBytes(from: 0) { data in
                    try DocumentStreamWriter.storeBlock(
                        data, codec: codec, count: count, first: first, documents: documents, into: &job.body,
                        splitter: job.splitter)
                }
            } catch {
                job.failure = error
            }
            job.done.signal()
        }
        return spare
    }

    /// Waits for the oldest block being stored and hands its stored bytes (header and data) and record count to
    /// `body`, or returns nil when no block is being stored; rethrows what storing it threw.
    func finishOldest<R>(_ body: (UnsafeRawBufferPointer, Int) throws -> R) throws -> R? {
        guard !inFlight.isEmpty else { return nil }
        let job = inFlight.removeFirst()
        job.done.wait()
        defer { idle.append(job) }
        if let failure = job.failure {
            job.failure = nil
            throw failure
        }
        return try job.body.withUnsafeBytes {
            try body(UnsafeRawBufferPointer(rebasing: $0[..<job.bodyCount]), job.count)
        }
    }
}
