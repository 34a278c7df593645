#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FirePackDecoder {
    /// How `Date` is read: Foundation's cases, plus `.timestamp`, Firestore's default.
    public enum DateDecodingStrategy: Sendable {
        /// From a native timestamp (default).
        case timestamp
        /// Whatever `Date(from:)` reads: a number of seconds since 2001-01-01.
        case deferredToDate
        /// From a number of seconds since 1970.
        case secondsSince1970
        /// From a number of milliseconds since 1970.
        case millisecondsSince1970
        /// From an ISO 8601 / RFC 3339 string, with or without fractional seconds (kept to the nanosecond).
        case iso8601
        /// From a string read by the format (`.formatted(someDateFormatter)` with `import FirePackInterop`).
        case formatted(DateTextFormat)
        /// Your closure decodes the date from the decoder it is given.
        case custom(@Sendable (any Decoder) throws -> Date)
    }

    /// How `Data` is read: Foundation's cases, plus `.bytes`, Firestore's default.
    public enum DataDecodingStrategy: Sendable {
        /// From native bytes (default).
        case bytes
        /// Whatever `Data(from:)` reads: an array of integers, one per byte.
        case deferredToData
        /// From a Base64 string.
        case base64
        /// Your closure decodes the data from the decoder it is given.
        case custom(@Sendable (any Decoder) throws -> Data)

        /// The Firestore SDK's name for `.bytes`.
        public static var blob: Self { .bytes }
    }

    /// How map keys become coding keys (keys of `[String: T]` dictionaries are never changed).
    public enum KeyDecodingStrategy: Sendable {
        /// The keys as they are (default).
        case useDefaultKeys
        /// `snake_case` to `camelCase`, as JSONDecoder does it.
        case convertFromSnakeCase
        /// Your closure maps the coding path (ending in the key read) to the coding key.
        case custom(@Sendable ([any CodingKey]) -> any CodingKey)
    }

    /// What stored NaN and ±∞ decode to.
    ///
    /// The one deliberate difference from JSONDecoder and the Firestore SDK: FirePack stores every double bit for
    /// bit, so by default they decode as they are (`.allow`).
    public enum NonConformingFloatDecodingStrategy: Sendable {
        /// Decode them as stored (default).
        case allow
        /// Throw `DecodingError.dataCorrupted` for a stored NaN or ±∞.
        case `throw`
        /// Also decode these strings as ±∞ and NaN, as JSONDecoder does (stored NaN and ±∞ still decode).
        case convertFromString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }
}
