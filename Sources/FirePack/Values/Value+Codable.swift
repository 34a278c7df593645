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
        case .boolean(let b): try Self.encode(b, to: encoder)
        case .integer(let i): try Self.encode(i, to: encoder)
        case .double(let d):
            if let text = Marker.text(forNonFinite: d) { return try Self.encode(text, as: .double, to: encoder) }
            try Self.encode(d, to: encoder)
        case .string(let s): try Self.encode(s, to: encoder)
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
        case .timestamp(let t): try Self.encode(t.rfc3339String, as: .timestamp, to: encoder)
        case .geoPoint(let g): try Self.encode([g.latitude, g.longitude], as: .geoPoint, to: encoder)
        case .reference(let r): try Self.encode(r.path, as: .reference, to: encoder)
        case .bytes(let data): try Self.encode(data.base64EncodedString(), as: .bytes, to: encoder)
        case .vector(let v): try Self.encode(v.array, as: .vector, to: encoder)
        case .serverTimestamp: try Self.encode(true, as: .serverTimestamp, to: encoder)
        }
    }

    /// Encodes a scalar as itself.
    private static func encode(_ scalar: some Encodable, to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(scalar)
    }

    /// Encodes `payload` as the single-key map of `marker`.
    private static func encode(_ payload: some Encodable, as marker: Marker, to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Marker.self)
        try c.encode(payload, forKey: marker)
    }

    /// Decodes the form above: scalars first (integers before doubles), then arrays, then maps and markers.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let scalar = Self.scalar(in: single) {
            self = scalar
            return
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

extension Value {
    /// The scalar a single-value container holds (null, then booleans, integers before doubles, then strings), or nil.
    fileprivate static func scalar(in single: any SingleValueDecodingContainer) -> Value? {
        if single.decodeNil() { return .null }
        if let b = try? single.decode(Bool.self) { return .boolean(b) }
        if let i = try? single.decode(Int64.self) { return .integer(i) }
        if let d = try? single.decode(Double.self) { return .double(d) }
        if let s = try? single.decode(String.self) { return .string(s) }
        return nil
    }
}
