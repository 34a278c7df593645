import Dispatch

// The part the conversions on several cores share (JSONLines+Parallel.swift): batches of input read on the calling
// thread, processed on worker threads, and handed back in input order. At most two batches per worker are in flight,
// so memory stays a few batches whatever the input's size; at most one batch per worker is processed at once.

/// Worker queues for batches: `count` serial queues taken in turn, so that at most `count` batches run at once.
struct WorkerQueues {
    private let queues: [DispatchQueue]
    private var next = 0

    init(count: Int, label: String) {
        queues = (0..<Swift.max(1, count)).map { DispatchQueue(label: "\(label) \($0)") }
    }

    var count: Int { queues.count }

    /// The input a batch holds by default for `workers` threads: 1 MiB (batches of 256 KiB left the cores idle at
    /// more hand-overs; `Stream JSON lines to fpks` and `Stream fpks to JSON lines` measure it), less on many cores,
    /// so that the two batches per worker in flight hold at most 16 MiB of input, but never less than 256 KiB.
    static func batchBytes(workers: Int) -> Int {
        Swift.max(256 << 10, Swift.min(1 << 20, (16 << 20) / (2 * Swift.max(1, workers))))
    }

    mutating func run(_ work: @escaping @Sendable () -> Void) {
        queues[next].async(execute: work)
        next = (next + 1) % queues.count
    }
}

/// A batch of input that a `WorkerPipeline` hands to a worker thread: it belongs to the reading thread until it is
/// handed over, and to the worker until `done` is signalled.
protocol WorkerBatch: AnyObject, Sendable {
    /// Signalled by `work()` when it is done.
    var done: DispatchSemaphore { get }
    /// Whether the batch holds nothing to process.
    var isEmpty: Bool { get }
    /// What reading the input threw after the batch's items: it ends the batch, to be thrown after them.
    var readFailure: (any Error)? { get set }
    /// Processes the batch (on a worker thread), then signals `done`.
    func work()
}

/// Batches filled on this thread, processed by workers, taken back in the order they were filled.
struct WorkerPipeline<Batch: WorkerBatch> {
    /// Batches being processed or waiting to be taken, in input order.
    private(set) var inFlight: [Batch] = []
    /// Taken batches, for reuse.
    private var spares: [Batch] = []
    /// Whether a batch came back from `fill` not full: the input has ended.
    private var inputEnded = false
    private var queues: WorkerQueues

    /// A pipeline on `workers` threads (at least one) named `label`.
    init(workers: Int, label: String) {
        queues = WorkerQueues(count: workers, label: label)
    }

    /// Fills batches and starts processing them until two per worker are in flight, the input ends or reading throws.
    /// `fill` is given a spare batch (or a new one from `make`) and the batches in flight before it; it returns whether
    /// the input ended before the batch was full, and what it throws becomes the batch's `readFailure`. An empty
    /// batch that ended the input is kept for reuse.
    mutating func submit(make: () -> Batch, fill: (Batch, [Batch]) throws -> Bool) {
        while !inputEnded && inFlight.count < 2 * queues.count {
            let batch = spares.popLast() ?? make()
            do {
                if try fill(batch, inFlight) { inputEnded = true }
            } catch {
                batch.readFailure = error
            }
            if batch.isEmpty && batch.readFailure == nil {
                spares.append(batch)
                break
            }
            inFlight.append(batch)
            queues.run { batch.work() }
            if batch.readFailure != nil { break }
        }
    }

    /// The oldest batch in flight once it is processed; nil when none is in flight.
    mutating func takeOldest() -> Batch? {
        guard !inFlight.isEmpty else { return nil }
        let batch = inFlight.removeFirst()
        batch.done.wait()
        return batch
    }

    /// Every batch in flight, in order, once each is processed.
    mutating func takeAll() -> [Batch] {
        for batch in inFlight { batch.done.wait() }
        defer { inFlight.removeAll() }
        return inFlight
    }

    /// Keeps a taken batch for reuse.
    mutating func recycle(_ batch: Batch) { spares.append(batch) }

    /// Waits for the workers to be done with every batch in flight (a conversion that stopped at an error no longer
    /// wants them, but a worker may still hold one).
    func waitForWorkers() {
        for batch in inFlight { batch.done.wait() }
    }
}
