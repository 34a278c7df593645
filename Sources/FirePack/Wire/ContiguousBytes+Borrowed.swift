#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ContiguousBytes {
    /// Runs `body` over the bytes, keeping its typed error: every public entry point that takes bytes takes
    /// `some ContiguousBytes` (`Data`, `[UInt8]`, slices, `UnsafeRawBufferPointer`) and goes through here.
    ///
    /// Inlinable and without a `Result`: an unspecialized generic `Result<R, FirePackError>` cost a runtime metadata
    /// lookup per call, one call per line of a conversion (guarded by `Stream JSON lines to fpks`).
    @inlinable
    package func withBorrowedBytes<R>(_ body: (UnsafeRawBufferPointer) throws(FirePackError) -> R) throws(FirePackError)
        -> R
    {
        do {
            return try withUnsafeBytes { raw in try body(raw) }
        } catch let error as FirePackError {
            throw error
        } catch {
            preconditionFailure("the body throws only FirePackError")
        }
    }
}
