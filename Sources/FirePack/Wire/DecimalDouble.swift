/// The decimal form of a double (Docs/FORMAT.md §1, tag `D5`): a mantissa and a power-of-ten scale.
///
/// `65.66` is `6566 / 10^2`. Reading the form back is one division of two doubles that are both exact (a mantissa
/// of at most 2^53 and a power of ten of at most 10^15), which IEEE 754 rounds correctly: the fast path of Clinger,
/// "How to Read Floating Point Numbers Accurately" (PLDI 1990), the same observation DuckDB's ALP encoding builds on
/// (Afroozeh et al., "ALP: Adaptive Lossless floating-Point Compression", SIGMOD 2024). So the reader needs no
/// decimal-to-binary conversion, and the writer keeps the form only after checking that this division gives back the
/// double's exact bit pattern.
package enum DecimalDouble {
    /// The largest scale the header byte holds (four bits). 10^15 is exact as a double (up to 10^22 are).
    static let maxScale = 15
    /// Writers use mantissas below 2^50, where the search of `decompose` is exact (see there).
    static let writerMantissaLimit = 0x1p50
    /// Readers accept mantissas up to 2^53, the largest for which every integer is an exact double.
    static let readerMantissaLimit: UInt64 = 1 << 53
    /// The header byte's bit for a negative value.
    static let signBit: UInt8 = 0x80

    /// 10^0 … 10^15, each an exact double.
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15
    ]

    /// The header byte after the tag: bit 7 the sign, bits 4–6 the mantissa's byte count less one, bits 0–3 the scale.
    @inline(__always)
    static func header(negative: Bool, mantissaBytes: Int, scale: Int) -> UInt8 {
        (negative ? signBit : 0) | UInt8(truncatingIfNeeded: (mantissaBytes - 1) << 4 | scale)
    }

    /// The number of bytes of the mantissa a header byte announces (1 … 8).
    @inline(__always)
    static func mantissaBytes(_ header: UInt8) -> Int { Int((header >> 4) & 0x07) + 1 }

    /// The fewest bytes that hold `mantissa` (at least one).
    @inline(__always)
    static func byteCount(_ mantissa: UInt64) -> Int { max(1, (64 - mantissa.leadingZeroBitCount + 7) / 8) }

    /// The mantissa and the smallest scale with `magnitude == mantissa / 10^scale` exactly and `mantissa < 2^50`, or
    /// nil when there is none (NaN, infinities, and most doubles that did not come from short decimal text).
    ///
    /// Why trying `rounded(magnitude × 10^s)` finds the mantissa whenever one exists: if `magnitude` is the correctly
    /// rounded `m / 10^s`, then `magnitude × 10^s = m (1 + δ)` with `|δ| ≤ 2^-53`, so the exact product is within
    /// `m · 2^-53 < 2^-3` of `m`, and rounding the product to a double moves it by at most half a unit in the last
    /// place below 2^50, `2^-4`: the computed product rounds to `m`. The mantissa is unique for a scale (two
    /// mantissas below 2^50 give quotients more than an ulp apart), so the smallest scale fixes the encoding.
    @inline(__always)
    package static func decompose(_ magnitude: Double) -> (mantissa: UInt64, scale: Int)? {
        guard magnitude < writerMantissaLimit else { return nil }  // also NaN and +∞
        var power = 1.0  // 10^scale; every product below is exact while scale ≤ 22
        for scale in 0...maxScale {
            let scaled = magnitude * power
            guard scaled < writerMantissaLimit else { return nil }
            let mantissa = scaled.rounded()
            // A candidate lies within m · 2^-52 of its product (see above); anything farther is no candidate, which
            // spares the division for all but the scale that matches.
            if (scaled - mantissa).magnitude <= mantissa * 0x1p-52 && mantissa / power == magnitude {
                return (UInt64(mantissa), scale)
            }
            power *= 10
        }
        return nil
    }

    /// The double a decimal form stands for (`mantissa` ≤ 2^53, checked by the caller).
    @inline(__always)
    static func compose(mantissa: UInt64, header: UInt8) -> Double {
        let magnitude = Double(mantissa) / powersOfTen[Int(header & 0x0F)]
        return header & signBit == 0 ? magnitude : -magnitude
    }
}
