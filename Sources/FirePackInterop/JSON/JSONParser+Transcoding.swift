import CFirePackSystem  // memchr(3)
import FirePack

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON text written straight into a `FirePackWriter`, without a `Value` tree: the bytes
/// `writer.write(parseValue(…))` writes in the writer's non-deterministic mode, at a fraction of the cost (no
/// allocation per string, array or object).
///
/// Objects that may be reversible markers (a first key starting with `__`, or a first key with escapes) are written
/// from their parts when they are a marker in its plain form (`transcodeMarker`) and otherwise parsed as trees and
/// written whole, so every marker rule of `parseObject` applies unchanged. Errors are the tree path's:
/// the same code, byte offset, message and JSON path (prefixed while unwinding, so the success path pays nothing),
/// which `JSONLinesTests` checks line by line.
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
            throw depthLimitExceeded(at: index)
        }
        let start = index
        index += 1
        writer.beginArray()
        skipWhitespace()
        if index < count && byte(index) == UInt8(ascii: "]") {
            index += 1
            writer.endArray()
            return
        }
        var element = 0
        while true {
            skipWhitespace()
            do { try transcodeValue(into: writer, depth: depth) } catch {
                throw error.prefixingPath(with: .index(element))
            }
            element += 1
            // The readers' element limit, checked as the array grows, as `parseArray` checks it.
            if element > ReaderLimits.default.maxElementCount { throw JSONParser.tooManyElements(at: start) }
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

    /// Writes an object's entries as a map.
    mutating func transcodeObject(into writer: FirePackWriter, depth: Int) throws(FirePackError) {
        var none: DocumentMembers? = nil
        try transcodeObject(into: writer, depth: depth, members: &none)
    }

    /// Writes an object's entries as a map; with `members` (a document's top level), the members that name the
    /// document are read into it instead, as `DocumentMembers` says.
    mutating func transcodeObject(into writer: FirePackWriter, depth: Int, members: inout DocumentMembers?)
        throws(FirePackError)
    {
        // An object that may be a marker is read at its parent's depth, as `parseObject` says.
        if readsMarkers && firstKeyMayBeMarker() {
            if transcodeMarker(into: writer) { return }
            writer.write(try parseObject(depth: depth - 1, readsMarkers: true, possibleMarker: true))
            return
        }
        guard depth <= maxDepth else {
            throw depthLimitExceeded(at: index)
        }
        index += 1
        writer.beginMap()
        skipWhitespace()
        if index < count && byte(index) == UInt8(ascii: "}") {
            index += 1
            writer.endMap()
            return
        }
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
            if members != nil,
                try readNamingMember(key, at: keyOffset, depth: depth, into: &members!, writer: writer)
            {
                // Read into `members`, or written by it.
            } else if case .inInput(let start, let length) = key {
                // The key's text, for a message, is read again from the input: no `String` per key.
                guard writer.writeKey(utf8: UnsafeRawBufferPointer(start: base + start, count: length)) else {
                    throw duplicateKey(text(of: key), at: keyOffset)
                }
                do { try transcodeValue(into: writer, depth: depth) } catch {
                    throw error.prefixingPath(with: .key(text(of: key)))
                }
            } else {
                // A key with escapes lives in `scratch`, which the value's strings reuse: kept as text for messages.
                let escapedKey = String(decoding: scratch, as: UTF8.self)
                guard scratch.withUnsafeBytes({ writer.writeKey(utf8: $0) }) else {
                    throw duplicateKey(escapedKey, at: keyOffset)
                }
                do { try transcodeValue(into: writer, depth: depth) } catch {
                    throw error.prefixingPath(with: .key(escapedKey))
                }
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

    /// The text of a key scanned in the input (a key with escapes is kept by the caller before `scratch` changes).
    func text(of key: ScannedString) -> String {
        guard case .inInput(let start, let length) = key else { return String(decoding: scratch, as: UTF8.self) }
        return String(decoding: UnsafeRawBufferPointer(start: base + start, count: length), as: UTF8.self)
    }

    /// Whether the scanned key's bytes are `name`'s.
    func key(_ key: ScannedString, is name: [UInt8]) -> Bool {
        switch key {
        case .inInput(let start, let length):
            length == name.count && ByteComparison.equal(base + start, name, count: length)
        case .inScratch: scratch == name
        }
    }

    /// Reads the value of a member that names the document into `members` (or, for a kept ID field, writes it as a
    /// field too) and returns true; false when the key is not one of them, or is a field after all.
    mutating func readNamingMember(
        _ key: ScannedString, at keyOffset: Int, depth: Int, into members: inout DocumentMembers,
        writer: FirePackWriter
    ) throws(FirePackError) -> Bool {
        if self.key(key, is: DocumentMembers.name) {
            guard members.name == nil else { throw duplicateKey("__name__", at: keyOffset) }
            members.name = try parseMember(named: "__name__", depth: depth)
            return true
        }
        if self.key(key, is: DocumentMembers.createTime) || self.key(key, is: DocumentMembers.updateTime) {
            members.hasTimeMember = true  // written as a field here; the line is then read through a tree
            return false
        }
        guard let idField = members.idField, self.key(key, is: idField) else { return false }
        let idText = String(decoding: idField, as: UTF8.self)
        if members.keepsIDField {
            // The key before its value, as for every other member: a repeat is reported before a defect in the value.
            guard idField.withUnsafeBytes({ writer.writeKey(utf8: $0) }) else {
                throw duplicateKey(idText, at: keyOffset)
            }
            let value = try parseMember(named: idText, depth: depth)
            writer.write(value)
            members.id = value
            return true
        }
        // After `__name__` the ID field is a field like any other (a repeat when it was left out before `__name__`);
        // before it, it is read, and left out unless `__name__` follows (then the line is not taken: `leftOutID`).
        guard members.name == nil else {
            guard !members.leftOutID else { throw duplicateKey(idText, at: keyOffset) }
            return false
        }
        guard members.id == nil else { throw duplicateKey(idText, at: keyOffset) }
        members.id = try parseMember(named: idText, depth: depth)
        members.leftOutID = true
        return true
    }

    /// One member's value as a tree, its errors under its key.
    mutating func parseMember(named key: String, depth: Int) throws(FirePackError) -> Value {
        do { return try parseValue(depth: depth) } catch { throw error.prefixingPath(with: .key(key)) }
    }

    /// Writes the object at the cursor when it is one of reversible JSON's markers in its plain form — a timestamp,
    /// reference or bytes marker whose string has no escapes, a geopoint's `[latitude, longitude]`, a vector's numbers
    /// — and moves past it. The tree path built a map for each (guarded by `Convert JSON lines to fpks`). Otherwise —
    /// another marker, an escape, a payload the marker refuses, any defect — returns false and moves nothing: the tree
    /// path reads the object, so it gives the value and reports the error (`MarkerPayloads` holds the rules once; this
    /// builds the same `Value` from the same parts).
    mutating func transcodeMarker(into writer: FirePackWriter) -> Bool {
        let saved = index
        switch plainMarker() {
        case .value(let value)?:
            writer.write(value)
            return true
        case .bytes(let text, let count)?:
            withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { bytes in
                Base64Text.decode(canonical: text, into: bytes)
                writer.writeBytes(UnsafeRawBufferPointer(bytes))
            }
            return true
        case nil:
            index = saved
            return false
        }
    }

    /// A plain marker object read (`plainMarker`): its value, or the canonical base64 text of a bytes marker and the
    /// number of bytes it decodes to, written from the text (`Base64Text`).
    private enum PlainMarker {
        case value(Value)
        case bytes(UnsafeRawBufferPointer, count: Int)
    }

    /// The value of the plain marker object at the cursor, having moved past it (see `transcodeMarker`); nil when it
    /// is not one, the cursor then anywhere inside it.
    private mutating func plainMarker() -> PlainMarker? {
        index += 1
        skipWhitespace()
        guard index < count, byte(index) == UInt8(ascii: "\""),
            case .inInput(let keyStart, let keyLength)? = try? scanString()
        else { return nil }
        let key = UnsafeRawBufferPointer(start: base + keyStart, count: keyLength)
        skipWhitespace()
        guard index < count, byte(index) == UInt8(ascii: ":") else { return nil }
        index += 1
        skipWhitespace()
        guard index < count else { return nil }
        let value: PlainMarker
        if byte(index) == UInt8(ascii: "\"") {
            guard case .inInput(let start, let length)? = try? scanString() else { return nil }
            let text = UnsafeRawBufferPointer(start: base + start, count: length)
            if Self.is(key, "__timestamp__") {
                guard let timestamp = try? Timestamp(rfc3339: text) else { return nil }
                value = .value(.timestamp(timestamp))
            } else if Self.is(key, "__reference__") {
                guard let reference = try? DocumentReference(path: String(decoding: text, as: UTF8.self)) else {
                    return nil
                }
                value = .value(.reference(reference))
            } else if Self.is(key, "__bytes__") {
                guard let count = Base64Text.canonicalByteCount(text) else { return nil }
                value = .bytes(text, count: count)
            } else {
                return nil
            }
        } else if byte(index) == UInt8(ascii: "[") {
            // A marker's array of numbers, which opens no level (`parseArray(payloadOf:)`).
            let isGeoPoint = Self.is(key, "__geopoint__")
            guard isGeoPoint || Self.is(key, "__vector__"), let numbers = plainNumbers(expecting: isGeoPoint ? 2 : 16)
            else {
                return nil
            }
            if isGeoPoint {
                guard numbers.count == 2,
                    let point = try? GeoPoint(validatingLatitude: numbers[0], longitude: numbers[1])
                else { return nil }
                value = .value(.geoPoint(point))
            } else {
                value = .value(.vector(VectorValue(numbers)))
            }
        } else {
            return nil
        }
        skipWhitespace()
        guard index < count, byte(index) == UInt8(ascii: "}") else { return nil }
        index += 1
        return value
    }

    /// Whether `key`'s bytes are `name`'s (a marker key: `JSONMarker`'s text, as a `StaticString`).
    @inline(__always)
    private static func `is`(_ key: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        key.count == name.utf8CodeUnitCount && ByteComparison.equal(key.baseAddress!, name.utf8Start, count: key.count)
    }

    /// The numbers of the array at the cursor as doubles (what `Value.numberAsDouble` gives for each), having moved
    /// past it; nil when an element is not a number, or the array is long (the tree path counts it against the
    /// element limit). Room for `expecting` numbers is made at once (an array grown from empty reallocates at 1, 2,
    /// 4 and 8 elements: a vector of 8 cost four allocations).
    private mutating func plainNumbers(expecting: Int) -> [Double]? {
        index += 1
        var numbers: [Double] = []
        numbers.reserveCapacity(expecting)
        skipWhitespace()
        if index < count && byte(index) == UInt8(ascii: "]") {
            index += 1
            return numbers
        }
        while numbers.count < 1 << 16 {
            guard index < count, byte(index) == UInt8(ascii: "-") || (byte(index) >= 0x30 && byte(index) <= 0x39),
                let number = try? parseNumber(), let double = number.numberAsDouble
            else { return nil }
            numbers.append(double)
            skipWhitespace()
            guard index < count else { return nil }
            let separator = byte(index)
            index += 1
            if separator == UInt8(ascii: "]") { return numbers }
            guard separator == UInt8(ascii: ",") else { return nil }
            skipWhitespace()
        }
        return nil
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
        // Every marker key starts with "__": a key that starts with neither an escape (which may give one) nor an
        // underscore followed by an underscore or an escape cannot read as one, whatever follows (most keys: answered
        // without scanning the key, guarded by `Convert JSON lines to fpks`).
        let first = byte(start), second = byte(start + 1)
        guard
            first == UInt8(ascii: "\\")
                || (first == UInt8(ascii: "_") && (second == UInt8(ascii: "_") || second == UInt8(ascii: "\\")))
        else { return false }
        // To the key's first quote or backslash eight bytes at a time (a control character the word scan stops at too
        // is passed below, as byte by byte: the key's own read reports it).
        var high: UInt64 = 0
        cursor = plainRunEnd(from: start, high: &high)
        while cursor < count {
            switch byte(cursor) {
            case UInt8(ascii: "\""):
                // No escape on the way here, so the key starts with "__" (checked above).
                return ReversibleMarker.isKey(UnsafeRawBufferPointer(start: base + start, count: cursor - start))
            case UInt8(ascii: "\\"): return true
            default: cursor += 1
            }
        }
        return false
    }
}

/// The members of a JSON line that name its document (`DocumentNaming`), read in the pass that writes the others
/// as its fields: `__name__` is never a field; the ID field is one when `keepsIDField`, or when `__name__` came
/// before it (the path then wins and the ID is an ordinary field, as `DocumentNaming.reference` decides).
package struct DocumentMembers {
    static let name = Array(DocumentNaming.nameMember.utf8)
    static let createTime = Array(DocumentNaming.createTimeMember.utf8)
    static let updateTime = Array(DocumentNaming.updateTimeMember.utf8)
    /// `DocumentNaming.namingMembers`, as bytes.
    static let all = [name, createTime, updateTime]
    /// The ID field's key, if the naming has one.
    let idField: [UInt8]?
    let keepsIDField: Bool
    /// The value of `__name__`, once read.
    package var name: Value?
    /// The value of the ID field, once read.
    package var id: Value?
    /// The ID field was left out of the fields before `__name__` was seen.
    var leftOutID = false
    /// A member that may hold the document's create or update time was met (`DocumentNaming.document(from:line:)`
    /// decides whether it is one).
    var hasTimeMember = false

    /// The members a naming reads: `__name__` and `idField`.
    package init(idField: String?, keepsIDField: Bool) {
        self.idField = idField.map { Array($0.utf8) }
        self.keepsIDField = keepsIDField
    }

    /// Whether the fields written are the document's: false when the ID field was left out and `__name__` followed,
    /// so that the ID should have stayed a field, or when a member may be a time rather than a field.
    var fieldsAreComplete: Bool { !(leftOutID && name != nil) && !hasTimeMember }
}

/// JSON objects written as FirePack maps without a tree: the fast path of converting JSON lines to documents.
package enum JSONTranscoding {
    /// Writes the JSON object that is the whole of `text` as one map into `writer`, reading the members that name the
    /// document instead of writing them, in one pass, and returns them. Malformed text throws what `Value(json:)`
    /// throws for it (code, offset, message, JSON path), leaving a partial value in the writer for the caller to
    /// abandon. Returns nil when the text is not taken this way — not an object, an object whose first key may
    /// be a marker, an ID field left out before `__name__` — for the caller to take the tree path.
    package static func writeDocumentFields(
        _ text: UnsafeRawBufferPointer, naming members: DocumentMembers, options: JSONOptions,
        into writer: FirePackWriter
    ) throws(FirePackError) -> DocumentMembers? {
        guard let base = text.baseAddress else { return nil }
        var parser = JSONParser(
            base: base, count: text.count, maxDepth: options.maxDepth, readsMarkers: options.readsMarkers,
            largeIntegers: options.largeIntegers)
        parser.skipWhitespace()
        // An object that may read as a marker (a timestamp, an escaped map, …) is not a map of its entries.
        guard parser.byte(parser.index) == UInt8(ascii: "{"), !options.readsMarkers || !parser.firstKeyMayBeMarker()
        else { return nil }
        var read: DocumentMembers? = members
        try parser.transcodeObject(into: writer, depth: 1, members: &read)
        parser.skipWhitespace()
        guard parser.index == parser.count else {
            throw FirePackError(.trailingBytes, offset: parser.index, "text follows the JSON value")
        }
        return read!.fieldsAreComplete ? read : nil
    }
}
