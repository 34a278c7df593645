/// The packed form of an array of numbers (Docs/FORMAT.md §1, tag `D8`, format version 3): `D8`, a form byte, a
/// varint count, then `count × width` bytes with no tag per element.
///
/// The form byte names what every element is: a double in one of the vector forms of `D6` (`80` binary32, a decimal
/// form with bit 7 clear) or in binary64 (`C8`, the tag whose payload each element repeats), or an integer of 1, 2,
/// 4 or 8 bytes (`C3` … `C6`, likewise), or for arrays that mix the two, `81`: 8 bytes each, a double in binary64
/// or an integer boxed in a signaling NaN (`boxPrefix`). A packed array *is* an array: the same `Value`, JSON and protobuf as the
/// tagged array of the same elements; only its bytes differ.
package enum PackedArray {
    /// What each element of a packed array is and how it is stored.
    package enum Form: Equatable {
        /// Doubles in a vector form (`.binary64` is form byte `C8` here, not `D2`).
        case doubles(PackedVector.Form)
        /// Little-endian two's-complement integers of `width` bytes (1, 2, 4 or 8).
        case integers(width: Int)
        /// Doubles in binary64 and integers boxed in the doubles' signaling NaNs (form byte `81`), 8 bytes each:
        /// an element whose two high bytes are `boxPrefix` is the integer of its low 48 bits, sign-extended.
        case mixed

        /// The form a `D8` form byte names, or nil for a byte no version defines.
        init?(byte: UInt8) {
            switch byte {
            case Tag.float64: self = .doubles(.binary64)
            case Tag.int8: self = .integers(width: 1)
            case Tag.int16: self = .integers(width: 2)
            case Tag.int32: self = .integers(width: 4)
            case Tag.int64: self = .integers(width: 8)
            case PackedArray.mixedByte: self = .mixed
            default:
                guard let form = PackedVector.Form(byte: byte) else { return nil }
                self = .doubles(form)
            }
        }

        /// The form byte.
        var byte: UInt8 {
            switch self {
            case .doubles(.binary64): Tag.float64
            case .doubles(let form): form.byte
            case .mixed: PackedArray.mixedByte
            case .integers(let width):
                width == 1 ? Tag.int8 : width == 2 ? Tag.int16 : width == 4 ? Tag.int32 : Tag.int64
            }
        }

        /// Bytes per element.
        var width: Int {
            switch self {
            case .doubles(let form): form.width
            case .integers(let width): width
            case .mixed: 8
            }
        }

        /// Whether every element is a double (the form is not `.integers` nor `.mixed`).
        var holdsDoubles: Bool {
            if case .doubles = self { return true }
            return false
        }

        /// The tag the tagged element at `index` of `storage` would carry, for its type and error messages
        /// ("found double").
        func elementTag(at index: Int, in storage: UnsafeRawBufferPointer) -> UInt8 {
            switch self {
            case .doubles: Tag.float64
            case .integers: Tag.int64
            case .mixed: PackedArray.isBoxed(PackedArray.bits(at: index, in: storage)) ? Tag.int64 : Tag.float64
            }
        }

        /// Element `index` of `storage` (a range the caller checked, decimal mantissas included).
        @inline(__always)
        func element(at index: Int, in storage: UnsafeRawBufferPointer) -> Value {
            switch self {
            case .doubles(let form): .double(form.element(at: index, in: storage))
            case .integers(let width): .integer(PackedVector.mantissa(at: index * width, width: width, in: storage))
            case .mixed: PackedArray.unbox(PackedArray.bits(at: index, in: storage))
            }
        }
    }

    /// The form byte of `.mixed`.
    static let mixedByte: UInt8 = 0x81
    /// The two high bytes of an integer boxed in a `.mixed` array: a signaling NaN's (exponent all ones, quiet bit
    /// clear, payload never zero, so never an infinity), a pattern no arithmetic produces and JSON cannot carry.
    static let boxPrefix: UInt64 = 0x7FF4
    /// The integers a box holds: 48-bit two's complement.
    static let boxableIntegers: ClosedRange<Int64> = -(1 << 47)...((1 << 47) - 1)

    /// The 8 bytes of element `index` of a `.mixed` payload, as a little-endian number.
    @inline(__always)
    static func bits(at index: Int, in storage: UnsafeRawBufferPointer) -> UInt64 {
        UInt64(littleEndian: storage.loadUnaligned(fromByteOffset: index &* 8, as: UInt64.self))
    }

    /// Whether the bits of a `.mixed` element are a boxed integer.
    @inline(__always)
    static func isBoxed(_ bits: UInt64) -> Bool { bits >> 48 == boxPrefix }

    /// The integer in a box (bits for which `isBoxed`): its low 48 bits, sign-extended.
    @inline(__always)
    static func integer(boxedIn bits: UInt64) -> Int64 { Int64(bitPattern: bits << 16) >> 16 }

    /// The element whose bits (little-endian already undone) are `bits`: a boxed integer or a double.
    @inline(__always)
    static func unbox(_ bits: UInt64) -> Value {
        isBoxed(bits) ? .integer(integer(boxedIn: bits)) : .double(Double(bitPattern: bits))
    }

    /// The bits of `value` in a box (a value of `boxableIntegers`).
    @inline(__always)
    static func box(_ value: Int64) -> UInt64 { boxPrefix << 48 | UInt64(bitPattern: value) & 0xFFFF_FFFF_FFFF }

    /// The narrowest integer width (1, 2, 4 or 8 bytes) that holds every value from `low` to `high`.
    static func integerWidth(low: Int64, high: Int64) -> Int {
        if low >= Int64(Int8.min) && high <= Int64(Int8.max) { return 1 }
        if low >= Int64(Int16.min) && high <= Int64(Int16.max) { return 2 }
        if low >= Int64(Int32.min) && high <= Int64(Int32.max) { return 4 }
        return 8
    }
}
