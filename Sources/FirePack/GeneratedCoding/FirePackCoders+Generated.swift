#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The coders' top-level calls for types with generated coding (`@FirePackCodable`, and arrays and optionals of such
// types): overloads that the compiler picks where the type is known to have it, specialized in the caller's module,
// so a call runs the generated code directly. The `Codable` overloads find the same code at run time (a conformance
// check per call, guarded by `Decode 1 Book/FirePackDecoder @FirePackCodable`) and still serve generic callers. With a
// `.custom` key strategy set, both take the Codable path.

extension FirePackDecoder {
    /// Decodes a value of a type with generated coding from a bare FirePack encoding in `Data`, `[UInt8]` or
    /// borrowed bytes; the same values and errors as the `Decodable` overload.
    @inlinable
    public func decode<T: FirePackDecodable>(
        _ type: T.Type, from bytes: some ContiguousBytes, in reference: DocumentReference? = nil
    ) throws -> T {
        try bytes.withUnsafeBytes { raw in
            var reader = try rootReader(raw, reference: reference)
            defer { recycle(&reader) }
            guard reader.takesGeneratedPath else { return try reader.decodeThroughCodable(type) }
            return try T(firePack: &reader)
        }
    }

    /// Hands the context of a finished call back (`recycle(_:)`); the reader is not used again.
    @usableFromInline
    func recycle(_ reader: inout FirePackValueReader) {
        recycle(&reader.decoder)
    }

    /// A reader at the root value of `bytes`, for one top-level call.
    @usableFromInline
    func rootReader(_ bytes: UnsafeRawBufferPointer, reference: DocumentReference?) throws -> FirePackValueReader {
        let decoder = try rootDecoder(bytes, options: options(reference: reference))
        return FirePackValueReader(decoder: decoder, offset: decoder.offset, end: decoder.end, depth: decoder.depth)
    }
}

extension FirePackValueReader {
    /// Whether this call reads types with generated coding through it (`DecoderOptions.takesGeneratedPath`).
    @usableFromInline
    var takesGeneratedPath: Bool { decoder.options.takesGeneratedPath }

    /// Decodes the reader's value through the Codable path, as the `Decodable` overloads do.
    @usableFromInline
    func decodeThroughCodable<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decode(type, at: offset, end: end, depth: depth)
    }
}

extension FirePackEncoder {
    /// The bare FirePack encoding of a value of a type with generated coding, as `Data`; the same bytes as the
    /// `Encodable` overload.
    @inlinable
    public func encode<T: FirePackEncodable>(_ value: T) throws -> Data {
        let options = self.options
        let writer = FirePackWriter(options: options.writerOptions)
        try encodeGenerated(value, into: writer, options: options)
        return writer.takeData()
    }

    /// The bare FirePack encoding of a value of a type with generated coding, as `[UInt8]`.
    @inlinable
    public func encodeToBytes<T: FirePackEncodable>(_ value: T) throws -> [UInt8] {
        let options = self.options
        let writer = FirePackWriter(options: options.writerOptions)
        try encodeGenerated(value, into: writer, options: options)
        return writer.takeBytes()
    }

    /// Appends a value of a type with generated coding as one root value to `writer`; on error nothing of the value
    /// stays in the writer.
    @inlinable
    public func encode<T: FirePackEncodable>(_ value: T, into writer: FirePackWriter) throws {
        try encodeGenerated(value, into: writer, options: options)
    }

    /// Writes `value` through its generated coding, or through the paths `encode(_:into:options:)` takes when the
    /// options rule generated coding out or the value writes a key twice.
    @inlinable
    func encodeGenerated<T: FirePackEncodable>(_ value: T, into writer: FirePackWriter, options: EncoderOptions) throws
    {
        guard options.takesGeneratedPath, !writer.isInsideValue else {
            return try encode(value, into: writer, options: options)
        }
        try Self.checkNoEarlierViolation(before: value, in: writer)
        let start = writer.writerIndex
        var valueWriter = FirePackValueWriter(
            root: writer, options: options, sortsKeys: options.deterministic || writer.options.deterministic)
        do {
            defer { valueWriter.finishRootValue() }
            try value.encode(firePack: &valueWriter)
        } catch {
            writer.abandonRootValue(truncatingTo: start)
            guard Self.needsTree(error) else { throw error }
            try encodeThroughTree(value, into: writer, options: options)
        }
        try Self.checkLimits(of: value, in: writer, from: start)
    }

    /// Whether `error` asks for the tree path (a key written twice).
    @usableFromInline
    static func needsTree(_ error: any Error) -> Bool { error is EncoderImpl.OutOfOrder }
}
