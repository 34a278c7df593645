import FirePack
import Foundation
import Testing

/// The two paths under comparison: the same coders with generated coding on and off.
enum Paths {
    static func encoder(generated: Bool, deterministic: Bool = false) -> FirePackEncoder {
        let encoder = FirePackEncoder()
        encoder.usesGeneratedCoding = generated
        encoder.deterministic = deterministic
        return encoder
    }

    static func decoder(generated: Bool) -> FirePackDecoder {
        let decoder = FirePackDecoder()
        decoder.usesGeneratedCoding = generated
        return decoder
    }
}

/// What a coder call did, in a form two calls can be compared by: the bytes or value, or the error's case, coding
/// path (string and int values), message (which holds the byte offset and the document) and underlying error.
enum Outcome: Equatable, CustomStringConvertible {
    case success(String)
    case failure(String)

    init(_ body: () throws -> String) {
        do { self = .success(try body()) } catch { self = .failure(Outcome.describe(error)) }
    }

    static func describe(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        }
        func context(_ context: DecodingError.Context) -> String {
            "path \(path(context.codingPath)) — \(context.debugDescription) — underlying \(context.underlyingError.map { "\($0)" } ?? "none")"
        }
        switch error {
        case DecodingError.typeMismatch(let type, let c): return "typeMismatch(\(type)) \(context(c))"
        case DecodingError.valueNotFound(let type, let c): return "valueNotFound(\(type)) \(context(c))"
        case DecodingError.keyNotFound(let key, let c): return "keyNotFound(\(key.stringValue)) \(context(c))"
        case DecodingError.dataCorrupted(let c): return "dataCorrupted \(context(c))"
        case EncodingError.invalidValue(let value, let c):
            return "invalidValue(\(value)) path \(path(c.codingPath)) — \(c.debugDescription) — underlying \(c.underlyingError.map { "\($0)" } ?? "none")"
        default: return "\(type(of: error)): \(error)"
        }
    }

    var description: String {
        switch self {
        case .success(let text): "success: \(text)"
        case .failure(let text): "failure: \(text)"
        }
    }

    var isFailure: Bool { if case .failure = self { true } else { false } }
}

/// A decoded value in comparable form: its description (which shows `@DocumentID` values, NaN and -0.0) and its
/// deterministic bytes through the Codable path (which show NaN payloads).
func fingerprint<T: Encodable>(_ value: T) throws -> String {
    let bytes = try Paths.encoder(generated: false, deterministic: true).encodeToBytes(value)
    return "\(canonical(value)) | \(bytes.map { String($0, radix: 16) }.joined(separator: " "))"
}

/// A description that does not depend on dictionaries' iteration order (which differs between equal dictionaries).
func canonical(_ value: Any) -> String {
    if value is Data || value is URL || value is Date || value is UUID || value is Decimal { return String(reflecting: value) }
    let mirror = Mirror(reflecting: value)
    if mirror.children.isEmpty { return String(reflecting: value) }
    let children = mirror.children.map { ($0.label.map { "\($0): " } ?? "") + canonical($0.value) }
    if mirror.displayStyle == .dictionary { return "[" + children.sorted().joined(separator: ", ") + "]" }
    return "\(mirror.subjectType)(" + children.joined(separator: ", ") + ")"
}

/// Decodes `bytes` as `T` through both paths and expects the same outcome; returns it.
@discardableResult
func expectSameDecoding<T: Codable>(_ type: T.Type, _ bytes: [UInt8], in reference: DocumentReference? = nil,
                                    sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
    let generated = Outcome { try fingerprint(Paths.decoder(generated: true).decode(T.self, from: bytes, in: reference)) }
    let codable = Outcome { try fingerprint(Paths.decoder(generated: false).decode(T.self, from: bytes, in: reference)) }
    #expect(generated == codable, "decoding \(T.self) from \(bytes.count) bytes", sourceLocation: sourceLocation)
    // The same bytes as a tree (what `Document.data(as:)` holds), decoded through scratch bytes without key references:
    // the same value, or an error too (its byte offset is in the scratch bytes).
    if let tree = try? Value(firePackBytes: bytes) {
        let fromTree = Outcome { try fingerprint(Paths.decoder(generated: true).decode(T.self, from: tree, in: reference)) }
        if case .success = generated {
            #expect(fromTree == generated, "decoding \(T.self) from a tree", sourceLocation: sourceLocation)
        } else {
            #expect(fromTree.isFailure, "decoding \(T.self) from a tree: \(fromTree)", sourceLocation: sourceLocation)
        }
    }
    return generated
}

/// For a type with generated coding, also the overloads the compiler picks where the type is known to have it
/// (specialized for `T`, with generated coding on and off): the same outcome as the `Decodable` calls above.
@discardableResult
func expectSameDecodingSpecialized<T: Codable & FirePackDecodable>(_ type: T.Type, _ bytes: [UInt8], in reference: DocumentReference? = nil,
                                                                   sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
    let dynamic = expectSameDecoding(T.self, bytes, in: reference, sourceLocation: sourceLocation)
    for generated in [true, false] {
        let specialized = Outcome { try fingerprint(Paths.decoder(generated: generated).decode(T.self, from: bytes, in: reference)) }
        #expect(specialized == dynamic, "decoding \(T.self) from \(bytes.count) bytes, specialized, generated: \(generated)",
                sourceLocation: sourceLocation)
    }
    return dynamic
}

/// Encodes `value` through both paths (normal and deterministic) and expects the same bytes or the same error.
func expectSameEncoding<T: Encodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
    for deterministic in [false, true] {
        let generated = Outcome { try Paths.encoder(generated: true, deterministic: deterministic).encodeToBytes(value).description }
        let codable = Outcome { try Paths.encoder(generated: false, deterministic: deterministic).encodeToBytes(value).description }
        #expect(generated == codable, "encoding \(T.self), deterministic: \(deterministic)", sourceLocation: sourceLocation)
    }
}

/// For a type with generated coding, also the specialized overloads (each way, with generated coding on and off).
func expectSameEncodingSpecialized<T: Encodable & FirePackEncodable>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
    expectSameEncoding(value, sourceLocation: sourceLocation)
    for deterministic in [false, true] {
        let dynamic = Outcome { try encodeDynamically(value, deterministic: deterministic).description }
        for generated in [true, false] {
            let encoder = Paths.encoder(generated: generated, deterministic: deterministic)
            let bytes = Outcome { try encoder.encodeToBytes(value).description }
            let data = Outcome { try [UInt8](encoder.encode(value)).description }
            let appended = Outcome { () throws -> String in
                let writer = FirePackWriter()
                try encoder.encode(value, into: writer)
                return writer.writtenBytes.description
            }
            for (name, outcome) in [("encodeToBytes", bytes), ("encode", data), ("encode(into:)", appended)] {
                #expect(outcome == dynamic, "\(name) \(T.self) specialized, generated: \(generated), deterministic: \(deterministic)",
                        sourceLocation: sourceLocation)
            }
        }
    }
}

/// `encodeToBytes` called where `T` is only known to be `Encodable` (the overload that finds generated coding at run time).
private func encodeDynamically<T: Encodable>(_ value: T, deterministic: Bool) throws -> [UInt8] {
    try Paths.encoder(generated: true, deterministic: deterministic).encodeToBytes(value)
}
