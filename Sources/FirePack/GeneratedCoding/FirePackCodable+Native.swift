#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The types FirePack maps itself (`NativeType`: Swift's scalars, Firestore's types and Foundation's mapped types),
/// which generated code reads and writes through the Codable path's one switch on the type: each reads and writes
/// exactly what `FirePackDecoder` and `FirePackEncoder` do for it, by the same code. Not a protocol to conform to: a
/// type of one's own gets generated coding from `@FirePackCodable`.
///
/// The commonest of them (`String`, `Int`, `Int64`, `Double`, `Bool`, and arrays of the first three) are read and
/// written by concrete overloads of `FirePackValueReader`/`FirePackValueWriter` where generated code names them.
public protocol _FirePackNativeCoding: FirePackDecodable, FirePackEncodable, Codable {}

extension _FirePackNativeCoding {
    /// Reads the value as `FirePackDecoder` does (by the decoder's strategies).
    public init(firePack reader: inout FirePackValueReader) throws { self = try reader.decodeNative(Self.self) }
    /// Writes the value as `FirePackEncoder` does (by the encoder's strategies).
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.encodeNative(self) }
}

extension String: _FirePackNativeCoding {}
extension Bool: _FirePackNativeCoding {}
extension Double: _FirePackNativeCoding {}
extension Float: _FirePackNativeCoding {}
extension Int: _FirePackNativeCoding {}
extension Int8: _FirePackNativeCoding {}
extension Int16: _FirePackNativeCoding {}
extension Int32: _FirePackNativeCoding {}
extension Int64: _FirePackNativeCoding {}
extension UInt: _FirePackNativeCoding {}
extension UInt8: _FirePackNativeCoding {}
extension UInt16: _FirePackNativeCoding {}
extension UInt32: _FirePackNativeCoding {}
extension UInt64: _FirePackNativeCoding {}
extension Timestamp: _FirePackNativeCoding {}
extension GeoPoint: _FirePackNativeCoding {}
extension DocumentReference: _FirePackNativeCoding {}
extension VectorValue: _FirePackNativeCoding {}
extension Value: _FirePackNativeCoding {}
extension Date: _FirePackNativeCoding {}
extension Data: _FirePackNativeCoding {}
extension URL: _FirePackNativeCoding {}
extension UUID: _FirePackNativeCoding {}
extension Decimal: _FirePackNativeCoding {}

extension Array: FirePackDecodable where Element: FirePackDecodable {
    /// Reads an array, element by element.
    @inlinable
    public init(firePack reader: inout FirePackValueReader) throws { self = try reader.decodeArray(of: Element.self) }
}

extension Array: FirePackEncodable where Element: FirePackEncodable {
    /// Writes an array, element by element.
    @inlinable
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.encodeArray(self) }
}

extension Optional: FirePackDecodable where Wrapped: FirePackDecodable {
    /// Reads null as nil, anything else as the wrapped type.
    @inlinable
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decodeOptional(of: Wrapped.self)
    }
}

extension Optional: FirePackEncodable where Wrapped: FirePackEncodable {
    /// Writes nil as null.
    @inlinable
    public func encode(firePack writer: inout FirePackValueWriter) throws {
        if let value = self { try value.encode(firePack: &writer) } else { writer.writer.writeNull() }
    }
}

/// Arrays and optionals, whose generated coding only passes each element to its own: in a tree, the Codable path
/// walks them and meets each generated element itself (`EncoderImpl.encodeNonNative`).
protocol ElementWiseGeneratedCoding {}
extension Array: ElementWiseGeneratedCoding {}
extension Optional: ElementWiseGeneratedCoding {}
