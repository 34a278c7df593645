#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ContiguousBytes {
    /// Runs `body` over the bytes, keeping its typed error: every public entry point that takes bytes takes
    /// `some ContiguousBytes` (`Data`, `[UInt8]`, slices, `UnsafeRawBufferPointer`) and goes through here.
    @inline(__always)
    package func withBorrowedBytes<R>(_ body: (UnsafeRawBufferPointer) throws(FirePackError) -> R) throws(FirePackError) -> R {
        try withUnsafeBytes { raw in Result { () throws(FirePackError) in try body(raw) } }.get()
    }
}
