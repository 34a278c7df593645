/// Unsigned LEB128 varints as Docs/FORMAT.md defines them: at most 10 bytes, minimal, below 2^63. SPI public so that
/// `get` inlines into the stream's column walks (an `@inlinable package` body is not serialized into the module, so
/// other modules of the package called it); not for users of the library.
@_spi(Wire) public enum Varint {
    /// How many bytes `value` takes as a varint (the protobuf encoding of FirePackInterop uses the same LEB128).
    @inline(__always)
    package static func encodedSize(_ value: UInt64) -> Int {
        value < 0x80 ? 1 : (70 - value.leadingZeroBitCount) / 7
    }

    /// How many bytes `value` takes as a varint.
    @inline(__always)
    static func encodedSize(_ value: Int) -> Int { encodedSize(UInt64(truncatingIfNeeded: value)) }

    /// Writes `value` at `pointer` and returns the number of bytes written (the caller reserved 10).
    @inline(__always)
    package static func write(_ value: UInt64, to pointer: UnsafeMutablePointer<UInt8>) -> Int {
        var value = value
        var index = 0
        while value >= 0x80 {
            pointer[index] = UInt8(truncatingIfNeeded: value) | 0x80
            value >>= 7
            index += 1
        }
        pointer[index] = UInt8(truncatingIfNeeded: value)
        return index + 1
    }

    /// Reads a varint at `offset`, not reading at or past `limit`.
    ///
    /// Returns the value (always below 2^63, so it converts to `Int` without trapping) and the offset after it.
    /// Inlinable, so that readers in other modules (the stream's columns) take a one-byte varint without a call.
    @inlinable @inline(__always)
    public static func get(_ base: UnsafeRawPointer, at offset: Int, limit: Int) throws(FirePackError) -> (
        value: Int, next: Int
    ) {
        if offset < limit {
            let first = base.load(fromByteOffset: offset, as: UInt8.self)
            if first < 0x80 { return (Int(first), offset + 1) }
        }
        return try getMultiByte(base, at: offset, limit: limit)
    }

    /// A varint of two bytes or more, or none at all (`offset` at `limit`: cut).
    @usableFromInline @inline(never)
    static func getMultiByte(_ base: UnsafeRawPointer, at offset: Int, limit: Int) throws(FirePackError) -> (
        value: Int, next: Int
    ) {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var index = offset
        while true {
            // A cut varint is reported at its first byte (Docs/FORMAT.md §7), as a cut value is at its tag.
            guard index < limit else { throw .truncated(at: offset, needing: "a varint") }
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            if shift == 63 && byte > 0 {
                throw FirePackError(.badVarint, offset: offset, "varint is 2^63 or more")
            }
            result |= UInt64(byte & 0x7F) << shift
            index += 1
            if byte < 0x80 {
                if byte == 0 {
                    throw FirePackError(.badVarint, offset: offset, "varint is not minimally encoded")
                }
                return (Int(result), index)
            }
            shift += 7
        }
    }
}
