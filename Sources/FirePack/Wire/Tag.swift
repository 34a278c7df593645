/// The tag table of Docs/FORMAT.md §1: one byte in front of every value.
@usableFromInline package enum Tag {
    /// How many bytes a value with this tag takes when the tag alone says (Docs/FORMAT.md §1): the fixed integers and
    /// one-byte constants, a fix string with its bytes, the fixed-width scalars; 0 when lengths follow the tag or the
    /// tag is not a value's. Inlinable, for readers in other modules (the stream's columns); literal tags, as the
    /// named ones are not.
    @inlinable @inline(__always)
    package static func fixedSize(_ tag: UInt8) -> Int {
        switch tag {
        case 0x00...0x7F, 0xE0...0xFF, 0xC0, 0xC1, 0xC2, 0xCC: 1  // fix ints, null, false, true, server timestamp
        case 0x80...0x9F: Int(tag) - 0x7F  // fix string: the tag and 0 ... 31 bytes
        case 0xC3: 2  // int8
        case 0xC4: 3  // int16
        case 0xC5, 0xC7: 5  // int32, float32
        case 0xC6, 0xC8, 0xC9: 9  // int64, float64, timestamp in seconds
        case 0xCA: 13  // timestamp
        case 0xCB: 17  // geopoint
        default: 0
        }
    }

    static let positiveFixIntMax: UInt8 = 0x7F
    static let fixStringBase: UInt8 = 0x80  // 0x80 ... 0x9F: string of 0 ... 31 bytes
    static let fixStringMaxLength = 31
    static let fixArrayBase: UInt8 = 0xA0  // 0xA0 ... 0xAF: array of 0 ... 15 elements
    static let fixMapBase: UInt8 = 0xB0  // 0xB0 ... 0xBF: map of 0 ... 15 entries
    static let fixContainerMaxCount = 15
    static let null: UInt8 = 0xC0
    static let `false`: UInt8 = 0xC1
    static let `true`: UInt8 = 0xC2
    static let int8: UInt8 = 0xC3
    static let int16: UInt8 = 0xC4
    static let int32: UInt8 = 0xC5
    static let int64: UInt8 = 0xC6
    static let float32: UInt8 = 0xC7
    static let float64: UInt8 = 0xC8
    static let timestampSeconds: UInt8 = 0xC9
    static let timestamp: UInt8 = 0xCA
    static let geoPoint: UInt8 = 0xCB
    static let serverTimestamp: UInt8 = 0xCC
    static let string: UInt8 = 0xCD
    static let bytes: UInt8 = 0xCE
    static let reference: UInt8 = 0xCF
    static let array: UInt8 = 0xD0
    static let map: UInt8 = 0xD1
    static let vector: UInt8 = 0xD2
    static let keyTable: UInt8 = 0xD3
    static let `extension`: UInt8 = 0xD4
    static let decimal: UInt8 = 0xD5  // format version 3: a double as mantissa / 10^scale (DecimalDouble)
    static let packedVector: UInt8 = 0xD6  // format version 3: a vector in binary32 or decimal (PackedVector)
    static let packedGeoPoint: UInt8 = 0xD7  // format version 3: a geopoint as a packed pair (PackedVector)
    static let packedArray: UInt8 = 0xD8  // format version 3: an array of numbers without a tag each (PackedArray)
    static let packedRows: UInt8 = 0xD9  // format version 3: an array of equal packed arrays, one form (PackedArray)
    static let negativeFixIntMin: UInt8 = 0xE0  // 0xE0 ... 0xFF: -32 ... -1

    /// The header the writer reserves for every container: the tag and a one-byte length.
    static let reservedContainerHeader = 2

    /// `\x89FPK` followed by the format version, in front of a standalone `.fpk` file.
    static let fileMagic: [UInt8] = [0x89, 0x46, 0x50, 0x4B]
    /// The `.fpk` versions readers read: 1, and 3, which adds the decimal double (2 changed streams alone).
    static func isReadableFileVersion(_ version: UInt8) -> Bool { version == 1 || version == 3 }
    /// The file versions `isReadableFileVersion` accepts, in order (for `firepack --version`).
    package static let readableFileVersions: [UInt8] = (0...UInt8.max).filter(isReadableFileVersion)
    package static let fileHeaderLength = 5

    static func typeName(of tag: UInt8) -> String {
        ValueType(tag: tag).map { "\($0)" }
            ?? (tag == keyTable ? "key table" : tag == `extension` ? "extension" : "unknown tag")
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}

/// The type of a FirePack value, as told by its tag without reading its payload.
public enum ValueType: Hashable, Sendable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case boolean
    /// A 64-bit signed integer.
    case integer
    /// A 64-bit IEEE 754 double.
    case double
    /// Seconds and nanoseconds since the Unix epoch.
    case timestamp
    /// A UTF-8 string.
    case string
    /// Raw bytes.
    case bytes
    /// A document reference (a document path).
    case reference
    /// A latitude/longitude pair.
    case geoPoint
    /// An ordered list of values.
    case array
    /// String keys to values, in insertion order.
    case map
    /// A vector of doubles.
    case vector
    /// The pending server-timestamp sentinel.
    case serverTimestamp

    /// The Firestore name of the type (`"integerValue"` style names without the suffix).
    public var description: String {
        switch self {
        case .null: "null"
        case .boolean: "boolean"
        case .integer: "integer"
        case .double: "double"
        case .timestamp: "timestamp"
        case .string: "string"
        case .bytes: "bytes"
        case .reference: "reference"
        case .geoPoint: "geopoint"
        case .array: "array"
        case .map: "map"
        case .vector: "vector"
        case .serverTimestamp: "serverTimestamp"
        }
    }

    /// The type a tag byte introduces, or nil for the key-table, extension and reserved tags.
    ///
    /// By the tag's high four bits first (Docs/FORMAT.md §1): integers, strings, arrays and maps below `C0` and from
    /// `E0` are whole ranges of it; only `C0` … `DF` are looked at one by one. Small enough to be inlined into
    /// `FirePackReader.peekType()`, called for every value a reader walks (guarded by `Stream fpks to JSON lines`).
    @inline(__always)
    init?(tag: UInt8) {
        switch tag >> 4 {
        case 0x0...0x7, 0xE, 0xF: self = .integer
        case 0x8, 0x9: self = .string
        case 0xA: self = .array
        case 0xB: self = .map
        default:
            guard let type = Self.type(ofSpecialTag: tag) else { return nil }
            self = type
        }
    }

    /// The type of a tag from `C0` to `DF`, each its own.
    private static func type(ofSpecialTag tag: UInt8) -> ValueType? {
        switch tag {
        case Tag.int8...Tag.int64: .integer
        case Tag.string: .string
        case Tag.array, Tag.packedArray, Tag.packedRows: .array
        case Tag.map: .map
        case Tag.null: .null
        case Tag.false, Tag.true: .boolean
        case Tag.float32, Tag.float64, Tag.decimal: .double
        case Tag.timestampSeconds, Tag.timestamp: .timestamp
        case Tag.geoPoint, Tag.packedGeoPoint: .geoPoint
        case Tag.serverTimestamp: .serverTimestamp
        case Tag.bytes: .bytes
        case Tag.reference: .reference
        case Tag.vector, Tag.packedVector: .vector
        default: nil
        }
    }
}
