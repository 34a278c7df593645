#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The types FirePack's coders handle themselves rather than through their `Codable` conformance: the one list every
/// coder (FirePackDecoder, the streaming and tree encoders) switches on, exhaustively, so a new native type is one
/// case here and the compiler names every coder that must handle it.
///
/// Found with `T.self == X.self`, a pointer comparison of type metadata: in the coders' unspecialized generic code an
/// `as?` cast or a protocol-conformance check costs a runtime lookup per value (guarded by every `FirePackDecoder
/// Codable` and `FirePackEncoder Codable` row). A coder then reinterprets the value with `unsafeBitCast` (the types
/// are identical).
enum NativeType {
    /// Swift's scalars.
    case scalar(NativeScalar)
    /// Firestore's types, Foundation types with a mapping, and the property wrappers' markers.
    case special(NativeSpecial)

    /// What `T` is, or nil for every other type. Scalars are tested first, the most frequent first.
    @inline(__always)
    init?<T>(_ type: T.Type) {
        if let scalar = NativeScalar(type) {
            self = .scalar(scalar)
        } else if let special = NativeSpecial(type) {
            self = .special(special)
        } else {
            return nil
        }
    }
}

/// Swift's scalar types, as FirePack writes them: strings, booleans, doubles (Float widened) and 64-bit integers.
enum NativeScalar {
    case string, int, bool, double, int64, float, int32, int16, int8, uint, uint64, uint32, uint16, uint8

    @inline(__always)
    init?<T>(_ type: T.Type) {
        if T.self == String.self {
            self = .string
        } else if T.self == Int.self {
            self = .int
        } else if T.self == Bool.self {
            self = .bool
        } else if T.self == Double.self {
            self = .double
        } else if T.self == Int64.self {
            self = .int64
        } else if T.self == Float.self {
            self = .float
        } else if T.self == Int32.self {
            self = .int32
        } else if T.self == Int16.self {
            self = .int16
        } else if T.self == Int8.self {
            self = .int8
        } else if T.self == UInt.self {
            self = .uint
        } else if T.self == UInt64.self {
            self = .uint64
        } else if T.self == UInt32.self {
            self = .uint32
        } else if T.self == UInt16.self {
            self = .uint16
        } else if T.self == UInt8.self {
            self = .uint8
        } else {
            return nil
        }
    }
}

/// The non-scalar types with a native mapping.
enum NativeSpecial {
    /// `Date`: by the date strategy (a timestamp by default).
    case date
    /// `Timestamp`, `GeoPoint`, `DocumentReference`, `VectorValue`, `Value`: stored natively.
    case timestamp, geoPoint, reference, vector, value
    /// `Data`: by the data strategy (bytes by default).
    case data
    /// `URL` and `UUID` as strings, `Decimal` as a double.
    case url, uuid, decimal
    /// `@DocumentID`'s marker: filled from the reference, never written.
    case documentID
    /// `@ServerTimestamp`'s markers: the sentinel written for nil, and the probe that reads a pending one.
    case serverTimestamp, serverTimestampProbe

    @inline(__always)
    init?<T>(_ type: T.Type) {
        if T.self == Date.self {
            self = .date
        } else if T.self == Timestamp.self {
            self = .timestamp
        } else if T.self == Data.self {
            self = .data
        } else if T.self == URL.self {
            self = .url
        } else if T.self == GeoPoint.self {
            self = .geoPoint
        } else if T.self == DocumentReference.self {
            self = .reference
        } else if T.self == VectorValue.self {
            self = .vector
        } else if T.self == Value.self {
            self = .value
        } else if T.self == DocumentIDMarker.self {
            self = .documentID
        } else if T.self == ServerTimestampMarker.self {
            self = .serverTimestamp
        } else if T.self == ServerTimestampProbe.self {
            self = .serverTimestampProbe
        } else if T.self == UUID.self {
            self = .uuid
        } else if T.self == Decimal.self {
            self = .decimal
        } else {
            return nil
        }
    }
}
