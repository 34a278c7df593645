#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw `write(2)` with retries, for sinks that write to file descriptors.
enum FileDescriptorIO {
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw FirePackError(.ioFailure, "write to file descriptor \(descriptor) failed: errno \(errno)")
            }
            offset += written
        }
    }
}
