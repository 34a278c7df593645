/// An optional written as null when nil, instead of being left out.
@propertyWrapper
public struct ExplicitNull<Value> {
    /// The value, or nil (written as null).
    public var wrappedValue: Value?

    /// Wraps a value.
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
}

extension ExplicitNull: Equatable where Value: Equatable {}
extension ExplicitNull: Hashable where Value: Hashable {}
extension ExplicitNull: Sendable where Value: Sendable {}

extension ExplicitNull: Encodable where Value: Encodable {
    /// Encodes the value, or null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

extension ExplicitNull: Decodable where Value: Decodable {
    /// Decodes the value, or nil for null.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }
}

extension KeyedEncodingContainer {
    /// Writes the value, or null for nil.
    public mutating func encode<T: Encodable>(_ value: ExplicitNull<T>, forKey key: Key) throws {
        if let wrapped = value.wrappedValue { try encode(wrapped, forKey: key) } else { try encodeNil(forKey: key) }
    }
}

extension KeyedDecodingContainer {
    /// Reads the value; a missing key or null give nil.
    public func decode<T: Decodable>(_ type: ExplicitNull<T>.Type, forKey key: Key) throws -> ExplicitNull<T> {
        ExplicitNull(wrappedValue: try decodeIfPresent(T.self, forKey: key))
    }
}
