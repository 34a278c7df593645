#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FirePackEncoder {
    /// How `Date` is written: Foundation's cases, plus `.timestamp`, Firestore's default.
    public enum DateEncodingStrategy: Sendable {
        /// A native timestamp, exact to the nanosecond (default; what Firestore stores).
        case timestamp
        /// Whatever `Date.encode(to:)` writes: a double of seconds since 2001-01-01.
        case deferredToDate
        /// A double of seconds since 1970.
        case secondsSince1970
        /// A double of milliseconds since 1970.
        case millisecondsSince1970
        /// An ISO 8601 string in UTC without fractional seconds (`2014-10-02T15:01:23Z`), byte for byte what
        /// JSONEncoder writes.
        case iso8601
        /// A string written by the format (`.formatted(someDateFormatter)` with `import FirePackInterop`).
        case formatted(DateTextFormat)
        /// Your closure encodes the date into the encoder it is given.
        case custom(@Sendable (Date, any Encoder) throws -> Void)
    }

    /// How `Data` is written: Foundation's cases, plus `.bytes`, Firestore's default.
    public enum DataEncodingStrategy: Sendable {
        /// Native bytes (default; what Firestore stores).
        case bytes
        /// Whatever `Data.encode(to:)` writes: an array of integers, one per byte.
        case deferredToData
        /// A Base64 string.
        case base64
        /// Your closure encodes the data into the encoder it is given.
        case custom(@Sendable (Data, any Encoder) throws -> Void)

        /// The Firestore SDK's name for `.bytes`.
        public static var blob: Self { .bytes }
    }

    /// How coding keys become map keys (keys of `[String: T]` dictionaries are never changed).
    public enum KeyEncodingStrategy: Sendable {
        /// The keys as they are (default).
        case useDefaultKeys
        /// `camelCase` to `snake_case`, as JSONEncoder does it.
        case convertToSnakeCase
        /// Your closure maps the coding path (ending in the key) to the key to write.
        case custom(@Sendable ([any CodingKey]) -> any CodingKey)
    }

    /// What happens to NaN and ±∞.
    ///
    /// The one deliberate difference from JSONEncoder and the Firestore SDK, whose default is `.throw`: FirePack
    /// stores every double bit for bit, so by default they are written as they are (`.allow`).
    public enum NonConformingFloatEncodingStrategy: Sendable {
        /// Store them natively, bit for bit (default).
        case allow
        /// Throw `EncodingError.invalidValue`, as JSONEncoder and the Firestore SDK do by default.
        case `throw`
        /// Write the given strings instead, as JSONEncoder does.
        case convertToString(positiveInfinity: String, negativeInfinity: String, nan: String)
    }

    /// Output options, as `JSONEncoder.OutputFormatting`.
    public struct OutputFormatting: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: UInt
        /// Creates the options from their bits.
        public init(rawValue: UInt) { self.rawValue = rawValue }

        /// Keys sorted by their UTF-8 bytes and every value in its shortest form, so that equal values give
        /// identical bytes (the format's canonical form, Docs/FORMAT.md §3).
        public static let sortedKeys = OutputFormatting(rawValue: 1 << 1)
    }
}
