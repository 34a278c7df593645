/// Byte-for-byte equality of two buffers, eight bytes at a time: what key matching and literal checks use, in pure
/// Swift so that no module names the platform's C library for `memcmp`. Keys are short (most under 32 bytes), where
/// the word loop does the work of a `memcmp` call without its call overhead.
package enum ByteComparison {
    /// Whether the `count` bytes at `a` and at `b` are equal.
    ///
    /// The bytes past the last whole word are compared as one word that ends at the last byte, overlapping bytes
    /// already compared (and below eight bytes, as two overlapping halves of the width that fits), so no key costs
    /// a loop over single bytes.
    @inline(__always)
    package static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        if count >= 8 {
            var index = 0
            while index + 8 < count {
                guard
                    a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                        == b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                else {
                    return false
                }
                index += 8
            }
            return a.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                == b.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        }
        if count >= 4 {
            return a.loadUnaligned(as: UInt32.self) == b.loadUnaligned(as: UInt32.self)
                && a.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
                    == b.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
        }
        if count >= 2 {
            return a.loadUnaligned(as: UInt16.self) == b.loadUnaligned(as: UInt16.self)
                && a.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)
                    == b.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)
        }
        return count == 0 || a.load(as: UInt8.self) == b.load(as: UInt8.self)
    }

    /// Whether buffers `a` and `b` hold the same bytes: their counts, then `equal(_:_:count:)`.
    @inline(__always)
    package static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.isEmpty || equal(a.baseAddress!, b.baseAddress!, count: a.count))
    }

    /// Whether `a` sorts before `b` in ascending unsigned-byte order (a prefix first): `compare(_:_:) < 0`.
    @inline(__always)
    package static func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        compare(a, b) < 0
    }

    /// -1, 0 or 1 as `a` sorts before, with or after `b` in ascending unsigned-byte order (a prefix first), eight
    /// bytes at a time: a word's bytes read most significant first compare as the bytes do.
    /// `lexicographicallyPrecedes` on a `String.UTF8View` stepped through two long keys that differ only at their end
    /// one byte at a time, in every map that repeats them.
    package static func compare(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Int {
        let common = Swift.min(a.count, b.count)
        var index = 0
        while index + 8 <= common {
            let left = a.loadUnaligned(fromByteOffset: index, as: UInt64.self).bigEndian
            let right = b.loadUnaligned(fromByteOffset: index, as: UInt64.self).bigEndian
            if left != right { return left < right ? -1 : 1 }
            index += 8
        }
        while index < common {
            if a[index] != b[index] { return a[index] < b[index] ? -1 : 1 }
            index += 1
        }
        return a.count == b.count ? 0 : a.count < b.count ? -1 : 1
    }

    /// The `count` bytes at `bytes`, fewer than eight, as one word read as `equal` reads them (two overlapping loads
    /// of the width that fits; 0 for no bytes): every byte counts, none is read past the run. For hashing short keys.
    @inline(__always)
    package static func shortWord(_ bytes: UnsafeRawPointer?, count: Int) -> UInt64 {
        guard let bytes, count > 0 else { return 0 }
        assert(count < 8)
        if count >= 4 {
            return UInt64(bytes.loadUnaligned(as: UInt32.self))
                | UInt64(bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32
        }
        if count >= 2 {
            return UInt64(bytes.loadUnaligned(as: UInt16.self))
                | UInt64(bytes.loadUnaligned(fromByteOffset: count - 2, as: UInt16.self)) << 16
        }
        return UInt64(bytes.load(as: UInt8.self))
    }
}
