/// Byte-for-byte equality of two buffers, eight bytes at a time: what key matching and literal checks use, in pure
/// Swift so that no module names the platform's C library for `memcmp`. Keys are short (most under 32 bytes), where
/// the word loop does the work of a `memcmp` call without its call overhead.
package enum ByteComparison {
    /// Whether the `count` bytes at `a` and at `b` are equal.
    @inline(__always)
    package static func equal(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, count: Int) -> Bool {
        var index = 0
        while index + 8 <= count {
            guard
                a.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    == b.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            else {
                return false
            }
            index += 8
        }
        while index < count {
            guard a.load(fromByteOffset: index, as: UInt8.self) == b.load(fromByteOffset: index, as: UInt8.self) else {
                return false
            }
            index += 1
        }
        return true
    }
}
