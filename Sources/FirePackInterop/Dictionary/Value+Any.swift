import FirePack
import Foundation  // NSNumber and NSNull, which `[String: Any]` values hold (FoundationEssentials has neither)

/// The pending server-timestamp sentinel in `[String: Any]` form (what `FieldValue.serverTimestamp()` is to the SDK).
public struct ServerTimestampSentinel: Hashable, Sendable {
    /// The sentinel.
    public init() {}
}

/// `Value` as `Any` and back, the representation the Firestore SDKs hand out from `DocumentSnapshot.data()`:
///
/// | Value | Any |
/// |---|---|
/// | null | `NSNull()` |
/// | boolean | `Bool` |
/// | integer | `Int64` (reading also takes `Int`, the other integer widths and integer `NSNumber`s) |
/// | double | `Double` (reading also takes `Float` and floating `NSNumber`s) |
/// | timestamp, geopoint, reference, vector | `Timestamp`, `GeoPoint`, `DocumentReference`, `VectorValue` |
/// | string, bytes | `String`, `Data` |
/// | array, map | `[Any]`, `[String: Any]` (map order is not kept: Swift dictionaries have none) |
/// | serverTimestamp | `ServerTimestampSentinel()` |
///
/// Two map keys that differ only in Unicode normalization (`"é"` as one scalar, or as `"e"` and a combining accent)
/// are two keys to FirePack and to Firestore, which compare keys by their UTF-8 bytes, but one key to a Swift
/// dictionary, which compares strings by canonical equivalence. `anyValue`, `MapValue.dictionary` and
/// `Document.data(with:)` keep the later of the two; `DictionaryEncoder` refuses such a map with `duplicateKey` and
/// the key's path, and `checkedAnyValue()` does so for any value.
extension Value {
    /// The value in the representation above.
    public var anyValue: Any {
        switch self {
        case .null: NSNull()
        case .boolean(let b): b
        case .integer(let i): i
        case .double(let d): d
        case .timestamp(let t): t
        case .string(let s): s
        case .bytes(let data): data
        case .reference(let r): r
        case .geoPoint(let g): g
        case .vector(let v): v
        case .serverTimestamp: ServerTimestampSentinel()
        case .array(let elements): elements.map(\.anyValue)
        case .map(let map): map.dictionary
        }
    }

    /// The value in the representation above, or `duplicateKey` (with the path) when a map holds two keys a Swift
    /// dictionary takes for one (they differ only in Unicode normalization), where `anyValue` would keep one.
    public func checkedAnyValue() throws(FirePackError) -> Any {
        try checkedAnyValue(path: [])
    }

    func checkedAnyValue(path: [PathComponent]) throws(FirePackError) -> Any {
        switch self {
        case .array(let elements):
            var result: [Any] = []
            result.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                result.append(try element.checkedAnyValue(path: path + [.index(index)]))
            }
            return result
        case .map(let map): return try map.checkedDictionary(path: path)
        default: return anyValue
        }
    }

    /// A value from the representation above; throws `invalidValue` (with the path) for anything else.
    public init(any: Any) throws(FirePackError) {
        self = try Value.convert(any, path: [])
    }

    static func convert(_ any: Any, path: [PathComponent]) throws(FirePackError) -> Value {
        let type = Swift.type(of: any)
        if type == String.self { return .string(any as! String) }
        if type == Int64.self { return .integer(any as! Int64) }
        if type == Int.self { return .integer(Int64(any as! Int)) }
        if type == Bool.self { return .boolean(any as! Bool) }
        if type == Double.self { return .double(any as! Double) }
        if let dictionary = any as? [String: Any] {
            var map = MapValue()
            for (key, element) in dictionary { map[key] = try convert(element, path: path + [.key(key)]) }
            return .map(map)
        }
        if let array = any as? [Any] {
            var elements: [Value] = []
            elements.reserveCapacity(array.count)
            for (index, element) in array.enumerated() {
                elements.append(try convert(element, path: path + [.index(index)]))
            }
            return .array(elements)
        }
        // NSNumber before Bool and Float: it bridges to both through `as?`, which would read 1 as true. Swift's
        // other numeric types (Int32, Float, UInt8, …) bridge to NSNumber and are read by their stored type.
        if let number = any as? NSNumber { return try convert(number, path: path) }
        switch any {
        case is NSNull: return .null
        case let timestamp as Timestamp: return .timestamp(timestamp)
        case let data as Data: return .bytes(data)
        case let reference as DocumentReference: return .reference(reference)
        case let point as GeoPoint: return .geoPoint(point)
        case let vector as VectorValue: return .vector(vector)
        case is ServerTimestampSentinel: return .serverTimestamp
        case let value as Value: return value
        case let date as Date: return .timestamp(Timestamp(date: date))
        case let integer as any BinaryInteger:
            guard let exact = Int64(exactly: integer) else {
                throw FirePackError(.invalidValue, "integer \(integer) does not fit in Int64", path: path)
            }
            return .integer(exact)
        default:
            throw FirePackError(.invalidValue, "\(type) is not a Firestore value type", path: path)
        }
    }

    /// NSNumbers (as JSONSerialization produces them): booleans by their class, doubles and integers by their
    /// stored type.
    static func convert(_ number: NSNumber, path: [PathComponent]) throws(FirePackError) -> Value {
        if Swift.type(of: number) == booleanNumberType { return .boolean(number.boolValue) }
        switch String(cString: number.objCType) {
        case "f", "d": return .double(number.doubleValue)
        case "Q", "L", "I", "S", "C":
            guard let exact = Int64(exactly: number.uint64Value) else {
                throw FirePackError(.invalidValue, "integer \(number) does not fit in Int64", path: path)
            }
            return .integer(exact)
        default: return .integer(number.int64Value)
        }
    }

    /// The class Foundation uses for boolean NSNumbers (`__NSCFBoolean`).
    static let booleanNumberType: AnyClass = Swift.type(of: NSNumber(value: true))
}

extension MapValue {
    /// The map as `[String: Any]` (see `Value.anyValue`).
    public var dictionary: [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(count)
        for (key, value) in self { result[key] = value.anyValue }
        return result
    }

    /// The map as `[String: Any]`, or `duplicateKey` when two of its keys are one to a Swift dictionary (see
    /// `Value.checkedAnyValue()`).
    func checkedDictionary(path: [PathComponent]) throws(FirePackError) -> [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(count)
        for (key, value) in self {
            let converted = try value.checkedAnyValue(path: path + [.key(key)])
            guard result.updateValue(converted, forKey: key) == nil else {
                let earlier = keys.first { $0 == key && $0.utf8.elementsEqual(key.utf8) == false } ?? key
                throw FirePackError(
                    .duplicateKey, offset: nil,
                    "keys \(earlier.debugDescription) and \(key.debugDescription) differ only in Unicode normalization: "
                        + "a Swift dictionary holds one of them",
                    path: path + [.key(key)])
            }
        }
        return result
    }
}
