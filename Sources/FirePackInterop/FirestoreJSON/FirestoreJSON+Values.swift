import FirePack
import Foundation

extension FirestoreJSON {
    /// One typed value from its parsed JSON (an object with exactly one `…Value` key).
    static func typedValue(_ json: Value, path: [PathComponent]) throws(FirePackError) -> Value {
        guard case .map(let object) = json, object.count == 1 else {
            throw invalid("a Firestore value is an object with one key such as \"stringValue\"", path)
        }
        let kind = object.keys[0], payload = object.values[0]
        let here = path + [.key(kind)]
        switch (kind, payload) {
        case ("nullValue", .null): return .null
        case ("nullValue", .string("NULL_VALUE")): return .null
        case ("booleanValue", .boolean(let flag)): return .boolean(flag)
        case ("integerValue", .string(let text)):
            guard let integer = Int64(text) else { throw invalid("integerValue \(text.debugDescription) is not a 64-bit integer", here) }
            return .integer(integer)
        case ("integerValue", .integer(let integer)): return .integer(integer)
        case ("doubleValue", .double(let double)): return .double(double)
        case ("doubleValue", .integer(let integer)): return .double(Double(integer))
        case ("doubleValue", .string(let text)):
            switch text {
            case "NaN": return .double(.nan)
            case "Infinity": return .double(.infinity)
            case "-Infinity": return .double(-.infinity)
            default: throw invalid("doubleValue \(text.debugDescription) is not a number, \"NaN\", \"Infinity\" or \"-Infinity\"", here)
            }
        case ("timestampValue", _): return .timestamp(try timestamp(payload, path: here))
        case ("stringValue", .string(let text)): return .string(text)
        case ("bytesValue", .string(let base64)):
            guard let data = Data(base64Encoded: base64) else { throw invalid("bytesValue is not base64", here) }
            return .bytes(data)
        case ("referenceValue", .string(let reference)):
            do { return .reference(try DocumentReference(path: reference)) } catch { throw invalid(error.message, here) }
        case ("geoPointValue", .map(let point)):
            let latitude = number(point["latitude"]) ?? 0, longitude = number(point["longitude"]) ?? 0
            do { return .geoPoint(try GeoPoint(latitude: latitude, longitude: longitude)) } catch { throw invalid(error.message, here) }
        case ("arrayValue", .map(let array)):
            guard let rawValues = array["values"] else { return .array([]) }
            guard case .array(let values) = rawValues else { throw invalid("arrayValue.values must be an array", here) }
            var elements: [Value] = []
            elements.reserveCapacity(values.count)
            for (index, element) in values.enumerated() {
                elements.append(try typedValue(element, path: here + [.key("values"), .index(index)]))
            }
            return .array(elements)
        case ("mapValue", .map(let container)):
            guard let rawFields = container["fields"] else { return .map(MapValue()) }
            guard case .map(let fields) = rawFields else { throw invalid("mapValue.fields must be an object", here) }
            let map = try typedFields(fields, path: here + [.key("fields")])
            return vector(in: map).map(Value.vector) ?? .map(map)
        default:
            throw invalid("unknown or malformed Firestore value \(kind.debugDescription)", here)
        }
    }

    /// Firestore stores a vector as `{__type__: "__vector__", value: [doubles]}`.
    static func vector(in map: MapValue) -> VectorValue? {
        guard map.count == 2, map["__type__"] == "__vector__", case .array(let elements)? = map["value"] else { return nil }
        var doubles: [Double] = []
        doubles.reserveCapacity(elements.count)
        for element in elements {
            guard let double = number(element) else { return nil }
            doubles.append(double)
        }
        return VectorValue(doubles)
    }

    static func number(_ value: Value?) -> Double? {
        switch value {
        case .double(let double)?: double
        case .integer(let integer)?: Double(integer)
        default: nil
        }
    }

    /// One value as its typed JSON tree.
    static func typedJSON(_ value: Value, path: [PathComponent]) throws(FirePackError) -> Value {
        switch value {
        case .null: return ["nullValue": nil]
        case .boolean(let flag): return ["booleanValue": .boolean(flag)]
        case .integer(let integer): return ["integerValue": .string(String(integer))]
        case .double(let double):
            if double.isNaN { return ["doubleValue": "NaN"] }
            if double.isInfinite { return ["doubleValue": .string(double < 0 ? "-Infinity" : "Infinity")] }
            return ["doubleValue": .double(double)]
        case .timestamp(let timestamp): return ["timestampValue": .string(timestamp.rfc3339String)]
        case .string(let text): return ["stringValue": .string(text)]
        case .bytes(let data): return ["bytesValue": .string(data.base64EncodedString())]
        case .reference(let reference): return ["referenceValue": .string(reference.path)]
        case .geoPoint(let point): return ["geoPointValue": ["latitude": .double(point.latitude), "longitude": .double(point.longitude)]]
        case .array(let elements):
            var values: [Value] = []
            values.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() { values.append(try typedJSON(element, path: path + [.index(index)])) }
            return ["arrayValue": .map(values.isEmpty ? MapValue() : ["values": .array(values)])]
        case .map(let map):
            let fields = try typedFieldsJSON(map, path: path)
            return ["mapValue": .map(fields.isEmpty ? MapValue() : ["fields": .map(fields)])]
        case .vector(let vector):
            let elements = Value.array(vector.array.map { ["doubleValue": .double($0)] })
            return ["mapValue": ["fields": ["__type__": ["stringValue": "__vector__"], "value": ["arrayValue": ["values": elements]]]]]
        case .serverTimestamp:
            throw FirePackError(.invalidValue, "the server-timestamp sentinel has no Firestore REST value form; resolve it first (Document.resolvingServerTimestamps(at:))", path: path)
        }
    }
}
