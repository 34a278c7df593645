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
    /// Writers use mantissas below 2^50, where the search of `decompose` is exact (see there); a double's own form
    /// is shorter than its binary form only below 2^16 (beside binary32) or 2^48 (beside binary64).
    package static let writerMantissaLimit = 0x1p50
    /// Readers accept mantissas up to 2^53, the largest for which every integer is an exact double.
    static let readerMantissaLimit: UInt64 = 1 << 53
    /// The header byte's bit for a negative value.
    static let signBit: UInt8 = 0x80

    /// 10^scale for a scale in 0 … 15, an exact double. A `switch` of constants rather than an array: no lazy
    /// global, no bounds check, no reference counting on the per-double path (an array of them measured slower).
    @inline(__always)
    static func powerOfTen(_ scale: Int) -> Double {
        switch scale {
        case 0: 1e0
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        default: 1e15
        }
    }

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

    /// The mantissa and the smallest scale with `magnitude == mantissa / 10^scale` exactly and `mantissa < bound`
    /// (a power of two, at most 2^50), or nil when there is none (NaN, infinities, and most doubles that did not come
    /// from short decimal text).
    ///
    /// Why `rounded(magnitude × 10^s)` is the mantissa whenever one exists at scale `s`: if `magnitude` is the
    /// correctly rounded `m / 10^s`, then `magnitude × 10^s = m (1 + δ)` with `|δ| ≤ 2^-53`, so the exact product is
    /// within `m · 2^-53 < 2^-3` of `m`, and rounding the product to a double moves it by at most half a unit in the
    /// last place below 2^50, `2^-4`: the computed product rounds to `m`. The mantissa is unique for a scale (two
    /// mantissas below 2^50 give quotients more than an ulp apart), so the smallest scale fixes the encoding.
    ///
    /// Why a binary search finds the smallest scale: a form at scale `s` gives one at `s + 1` (mantissa `10 m`, the
    /// same quotient) while `10 m` stays below the bound, which it does up to the largest scale whose product is below
    /// the bound (`10 m` is never the bound itself: a multiple of 5 is no power of two). So whether a scale has a form
    /// is monotone there, and a double without one (a binary64 from long decimal text) costs one test.
    @inline(__always)
    package static func decompose(_ magnitude: Double, below bound: Double) -> (mantissa: UInt64, scale: Int)? {
        guard magnitude < bound else { return nil }  // also NaN and +∞
        guard magnitude > 0 else { return (0, 0) }
        // The largest scale whose product stays below the bound: 10^s ≤ 2^(b − e − 1) is safe for a magnitude below
        // 2^(e + 1) (1233 / 4096 < log10 2), then step up while the next one is too.
        var high = min(maxScale, ((binaryExponent(bound) - binaryExponent(magnitude) - 1) * 1233) >> 12)
        while high < maxScale && magnitude * powerOfTen(high + 1) < bound { high += 1 }
        guard var found = mantissa(of: magnitude, scale: high, below: bound) else { return nil }
        var low = 0
        while low < high {
            let middle = (low + high) / 2
            if let mantissa = mantissa(of: magnitude, scale: middle, below: bound) {
                (found, high) = (mantissa, middle)
            } else {
                low = middle + 1
            }
        }
        return (found, high)
    }

    /// `decompose(_:below:)`, trying the scale `guess` first: when `guess` has a form and the scale below it has none,
    /// `guess` is the smallest (a form at a smaller scale gives one at every scale up to `guess`, by the monotonicity
    /// the search relies on, and `guess` is within that range: its mantissa is below the bound). Two tests instead of
    /// the search for values written together that share a scale (a vector's elements, a column of prices); any other
    /// guess costs one or two tests more and gives the search's answer. `guess` becomes the scale found (zero, whose
    /// scale is 0, says nothing of the next value and leaves it).
    @inline(__always)
    package static func decompose(_ magnitude: Double, below bound: Double, near guess: inout Int)
        -> (mantissa: UInt64, scale: Int)?
    {
        let scale = guess
        if scale >= 0 && scale <= maxScale && magnitude > 0 && magnitude < bound,
            let found = mantissa(of: magnitude, scale: scale, below: bound),
            scale == 0 || mantissa(of: magnitude, scale: scale - 1, below: bound) == nil
        {
            return (found, scale)
        }
        let decomposition = decompose(magnitude, below: bound)
        if let decomposition, magnitude > 0 { guess = decomposition.scale }
        return decomposition
    }

    /// The exponent `e` of a positive finite double in [2^e, 2^(e+1)), from its bits (`Double.exponent` is a call);
    /// −1023 for a subnormal, which only makes the scale estimate of `decompose` larger, and that is clamped.
    @inline(__always)
    static func binaryExponent(_ value: Double) -> Int { Int(truncatingIfNeeded: value.bitPattern >> 52) - 1023 }

    /// `value` rounded to the nearest integer, ties to even, for 0 ≤ value < 2^52: adding 2^52 leaves no bits for a
    /// fraction, so the addition itself rounds (IEEE 754 round to nearest even), without a call to `round`.
    @inline(__always)
    static func roundedToInteger(_ value: Double) -> Double { (value + 0x1p52) - 0x1p52 }

    /// The mantissa of `magnitude` at `scale` when it has a form there below `bound`.
    @inline(__always)
    static func mantissa(of magnitude: Double, scale: Int, below bound: Double) -> UInt64? {
        let power = powerOfTen(scale)
        let scaled = magnitude * power
        let mantissa = roundedToInteger(scaled)
        // A candidate lies within m · 2^-52 of its product (see `decompose`); anything farther is none, which spares
        // the division for all but the scales that match.
        guard (scaled - mantissa).magnitude <= mantissa * 0x1p-52, mantissa < bound, mantissa / power == magnitude
        else { return nil }
        return UInt64(mantissa)
    }

    /// The double a decimal form stands for (`mantissa` ≤ 2^53, checked by the caller).
    @inline(__always)
    static func compose(mantissa: UInt64, header: UInt8) -> Double {
        let magnitude = Double(mantissa) / powerOfTen(Int(header & 0x0F))
        return header & signBit == 0 ? magnitude : -magnitude
    }
}
