import Foundation

/// Decodes `Decodable` types from FirePack bytes with the mapping semantics of the Firestore SDK's Codable support.
///
/// Reads straight from the bytes: no `Value` tree and no per-object key dictionary. Keys are matched by comparing
/// their raw bytes, starting where the previous key was found, so types that ask for their keys in the order they
/// were written (every synthesized `init(from:)`) find each key at the first try.
///
/// Only what the type asks for is read; bytes it does not touch are not validated (check untrusted input with
/// `FirePackReader` first if every byte must be checked). Whatever the bytes, nothing traps: malformed input
/// surfaces as `DecodingError.dataCorrupted` wrapping the `FirePackError`.
public final class FirePackDecoder {
    /// How `Date` is read; `.timestamp` by default.
    public var dateDecodingStrategy: DateDecodingStrategy = .timestamp
    /// How `Data` is read; `.bytes` by default.
    public var dataDecodingStrategy: DataDecodingStrategy = .bytes
    /// How map keys become coding keys; keys of `[String: T]` are never converted.
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    /// What `@ServerTimestamp` properties read from a pending server timestamp; nil (the default) gives nil.
    public var serverTimestampEstimate: Timestamp?
    /// Values for your types' `init(from:)` to read from `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    /// Bounds on nesting, container size and input size.
    public var limits: ReaderLimits = .default

    /// Creates a decoder with Firestore's defaults.
    public init() {}

    /// Decodes a value from a bare FirePack encoding.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { try decode(type, from: $0, reference: nil) }
    }

    /// Decodes a value from a bare FirePack encoding.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0, reference: nil) }
    }

    /// Decodes a value from borrowed bytes holding a bare FirePack encoding.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        try decode(type, from: bytes, reference: nil)
    }

    /// Decodes a document's fields: `@DocumentID` properties are filled from `reference`, and errors name it.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, in reference: DocumentReference) throws -> T {
        try data.withUnsafeBytes { try decode(type, from: $0, reference: reference) }
    }

    /// Decodes a document's fields: `@DocumentID` properties are filled from `reference`, and errors name it.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], in reference: DocumentReference) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0, reference: reference) }
    }

    /// Decodes a value from a `Value` tree (written to bytes once, then decoded as any encoding is).
    public func decode<T: Decodable>(_ type: T.Type, from value: Value, in reference: DocumentReference? = nil) throws -> T {
        let bytes = value.firePackBytes()
        return try bytes.withUnsafeBytes { try decode(type, from: $0, reference: reference) }
    }

    /// Decodes the value at a reader's cursor (for example inside a larger structure) and moves past it.
    public func decode<T: Decodable>(_ type: T.Type, from reader: inout FirePackReader,
                                     in reference: DocumentReference? = nil) throws -> T {
        let end: Int
        do { end = try reader.input.valueEnd(at: reader.readerIndex, limit: reader.limit) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
        let decoder = DecoderImpl(input: reader.input, options: options(reference: reference), offset: reader.readerIndex, end: end, depth: reader.depth)
        let value = try decoder.decodeRoot(type)
        try reader.skipValue()
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer, reference: DocumentReference?) throws -> T {
        let input: ReaderInput
        do { input = try ReaderInput(bytes, rootStart: 0, limits: limits) } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: Self.describe(error, reference), underlyingError: error))
        }
        let decoder = DecoderImpl(input: input, options: options(reference: reference), offset: 0, end: input.rootEnd, depth: 0)
        return try decoder.decodeRoot(type)
    }

    func options(reference: DocumentReference?) -> DecoderOptions {
        DecoderOptions(dateStrategy: dateDecodingStrategy, dataStrategy: dataDecodingStrategy, keyStrategy: keyDecodingStrategy,
                       serverTimestampEstimate: serverTimestampEstimate, userInfo: userInfo, reference: reference)
    }

    static func describe(_ error: FirePackError, _ reference: DocumentReference?) -> String {
        reference.map { "\(error) in document \($0.path)" } ?? error.description
    }
}

/// A snapshot of the decoder's settings for one top-level call.
struct DecoderOptions {
    var dateStrategy: DateDecodingStrategy
    var dataStrategy: DataDecodingStrategy
    var keyStrategy: KeyDecodingStrategy
    var serverTimestampEstimate: Timestamp?
    var userInfo: [CodingUserInfoKey: any Sendable]
    var reference: DocumentReference?

    var usesDefaultKeys: Bool {
        if case .useDefaultKeys = keyStrategy { return true }
        return false
    }
}
