import Foundation
import Testing
@testable import FirePack

/// Encodes with FirePackEncoder, checks the bytes decode to `expected` as a Value (when given), decodes back with
/// FirePackDecoder and expects the original.
@discardableResult
func assertRoundTrip<T: Codable & Equatable>(_ value: T, expecting expected: Value? = nil, encoder: FirePackEncoder = FirePackEncoder(),
                                             decoder: FirePackDecoder = FirePackDecoder(),
                                             sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
    let bytes = try encoder.encodeToBytes(value)
    let tree = try Value(firePackBytes: bytes)
    if let expected { #expect(tree == expected, sourceLocation: sourceLocation) }
    // The encoder agrees with itself writing bytes and building a tree.
    #expect(try encoder.encodeToValue(value) == tree, "the encoder's bytes and its tree differ", sourceLocation: sourceLocation)
    let decoded = try decoder.decode(T.self, from: bytes)
    #expect(decoded == value, sourceLocation: sourceLocation)
    return bytes
}

/// Decodes `value`'s bytes as `T` and returns the DecodingError it throws.
func decodingError<T: Decodable>(_ type: T.Type, from value: Value, in reference: DocumentReference? = nil,
                                 decoder: FirePackDecoder = FirePackDecoder(),
                                 sourceLocation: SourceLocation = #_sourceLocation) -> DecodingError? {
    do {
        let bytes = value.firePackBytes()
        if let reference { _ = try decoder.decode(type, from: bytes, in: reference) } else { _ = try decoder.decode(type, from: bytes) }
        Issue.record("decoding \(T.self) from \(value) succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as DecodingError {
        return error
    } catch {
        Issue.record("not a DecodingError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

extension DecodingError {
    var context: Context? {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context), .dataCorrupted(let context): context
        @unknown default: nil
        }
    }

    /// The coding path as Foundation prints it: keys and `Index N`.
    var pathString: String { context?.codingPath.map(\.stringValue).joined(separator: ".") ?? "" }
}
