import CFirePackSystem  // read(2), write(2), strerror(3)
import Synchronization

/// Reads and writes file descriptors, retrying interruptions: the one place FirePack's modules do so (the writer's
/// file-descriptor sink, FirePackStreams' file sources and sinks).
package enum FileDescriptorIO {
    /// Set when a write found its reader gone (EPIPE, with SIGPIPE ignored): a command-line tool then ends as the
    /// signal would have ended it (status 141), quietly, rather than reporting a failure.
    package static let brokenPipe = Atomic<Bool>(false)

    /// Writes all of `bytes`; throws `ioFailure` with the system's reason.
    package static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws(FirePackError) {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                let code = firepack_errno()
                if code == EINTR { continue }
                if code == EPIPE { brokenPipe.store(true, ordering: .relaxed) }
                throw FirePackError(.ioFailure, "write failed: \(systemErrorDescription(code))")
            }
            offset += written
        }
    }

    /// Reads up to `buffer.count` bytes; 0 at the end. Throws `ioFailure` with the system's reason (a non-blocking
    /// descriptor with nothing to read yet included).
    package static func readSome(into buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32)
        throws(FirePackError) -> Int
    {
        guard let count = try readIfReady(into: buffer, from: descriptor) else {
            throw FirePackError(.ioFailure, "read failed: \(systemErrorDescription(EAGAIN))")
        }
        return count
    }

    /// Reads up to `buffer.count` bytes; 0 at the end, nil when a non-blocking descriptor has nothing to read yet
    /// (`EAGAIN`), for a caller that waits for it. An interrupted read (`EINTR`) is read again; any other failure
    /// throws `ioFailure` with the system's reason.
    package static func readIfReady(into buffer: UnsafeMutableRawBufferPointer, from descriptor: Int32)
        throws(FirePackError) -> Int?
    {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            let code = firepack_errno()
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            if code != EINTR { throw FirePackError(.ioFailure, "read failed: \(systemErrorDescription(code))") }
        }
    }

    /// The system's description of an error number (`No such file or directory`), never a bare `errno 2`.
    package static func systemErrorDescription(_ code: Int32 = firepack_errno()) -> String {
        String(cString: strerror(code))
    }
}
