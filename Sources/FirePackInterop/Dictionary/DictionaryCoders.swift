import FirePack
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes `Encodable` types as `[String: Any]` with exactly FirePackEncoder's mapping and options: the
/// "dictionary path", the shape of the Firestore SDK's `Firestore.Encoder` (which is also its name here).
///
/// The value goes through a `Value` tree (built by the same encoder FirePackEncoder uses) and becomes the `Any`
/// representation documented on `Value.anyValue`. `Sendable`, like the coders it wraps.
public final class DictionaryEncoder: Sendable {
    private let encoder = FirePackEncoder()

    /// How `Date` is written; `.timestamp` by default.
    public var dateEncodingStrategy: FirePackEncoder.DateEncodingStrategy {
        get { encoder.dateEncodingStrategy }
        set { encoder.dateEncodingStrategy = newValue }
    }
    /// How `Data` is written; `.bytes` (the SDK's `.blob`) by default.
    public var dataEncodingStrategy: FirePackEncoder.DataEncodingStrategy {
        get { encoder.dataEncodingStrategy }
        set { encoder.dataEncodingStrategy = newValue }
    }
    /// How coding keys become map keys; keys of `[String: T]` are never converted.
    public var keyEncodingStrategy: FirePackEncoder.KeyEncodingStrategy {
        get { encoder.keyEncodingStrategy }
        set { encoder.keyEncodingStrategy = newValue }
    }
    /// What happens to NaN and ±∞: kept by default.
    public var nonConformingFloatEncodingStrategy: FirePackEncoder.NonConformingFloatEncodingStrategy {
        get { encoder.nonConformingFloatEncodingStrategy }
        set { encoder.nonConformingFloatEncodingStrategy = newValue }
    }
    /// Values for your types' `encode(to:)` to read from `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        get { encoder.userInfo }
        set { encoder.userInfo = newValue }
    }

    /// Creates an encoder with Firestore's defaults.
    public init() {}

    /// The value as `[String: Any]`; throws `EncodingError.invalidValue` unless it encodes as a map, and
    /// `FirePackError` `duplicateKey` for two keys a Swift dictionary takes for one (see `Value.checkedAnyValue()`).
    public func encode<T: Encodable>(_ value: T) throws -> [String: Any] {
        guard case .map(let map) = try encoder.encodeToValue(value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "\(T.self) does not encode as a map"))
        }
        return try map.checkedDictionary(path: [])
    }

    /// The value in the `Any` representation (for top-level arrays and scalars).
    public func encodeToAny<T: Encodable>(_ value: T) throws -> Any {
        try encoder.encodeToValue(value).checkedAnyValue()
    }
}

/// Decodes `Decodable` types from `[String: Any]` (or any value in the `Any` representation) with exactly
/// FirePackDecoder's mapping and options: the shape of the Firestore SDK's `Firestore.Decoder`.
///
/// The data becomes a `Value` and is decoded by FirePackDecoder; anything that is not a Firestore value type is
/// `DecodingError.dataCorrupted` naming its path. `Sendable`, like the coders it wraps.
public final class DictionaryDecoder: Sendable {
    private let decoder = FirePackDecoder()

    /// How `Date` is read; `.timestamp` by default.
    public var dateDecodingStrategy: FirePackDecoder.DateDecodingStrategy {
        get { decoder.dateDecodingStrategy }
        set { decoder.dateDecodingStrategy = newValue }
    }
    /// How `Data` is read; `.bytes` (the SDK's `.blob`) by default.
    public var dataDecodingStrategy: FirePackDecoder.DataDecodingStrategy {
        get { decoder.dataDecodingStrategy }
        set { decoder.dataDecodingStrategy = newValue }
    }
    /// How map keys become coding keys; keys of `[String: T]` are never converted.
    public var keyDecodingStrategy: FirePackDecoder.KeyDecodingStrategy {
        get { decoder.keyDecodingStrategy }
        set { decoder.keyDecodingStrategy = newValue }
    }
    /// What stored NaN and ±∞ decode to: themselves by default.
    public var nonConformingFloatDecodingStrategy: FirePackDecoder.NonConformingFloatDecodingStrategy {
        get { decoder.nonConformingFloatDecodingStrategy }
        set { decoder.nonConformingFloatDecodingStrategy = newValue }
    }
    /// Values for your types' `init(from:)` to read from `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        get { decoder.userInfo }
        set { decoder.userInfo = newValue }
    }

    /// Creates a decoder with Firestore's defaults.
    public init() {}

    /// Decodes `T` from a document's data (`[String: Any]`) or any value in the `Any` representation;
    /// `@DocumentID` properties are filled from `reference`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Any, in reference: DocumentReference? = nil) throws -> T
    {
        let value: Value
        do {
            value = try Value(any: data)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: error.path.map { component in
                        switch component {
                        case .key(let key): DictionaryCodingKey(stringValue: key)
                        case .index(let index): DictionaryCodingKey(index: index)
                        }
                    }, debugDescription: error.message, underlyingError: error))
        }
        return try decoder.decode(type, from: value, in: reference)
    }
}

/// The Firestore SDK's names for the dictionary coders, so that `Firestore.Encoder()` and `Firestore.Decoder()`
/// compile unchanged.
public enum Firestore {
    /// The SDK's `Firestore.Encoder`: `DictionaryEncoder`.
    public typealias Encoder = DictionaryEncoder
    /// The SDK's `Firestore.Decoder`: `DictionaryDecoder`.
    public typealias Decoder = DictionaryDecoder
}

extension Document {
    /// The fields as `[String: Any]`, as the SDK's `data(with:)`; pending server timestamps read as
    /// `serverTimestampBehavior` says (`NSNull` for `.none`).
    public func data(with serverTimestampBehavior: ServerTimestampBehavior = .none) -> [String: Any] {
        guard case .map(let map) = resolving(.map(fields), serverTimestampBehavior) else {
            preconditionFailure("a map stays a map")
        }
        return map.dictionary
    }
}

/// Coding-path entries for errors found while reading a dictionary.
struct DictionaryCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }
    init?(intValue: Int) { self.init(index: intValue) }
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
}
