#if FirePackHummingbird
import HTTPTypes

/// The body formats a negotiating coder speaks.
enum BodyFormat: Equatable {
    case json
    case firePack

    /// The `Content-Type` sent with a body in this format.
    var contentType: String {
        switch self {
        case .json: "application/json; charset=utf-8"
        case .firePack: FirePackMediaType.name
        }
    }

    /// The format's media type, without parameters.
    var mediaType: String {
        switch self {
        case .json: "application/json"
        case .firePack: FirePackMediaType.name
        }
    }

    /// The format a `Content-Type` header names, or nil for anything else (a missing header included).
    init?(contentType: String?) {
        guard let contentType, let range = MediaRange(contentType[...]), range.subtype != "*" else { return nil }
        switch (range.type, range.subtype) {
        case ("application", "vnd.firepack"): self = .firePack
        case ("application", "json"): self = .json
        default: return nil
        }
    }

    /// The format to answer in, from the request's `Accept` header values (RFC 9110 §12.5.1).
    ///
    /// Each format gets the quality of the most specific media range that matches it; the higher quality wins, then
    /// the more specific match, then the one listed first. With no `Accept` header, or one that accepts neither format, the answer
    /// is JSON: the server disregards the header rather than answer 406 (RFC 9110 allows either).
    static func negotiate(accept values: [String]) -> BodyFormat {
        var json = Preference.unmatched
        var firePack = Preference.unmatched
        var position = 0
        for value in values {
            for element in value[...].splitOutsideQuotes(",") {
                guard let range = MediaRange(element) else { continue }
                json.consider(range, at: position, type: "application", subtype: "json")
                firePack.consider(range, at: position, type: "application", subtype: "vnd.firepack")
                position += 1
            }
        }
        guard firePack.quality > 0 else { return .json }
        if firePack.quality != json.quality { return firePack.quality > json.quality ? .firePack : .json }
        if firePack.specificity != json.specificity {
            return firePack.specificity > json.specificity ? .firePack : .json
        }
        return firePack.position < json.position ? .firePack : .json
    }

    /// How much a request accepts one format: the quality of its most specific matching media range.
    struct Preference {
        static let unmatched = Preference(quality: 0, specificity: -1, position: .max)
        var quality: Double
        var specificity: Int
        /// Where the matching range stands in the header.
        var position: Int

        mutating func consider(_ range: MediaRange, at position: Int, type: String, subtype: String) {
            let specificity: Int
            if range.type == type && range.subtype == subtype {
                specificity = 2
            } else if range.type == type && range.subtype == "*" {
                specificity = 1
            } else if range.type == "*" && range.subtype == "*" {
                specificity = 0
            } else {
                return
            }
            if specificity > self.specificity {
                self = Preference(quality: range.quality, specificity: specificity, position: position)
            }
        }
    }
}

/// One media range of an `Accept` or `Content-Type` header: `type/subtype` with its `q` parameter.
struct MediaRange {
    var type: Substring
    var subtype: Substring
    var quality: Double

    /// Parses `type/subtype;param=value;q=0.5`; nil for anything malformed.
    init?(_ text: Substring) {
        let parts = text.splitOutsideQuotes(";")
        guard let first = parts.first else { return nil }
        let name = first.split(separator: "/", omittingEmptySubsequences: false)
        guard name.count == 2 else { return nil }
        type = Self.lowercased(name[0])
        subtype = Self.lowercased(name[1])
        guard !type.isEmpty, !subtype.isEmpty, type != "*" || subtype == "*" else { return nil }
        quality = 1
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, Self.lowercased(pair[0]) == "q" else { continue }
            guard let q = Double(pair[1].trimmingSpaces), q >= 0, q <= 1 else { return nil }
            quality = q
        }
    }

    private static func lowercased(_ text: Substring) -> Substring {
        Substring(text.trimmingSpaces.lowercased())
    }
}

extension Substring {
    /// The parts between `separator`s that stand outside quoted strings (RFC 9110 §5.6.4: a parameter value may be
    /// `"a,b;c"`, with `\` escaping the next character), empty parts left out.
    func splitOutsideQuotes(_ separator: Character) -> [Substring] {
        var parts: [Substring] = []
        var start = startIndex, index = startIndex
        var quoted = false, escaped = false
        while index < endIndex {
            let character = self[index]
            if escaped {
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
            } else if !quoted && character == separator {
                if start < index { parts.append(self[start..<index]) }
                start = self.index(after: index)
            }
            index = self.index(after: index)
        }
        if start < endIndex { parts.append(self[start..<endIndex]) }
        return parts
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return Substring(self[start...end])
    }
}
#endif
