#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Swift's scalars, Firestore's types and Foundation's mapped types, arrays and optionals: the types generated code
// reads and writes directly. Each reads and writes exactly what the Codable path does for it.
//
// One conformance per integer type, each with its own concrete body, though they differ only in the type: generated
// code in a model's module calls `Int64(firePack:)` and the like directly, and a shared default implementation in a
// constrained protocol extension would be a generic call across modules, unspecialized, on every field.

extension String: FirePackDecodable, FirePackEncodable {
    /// Reads a string.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeString(at: reader.offset, end: reader.end)
    }
    /// Writes a string.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeString(self) }
}

extension Bool: FirePackDecodable, FirePackEncodable {
    /// Reads a boolean.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeBool(at: reader.offset, end: reader.end)
    }
    /// Writes a boolean.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeBoolean(self) }
}

extension Double: FirePackDecodable, FirePackEncodable {
    /// Reads a double (or an integer), under the non-conforming float strategy.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeDouble(at: reader.offset, end: reader.end)
    }
    /// Writes a double, or what the non-conforming float strategy makes of NaN and ±∞.
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.writeDouble(self) }
}

extension Float: FirePackDecodable, FirePackEncodable {
    /// Reads a double within Float's range (or an integer).
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeFloat(at: reader.offset, end: reader.end)
    }
    /// Writes the float widened to a double.
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.writeDouble(Double(self)) }
}

extension Int: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in Int.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(Int.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeInteger(Int64(self)) }
}

extension Int8: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in Int8.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(Int8.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeInteger(Int64(self)) }
}

extension Int16: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in Int16.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(Int16.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeInteger(Int64(self)) }
}

extension Int32: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in Int32.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(Int32.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeInteger(Int64(self)) }
}

extension Int64: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in Int64.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(Int64.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeInteger(Int64(self)) }
}

extension UInt: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in UInt.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(UInt.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer; throws above `Int64.max`, the largest integer FirePack stores.
    public func encode(firePack writer: inout FirePackValueWriter) throws {
        writer.writer.writeInteger(try writer.options.int64(self, codingPath: []))
    }
}

extension UInt8: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in UInt8.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(UInt8.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeInteger(Int64(self)) }
}

extension UInt16: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in UInt16.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(UInt16.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeInteger(Int64(self)) }
}

extension UInt32: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in UInt32.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(UInt32.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeInteger(Int64(self)) }
}

extension UInt64: FirePackDecodable, FirePackEncodable {
    /// Reads an integer (or a whole double) that fits in UInt64.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeInteger(UInt64.self, at: reader.offset, end: reader.end)
    }
    /// Writes the integer; throws above `Int64.max`, the largest integer FirePack stores.
    public func encode(firePack writer: inout FirePackValueWriter) throws {
        writer.writer.writeInteger(try writer.options.int64(self, codingPath: []))
    }
}

extension Timestamp: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeTimestamp(as: Timestamp.self, at: reader.offset, end: reader.end)
    }
    /// Writes the value as `FirePackEncoder` does.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeTimestamp(self) }
}

extension GeoPoint: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeGeoPoint(at: reader.offset, end: reader.end)
    }
    /// Writes the value as `FirePackEncoder` does.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeGeoPoint(self) }
}

extension DocumentReference: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does.
    public init(firePack reader: inout FirePackValueReader) throws {
        self = try reader.decoder.decodeReference(at: reader.offset, end: reader.end)
    }
    /// Writes the value as `FirePackEncoder` does.
    public func encode(firePack writer: inout FirePackValueWriter) throws { writer.writer.writeReference(self) }
}

extension VectorValue: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does.
    public init(firePack reader: inout FirePackValueReader) throws { self = try reader.decodeNative(VectorValue.self) }
    /// Writes the value as `FirePackEncoder` does.
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.encodeNative(self) }
}

extension Value: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does.
    public init(firePack reader: inout FirePackValueReader) throws { self = try reader.decodeNative(Value.self) }
    /// Writes the value as `FirePackEncoder` does.
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.encodeNative(self) }
}

extension Date: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does (by the decoder's date strategy).
    public init(firePack reader: inout FirePackValueReader) throws {
        // The default strategy reads a timestamp in place; the others may need a `Decoder` (`.custom`, `.deferredToDate`).
        if reader.decoder.options.dateStrategyIsTimestamp {
            self = try reader.decoder.decodeTimestamp(as: Date.self, at: reader.offset, end: reader.end).dateValue()
        } else {
            self = try reader.decodeNative(Date.self)
        }
    }
    /// Writes the value as `FirePackEncoder` does (by the encoder's date strategy).
    public func encode(firePack writer: inout FirePackValueWriter) throws {
        if case .timestamp = writer.options.dateStrategy {
            writer.writer.writeTimestamp(Timestamp(date: self))
        } else {
            try writer.encodeNative(self)
        }
    }
}

extension Data: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does (by the decoder's data strategy).
    public init(firePack reader: inout FirePackValueReader) throws { self = try reader.decodeNative(Data.self) }
    /// Writes the value as `FirePackEncoder` does (by the encoder's data strategy).
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.encodeNative(self) }
}

extension URL: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does.
    public init(firePack reader: inout FirePackValueReader) throws { self = try reader.decodeNative(URL.self) }
    /// Writes the value as `FirePackEncoder` does.
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.encodeNative(self) }
}

extension UUID: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does.
    public init(firePack reader: inout FirePackValueReader) throws { self = try reader.decodeNative(UUID.self) }
    /// Writes the value as `FirePackEncoder` does.
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.encodeNative(self) }
}

extension Decimal: FirePackDecodable, FirePackEncodable {
    /// Reads the value as `FirePackDecoder` does.
    public init(firePack reader: inout FirePackValueReader) throws { self = try reader.decodeNative(Decimal.self) }
    /// Writes the value as `FirePackEncoder` does.
    public func encode(firePack writer: inout FirePackValueWriter) throws { try writer.encodeNative(self) }
}

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
