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

extension String {
    /// Runs `body` over the string's UTF-8 bytes without copying the string where it holds them contiguously (native
    /// and small strings; others are made contiguous first).
    ///
    /// `withUTF8` is `mutating`: called on a copy of a parameter, it retained and released the string's storage on
    /// every call, one pair per string and key a writer wrote (guarded by `Encode 1000 Book/FirePackEncoder
    /// @FirePackCodable`). Inlinable, as `withBorrowedBytes`: the other modules' calls (the JSON text writer, the
    /// conversions' path fingerprints) are then specialized where they are made.
    @inlinable @inline(__always)
    package func withUTF8Bytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let result = try utf8.withContiguousStorageIfAvailable({ try body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var copy = self
        return try copy.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
    }

    /// Whether the two hold the same UTF-8 bytes (Firestore's key equality, not Unicode's canonical equivalence):
    /// lengths first, the same storage, then eight bytes at a time. `elementsEqual` on the `UTF8View`s stepped
    /// through two long keys alike up to their end one byte at a time.
    /// A string without contiguous UTF-8 (bridged, on Darwin) is compared through its views, not copied.
    package func hasSameUTF8(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let compared = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                a.baseAddress == b.baseAddress
                    || ByteComparison.equal(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b))
            }
        }
        return (compared ?? nil) ?? utf8.elementsEqual(other.utf8)
    }

    /// Whether this sorts before `other` in ascending unsigned-byte order of their UTF-8 (a prefix first), as
    /// deterministic output orders map keys (`ByteComparison.precedes`).
    package func utf8Precedes(_ other: String) -> Bool { utf8Compare(other) < 0 }

    /// -1, 0 or 1 as this sorts before, with or after `other` in ascending unsigned-byte order of their UTF-8
    /// (`ByteComparison.compare`): Firestore's order of strings and of map keys.
    package func utf8Compare(_ other: String) -> Int {
        let compared = utf8.withContiguousStorageIfAvailable { a in
            other.utf8.withContiguousStorageIfAvailable { b in
                ByteComparison.compare(UnsafeRawBufferPointer(a), UnsafeRawBufferPointer(b))
            }
        }
        if let compared = compared ?? nil { return compared }
        return utf8.lexicographicallyPrecedes(other.utf8) ? -1 : utf8.elementsEqual(other.utf8) ? 0 : 1
    }
}
