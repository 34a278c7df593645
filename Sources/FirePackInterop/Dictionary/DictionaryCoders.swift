import FirePack
import Foundation

/// Encodes `Encodable` types as `[String: Any]` with exactly FirePackEncoder's mapping and options: the
/// "dictionary path", as the Firestore SDK's encoder produces for `setData`.
///
/// The value goes through a `Value` tree (built by the same encoder FirePackEncoder uses) and becomes the `Any`
/// representation documented on `Value.anyValue`.
public final class DictionaryEncoder {
    /// The encoder whose mapping and options are used; set its strategies here.
    public let options = FirePackEncoder()

    /// Creates an encoder with Firestore's defaults.
    public init() {}

    /// The value as `[String: Any]`; throws `EncodingError.invalidValue` unless it encodes as a map.
    public func encode<T: Encodable>(_ value: T) throws -> [String: Any] {
        guard case .map(let map) = try options.encodeToValue(value) else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(T.self) does not encode as a map"))
        }
        return map.dictionary
    }

    /// The value in the `Any` representation (for top-level arrays and scalars).
    public func encodeToAny<T: Encodable>(_ value: T) throws -> Any {
        try options.encodeToValue(value).anyValue
    }
}

/// Decodes `Decodable` types from `[String: Any]` with exactly FirePackDecoder's mapping and options.
///
/// The dictionary becomes a `Value` and is decoded by FirePackDecoder; anything that is not a Firestore value type
/// is `DecodingError.dataCorrupted` naming its path.
public final class DictionaryDecoder {
    /// The decoder whose mapping and options are used; set its strategies here.
    public let options = FirePackDecoder()

    /// Creates a decoder with Firestore's defaults.
    public init() {}

    /// Decodes `T` from a document's data; `@DocumentID` properties are filled from `reference`.
    public func decode<T: Decodable>(_ type: T.Type, from dictionary: [String: Any], in reference: DocumentReference? = nil) throws -> T {
        try decode(type, fromAny: dictionary, in: reference)
    }

    /// Decodes `T` from any value in the `Any` representation.
    public func decode<T: Decodable>(_ type: T.Type, fromAny any: Any, in reference: DocumentReference? = nil) throws -> T {
        let value: Value
        do {
            value = try Value(any: any)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: error.path.map { component in
                switch component {
                case .key(let key): DictionaryCodingKey(stringValue: key)
                case .index(let index): DictionaryCodingKey(index: index)
                }
            }, debugDescription: error.message, underlyingError: error))
        }
        return try options.decode(type, from: value, in: reference)
    }
}

/// Coding-path entries for errors found while reading a dictionary.
struct DictionaryCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init?(intValue: Int) { self.init(index: intValue) }
    init(index: Int) { stringValue = "Index \(index)"; intValue = index }
}
