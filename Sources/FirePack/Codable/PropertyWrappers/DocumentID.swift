/// A type `@DocumentID` can hold: made from the reference of the document being decoded.
public protocol DocumentIDWrappable {
    /// The value for the document at `reference`.
    static func wrap(_ reference: DocumentReference) throws -> Self
}

extension String: DocumentIDWrappable {
    /// The document's ID (the last path segment).
    public static func wrap(_ reference: DocumentReference) throws -> String { reference.documentID }
}

extension DocumentReference: DocumentIDWrappable {
    /// The reference itself.
    public static func wrap(_ reference: DocumentReference) throws -> DocumentReference { reference }
}

/// Fills a property with the ID (or reference) of the document it was decoded from, and is never written.
///
/// `FirePackDecoder` fills it from the reference given to `decode(_:from:in:)` or from a `Document`; a stored field of
/// the same name is ignored; without a reference it stays nil. `FirePackEncoder` leaves it out even when set.
/// Encoding it with another encoder (JSONEncoder) throws, as in the Firestore SDK.
@propertyWrapper
public struct DocumentID<Value: DocumentIDWrappable & Codable>: Codable {
    /// The document's ID or reference, or nil.
    public var wrappedValue: Value?

    /// Wraps a value (usually nil: the decoder fills it).
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    /// Another decoder cannot know the document: the ID stays nil.
    public init(from decoder: any Decoder) throws { wrappedValue = nil }

    /// Throws: a document ID is not data, and only FirePack's coders know to leave it out.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            self,
            .init(
                codingPath: encoder.codingPath,
                debugDescription:
                    "@DocumentID can only be encoded by FirePackEncoder or DictionaryEncoder, which leave it out of the data"
            ))
    }
}

extension DocumentID: Equatable where Value: Equatable {}
extension DocumentID: Hashable where Value: Hashable {}
extension DocumentID: Sendable where Value: Sendable {}

/// What the overloads below hand to a container; FirePack's coders recognise it by type.
struct DocumentIDMarker: Codable {
    var reference: DocumentReference?

    init(reference: DocumentReference?) { self.reference = reference }
    init(from decoder: any Decoder) throws { reference = nil }

    func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
            DocumentIDMarker.self,
            .init(
                codingPath: encoder.codingPath,
                debugDescription:
                    "@DocumentID can only be encoded by FirePackEncoder or DictionaryEncoder, which leave it out of the data"
            ))
    }
}

extension KeyedEncodingContainer {
    /// Leaves a `@DocumentID` out of the data (FirePack's coders) or throws (other encoders).
    public mutating func encode<T>(_ value: DocumentID<T>, forKey key: Key) throws {
        try encode(DocumentIDMarker(reference: nil), forKey: key)
    }
}

extension KeyedDecodingContainer {
    /// Fills a `@DocumentID` from the document's reference, ignoring any stored field; nil without a reference.
    public func decode<T>(_ type: DocumentID<T>.Type, forKey key: Key) throws -> DocumentID<T> {
        guard let reference = try decodeIfPresent(DocumentIDMarker.self, forKey: key)?.reference else {
            return DocumentID(wrappedValue: nil)
        }
        return DocumentID(wrappedValue: try T.wrap(reference))
    }
}
