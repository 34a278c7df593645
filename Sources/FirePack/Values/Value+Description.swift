extension Value: CustomStringConvertible {
    /// A compact, readable, JSON-like rendering with Firestore's types named: `{"title": "Dune", "published":
    /// timestamp(1965-08-01T00:00:00Z), "where": geopoint(37.4, -122.1), "pending": serverTimestamp}`.
    public var description: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .boolean(let b): text += b ? "true" : "false"
        case .integer(let i): text += String(i)
        case .double(let d): text += d.description
        case .timestamp(let t): text += "timestamp(\(t.rfc3339String))"
        case .string(let s): text += s.debugDescription
        case .bytes(let data):
            text += "bytes("
            for byte in data { text += Tag.hex(byte).lowercased() }
            text += ")"
        case .reference(let r): text += "reference(\(r.path))"
        case .geoPoint(let g): text += "geopoint(\(g.latitude), \(g.longitude))"
        case .vector(let v): text += "vector(\(v.array))"
        case .serverTimestamp: text += "serverTimestamp"
        case .array(let elements):
            text += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { text += ", " }
                element.write(to: &text)
            }
            text += "]"
        case .map(let map):
            text += "{"
            for position in map.indices {
                if position > 0 { text += ", " }
                text += map.keys[position].debugDescription + ": "
                map.values[position].write(to: &text)
            }
            text += "}"
        }
    }
}
