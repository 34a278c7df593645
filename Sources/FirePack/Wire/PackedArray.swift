/// The packed form of an array of numbers (Docs/FORMAT.md §1, tag `D8`, format version 3): `D8`, a form byte, a
/// varint count, then `count × width` bytes with no tag per element.
///
/// The form byte names what every element is: a double in one of the vector forms of `D6` (`80` binary32, a decimal
/// form with bit 7 clear) or in binary64 (`C8`, the tag whose payload each element repeats), or an integer of 1, 2,
/// 4 or 8 bytes (`C3` … `C6`, likewise). A packed array *is* an array: the same `Value`, JSON and protobuf as the
/// tagged array of the same elements; only its bytes differ.
package enum PackedArray {
    /// What each element of a packed array is and how it is stored.
    package enum Form: Equatable {
        /// Doubles in a vector form (`.binary64` is form byte `C8` here, not `D2`).
        case doubles(PackedVector.Form)
        /// Little-endian two's-complement integers of `width` bytes (1, 2, 4 or 8).
        case integers(width: Int)

        /// The form a `D8` form byte names, or nil for a byte no version defines.
        init?(byte: UInt8) {
            switch byte {
            case Tag.float64: self = .doubles(.binary64)
            case Tag.int8: self = .integers(width: 1)
            case Tag.int16: self = .integers(width: 2)
            case Tag.int32: self = .integers(width: 4)
            case Tag.int64: self = .integers(width: 8)
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
            case .integers(let width):
                width == 1 ? Tag.int8 : width == 2 ? Tag.int16 : width == 4 ? Tag.int32 : Tag.int64
            }
        }

        /// Bytes per element.
        var width: Int {
            switch self {
            case .doubles(let form): form.width
            case .integers(let width): width
            }
        }

        /// Whether the elements are doubles (else integers).
        var holdsDoubles: Bool {
            if case .doubles = self { return true }
            return false
        }

        /// The tag a tagged element of this form would carry, for error messages ("found double").
        var elementTag: UInt8 { holdsDoubles ? Tag.float64 : Tag.int64 }

        /// Element `index` of `storage` (a range the caller checked, decimal mantissas included).
        @inline(__always)
        func element(at index: Int, in storage: UnsafeRawBufferPointer) -> Value {
            switch self {
            case .doubles(let form): .double(form.element(at: index, in: storage))
            case .integers(let width): .integer(PackedVector.mantissa(at: index * width, width: width, in: storage))
            }
        }
    }

    /// The narrowest integer width (1, 2, 4 or 8 bytes) that holds every value from `low` to `high`.
    static func integerWidth(low: Int64, high: Int64) -> Int {
        if low >= Int64(Int8.min) && high <= Int64(Int8.max) { return 1 }
        if low >= Int64(Int16.min) && high <= Int64(Int16.max) { return 2 }
        if low >= Int64(Int32.min) && high <= Int64(Int32.max) { return 4 }
        return 8
    }
}
