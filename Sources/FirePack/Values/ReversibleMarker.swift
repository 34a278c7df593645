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

    /// Whether the UTF-8 bytes `key` are one of the markers' keys, told by its length first and then its bytes
    /// (a parser asks this of each object whose first key starts with "__"; a search of a list of the keys' bytes
    /// cost more than the rest of that test, guarded by `Convert JSON lines to fpks`). The keys are the cases' raw
    /// values, written again here as bytes (`JSONTranscodingTests.markerKeysAreTheReversibleMarkersAndNothingElse`
    /// holds the two to each other).
    package static func isKey(_ key: UnsafeRawBufferPointer) -> Bool {
        guard let bytes = key.baseAddress else { return false }
        @inline(__always) func `is`(_ marker: StaticString) -> Bool {
            ByteComparison.equal(bytes, marker.utf8Start, count: key.count)
        }
        switch key.count {
        case 7: return `is`("__map__")
        case 9: return `is`("__bytes__")
        case 10: return `is`("__vector__") || `is`("__double__")
        case 12: return `is`("__geopoint__")
        case 13: return `is`("__timestamp__") || `is`("__reference__")
        case 19: return `is`("__serverTimestamp__")
        default: return false
        }
    }

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
