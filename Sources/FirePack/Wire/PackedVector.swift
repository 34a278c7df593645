/// The packed forms of a vector (Docs/FORMAT.md §1, tag `D6`, format version 3): the elements in binary32 when each
/// converts back exactly, or as decimal mantissas over one power of ten (the decimal form of `DecimalDouble`, with
/// one scale for the whole vector and two's-complement mantissas of one width).
///
/// `D6`, a form byte, a varint count, then `count × width` bytes. The form byte is `0x80` for binary32; for decimal
/// it is `(width − 1) << 4 | scale`, bit 7 clear (the `D5` header without its sign bit).
package enum PackedVector {
    /// How a vector's elements are stored.
    package enum Form: Equatable {
        /// Eight bytes each, the bit pattern (`D2`).
        case binary64
        /// Four bytes each, the binary32 bit pattern (`D6 80`).
        case binary32
        /// `width` bytes each, a little-endian two's-complement mantissa `m`: the element is `m / 10^scale`.
        case decimal(width: Int, scale: Int)

        /// The form a `D6` form byte names, or nil for a byte no version defines.
        init?(byte: UInt8) {
            if byte == PackedVector.binary32Byte {
                self = .binary32
            } else if byte & 0x80 == 0 {
                self = .decimal(width: Int(byte >> 4) + 1, scale: Int(byte & 0x0F))
            } else {
                return nil
            }
        }

        /// The `D6` form byte (not for `binary64`, which is `D2`).
        var byte: UInt8 {
            switch self {
            case .binary64: preconditionFailure("binary64 vectors are D2, without a form byte")
            case .binary32: PackedVector.binary32Byte
            case .decimal(let width, let scale): UInt8(truncatingIfNeeded: (width - 1) << 4 | scale)
            }
        }

        /// Bytes per element.
        var width: Int {
            switch self {
            case .binary64: 8
            case .binary32: 4
            case .decimal(let width, _): width
            }
        }

        /// Element `index` of a vector of this form whose elements are `storage` (its range checked by the caller,
        /// and for decimal its mantissas too: see `firstInvalidMantissa`).
        @inline(__always)
        func element(at index: Int, in storage: UnsafeRawBufferPointer) -> Double {
            switch self {
            case .binary64:
                return Double(
                    bitPattern: UInt64(littleEndian: storage.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)))
            case .binary32:
                return Double(
                    Float(
                        bitPattern: UInt32(
                            littleEndian: storage.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))))
            case .decimal(let width, let scale):
                return Double(PackedVector.mantissa(at: index * width, width: width, in: storage))
                    / DecimalDouble.powerOfTen(scale)
            }
        }
    }

    /// The form byte of a binary32 vector.
    static let binary32Byte: UInt8 = 0x80

    /// The `width`-byte little-endian two's-complement integer at `offset` of `storage`.
    @inline(__always)
    static func mantissa(at offset: Int, width: Int, in storage: UnsafeRawBufferPointer) -> Int64 {
        var raw: UInt64 = 0
        for byte in (0..<width).reversed() {
            raw = raw << 8 | UInt64(storage.load(fromByteOffset: offset + byte, as: UInt8.self))
        }
        let unused = UInt64(64 - 8 * width)
        return Int64(bitPattern: raw << unused) >> Int64(unused)  // sign-extends the top byte
    }

    /// Writes the elements of `form` in `storage` (`output.count` of them, checked by the caller) into `output`, each
    /// the exact double written: one loop per form and mantissa width, with no switch per element, so that a 768- or
    /// 2,048-element embedding costs a memory copy (binary64) or one vectorized conversion (binary32, decimal of 1, 2,
    /// 3 or 4 bytes). Guarded by the `Vector` benchmarks (VectorBenchmarks).
    static func decode(_ storage: UnsafeRawBufferPointer, form: Form, into output: UnsafeMutableBufferPointer<Double>) {
        let count = output.count
        guard count > 0, let target = output.baseAddress, let source = storage.baseAddress else { return }
        switch form {
        case .binary64:
            UnsafeMutableRawPointer(target).copyMemory(from: source, byteCount: count * 8)
            #if _endian(big)
            for index in 0..<count { target[index] = Double(bitPattern: target[index].bitPattern.byteSwapped) }
            #endif
        case .binary32:
            for index in 0..<count {
                let bits = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
                target[index] = Double(Float(bitPattern: bits))
            }
        case .decimal(let width, let scale):
            // One correctly rounded division of two exact doubles per element (m ≤ 2^53, 10^s ≤ 10^15).
            let divisor = DecimalDouble.powerOfTen(scale)
            switch width {
            case 1:
                for index in 0..<count {
                    target[index] = Double(source.load(fromByteOffset: index, as: Int8.self)) / divisor
                }
            case 2:
                for index in 0..<count {
                    let mantissa = Int16(littleEndian: source.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))
                    target[index] = Double(mantissa) / divisor
                }
            case 3:
                // Six-decimal embeddings in (−1, 1). Each element is read with the byte after it, which the last
                // element has not got: it is read alone.
                for index in 0..<count - 1 {
                    let raw = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: index * 3, as: UInt32.self))
                    target[index] = Double(Int32(bitPattern: raw << 8) >> 8) / divisor
                }
                target[count - 1] = Double(mantissa(at: (count - 1) * 3, width: 3, in: storage)) / divisor
            case 4:
                for index in 0..<count {
                    let mantissa = Int32(littleEndian: source.loadUnaligned(fromByteOffset: index * 4, as: Int32.self))
                    target[index] = Double(mantissa) / divisor
                }
            default:
                for index in 0..<count {
                    target[index] = Double(mantissa(at: index * width, width: width, in: storage)) / divisor
                }
            }
        }
    }

    /// The index of the first decimal mantissa whose magnitude is above 2^53, or nil; widths below 7 bytes never are.
    static func firstInvalidMantissa(width: Int, in storage: UnsafeRawBufferPointer) -> Int? {
        guard width >= 7 else { return nil }
        let limit = DecimalDouble.readerMantissaLimit
        for index in 0..<storage.count / width
        where mantissa(at: index * width, width: width, in: storage).magnitude > limit {
            return index
        }
        return nil
    }

    /// The shortest form for `elements` (Docs/FORMAT.md §1, "Which form a vector takes") with each element's
    /// mantissa when it is decimal: binary32 when every element converts back exactly; decimal when every element
    /// has a decimal form (no −0.0, which a mantissa cannot carry) and the common scale keeps every mantissa below
    /// 2^50; the shorter of the two, binary32 on a tie; binary64 unless the packed form is shorter.
    /// `scale` is the scale tried first for each element (`DecimalDouble.decompose(_:below:near:)`).
    package static func form(for elements: UnsafeBufferPointer<Double>, mantissas: inout [Int64], scale: inout Int)
        -> Form
    {
        var search = FormSearch(mantissas: &mantissas)
        for element in elements {
            let fitsBinary32 = !element.isNaN && Double(Float(element)).bitPattern == element.bitPattern
            search.add(
                element, fitsBinary32: fitsBinary32,
                decomposition: DecimalDouble.decompose(
                    element.magnitude, below: DecimalDouble.writerMantissaLimit, near: &scale),
                mantissas: &mantissas)
        }
        return search.finish(mantissas: &mantissas)
    }

    /// One pass over a vector's elements that finds its form (`form(for:mantissas:)`), given each element's own
    /// smallest decimal form: a writer that needs that form anyway (the tagged size of an array of doubles,
    /// `FirePackWriter.writeDoubles`) searches once per element.
    package struct FormSearch {
        private var count = 0
        private var fitsBinary32 = true
        private var decomposable = true
        private var scale = 0

        /// Starts a search whose mantissas go to `mantissas` (emptied).
        package init(mantissas: inout [Int64]) {
            if !mantissas.isEmpty { mantissas.removeAll(keepingCapacity: true) }
        }

        /// Adds the next element, whose smallest decimal form below 2^50 is `decomposition` (nil when it has none).
        /// Until `finish`, `mantissas` holds each element's own mantissa and scale as `±(m << 4 | s)`.
        @inline(__always)
        package mutating func add(
            _ element: Double, fitsBinary32 fits: Bool, decomposition: (mantissa: UInt64, scale: Int)?,
            mantissas: inout [Int64]
        ) {
            count += 1
            if !fits { fitsBinary32 = false }
            guard decomposable else { return }
            guard let (mantissa, elementScale) = decomposition, !(element == 0 && element.sign == .minus) else {
                decomposable = false
                return
            }
            scale = max(scale, elementScale)
            let packed = Int64(mantissa << 4 | UInt64(elementScale))
            mantissas.append(element.sign == .minus ? -packed : packed)
        }

        /// The form, with `mantissas` at the common scale when it is decimal.
        ///
        /// Every element at the common scale `S`: `m · 10^(S − s)` exactly, in integers, checked to stay below 2^50.
        /// Its quotient by `10^S` is the element (the same rational as `m / 10^s`, and both divisions are correctly
        /// rounded), and it is what rounding `element × 10^S` gives (the argument of `DecimalDouble.decompose`).
        package mutating func finish(mantissas: inout [Int64]) -> Form {
            guard count > 0 else { return .binary64 }
            var decimal: Form? = nil
            if decomposable {
                // Two's complement of `w` bytes holds −2^(8w−1) … 2^(8w−1) − 1: a mantissa m ≥ 0 needs the bits of m
                // and a sign bit, m < 0 the bits of |m| − 1 and a sign bit (−128 fits one byte).
                var widest: UInt64 = 0
                var fits = true
                for index in mantissas.indices {
                    let packed = mantissas[index]
                    let mantissa = packed.magnitude >> 4
                    let factor = UInt64(DecimalDouble.powerOfTen(scale - Int(packed.magnitude & 0x0F)))
                    let (scaled, overflow) = mantissa.multipliedReportingOverflow(by: factor)
                    guard !overflow, Double(scaled) < DecimalDouble.writerMantissaLimit else {
                        fits = false
                        break
                    }
                    let negative = packed < 0
                    widest = max(widest, negative ? scaled - 1 : scaled)
                    mantissas[index] = negative ? -Int64(scaled) : Int64(scaled)
                }
                if fits {
                    let width = (64 - widest.leadingZeroBitCount + 1 + 7) / 8
                    decimal = .decimal(width: max(width, 1), scale: scale)
                }
            }
            let binary64Size = 8 * count - 1  // the packed form's extra form byte, so "shorter" is strict
            var best: Form = .binary64
            var bestSize = binary64Size
            if fitsBinary32 && 4 * count < bestSize {
                best = .binary32
                bestSize = 4 * count
            }
            if let decimal, decimal.width * count < bestSize { best = decimal }
            return best
        }
    }
}
