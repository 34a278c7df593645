import CFirePackSystem  // pipe(2), poll(2), read(2), close(2)
import Dispatch
import FirePack

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
        var wake: CancellationWake?
        var ended = false

        /// The next chunk, or nil at the end. Cancelled while a read waits (a pipe or socket with nothing to say),
        /// it throws `CancellationError` at once, having read nothing.
        public mutating func next() async throws -> [UInt8]? {
            if ended { return nil }
            try Task.checkCancellation()
            let wake = try self.wake ?? CancellationWake()
            self.wake = wake
            wake.reset()
            let (descriptor, size) = (descriptor, chunkSize)
            let chunk: [UInt8] = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { continuation in
                    queue.async {
                        continuation.resume(
                            with: Result {
                                guard try wake.waitForInput(on: descriptor) else { throw CancellationError() }
                                var chunk = [UInt8](repeating: 0, count: size)
                                let count = try chunk.withUnsafeMutableBytes {
                                    try FileDescriptorIO.readSome(into: $0, from: descriptor)
                                }
                                chunk.removeLast(size - count)
                                return chunk
                            })
                    }
                }
            } onCancel: {
                wake.signal()
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

/// Wakes a read waiting in poll(2) when its task is cancelled: a non-blocking pipe whose read end is polled beside the
/// descriptor, written to by the cancellation handler. One per iterator, closed with it.
final class CancellationWake: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

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

    /// Wakes the wait (a byte into the pipe; a full pipe is awake already).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Takes back every earlier signal, before a new wait is armed.
    func reset() {
        var bytes: (UInt64, UInt64) = (0, 0)
        while withUnsafeMutableBytes(of: &bytes, { read(readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Waits until `descriptor` can be read (data, its end, or an error the read will report): true; or until
    /// `signal()`: false, even when the descriptor is ready too (cancellation wins, and nothing is read).
    func waitForInput(on descriptor: Int32) throws(FirePackError) -> Bool {
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
