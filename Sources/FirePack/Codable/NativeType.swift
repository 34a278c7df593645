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

    /// What `T` is, or nil for every other type: scalars first, the most frequent first. Specialized for `T`, the
    /// comparisons are decided at compile time.
    @inline(__always)
    init?<T>(_ type: T.Type) {
        if T.self == String.self {
            self = .scalar(.string)
        } else if T.self == Int.self {
            self = .scalar(.int)
        } else if T.self == Bool.self {
            self = .scalar(.bool)
        } else if T.self == Double.self {
            self = .scalar(.double)
        } else if T.self == Int64.self {
            self = .scalar(.int64)
        } else if T.self == Float.self {
            self = .scalar(.float)
        } else if T.self == Int32.self {
            self = .scalar(.int32)
        } else if T.self == Int16.self {
            self = .scalar(.int16)
        } else if T.self == Int8.self {
            self = .scalar(.int8)
        } else if T.self == UInt.self {
            self = .scalar(.uint)
        } else if T.self == UInt64.self {
            self = .scalar(.uint64)
        } else if T.self == UInt32.self {
            self = .scalar(.uint32)
        } else if T.self == UInt16.self {
            self = .scalar(.uint16)
        } else if T.self == UInt8.self {
            self = .scalar(.uint8)
        } else if T.self == Date.self {
            self = .special(.date)
        } else if T.self == Timestamp.self {
            self = .special(.timestamp)
        } else if T.self == Data.self {
            self = .special(.data)
        } else if T.self == URL.self {
            self = .special(.url)
        } else if T.self == GeoPoint.self {
            self = .special(.geoPoint)
        } else if T.self == DocumentReference.self {
            self = .special(.reference)
        } else if T.self == VectorValue.self {
            self = .special(.vector)
        } else if T.self == Value.self {
            self = .special(.value)
        } else if T.self == DocumentIDMarker.self {
            self = .special(.documentID)
        } else if T.self == ServerTimestampMarker.self {
            self = .special(.serverTimestamp)
        } else if T.self == ServerTimestampProbe.self {
            self = .special(.serverTimestampProbe)
        } else if T.self == UUID.self {
            self = .special(.uuid)
        } else if T.self == Decimal.self {
            self = .special(.decimal)
        } else {
            return nil
        }
    }
}

/// Swift's scalar types, as FirePack writes them: strings, booleans, doubles (Float widened) and 64-bit integers.
enum NativeScalar {
    case string, int, bool, double, int64, float, int32, int16, int8, uint, uint64, uint32, uint16, uint8
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
}
