// Properties whose type is an Optional that the macro cannot see as one: a typealias (`typealias Nickname = String?`)
// or any other spelling it does not recognise. Synthesized `Codable` decides by the property's resolved type, so it
// reads and writes such a property with `decodeIfPresent` / `encodeIfPresent`; `@FirePackCodable` sees only the
// spelling, and calls `decode(_:forKey:in:)` / `encode(_:forKey:)`. These overloads take an `Optional` type and are
// chosen by the compiler whenever the type is one (they are more specific than the generic `T` ones), so generated
// coding reads such a property as synthesized `Codable` does: an absent key is nil, nil is left out (and a bag entry
// under its key is then written: `declaredKey`).
//
// They are the property-level entry points of generated code: a property of an Optional type is decoded and encoded
// as synthesized `Codable` decodes and encodes one, which is not `KeyedDecodingContainer.decode(T?.self, forKey:)`
// (that throws `keyNotFound` for an absent key, and `encode` writes null for nil; `ExplicitNull` writes null).

extension FirePackValueReader {
    /// Decodes a property of an Optional type (of a type with generated or native coding): nil when the key is absent
    /// or null, as synthesized `Codable` reads one.
    @inlinable
    public func decode<T: FirePackDecodable>(_ type: T?.Type, forKey key: StaticString, in fields: inout Fields)
        throws -> T?
    {
        try decodeIfPresent(T.self, forKey: key, in: &fields)
    }

    /// Decodes a property of an Optional type (of any other `Decodable` type): nil when the key is absent or null.
    public func decode<T: Decodable>(_ type: T?.Type, forKey key: StaticString, in fields: inout Fields) throws -> T? {
        try decodeIfPresent(T.self, forKey: key, in: &fields)
    }

    /// What a property of an Optional type none of whose keys the map has decodes to: nil, as for a property written
    /// `T?` (whatever the missing-key strategy). Constrained rather than returning `T?`, which would leave the call
    /// ambiguous against the generic `missingKey` (overloads that differ in their result alone do not rank).
    public func missingKey<T: _FirePackOptional>(_ key: StaticString, aliases: [StaticString] = [], in fields: Fields)
        throws -> T
    {
        nil
    }
}

/// `Optional`, and only it: what generated code's overloads for a property of an Optional type are constrained by.
/// Not for conformance by other types.
public protocol _FirePackOptional: ExpressibleByNilLiteral {}

extension Optional: _FirePackOptional {}

extension FirePackValueWriter {
    /// Writes a property of an Optional type (of a type with generated or native coding) under `key`, or nothing
    /// for nil, as synthesized `Codable` writes one.
    @inlinable
    public mutating func encode<T: FirePackEncodable>(_ value: T?, forKey key: StaticString) throws {
        try encodeIfPresent(value, forKey: key)
    }

    /// Writes a property of an Optional type (of any other `Encodable` type) under `key`, or nothing for nil.
    public mutating func encode<T: Encodable>(_ value: T?, forKey key: StaticString) throws {
        try encodeIfPresent(value, forKey: key)
    }

    /// The key a property holding `value` writes, for the unknown-field bag's `declared:` list
    /// (`encodeUnknownFields(_:declared:)`): `key` (a property of an Optional type has its own overload).
    @inlinable
    public static func declaredKey<T>(_ value: T, _ key: StaticString) -> StaticString? { key }

    /// The key a property of an Optional type writes: nil when it is nil, as it is then left out (so a bag entry
    /// under that key is written rather than lost).
    @inlinable
    public static func declaredKey<T>(_ value: T?, _ key: StaticString) -> StaticString? { value == nil ? nil : key }
}
