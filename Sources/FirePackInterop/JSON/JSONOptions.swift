import FirePack

/// How FirePack values map to JSON text.
public struct JSONOptions: Sendable, Hashable {
    /// How types JSON lacks are written.
    public enum Form: Sendable, Hashable {
        /// Lossless: Firestore types as single-key marker objects (`{"__timestamp__": "…"}`), read back exactly.
        case reversible
        /// Readable and lossy: RFC 3339 strings, `{latitude, longitude}` objects, paths, base64, plain arrays; null
        /// for the server-timestamp sentinel and for NaN and ±∞.
        case plain
    }

    /// What reading does with an integer outside Int64 (Firestore's integer range).
    public enum LargeIntegers: Sendable, Hashable {
        /// Throw `invalidJSON` naming its offset and path (default): no digit is dropped silently.
        case reject
        /// Read it as the nearest double, losing the digits a double cannot hold.
        case asDoubles
    }

    /// Reversible (default) or plain output; reading always understands the reversible markers.
    public var form: Form
    /// Two-space indentation and `": "` separators instead of compact output.
    public var pretty: Bool
    /// Write map keys in ascending UTF-8 byte order.
    public var sortedKeys: Bool
    /// Maximum nesting depth when reading (the same bound as FirePack's reader).
    public var maxDepth: Int
    /// Whether reading turns the reversible markers into Firestore types (off: every object is a map).
    public var readsMarkers: Bool
    /// What reading does with integers outside Int64: an error by default.
    public var largeIntegers: LargeIntegers

    /// Creates options: reversible, compact, insertion order, depth 100, markers read, large integers rejected.
    public init(
        form: Form = .reversible, pretty: Bool = false, sortedKeys: Bool = false, maxDepth: Int = 100,
        readsMarkers: Bool = true, largeIntegers: LargeIntegers = .reject
    ) {
        self.largeIntegers = largeIntegers
        self.form = form
        self.pretty = pretty
        self.sortedKeys = sortedKeys
        self.maxDepth = min(max(maxDepth, 0), ReaderLimits.maximumDepth)
        self.readsMarkers = readsMarkers
    }
}

/// The marker keys of reversible JSON as strings (the list itself is FirePack's `ReversibleMarker`).
enum JSONMarker {
    static let timestamp = ReversibleMarker.timestamp.rawValue
    static let geoPoint = ReversibleMarker.geoPoint.rawValue
    static let reference = ReversibleMarker.reference.rawValue
    static let bytes = ReversibleMarker.bytes.rawValue
    static let vector = ReversibleMarker.vector.rawValue
    static let serverTimestamp = ReversibleMarker.serverTimestamp.rawValue
    static let double = ReversibleMarker.double.rawValue
    static let map = ReversibleMarker.map.rawValue

    static let all = Set(ReversibleMarker.allCases.map(\.rawValue))
    /// `{"__timestamp__":`, the opening of the commonest marker.
    static let timestampOpening = Array("{\"\(timestamp)\":".utf8)
    /// `{"__map__":`, which escapes a map whose one key is a marker.
    static let mapOpening = Array("{\"\(map)\":".utf8)
}

extension FirePackError.Code {
    /// Text that is not valid JSON, or a reversible marker with a malformed payload.
    public static let invalidJSON = FirePackError.Code(rawValue: "invalidJSON")
}
