import Foundation

/// How `FirePackEncoder` writes `Date`.
public enum DateEncodingStrategy: Sendable {
    /// A native timestamp, exact to the nanosecond (default; what Firestore stores).
    case timestamp
    /// A double of seconds since 1970.
    case secondsSince1970
    /// A double of milliseconds since 1970.
    case millisecondsSince1970
    /// An ISO 8601 string (`2014-10-02T15:01:23Z`).
    case iso8601
    /// A string written by the formatter.
    case formatted(DateFormatter)
    /// Your closure encodes the date into the encoder it is given.
    case custom(@Sendable (Date, any Encoder) throws -> Void)
}

/// How `FirePackDecoder` reads `Date`.
public enum DateDecodingStrategy: Sendable {
    /// From a native timestamp (default).
    case timestamp
    /// From a number of seconds since 1970.
    case secondsSince1970
    /// From a number of milliseconds since 1970.
    case millisecondsSince1970
    /// From an ISO 8601 string.
    case iso8601
    /// From a string read by the formatter.
    case formatted(DateFormatter)
    /// Your closure decodes the date from the decoder it is given.
    case custom(@Sendable (any Decoder) throws -> Date)
}

/// How `FirePackEncoder` writes `Data`.
public enum DataEncodingStrategy: Sendable {
    /// Native bytes (default).
    case bytes
    /// A Base64 string.
    case base64
    /// Your closure encodes the data into the encoder it is given.
    case custom(@Sendable (Data, any Encoder) throws -> Void)
}

/// How `FirePackDecoder` reads `Data`.
public enum DataDecodingStrategy: Sendable {
    /// From native bytes (default).
    case bytes
    /// From a Base64 string.
    case base64
    /// Your closure decodes the data from the decoder it is given.
    case custom(@Sendable (any Decoder) throws -> Data)
}

/// How `FirePackEncoder` turns coding keys into map keys (keys of `[String: T]` dictionaries are never changed).
public enum KeyEncodingStrategy: Sendable {
    /// The keys as they are (default).
    case useDefaultKeys
    /// `camelCase` to `snake_case`, as Foundation's JSONEncoder does it.
    case convertToSnakeCase
    /// Your closure maps the coding path (ending in the key) to the key to write.
    case custom(@Sendable ([any CodingKey]) -> any CodingKey)
}

/// How `FirePackDecoder` turns map keys into coding keys (keys of `[String: T]` dictionaries are never changed).
public enum KeyDecodingStrategy: Sendable {
    /// The keys as they are (default).
    case useDefaultKeys
    /// `snake_case` to `camelCase`, as Foundation's JSONDecoder does it.
    case convertFromSnakeCase
    /// Your closure maps the coding path (ending in the key read) to the coding key.
    case custom(@Sendable ([any CodingKey]) -> any CodingKey)
}

/// What `FirePackEncoder` does with NaN and ±∞.
public enum NonConformingFloatEncodingStrategy: Sendable {
    /// Store them natively, bit for bit (default: FirePack holds every double).
    case allow
    /// Throw `EncodingError.invalidValue`.
    case `throw`
}

/// Key conversions shared by the encoders and the decoder (Foundation's algorithms).
enum KeyConversion {
    /// `myURLProperty` → `my_url_property`.
    static func snakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        var words: [Range<String.Index>] = []
        var wordStart = key.startIndex
        var searchRange = key.index(after: wordStart)..<key.endIndex
        while let upperCaseRange = key.rangeOfCharacter(from: .uppercaseLetters, options: [], range: searchRange) {
            let untilUpperCase = wordStart..<upperCaseRange.lowerBound
            words.append(untilUpperCase)
            searchRange = upperCaseRange.lowerBound..<searchRange.upperBound
            guard let lowerCaseRange = key.rangeOfCharacter(from: .lowercaseLetters, options: [], range: searchRange) else {
                wordStart = searchRange.lowerBound
                break
            }
            let nextCharacterAfterCapital = key.index(after: upperCaseRange.lowerBound)
            if lowerCaseRange.lowerBound == nextCharacterAfterCapital {
                wordStart = upperCaseRange.lowerBound
            } else {
                let beforeLowerIndex = key.index(before: lowerCaseRange.lowerBound)
                words.append(upperCaseRange.lowerBound..<beforeLowerIndex)
                wordStart = beforeLowerIndex
            }
            searchRange = lowerCaseRange.upperBound..<searchRange.upperBound
        }
        words.append(wordStart..<searchRange.upperBound)
        return words.map { key[$0].lowercased() }.joined(separator: "_")
    }

    /// `my_url_property` → `myUrlProperty` (leading and trailing underscores kept).
    static func camelCase(_ key: String) -> String {
        guard !key.isEmpty, let firstNonUnderscore = key.firstIndex(where: { $0 != "_" }) else { return key }
        var lastNonUnderscore = key.index(before: key.endIndex)
        while lastNonUnderscore > firstNonUnderscore && key[lastNonUnderscore] == "_" { lastNonUnderscore = key.index(before: lastNonUnderscore) }
        let keyRange = firstNonUnderscore...lastNonUnderscore
        let leading = key[key.startIndex..<firstNonUnderscore]
        let trailing = key[key.index(after: lastNonUnderscore)...]
        let components = key[keyRange].split(separator: "_")
        guard components.count > 1 else { return key }
        let joined = components[0].lowercased() + components.dropFirst().map { $0.capitalized }.joined()
        return String(leading) + joined + String(trailing)
    }
}

/// A coding key made from a string or an index: map keys the decoder reads, and `Index N` path entries.
struct AnyCodingKey: CodingKey, Hashable, Sendable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The path entry Foundation writes for an array element: `Index N`.
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    static let superKey = AnyCodingKey(stringValue: "super")
}
