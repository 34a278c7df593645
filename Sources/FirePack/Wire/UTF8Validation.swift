/// Strict UTF-8 validation (Unicode Table 3-7): no overlong forms, no surrogates, nothing above U+10FFFF.
enum UTF8Validation {
    /// Returns the offset (relative to `start`) of the first byte of the first invalid sequence, or nil when valid.
    /// The caller has checked that `start ..< start + count` lies inside the buffer; every load below is bounded by
    /// `end` in this function.
    static func firstInvalidOffset(_ base: UnsafeRawPointer, start: Int, count: Int) -> Int? {
        let end = start + count
        if isASCII(base, start: start, count: count) { return nil }
        var index = start
        // Fast path: eight ASCII bytes at a time.
        while index &+ 8 <= end {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 != 0 { break }
            index &+= 8
        }
        while index < end {
            let lead = base.load(fromByteOffset: index, as: UInt8.self)
            if lead < 0x80 {
                index &+= 1
                continue
            }
            // The common well-formed sequences, checked as one little-endian word while four bytes remain: two bytes
            // led by C2…DF, and three led by E1…EC or EE…EF (all of CJK text; E0 and ED have narrower second bytes
            // and go the long way): twitter.json's strings, half of them Japanese (guarded by `Decode twitter model`).
            if end &- index >= 4 {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt32.self).littleEndian
                if lead < 0xE0 {
                    if word & 0xC0E0 == 0x80C0 && lead >= 0xC2 {
                        index &+= 2
                        continue
                    }
                } else if word & 0xC0_C0F0 == 0x80_80E0 && lead != 0xE0 && lead != 0xED {
                    index &+= 3
                    continue
                }
            }
            let length: Int
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0:
                length = 3
                lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED:
                length = 3
                upper = 0x9F
            case 0xF0:
                length = 4
                lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4:
                length = 4
                upper = 0x8F
            default: return index - start
            }
            guard end - index >= length else { return index - start }
            let second = base.load(fromByteOffset: index + 1, as: UInt8.self)
            guard second >= lower && second <= upper else { return index - start }
            for continuation in 2..<length {
                let byte = base.load(fromByteOffset: index + continuation, as: UInt8.self)
                guard byte & 0xC0 == 0x80 else { return index - start }
            }
            index &+= length
        }
        return nil
    }

    /// Whether the `count` bytes at `start` are all ASCII (and so valid UTF-8), the common case, answered with whole
    /// words: under eight bytes with two overlapping halves (or its few bytes), eight or more eight bytes at a time,
    /// the last word first and overlapping, not a byte at a time (guarded by `Stream fpks to JSON lines`). The caller
    /// has checked that the bytes lie inside the buffer.
    @inline(__always)
    static func isASCII(_ base: UnsafeRawPointer, start: Int, count: Int) -> Bool {
        let end = start &+ count
        if count < 8 {
            var high: UInt64 = 0
            if count >= 4 {
                high = UInt64(
                    base.loadUnaligned(fromByteOffset: start, as: UInt32.self)
                        | base.loadUnaligned(fromByteOffset: end &- 4, as: UInt32.self))
            } else {
                for offset in start..<end { high |= UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) }
            }
            return high & 0x8080_8080 == 0
        }
        guard base.loadUnaligned(fromByteOffset: end &- 8, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else {
            return false
        }
        var index = start
        while index &+ 8 <= end {
            guard base.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else {
                return false
            }
            index &+= 8
        }
        return true
    }

    /// Makes a String from bytes already validated as UTF-8, without validating them again.
    static func makeString(validated bytes: UnsafeRawBufferPointer) -> String {
        guard bytes.count > 0 else { return "" }
        let typed = bytes.assumingMemoryBound(to: UInt8.self)
        let span = unsafe Span(_unsafeElements: typed)
        return String(copying: unsafe UTF8Span(unchecked: span))
    }
}

/// The strict UTF-8 check FirePack applies to every string, for code that reads other formats.
package enum UTF8Validator {
    /// The offset of the first byte of the first invalid sequence in `bytes`, or nil when they are valid UTF-8.
    package static func firstInvalidOffset(in bytes: UnsafeRawBufferPointer) -> Int? {
        guard let base = bytes.baseAddress else { return nil }
        return UTF8Validation.firstInvalidOffset(base, start: 0, count: bytes.count)
    }
}
