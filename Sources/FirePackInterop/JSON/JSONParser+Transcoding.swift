import CFirePackSystem  // memchr(3)
import FirePack

/// JSON text written straight into a `FirePackWriter`, without a `Value` tree: the bytes
/// `writer.write(parseValue(…))` writes in the writer's non-deterministic mode, at a fraction of the cost (no
/// allocation per string, array or object).
///
/// Objects that may be reversible markers (a first key starting with `__`, or a first key with escapes) are parsed
/// as trees and written whole, so every marker rule of `parseObject` applies unchanged. Errors carry the byte offset
/// but no JSON path: callers that report errors parse the text again with `parseDocument()` for the full message
/// (what the JSON-lines conversion does), so only text the tree path accepts is ever written this way.
extension JSONParser {
    /// Parses one value at the cursor and writes it into `writer`. On error the writer holds a partial value, which
    /// the caller abandons.
    mutating func transcodeValue(into writer: FirePackWriter, depth: Int) throws(FirePackError) {
        guard index < count else { throw FirePackError(.truncated, offset: index, "input ends where a value belongs") }
        switch byte(index) {
        case UInt8(ascii: "{"): try transcodeObject(into: writer, depth: depth + 1)
        case UInt8(ascii: "["): try transcodeArray(into: writer, depth: depth + 1)
        case UInt8(ascii: "\""):
            switch try scanString() {
            case .inInput(let start, let length):
                writer.writeString(utf8: UnsafeRawBufferPointer(start: base + start, count: length))
            case .inScratch: scratch.withUnsafeBytes { writer.writeString(utf8: $0) }
            }
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            writer.writeBoolean(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            writer.writeBoolean(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            writer.writeNull()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            // parseNumber returns .integer or .double only: no allocation either way.
            writer.write(try parseNumber())
        default: throw unexpectedCharacter()
        }
    }

    mutating func transcodeArray(into writer: FirePackWriter, depth: Int) throws(FirePackError) {
        guard depth <= maxDepth else {
            throw FirePackError(.depthLimitExceeded, offset: index, "arrays and objects nested deeper than \(maxDepth)")
        }
        index += 1
        writer.beginArray()
        skipWhitespace()
        if index < count && byte(index) == UInt8(ascii: "]") {
            index += 1
            writer.endArray()
            return
        }
        while true {
            skipWhitespace()
            try transcodeValue(into: writer, depth: depth)
            skipWhitespace()
            guard index < count else { throw FirePackError(.truncated, offset: index, "input ends inside an array") }
            let separator = byte(index)
            index += 1
            if separator == UInt8(ascii: "]") {
                writer.endArray()
                return
            }
            guard separator == UInt8(ascii: ",") else { throw fail("expected ',' or ']' in an array", at: index - 1) }
        }
    }

    /// Writes an object's entries as a map; with `skipping`, the entry with that (escape-free) key is parsed but not
    /// written (and a second one is a duplicate key, as on the tree path).
    mutating func transcodeObject(into writer: FirePackWriter, depth: Int, skipping: [UInt8]? = nil)
        throws(FirePackError)
    {
        guard depth <= maxDepth else {
            throw FirePackError(.depthLimitExceeded, offset: index, "arrays and objects nested deeper than \(maxDepth)")
        }
        if readsMarkers && firstKeyMayBeMarker() {
            if transcodeTimestampMarker(into: writer) { return }
            writer.write(try parseObject(depth: depth, readsMarkers: true))
            return
        }
        index += 1
        writer.beginMap()
        skipWhitespace()
        if index < count && byte(index) == UInt8(ascii: "}") {
            index += 1
            writer.endMap()
            return
        }
        var skipped = false
        while true {
            skipWhitespace()
            let keyOffset = index
            guard index < count else { throw FirePackError(.truncated, offset: index, "input ends inside an object") }
            guard byte(index) == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try scanString()
            skipWhitespace()
            guard index < count, byte(index) == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
            index += 1
            skipWhitespace()
            if let skipping, case .inInput(let start, let length) = key,
                length == skipping.count, ByteComparison.equal(base + start, skipping, count: length)
            {
                guard !skipped else {
                    throw FirePackError(.duplicateKey, offset: keyOffset, "a key appears twice in one object")
                }
                skipped = true
                if byte(index) == UInt8(ascii: "\"") { _ = try scanString() } else { _ = try parseValue(depth: depth) }
            } else {
                let written =
                    switch key {
                    case .inInput(let start, let length):
                        writer.writeKey(utf8: UnsafeRawBufferPointer(start: base + start, count: length))
                    case .inScratch: scratch.withUnsafeBytes { writer.writeKey(utf8: $0) }
                    }
                guard written else {
                    throw FirePackError(.duplicateKey, offset: keyOffset, "a key appears twice in one object")
                }
                try transcodeValue(into: writer, depth: depth)
            }
            skipWhitespace()
            guard index < count else { throw FirePackError(.truncated, offset: index, "input ends inside an object") }
            let separator = byte(index)
            index += 1
            if separator == UInt8(ascii: "}") {
                writer.endMap()
                return
            }
            guard separator == UInt8(ascii: ",") else { throw fail("expected ',' or '}' in an object", at: index - 1) }
        }
    }

    /// Writes the object at the cursor when it is exactly `{"__timestamp__": "<RFC 3339 without escapes>"}` — the
    /// marker of every timestamp in reversible JSON, which the tree path spent much of a conversion building (guarded by
    /// `Stream JSON lines to fpks`) — and moves past it; otherwise returns false and moves nothing.
    mutating func transcodeTimestampMarker(into writer: FirePackWriter) -> Bool {
        let saved = index
        index += 1
        skipWhitespace()
        let key = "\"__timestamp__\"" as StaticString
        guard count - index > key.utf8CodeUnitCount,
            ByteComparison.equal(base + index, key.utf8Start, count: key.utf8CodeUnitCount)
        else {
            index = saved
            return false
        }
        index += key.utf8CodeUnitCount
        skipWhitespace()
        if byte(index) == UInt8(ascii: ":") {
            index += 1
            skipWhitespace()
            if byte(index) == UInt8(ascii: "\""), case .inInput(let start, let length)? = try? scanString() {
                skipWhitespace()
                if byte(index) == UInt8(ascii: "}"),
                    let timestamp = try? Timestamp(rfc3339: UnsafeRawBufferPointer(start: base + start, count: length))
                {
                    index += 1
                    writer.writeTimestamp(timestamp)
                    return true
                }
            }
        }
        index = saved
        return false
    }

    /// Whether the object at the cursor has a first key that is a reversible marker (or `__map__`) or holds an escape:
    /// only such objects can read as something else than a map of their entries. Moves nothing.
    func firstKeyMayBeMarker() -> Bool {
        var cursor = index + 1
        while byte(cursor) == 0x20 || byte(cursor) == 0x0A || byte(cursor) == 0x0D || byte(cursor) == 0x09 {
            cursor += 1
        }
        guard byte(cursor) == UInt8(ascii: "\"") else { return false }
        let start = cursor + 1
        cursor = start
        while cursor < count {
            switch byte(cursor) {
            case UInt8(ascii: "\""):
                let length = cursor - start
                guard length > 4, byte(start) == UInt8(ascii: "_"), byte(start + 1) == UInt8(ascii: "_") else {
                    return false
                }
                return Self.markerKeys.contains {
                    $0.count == length && ByteComparison.equal(base + start, $0, count: length)
                }
            case UInt8(ascii: "\\"): return true
            default: cursor += 1
            }
        }
        return false
    }

    /// The UTF-8 bytes of every reversible marker key.
    static let markerKeys: [[UInt8]] = ReversibleMarker.allCases.map { Array($0.rawValue.utf8) }

    /// The string value of the member `name` when it is written last in the object that is the whole text (where
    /// JSON lines written by FirePack keep `__name__`), found from the end without reading the rest: its bytes' range,
    /// or nil when the text does not end that way or the value has escapes. Only the text's last bytes are looked
    /// at, so the caller must still read the whole text (which `writeObject` does). Moves nothing.
    func lastMemberString(named name: [UInt8]) -> (start: Int, count: Int)? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        var cursor = count - 1
        while cursor >= 0 && isSpace(byte(cursor)) { cursor -= 1 }
        guard cursor > 0, byte(cursor) == UInt8(ascii: "}") else { return nil }
        cursor -= 1
        while cursor >= 0 && isSpace(byte(cursor)) { cursor -= 1 }
        guard cursor > 0, byte(cursor) == UInt8(ascii: "\"") else { return nil }
        let valueEnd = cursor
        cursor -= 1
        // No backslash inside: then neither quote is escaped, and the two delimit one string.
        while cursor >= 0 && byte(cursor) != UInt8(ascii: "\"") {
            if byte(cursor) == UInt8(ascii: "\\") { return nil }
            cursor -= 1
        }
        guard cursor >= 0 else { return nil }
        let valueStart = cursor + 1
        cursor -= 1
        while cursor >= 0 && isSpace(byte(cursor)) { cursor -= 1 }
        guard cursor >= 0, byte(cursor) == UInt8(ascii: ":") else { return nil }
        cursor -= 1
        while cursor >= 0 && isSpace(byte(cursor)) { cursor -= 1 }
        let keyStart = cursor - name.count
        guard keyStart >= 1, byte(cursor) == UInt8(ascii: "\""), byte(keyStart - 1) == UInt8(ascii: "\""),
            ByteComparison.equal(base + keyStart, name, count: name.count)
        else { return nil }
        cursor = keyStart - 2
        while cursor >= 0 && isSpace(byte(cursor)) { cursor -= 1 }
        guard cursor >= 0, byte(cursor) == UInt8(ascii: ",") || byte(cursor) == UInt8(ascii: "{") else { return nil }
        return (valueStart, valueEnd - valueStart)
    }

    /// The top-level members of the object that makes up the whole text, located without building anything: for each
    /// name in `names` (escape-free), the value of its member parsed as a tree (`nil` if absent). Returns nil when the
    /// text is anything else — not one object, a key with escapes, a name twice, malformed — for the caller to take
    /// the tree path, which reports what is wrong. Moves nothing.
    func members(named names: [[UInt8]]) -> [Value?]? {
        var parser = self
        var found = [Value?](repeating: nil, count: names.count)
        parser.skipWhitespace()
        guard parser.byte(parser.index) == UInt8(ascii: "{") else { return nil }
        parser.index += 1
        parser.skipWhitespace()
        if parser.byte(parser.index) == UInt8(ascii: "}") { return found }
        while true {
            parser.skipWhitespace()
            guard parser.byte(parser.index) == UInt8(ascii: "\""),
                case .inInput(let start, let length)? = try? parser.scanString()
            else { return nil }
            parser.skipWhitespace()
            guard parser.byte(parser.index) == UInt8(ascii: ":") else { return nil }
            parser.index += 1
            parser.skipWhitespace()
            if let position = names.firstIndex(where: {
                $0.count == length && ByteComparison.equal(base + start, $0, count: length)
            }) {
                guard found[position] == nil, let value = try? parser.parseValue(depth: 1) else { return nil }
                found[position] = value
            } else {
                guard parser.skipValue() else { return nil }
            }
            parser.skipWhitespace()
            let separator = parser.byte(parser.index)
            parser.index += 1
            if separator == UInt8(ascii: "}") { return found }
            guard separator == UInt8(ascii: ",") else { return nil }
        }
    }

    /// Moves past one value without checking more than its extent (strings to their closing quote, containers to
    /// their matching bracket); false when the text ends first or a container's brackets do not match.
    mutating func skipValue() -> Bool {
        var open = 0
        while index < count {
            switch byte(index) {
            case UInt8(ascii: "\""):
                // memchr to each quote, then back over the backslashes before it: an even number leaves it closing.
                index += 1
                while true {
                    guard index < count, let quote = memchr(base + index, Int32(UInt8(ascii: "\"")), count - index)
                    else { return false }
                    let end = UnsafeRawPointer(quote) - base
                    var backslashes = 0
                    while end - backslashes - 1 >= index && byte(end - backslashes - 1) == UInt8(ascii: "\\") {
                        backslashes += 1
                    }
                    index = end + 1
                    if backslashes % 2 == 0 { break }
                }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                open += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard open > 0 else { return true }
                open -= 1
                index += 1
            case UInt8(ascii: ","):
                if open == 0 { return true }
                index += 1
            default:
                index += 1
            }
            if open > maxDepth { return false }
        }
        return open == 0
    }
}

/// JSON objects written as FirePack maps without a tree: the fast path of converting JSON lines to documents.
package enum JSONTranscoding {
    /// The values of the top-level members named `names` (escape-free UTF-8) of the JSON object that is the whole of
    /// `text`, each `nil` when absent; nil when the text has to take the tree path (`Value(json:)`), which reports
    /// what is wrong with it.
    package static func members(named names: [[UInt8]], in text: UnsafeRawBufferPointer, options: JSONOptions)
        -> [Value?]?
    {
        guard let base = text.baseAddress else { return nil }
        return JSONParser(
            base: base, count: text.count, maxDepth: options.maxDepth, readsMarkers: options.readsMarkers,
            largeIntegers: options.largeIntegers
        ).members(named: names)
    }

    /// The string value of the member `name` (escape-free) when it is the last member of the JSON object that is the
    /// whole of `text` and has no escapes — found from the end, in O(its length); nil otherwise. The text is not
    /// checked: write it with `writeObject` (which fails on what `Value(json:)` rejects) before relying on this.
    package static func lastMemberString(named name: [UInt8], in text: UnsafeRawBufferPointer) -> String? {
        guard let base = text.baseAddress,
            let (start, length) = JSONParser(base: base, count: text.count, maxDepth: 1).lastMemberString(named: name)
        else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: base + start, count: length), as: UTF8.self)
    }

    /// Writes the JSON object that is the whole of `text`, without its member named `skipping`, as one map into
    /// `writer` — the bytes `writer.write(_:)` writes for the tree `Value(json:)` reads, minus those keys, in
    /// the writer's non-deterministic mode.
    ///
    /// Throws on malformed text with the byte offset but no JSON path, leaving a partial value in the writer for the
    /// caller to abandon; parse the text with `Value(json:)` for the full message.
    package static func writeObject(
        _ text: UnsafeRawBufferPointer, skipping: [UInt8]?, options: JSONOptions,
        into writer: FirePackWriter
    ) throws(FirePackError) {
        guard let base = text.baseAddress else { throw FirePackError(.truncated, offset: 0, "empty input") }
        var parser = JSONParser(
            base: base, count: text.count, maxDepth: options.maxDepth, readsMarkers: options.readsMarkers,
            largeIntegers: options.largeIntegers)
        parser.skipWhitespace()
        guard parser.byte(parser.index) == UInt8(ascii: "{") else { throw parser.fail("expected an object") }
        // An object that may read as a marker (a timestamp, an escaped map, …) is not a map of its entries.
        guard !options.readsMarkers || !parser.firstKeyMayBeMarker() else {
            throw parser.fail("the object may be a reversible marker")
        }
        try parser.transcodeObject(into: writer, depth: 1, skipping: skipping)
        parser.skipWhitespace()
        guard parser.index == parser.count else {
            throw FirePackError(.trailingBytes, offset: parser.index, "text follows the JSON value")
        }
    }
}
