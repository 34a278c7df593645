#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Dictionaries keyed by a raw-valued type (`[Genre: Int]` with `enum Genre: String`, or an `Int` raw value) are
// FirePack maps, keyed by the raw values' text. Swift's `Dictionary.encode(to:)` writes such a dictionary as a flat
// array `[key, value, key, value, …]` unless the key type declares `CodingKeyRepresentable`, and reads only that shape
// back (swift/stdlib/public/core/Codable.swift); Firestore documents have no such arrays, and the Firestore SDK's
// coders fail on them (firebase-ios-sdk #10354, #12729). FirePack's encoders and decoder catch these dictionaries before
// `encode(to:)` / `init(from:)`: an intended difference from Foundation's JSON coders, which keep the array
// (Docs/EVOLUTION.md, "Dictionaries keyed by enums").

/// A dictionary whose keys are written as the text of their raw values.
protocol RawKeyedEncodableDictionary {
    /// Writes the dictionary as a keyed container: each raw value's text as the key.
    func encodeAsMap(to encoder: any Encoder) throws
}

/// A dictionary whose keys are read from the text of their raw values.
protocol RawKeyedDecodableDictionary {
    /// Reads a keyed container; a key that is no raw value of the key type is `dataCorrupted`.
    init(decodingMapFrom decoder: any Decoder) throws
}

extension Dictionary: RawKeyedEncodableDictionary
where Key: RawRepresentable, Key.RawValue: LosslessStringConvertible, Value: Encodable {
    func encodeAsMap(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyCodingKey.self)
        for (key, value) in self {
            try container.encode(value, forKey: AnyCodingKey(stringValue: key.rawValue.description))
        }
    }
}

extension Dictionary: RawKeyedDecodableDictionary
where Key: RawRepresentable, Key.RawValue: LosslessStringConvertible, Value: Decodable {
    init(decodingMapFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        self.init(minimumCapacity: container.allKeys.count)
        for codingKey in container.allKeys {
            // The value first: a damaged entry reports its own error and offset (MapReader.keyNames).
            let value = try container.decode(Value.self, forKey: codingKey)
            guard let raw = Key.RawValue(codingKey.stringValue), let key = Key(rawValue: raw) else {
                throw DecodingError.dataCorruptedError(
                    forKey: codingKey, in: container,
                    debugDescription: "Key \(codingKey.stringValue.debugDescription) is not a raw value of \(Key.self)")
            }
            self[key] = value
        }
    }
}
