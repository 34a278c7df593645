#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `Value` through other coders (JSONEncoder, PropertyListEncoder, …). FirePack's own coders pass it through natively.
///
/// The form: null, booleans, integers (Int64), doubles, strings, arrays and maps as themselves; the other types as
/// single-key maps, the same markers as FirePack's reversible JSON:
/// `{"__timestamp__": "2014-10-02T15:01:23.045123456Z"}`, `{"__geopoint__": [lat, lng]}`,
/// `{"__reference__": "books/b"}`, `{"__bytes__": "<base64>"}`, `{"__vector__": [1.0, 2.0]}`,
/// `{"__serverTimestamp__": true}`, `{"__double__": "NaN"}` for NaN and ±∞; a map whose only key is one of these
/// names is wrapped as `{"__map__": {…}}`.
extension Value: Codable {
    typealias Marker = ReversibleMarker

    /// Encodes the value in the form above.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .boolean(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .integer(let i):
            var c = encoder.singleValueContainer()
            try c.encode(i)
        case .double(let d):
            if let text = Marker.text(forNonFinite: d) {
                var c = encoder.container(keyedBy: Marker.self)
                try c.encode(text, forKey: .double)
                return
            }
            var c = encoder.singleValueContainer()
            try c.encode(d)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let elements):
            var c = encoder.unkeyedContainer()
            for element in elements { try c.encode(element) }
        case .map(let map):
            if map.count == 1, Marker(rawValue: map.keys[0]) != nil {
                // Escaped: the payload is written as a plain map, so it cannot be read back as a marker.
                var c = encoder.container(keyedBy: Marker.self)
                var payload = c.nestedContainer(keyedBy: AnyCodingKey.self, forKey: .map)
                for (key, value) in map { try payload.encode(value, forKey: AnyCodingKey(stringValue: key)) }
                return
            }
            var c = encoder.container(keyedBy: AnyCodingKey.self)
            for (key, value) in map { try c.encode(value, forKey: AnyCodingKey(stringValue: key)) }
        case .timestamp(let t):
            var c = encoder.container(keyedBy: Marker.self)
            try c.encode(t.rfc3339String, forKey: .timestamp)
        case .geoPoint(let g):
            var c = encoder.container(keyedBy: Marker.self)
            try c.encode([g.latitude, g.longitude], forKey: .geoPoint)
        case .reference(let r):
            var c = encoder.container(keyedBy: Marker.self)
            try c.encode(r.path, forKey: .reference)
        case .bytes(let data):
            var c = encoder.container(keyedBy: Marker.self)
            try c.encode(data.base64EncodedString(), forKey: .bytes)
        case .vector(let v):
            var c = encoder.container(keyedBy: Marker.self)
            try c.encode(v.array, forKey: .vector)
        case .serverTimestamp:
            var c = encoder.container(keyedBy: Marker.self)
            try c.encode(true, forKey: .serverTimestamp)
        }
    }

    /// Decodes the form above: scalars first (integers before doubles), then arrays, then maps and markers.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let b = try? single.decode(Bool.self) {
                self = .boolean(b)
                return
            }
            if let i = try? single.decode(Int64.self) {
                self = .integer(i)
                return
            }
            if let d = try? single.decode(Double.self) {
                self = .double(d)
                return
            }
            if let s = try? single.decode(String.self) {
                self = .string(s)
                return
            }
        }
        if var array = try? decoder.unkeyedContainer() {
            var elements: [Value] = []
            while !array.isAtEnd { elements.append(try array.decode(Value.self)) }
            self = .array(elements)
            return
        }
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        let keys = container.allKeys
        if keys.count == 1, let marker = Marker(rawValue: keys[0].stringValue) {
            let markers = try decoder.container(keyedBy: Marker.self)
            func corrupt(_ why: String) -> DecodingError {
                .dataCorruptedError(forKey: marker, in: markers, debugDescription: why)
            }
            switch marker {
            case .timestamp:
                do {
                    self = .timestamp(try Timestamp(rfc3339: try markers.decode(String.self, forKey: marker)))
                } catch let error as FirePackError { throw corrupt(error.message) }
            case .geoPoint:
                let pair = try markers.decode([Double].self, forKey: marker)
                guard pair.count == 2 else { throw corrupt("a geopoint is [latitude, longitude]") }
                do { self = .geoPoint(try GeoPoint(validatingLatitude: pair[0], longitude: pair[1])) } catch {
                    throw corrupt(error.message)
                }
            case .reference:
                do {
                    self = .reference(try DocumentReference(path: try markers.decode(String.self, forKey: marker)))
                } catch let error as FirePackError { throw corrupt(error.message) }
            case .bytes:
                guard let data = Data(base64Encoded: try markers.decode(String.self, forKey: marker)) else {
                    throw corrupt("not base64")
                }
                self = .bytes(data)
            case .vector: self = .vector(VectorValue(try markers.decode([Double].self, forKey: marker)))
            case .serverTimestamp: self = .serverTimestamp
            case .double:
                guard let double = Marker.nonFiniteDouble(from: try markers.decode(String.self, forKey: marker)) else {
                    throw corrupt("expects \"NaN\", \"Infinity\", \"-Infinity\" or \"0x\" and 16 hex digits")
                }
                self = .double(double)
            case .map:
                let payload = try markers.nestedContainer(keyedBy: AnyCodingKey.self, forKey: marker)
                var map = MapValue()
                for key in payload.allKeys { map[key.stringValue] = try payload.decode(Value.self, forKey: key) }
                self = .map(map)
            }
            return
        }
        var map = MapValue()
        for key in keys { map[key.stringValue] = try container.decode(Value.self, forKey: key) }
        self = .map(map)
    }
}

extension MapValue: Codable {
    /// Encodes as a map value.
    public func encode(to encoder: any Encoder) throws { try Value.map(self).encode(to: encoder) }

    /// Decodes a map value; anything else is a type mismatch.
    public init(from decoder: any Decoder) throws {
        guard case .map(let map) = try Value(from: decoder) else {
            throw DecodingError.typeMismatch(
                MapValue.self, .init(codingPath: decoder.codingPath, debugDescription: "Expected a map"))
        }
        self = map
    }
}
