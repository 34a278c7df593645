#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One FirePack value: Cloud Firestore's type system as a Swift enum.
///
/// Equality is exact: doubles compare by bit pattern (NaN equals the same NaN, −0.0 differs from 0.0), strings and
/// keys by UTF-8 bytes, maps in order. `<` is Firestore's ordering (see `Value+Ordering.swift`).
public enum Value: Sendable {
    /// Null.
    case null
    /// A boolean.
    case boolean(Bool)
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A 64-bit IEEE 754 double, kept bit for bit.
    case double(Double)
    /// A point in time with nanosecond precision.
    case timestamp(Timestamp)
    /// A UTF-8 string.
    case string(String)
    /// Raw bytes.
    case bytes(Data)
    /// A document reference.
    case reference(DocumentReference)
    /// A latitude/longitude pair.
    case geoPoint(GeoPoint)
    /// An ordered list of values.
    case array([Value])
    /// String keys to values, in insertion order.
    case map(MapValue)
    /// A vector of doubles.
    case vector(VectorValue)
    /// The pending server-timestamp sentinel: "set this field to the commit time".
    case serverTimestamp

    /// The value's type.
    public var type: ValueType {
        switch self {
        case .null: .null
        case .boolean: .boolean
        case .integer: .integer
        case .double: .double
        case .timestamp: .timestamp
        case .string: .string
        case .bytes: .bytes
        case .reference: .reference
        case .geoPoint: .geoPoint
        case .array: .array
        case .map: .map
        case .vector: .vector
        case .serverTimestamp: .serverTimestamp
        }
    }
}

extension Value: Hashable {
    /// Exact, structural equality (doubles by bit pattern, strings by UTF-8 bytes, maps in order).
    public static func == (lhs: Value, rhs: Value) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null), (.serverTimestamp, .serverTimestamp): true
        case let (.boolean(a), .boolean(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.double(a), .double(b)): a.bitPattern == b.bitPattern
        case let (.timestamp(a), .timestamp(b)): a == b
        case let (.string(a), .string(b)): a.hasSameUTF8(as: b)
        case let (.bytes(a), .bytes(b)): a == b
        case let (.reference(a), .reference(b)): a.path.utf8.elementsEqual(b.path.utf8)
        case let (.geoPoint(a), .geoPoint(b)):
            a.latitude.bitPattern == b.latitude.bitPattern && a.longitude.bitPattern == b.longitude.bitPattern
        case let (.array(a), .array(b)): a == b
        case let (.map(a), .map(b)): a == b
        case let (.vector(a), .vector(b)): a == b
        default: false
        }
    }

    /// Hashes consistently with `==`: the type, then the payload as `==` compares it.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(type)
        switch self {
        case .null, .serverTimestamp: break
        case .boolean(let b): hasher.combine(b)
        case .integer(let i): hasher.combine(i)
        case .double(let d): hasher.combine(d.bitPattern)
        case .timestamp(let t): hasher.combine(t)
        case .string(let s): ByteKey(s).hash(into: &hasher)
        case .bytes(let d): hasher.combine(d)
        case .reference(let r): ByteKey(r.path).hash(into: &hasher)
        case .geoPoint(let g):
            hasher.combine(g.latitude.bitPattern)
            hasher.combine(g.longitude.bitPattern)
        case .array(let a): hasher.combine(a)
        case .map(let m): hasher.combine(m)
        case .vector(let v): hasher.combine(v)
        }
    }
}

extension Value {
    /// The value for `key` when this is a map holding it; nil otherwise.
    public subscript(key: String) -> Value? {
        guard case .map(let map) = self else { return nil }
        return map[key]
    }

    /// The element at `index` when this is an array long enough; nil otherwise.
    public subscript(index: Int) -> Value? {
        guard case .array(let array) = self, array.indices.contains(index) else { return nil }
        return array[index]
    }
}
