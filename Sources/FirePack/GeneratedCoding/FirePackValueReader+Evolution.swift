#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// What generated decoding calls for models that change over time (`@FirePackDefault`, `@FirePackKey(aliases:)`, a
// property's own initial value, `@FirePackCodable(unknownKeys: .reject)`): a key's value when the map has the key,
// told apart from a key that is absent, which the generated code answers with the default, the next alias, or
// `keyNotFound`. A key that is present is decoded exactly as `decode(_:forKey:in:)` decodes it (a null for a
// non-optional property is `valueNotFound`, never the default: a default stands for a field that was never written).

extension FirePackValueReader {
    /// Decodes the value for `key` of a type with generated (or native) coding; nil when the map lacks the key.
    @inlinable
    public func decodeIfFound<T: FirePackDecodable>(_ type: T.Type, forKey key: StaticString, in fields: inout Fields)
        throws -> T?
    {
        guard let location = try find(key, in: &fields) else { return nil }
        return try under(key) { try decodeValue(T.self, at: location) }
    }

    /// Decodes the value for `key` of any other `Decodable` type; nil when the map lacks the key.
    public func decodeIfFound<T: Decodable>(_ type: T.Type, forKey key: StaticString, in fields: inout Fields) throws
        -> T?
    {
        guard let location = try find(key, in: &fields) else { return nil }
        return try under(key) { try decodeCodable(T.self, at: location) }
    }

    /// Decodes the value for `key` of an optional property: nil when the map lacks the key, `.some(nil)` for null.
    @inlinable
    public func decodeOptionalIfFound<T: FirePackDecodable>(
        _ type: T.Type, forKey key: StaticString, in fields: inout Fields
    ) throws -> T?? {
        guard let location = try find(key, in: &fields) else { return nil }
        if isNull(at: location) { return .some(nil) }
        return .some(try under(key) { try decodeValue(T.self, at: location) })
    }

    /// Decodes the value for `key` of an optional property of any other `Decodable` type (see above).
    public func decodeOptionalIfFound<T: Decodable>(_ type: T.Type, forKey key: StaticString, in fields: inout Fields)
        throws -> T??
    {
        guard let location = try find(key, in: &fields) else { return nil }
        if isNull(at: location) { return .some(nil) }
        return .some(try under(key) { try decodeCodable(T.self, at: location) })
    }

    /// Decodes a property whose type is not written (`var count = 0`) when the map has `key`: `example` (the
    /// property's initial value, never evaluated) gives the type.
    public func decodeInferredIfFound<T: Decodable>(
        forKey key: StaticString, in fields: inout Fields,
        like example: @autoclosure () -> T
    ) throws -> T? {
        guard let location = try find(key, in: &fields) else { return nil }
        return try under(key) { try decodeCodable(T.self, at: location) }
    }

    /// Decodes a string for `key`; nil when the map lacks the key.
    public func decodeIfFound(_ type: String.Type, forKey key: StaticString, in fields: inout Fields) throws -> String?
    {
        guard let location = try find(key, in: &fields) else { return nil }
        return try under(key) { try decoder.decodeString(at: location.offset, end: location.end) }
    }

    /// Decodes an integer for `key`; nil when the map lacks the key.
    public func decodeIfFound(_ type: Int.Type, forKey key: StaticString, in fields: inout Fields) throws -> Int? {
        guard let location = try find(key, in: &fields) else { return nil }
        return try under(key) { try decoder.decodeInteger(Int.self, at: location.offset, end: location.end) }
    }

    /// Decodes a double for `key`; nil when the map lacks the key.
    public func decodeIfFound(_ type: Double.Type, forKey key: StaticString, in fields: inout Fields) throws -> Double?
    {
        guard let location = try find(key, in: &fields) else { return nil }
        return try under(key) { try decoder.decodeDouble(at: location.offset, end: location.end) }
    }

    /// Decodes a boolean for `key`; nil when the map lacks the key.
    public func decodeIfFound(_ type: Bool.Type, forKey key: StaticString, in fields: inout Fields) throws -> Bool? {
        guard let location = try find(key, in: &fields) else { return nil }
        return try under(key) { try decoder.decodeBool(at: location.offset, end: location.end) }
    }

    /// Decodes a string map for `key` by concrete code (as `decode(_:forKey:in:)` does); nil when the map lacks the
    /// key.
    public func decodeIfFound(_ type: [String: String].Type, forKey key: StaticString, in fields: inout Fields) throws
        -> [String: String]?
    {
        guard let location = try find(key, in: &fields) else { return nil }
        return try under(key) { try decoder.decodeStringMap(at: location.offset, end: location.end, depth: depth + 1) }
    }

    /// A string property whose type is not written (`var currency = "EUR"`), by concrete code.
    public func decodeInferredIfFound(
        forKey key: StaticString, in fields: inout Fields, like example: @autoclosure () -> String
    ) throws -> String? {
        try decodeIfFound(String.self, forKey: key, in: &fields)
    }

    /// An integer property whose type is not written (`var count = 0`), by concrete code.
    public func decodeInferredIfFound(
        forKey key: StaticString, in fields: inout Fields, like example: @autoclosure () -> Int
    ) throws -> Int? {
        try decodeIfFound(Int.self, forKey: key, in: &fields)
    }

    /// A double property whose type is not written (`var ratio = 0.5`), by concrete code.
    public func decodeInferredIfFound(
        forKey key: StaticString, in fields: inout Fields, like example: @autoclosure () -> Double
    ) throws -> Double? {
        try decodeIfFound(Double.self, forKey: key, in: &fields)
    }

    /// A boolean property whose type is not written (`var done = false`), by concrete code.
    public func decodeInferredIfFound(
        forKey key: StaticString, in fields: inout Fields, like example: @autoclosure () -> Bool
    ) throws -> Bool? {
        try decodeIfFound(Bool.self, forKey: key, in: &fields)
    }

    /// What a property none of whose keys (`key`, then `aliases`) the map has decodes to: the decoder's
    /// missing-key strategy's default for `T` (`FirePackDefaultValue`), or `keyNotFound`, as on the Codable path.
    @inline(never)
    public func missingKey<T>(_ key: StaticString, aliases: [StaticString] = [], in fields: Fields) throws -> T {
        if let value = decoder.defaultForMissingKey(T.self) { return value }
        throw keyNotFound(key, aliases: aliases, in: fields)
    }

    /// The `keyNotFound` error for a property none of whose keys (`key`, then `aliases`) the map has.
    public func keyNotFound(_ key: StaticString, aliases: [StaticString] = [], in fields: Fields) -> any Error {
        let name = key.description
        let others =
            aliases.isEmpty ? "" : " (nor \(aliases.map { $0.description.debugDescription }.joined(separator: ", ")))"
        return DecodingError.keyNotFound(
            AnyCodingKey(stringValue: name),
            decoder.contextAtPath(
                [], "No value for key \(name.debugDescription)\(others) in the map", at: fields.mapOffset))
    }

    /// Throws `dataCorrupted`, naming the key and its byte offset, when the map has a key that is not in `known`
    /// (`@FirePackCodable(unknownKeys: .reject)`).
    public func rejectUnknownKeys(in fields: Fields, known: [StaticString]) throws {
        let input = decoder.input, header = fields.header
        let converted = try convertedKeysIfAny(of: fields)
        var position = header.bodyStart
        for index in 0..<header.count {
            let entry = position
            let (start, count, afterKey): (Int, Int, Int)
            do {
                (start, count, afterKey) = try input.getKey(at: position, limit: header.end)
                position = try input.valueEnd(at: afterKey, limit: header.end)
            } catch {
                throw decoder.corrupted(error)
            }
            if !known.contains(where: {
                self.entry(index, keyAt: start, count: count, converted: converted, isNamedBy: $0)
            }) {
                let text = String(decoding: input.bytes(from: start, count: count), as: UTF8.self)
                throw DecodingError.dataCorrupted(
                    decoder.contextAtPath(
                        [AnyCodingKey(stringValue: text)],
                        "Unknown key \(text.debugDescription): the model refuses keys it does not declare (unknownKeys: .reject)",
                        at: entry))
            }
        }
    }
}

/// What `@FirePackCodable` does with a key the model does not declare.
public enum FirePackUnknownKeys: Sendable {
    /// Skip it, as synthesized `Codable` does (the default).
    case ignore
    /// Refuse the document with `DecodingError.dataCorrupted` naming the key and its byte offset.
    case reject
}
