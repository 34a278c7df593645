import CFirePackSystem  // pipe(2), poll(2), read(2), close(2)
import Dispatch
import FirePack
import Synchronization

/// A file descriptor's bytes as an `AsyncSequence` of chunks (a file, a pipe, a socket), each read with read(2) on a
/// queue of its own, so that a read that waits never holds one of the threads async code runs on. The descriptor
/// stays open (the caller closes it); reading stops when iteration stops (or its task is cancelled).
///
/// A read waits in poll(2) for the descriptor or for its task's cancellation, whichever comes first, and reads only
/// once the descriptor is ready: when `next()` returns or throws, no read of the descriptor is under way, so the
/// caller may close it, or hand it to another reader, with no byte taken by a read that outlived its iteration.
public struct FileDescriptorChunks: AsyncSequence, Sendable {
    /// One chunk of at most `chunkSize` bytes.
    public typealias Element = [UInt8]

    let descriptor: Int32
    let chunkSize: Int

    /// The bytes of `descriptor` from its current position, in chunks of at most `chunkSize` bytes.
    public init(descriptor: Int32, chunkSize: Int = 1 << 16) {
        precondition(chunkSize > 0, "chunkSize must be positive")
        self.descriptor = descriptor
        self.chunkSize = chunkSize
    }

    /// Reads chunk by chunk until the end of the file (or the peer closes).
    public struct AsyncIterator: AsyncIteratorProtocol {
        let descriptor: Int32
        let chunkSize: Int
        let queue = DispatchQueue(label: "FirePackStreams.FileDescriptorChunks")
        var reader: CancellableRead?
        var ended = false

        /// The next chunk, or nil at the end. Cancelled while a read waits (a pipe or socket with nothing to say),
        /// it throws `CancellationError` at once, having read nothing.
        public mutating func next() async throws -> [UInt8]? {
            if ended { return nil }
            try Task.checkCancellation()
            let reader = try self.reader ?? CancellableRead()
            self.reader = reader
            reader.reset()
            let (descriptor, size, pending) = (descriptor, chunkSize, PendingRead())
            let chunk: [UInt8] = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    guard pending.arm(continuation) else { return }
                    queue.async {
                        guard let continuation = pending.start() else { return }  // cancelled before it started
                        continuation.resume(with: Result { try reader.readChunk(of: descriptor, size: size) })
                    }
                }
            } onCancel: {
                // Signalled first: whatever resumes the read (`cancel()` here, or the block woken by the pipe), the
                // wake-up is marked and written by then, so the next read's `reset()` takes it back.
                reader.signal()
                pending.cancel()
            }
            if chunk.isEmpty {
                ended = true
                return nil
            }
            return chunk
        }
    }

    /// An iterator reading from the descriptor's current position.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(descriptor: descriptor, chunkSize: chunkSize)
    }
}

/// Reads a descriptor once poll(2) says it is ready, and wakes that wait when the read's task is cancelled: a
/// non-blocking "wake" pipe whose read end is polled beside the descriptor, written to by the cancellation handler.
/// One per iterator, closed with it. A read's cancellation signals before it resumes anything, so the next read's
/// `reset()` always finds the wake-up that cancellation left.
final class CancellableRead: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32
    /// Whether `signal()` has written to the pipe since the last `reset()`, so that a reset with nothing to take back
    /// costs no read(2).
    private let signalled = Atomic(false)

    init() throws(FirePackError) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw FirePackError(
                .ioFailure, "cannot make a pipe to wake a read: \(FileDescriptorIO.systemErrorDescription())")
        }
        (readEnd, writeEnd) = (ends[0], ends[1])
        guard firepack_set_nonblocking_cloexec(readEnd) == 0, firepack_set_nonblocking_cloexec(writeEnd) == 0 else {
            let description = FileDescriptorIO.systemErrorDescription()
            close(readEnd)
            close(writeEnd)
            throw FirePackError(.ioFailure, "cannot make a pipe to wake a read: \(description)")
        }
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Wakes the wait (a byte into the pipe; a full pipe is awake already). Marked before the byte is written, so
    /// that a reset after the wait it woke always takes the byte back.
    func signal() {
        signalled.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Takes back every earlier signal, before a new wait is armed: reads the pipe until it is empty (an interrupted
    /// read is read again, so no byte is left to end the next wait).
    func reset() {
        guard signalled.exchange(false, ordering: .acquiring) else { return }
        var bytes: (UInt64, UInt64) = (0, 0)
        while let count = withUnsafeMutableBytes(
            of: &bytes, { try? FileDescriptorIO.readIfReady(into: $0, from: readEnd) }), count > 0
        {}
    }

    /// Reads at most `size` bytes of `descriptor` once it is ready (empty at its end); throws `CancellationError`,
    /// having read nothing, once `signal()` is called. A wake-up with nothing to read after all (`EAGAIN` from a
    /// descriptor the caller made non-blocking) waits again.
    ///
    /// The chunk holds what was read: read into uninitialized room for `size` bytes, and copied into an array of its
    /// own size when it is less than half of that (a socket's 50-byte message does not keep 64 KiB alive in a
    /// consumer that holds its chunks).
    func readChunk(of descriptor: Int32, size: Int) throws -> [UInt8] {
        while try waitForInput(on: descriptor) {
            var count: Int?
            let chunk = try [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
                count = try FileDescriptorIO.readIfReady(into: UnsafeMutableRawBufferPointer(buffer), from: descriptor)
                initialized = count ?? 0
            }
            if let count { return count < size / 2 ? Array(chunk[..<count]) : chunk }
        }
        throw CancellationError()
    }

    /// Waits until `descriptor` can be read (data, its end, or an error the read will report): true; or until
    /// `signal()`: false, even when the descriptor is ready too (cancellation wins, and nothing is read). A
    /// descriptor poll(2) does not take (a negative one; on macOS, devices) is left to the read, which reports it or
    /// waits in read(2), where cancellation is seen only when the read returns.
    private func waitForInput(on descriptor: Int32) throws(FirePackError) -> Bool {
        if descriptor < 0 { return true }  // poll(2) skips negative descriptors: it would wait for cancellation alone
        var descriptors = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
        ]
        while true {
            if poll(&descriptors, 2, -1) < 0 {
                if firepack_errno() == EINTR { continue }
                throw FirePackError(.ioFailure, "poll failed: \(FileDescriptorIO.systemErrorDescription())")
            }
            if descriptors[1].revents != 0 { return false }
            if descriptors[0].revents != 0 { return true }
        }
    }
}

/// One read's outcome, delivered once: by the queue's block once it has read, or by cancellation before that block
/// started (a busy thread pool must not hold up cancellation; the block then does nothing).
private final class PendingRead: Sendable {
    private enum State {
        case idle
        case armed(CheckedContinuation<[UInt8], any Error>)
        case cancelledEarly
        /// Resumed, or handed to the queue's block to resume: nothing more to do.
        case settled
    }

    private let state = Mutex(State.idle)

    /// Hands over the continuation; false (having resumed it) when cancellation came first.
    func arm(_ continuation: CheckedContinuation<[UInt8], any Error>) -> Bool {
        let cancelled = state.withLock { state -> Bool in
            if case .cancelledEarly = state {
                state = .settled
                return true
            }
            state = .armed(continuation)
            return false
        }
        if cancelled { continuation.resume(throwing: CancellationError()) }
        return !cancelled
    }

    /// The continuation for the queue's block to resume, or nil when cancellation has resumed it already.
    func start() -> CheckedContinuation<[UInt8], any Error>? {
        state.withLock { state in
            guard case .armed(let continuation) = state else { return nil }
            state = .settled
            return continuation
        }
    }

    /// Cancellation: resumes the continuation with `CancellationError` if the block has not started; once it has,
    /// the wake pipe ends its wait and it resumes the continuation itself.
    func cancel() {
        let continuation = state.withLock { state -> CheckedContinuation<[UInt8], any Error>? in
            switch state {
            case .idle:
                state = .cancelledEarly
                return nil
            case .armed(let continuation):
                state = .settled
                return continuation
            case .cancelledEarly, .settled:
                return nil
            }
        }
        continuation?.resume(throwing: CancellationError())
    }
}
