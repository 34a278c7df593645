/// The single keys that mark Firestore types in FirePack's reversible JSON and in `Value`'s Codable form (a map whose
/// only key is one of them is written escaped, as `{"__map__": {…}}`). The one list both forms use.
package enum ReversibleMarker: String, CaseIterable, CodingKey, Sendable {
    case timestamp = "__timestamp__"
    case geoPoint = "__geopoint__"
    case reference = "__reference__"
    case bytes = "__bytes__"
    case vector = "__vector__"
    case serverTimestamp = "__serverTimestamp__"
    /// A double JSON cannot write as a number: `"NaN"`, `"Infinity"`, `"-Infinity"`, or `"0x"` + 16 hex digits
    /// for a NaN with another payload.
    case double = "__double__"
    /// Wraps a user map that would otherwise read as a marker.
    case map = "__map__"

    /// The `__double__` payload of a non-finite double (nil for a finite one, which JSON writes as a number).
    package static func text(forNonFinite double: Double) -> String? {
        if double.isFinite { return nil }
        if double == .infinity { return "Infinity" }
        if double == -.infinity { return "-Infinity" }
        if double.bitPattern == Double.nan.bitPattern { return "NaN" }
        let hex = String(double.bitPattern, radix: 16)
        return "0x" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// The double a `__double__` payload stands for, or nil when it is not one `text(forNonFinite:)` writes.
    package static func nonFiniteDouble(from text: String) -> Double? {
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard text.hasPrefix("0x"), text.utf8.count == 18, let bits = UInt64(text.dropFirst(2), radix: 16) else {
                return nil
            }
            return Double(bitPattern: bits)
        }
    }
}
