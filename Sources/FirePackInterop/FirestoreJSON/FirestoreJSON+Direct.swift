@_spi(Buffers) import FirePack
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The REST typed form read straight from the JSON bytes, with no intermediate tree of single-key objects.
extension JSONParser {
    /// One typed value: `{"<kind>Value": payload}`.
    mutating func parseTypedValue(depth: Int) throws(FirePackError) -> Value {
        guard depth <= maxDepth else {
            throw FirePackError(.depthLimitExceeded, offset: index, "values nested deeper than \(maxDepth)")
        }
        let objectStart = index
        try expect(UInt8(ascii: "{"), "a Firestore value object")
        skipWhitespace()
        guard index < count, byte(index) == UInt8(ascii: "\"") else {
            throw fail("a Firestore value has one key such as \"stringValue\"")
        }
        let kind = try parseString()
        skipWhitespace()
        try expect(UInt8(ascii: ":"), "':'")
        skipWhitespace()
        let value: Value
        do {
            value = try parsePayload(kind: kind, depth: depth)
        } catch {
            throw error.prefixingPath(with: .key(kind))
        }
        skipWhitespace()
        guard index < count, byte(index) == UInt8(ascii: "}") else {
            throw FirePackError(
                .invalidJSON, offset: index < count ? index : objectStart, "a Firestore value has exactly one key")
        }
        index += 1
        return value
    }

    mutating func expect(_ character: UInt8, _ what: String) throws(FirePackError) {
        guard index < count else { throw FirePackError(.truncated, offset: index, "input ends where \(what) belongs") }
        guard byte(index) == character else { throw fail("expected \(what)") }
        index += 1
    }

    /// The double whose JSON number text is the whole of `text` (a `doubleValue`, written bare or as a string, at
    /// `offset`), read as `parseNumber` reads one and refused as it refuses one (out of a double's range, too small),
    /// with its reason. A `doubleValue` is a double whatever its text: an integer past Int64 (`100000000000000000000`,
    /// as JavaScript and Go write 1e20) is read as one; but written as an integer, a number is one, so an integer a
    /// double cannot hold exactly is refused rather than rounded without a word.
    func doubleValue(numberText text: String, at offset: Int) throws(FirePackError) -> Value {
        var text = text
        let result: Result<Value, FirePackError>? = text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress else { return nil }
            var parser = JSONParser(
                base: UnsafeRawPointer(base), count: utf8.count, maxDepth: maxDepth, readsMarkers: false,
                largeIntegers: .asDoubles)
            do throws(FirePackError) {
                let number = try parser.parseNumber()
                return parser.index == utf8.count ? .success(number) : nil
            } catch {
                // A number's reason (its range), not a syntax error: the text is not a number at all then.
                return error.message.hasPrefix("expected") || error.code == .truncated ? nil : .failure(error)
            }
        }
        let integerText = !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }
        func inexact(_ rounded: Double) -> FirePackError { Self.inexactInteger(text, rounded, at: offset) }
        switch result {
        case .success(.integer(let integer))?:
            guard let double = Double(exactly: integer) else { throw inexact(Double(integer)) }
            return .double(double)
        case .success(.double(let double))?:
            // Integer text past Int64, read as the nearest double: exact only when that double's digits are the text's.
            if integerText && double.isFinite && double != 0 && Self.integerDigits(of: double) != text {
                throw inexact(double)
            }
            return .double(double)
        case .success?: throw FirePackError(.invalidJSON, offset: offset, "doubleValue is not a number")
        case .failure(let error)?:
            throw FirePackError(.invalidJSON, offset: offset, "doubleValue \(text.debugDescription): \(error.message)")
        case nil:
            throw FirePackError(
                .invalidJSON, offset: offset,
                "doubleValue \(text.debugDescription) is not a number, \"NaN\", \"Infinity\" or \"-Infinity\"")
        }
    }

    /// The error for a `doubleValue` written as an integer (`text`) that a double holds only rounded (`rounded`).
    static func inexactInteger(_ text: String, _ rounded: Double, at offset: Int) -> FirePackError {
        FirePackError(
            .invalidJSON, offset: offset,
            "doubleValue \(text) is an integer a double cannot hold exactly (write it with an exponent, \(rounded), "
                + "to round it)")
    }

    /// The decimal digits of `double`, a whole number (past Int64 here: a significand of at most 53 bits times a
    /// power of two), with its sign: its exact value, to compare with the text it was read from.
    static func integerDigits(of double: Double) -> String {
        var digits = Array(String(double.significandBitPattern | (1 << 52)).utf8.reversed()).map { $0 - 48 }
        for _ in 0..<max(0, Int(double.exponent) - 52) {
            var carry: UInt8 = 0
            for position in digits.indices {
                let twice = digits[position] * 2 + carry
                (digits[position], carry) = (twice % 10, twice / 10)
            }
            if carry > 0 { digits.append(carry) }
        }
        return (double < 0 ? "-" : "") + String(decoding: digits.reversed().map { $0 + 48 }, as: UTF8.self)
    }

    mutating func parsePayload(kind: String, depth: Int) throws(FirePackError) -> Value {
        let payloadOffset = index
        switch kind {
        case "stringValue": return .string(try parseStringPayload())
        case "integerValue":
            if index < count && byte(index) == UInt8(ascii: "\"") {
                let text = try parseString()
                guard let integer = Int64(text) else {
                    throw FirePackError(
                        .invalidJSON, offset: payloadOffset,
                        "integerValue \(text.debugDescription) is not a 64-bit integer")
                }
                return .integer(integer)
            }
            let numberStart = index
            switch try parseNumber() {
            case .integer(let integer): return .integer(integer)
            case .double where index - numberStart == 2 && byte(numberStart) == UInt8(ascii: "-"):
                return .integer(0)  // the text `-0`, which reads as the double −0.0 elsewhere
            default: throw FirePackError(.invalidJSON, offset: payloadOffset, "integerValue is not an integer")
            }
        case "doubleValue":
            if index < count && byte(index) == UInt8(ascii: "\"") {
                switch try parseString() {
                case "NaN": return .double(.nan)
                case "Infinity": return .double(.infinity)
                case "-Infinity": return .double(-.infinity)
                case let text:
                    // Proto3 JSON accepts a double written as a string too ("Either numbers or strings are
                    // accepted", protobuf.dev/programming-guides/json): the string holds a JSON number's text,
                    // read by the same rules as one written bare.
                    return try doubleValue(numberText: text, at: payloadOffset)
                }
            }
            // Bare: read in place, but for an integer of 19 digits or more, which may be past Int64 and is read from
            // its text by the rules above (a double whatever its text).
            var end = index
            if end < count && byte(end) == UInt8(ascii: "-") { end += 1 }
            while end < count && byte(end) &- 0x30 < 10 { end += 1 }
            let integerDigits = end - index - (byte(index) == UInt8(ascii: "-") ? 1 : 0)
            if integerDigits >= 19 && !(end < count && [0x2E, 0x45, 0x65].contains(byte(end))) {
                let text = String(
                    decoding: UnsafeRawBufferPointer(start: base + index, count: end - index), as: UTF8.self)
                let value = try doubleValue(numberText: text, at: payloadOffset)
                index = end
                return value
            }
            switch try parseNumber() {
            case .double(let double): return .double(double)
            case .integer(let integer):
                guard let double = Double(exactly: integer) else {
                    throw Self.inexactInteger("\(integer)", Double(integer), at: payloadOffset)
                }
                return .double(double)
            default: throw FirePackError(.invalidJSON, offset: payloadOffset, "doubleValue is not a number")
            }
        case "booleanValue":
            guard case .boolean(let flag) = try parseValue(depth: depth) else {
                throw FirePackError(.invalidJSON, offset: payloadOffset, "booleanValue is not true or false")
            }
            return .boolean(flag)
        case "nullValue":
            switch try parseValue(depth: depth) {
            case .null, .string("NULL_VALUE"): return .null
            default: throw FirePackError(.invalidJSON, offset: payloadOffset, "nullValue is not null")
            }
        case "timestampValue":
            do { return .timestamp(try Timestamp(rfc3339: try parseStringPayload())) } catch {
                throw FirePackError(.invalidJSON, offset: payloadOffset, error.message)
            }
        case "bytesValue":
            guard let data = Self.protoJSONBase64(try parseStringPayload()) else {
                throw FirePackError(.invalidJSON, offset: payloadOffset, "bytesValue is not base64")
            }
            return .bytes(data)
        case "referenceValue":
            do { return .reference(try DocumentReference(path: try parseStringPayload())) } catch {
                throw FirePackError(.invalidJSON, offset: payloadOffset, error.message)
            }
        case "geoPointValue":
            guard case .map(let point) = try parseValue(depth: depth) else {
                throw FirePackError(.invalidJSON, offset: payloadOffset, "geoPointValue is not an object")
            }
            // Nothing dropped in silence: a member Firestore does not define (an altitude, say) is an error.
            if let unknown = point.keys.first(where: { $0 != "latitude" && $0 != "longitude" }) {
                throw FirePackError(
                    .invalidJSON, offset: payloadOffset,
                    "unknown member \(unknown.debugDescription) in geoPointValue: it has latitude and longitude",
                    path: [.key(unknown)])
            }
            // Left out or null, a coordinate is 0 (proto3 JSON's default); given, it is a number a double holds.
            func coordinate(_ name: String) throws(FirePackError) -> Double {
                guard let value = point[name], value != .null else { return 0 }
                guard let double = value.numberAsDouble else {
                    throw FirePackError(
                        .invalidJSON, offset: payloadOffset,
                        "geoPointValue's \(name) is \(value), not a number a double holds exactly", path: [.key(name)])
                }
                return double
            }
            let latitude = try coordinate("latitude"), longitude = try coordinate("longitude")
            do { return .geoPoint(try GeoPoint(validatingLatitude: latitude, longitude: longitude)) } catch {
                throw FirePackError(.invalidJSON, offset: payloadOffset, error.message)
            }
        case "arrayValue":
            var elements: [Value] = []
            var sawValues = false
            try parseObjectMembers { (parser, key) throws(FirePackError) in
                try Self.requireOnlyMember("values", of: "arrayValue", key: key, seen: &sawValues, at: parser.index)
                try parser.expect(UInt8(ascii: "["), "'['")
                parser.skipWhitespace()
                if parser.index < parser.count && parser.byte(parser.index) == UInt8(ascii: "]") {
                    parser.index += 1
                    return
                }
                while true {
                    parser.skipWhitespace()
                    do throws(FirePackError) {
                        elements.append(try parser.parseTypedValue(depth: depth + 1))
                    } catch {
                        throw error.prefixingPath(with: .index(elements.count)).prefixingPath(with: .key("values"))
                    }
                    parser.skipWhitespace()
                    guard parser.index < parser.count else {
                        throw FirePackError(.truncated, offset: parser.index, "input ends inside an array")
                    }
                    let separator = parser.byte(parser.index)
                    parser.index += 1
                    if separator == UInt8(ascii: "]") { return }
                    guard separator == UInt8(ascii: ",") else {
                        throw parser.fail("expected ',' or ']'", at: parser.index - 1)
                    }
                }
            }
            return .array(elements)
        case "mapValue":
            var map = MapValue()
            var sawFields = false
            try parseObjectMembers { (parser, key) throws(FirePackError) in
                try Self.requireOnlyMember("fields", of: "mapValue", key: key, seen: &sawFields, at: parser.index)
                map = try parser.parseTypedFields(depth: depth + 1)
            }
            return FirestoreVectorForm.vector(in: map).map(Value.vector) ?? .map(map)
        default:
            throw FirePackError(.invalidJSON, offset: payloadOffset, "unknown Firestore value \(kind.debugDescription)")
        }
    }

    /// Throws unless `key` is `member`, seen for the first time: `arrayValue` holds only `values` and `mapValue` only
    /// `fields`, and anything else would be dropped in silence.
    static func requireOnlyMember(_ member: String, of container: String, key: String, seen: inout Bool, at offset: Int)
        throws(FirePackError)
    {
        guard key == member else {
            throw FirePackError(
                .invalidJSON, offset: offset,
                "unknown member \(key.debugDescription) in \(container): it has only \(member)", path: [.key(key)])
        }
        guard !seen else {
            throw FirePackError(.duplicateKey, offset: offset, "\(container) has \(member) twice", path: [.key(key)])
        }
        seen = true
    }

    /// `{"name": typedValue, …}` as a map (a repeated key is an error).
    mutating func parseTypedFields(depth: Int) throws(FirePackError) -> MapValue {
        var map = MapValue()
        try parseObjectMembers { (parser, key) throws(FirePackError) in
            let keyOffset = parser.index
            let value: Value
            do throws(FirePackError) { value = try parser.parseTypedValue(depth: depth) } catch {
                throw error.prefixingPath(with: .key(key)).prefixingPath(with: .key("fields"))
            }
            guard map[key] == nil else {
                throw FirePackError(.duplicateKey, offset: keyOffset, "key \(key.debugDescription) appears twice")
            }
            map[key] = value
        }
        return map
    }

    mutating func parseStringPayload() throws(FirePackError) -> String {
        guard index < count, byte(index) == UInt8(ascii: "\"") else { throw fail("expected a string") }
        return try parseString()
    }

    /// Calls `member` for each key of the object at the cursor, positioned at the key's value.
    mutating func parseObjectMembers(_ member: (inout JSONParser, String) throws(FirePackError) -> Void)
        throws(FirePackError)
    {
        try expect(UInt8(ascii: "{"), "'{'")
        skipWhitespace()
        if index < count && byte(index) == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard index < count, byte(index) == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "':'")
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            guard index < count else { throw FirePackError(.truncated, offset: index, "input ends inside an object") }
            let separator = byte(index)
            index += 1
            if separator == UInt8(ascii: "}") { return }
            guard separator == UInt8(ascii: ",") else { throw fail("expected ',' or '}'", at: index - 1) }
        }
    }
}

/// The REST typed form written straight into the JSON output from FirePack bytes (`FirestoreFormsFromBytes`).
extension JSONTextWriter {
    /// Writes the value at the cursor in the typed form and moves past it; `place` is where it is, for errors.
    mutating func writeTyped(_ reader: inout FirePackReader, at place: inout ValuePlace) throws(FirePackError) {
        switch try reader.peekType() {
        case .null:
            _ = try reader.readNull()
            append(#"{"nullValue":null}"#)
        case .boolean: append(try reader.readBoolean() ? #"{"booleanValue":true}"# : #"{"booleanValue":false}"#)
        case .integer:
            append(#"{"integerValue":""#)
            writeInteger(try reader.readInteger())
            append(#""}"#)
        case .double: try writeTypedDouble(try reader.readDouble(), at: place)
        case .timestamp:
            append(#"{"timestampValue":"#)
            try reader.readTimestamp().withRFC3339Bytes { writeString(utf8: $0) }
            append("}")
        case .string:
            append(#"{"stringValue":"#)
            writeString(utf8: try reader.readString().utf8)
            append("}")
        case .bytes:
            append(#"{"bytesValue":"#)
            writeBase64(try reader.readBytes().bytes)
            append("}")
        case .reference:
            append(#"{"referenceValue":"#)
            writeString(try reader.readReference().path)
            append("}")
        case .geoPoint:
            let point = try reader.readGeoPoint()
            append(#"{"geoPointValue":{"latitude":"#)
            append(point.latitude.description)
            append(#","longitude":"#)
            append(point.longitude.description)
            append("}}")
        case .array:
            let array = try reader.enterArray()
            guard array.count > 0 else {
                try reader.exitArray(array)
                append(#"{"arrayValue":{}}"#)
                return
            }
            append(#"{"arrayValue":{"values":["#)
            for index in 0..<array.count {
                try checkLimit("the JSON text")
                if index > 0 { output.pointee.append(UInt8(ascii: ",")) }
                place.enter(index: index)
                try writeTyped(&reader, at: &place)
                place.leave()
            }
            try reader.exitArray(array)
            append("]}}")
        case .map:
            try FirestoreVectorForm.checkWritableAsMap(reader, place: place)
            var peek = reader
            guard try peek.enterMap().count > 0 else {
                try reader.skipValue()
                append(#"{"mapValue":{}}"#)
                return
            }
            append(#"{"mapValue":{"fields":"#)
            try writeTypedFields(&reader, at: &place)
            append("}}")
        case .vector:
            let vector = try reader.readVector()
            append(#"{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"value":{"arrayValue":{"values":["#)
            for index in 0..<vector.count {
                try checkLimit("the JSON text")
                if index > 0 { output.pointee.append(UInt8(ascii: ",")) }
                place.enter(index: index)
                try writeTypedDouble(vector[index], at: place)
                place.leave()
            }
            append("]}}}}}")
        case .serverTimestamp:
            guard let time = place.serverTime else { throw place.serverTimestampError("Firestore REST value form") }
            try reader.skipValue()
            append(#"{"timestampValue":"#)
            time.withRFC3339Bytes { writeString(utf8: $0) }
            append("}")
        }
    }

    /// A double: `"NaN"` is the default NaN of either sign (0/0 gives the negative one on x86); another's payload
    /// would be lost without a word.
    mutating func writeTypedDouble(_ double: Double, at place: ValuePlace) throws(FirePackError) {
        if double.isNaN && double.bitPattern & ~(1 << 63) != Double.nan.bitPattern {
            throw FirePackError(
                .invalidValue,
                "a NaN of bits 0x\(String(double.bitPattern, radix: 16, uppercase: true)), whose payload Firestore "
                    + "REST JSON's \"NaN\" cannot hold (FirePack's JSON and Firestore protobuf keep its bits)",
                path: place.path)
        }
        append(#"{"doubleValue":"#)
        if double.isNaN {
            append(#""NaN""#)
        } else if double.isInfinite {
            append(double < 0 ? #""-Infinity""# : #""Infinity""#)
        } else {
            append(double.description)
        }
        append("}")
    }

    /// Writes the map at the cursor as an object of typed values and moves past it.
    mutating func writeTypedFields(_ reader: inout FirePackReader, at place: inout ValuePlace) throws(FirePackError) {
        let map = try reader.enterMap()
        output.pointee.append(UInt8(ascii: "{"))
        for index in 0..<map.count {
            try checkLimit("the JSON text")
            if index > 0 { output.pointee.append(UInt8(ascii: ",")) }
            let key = try reader.readKey()
            writeString(utf8: key.utf8)
            output.pointee.append(UInt8(ascii: ":"))
            place.enter(key: key)
            try writeTyped(&reader, at: &place)
            place.leave()
        }
        try reader.exitMap(map)
        output.pointee.append(UInt8(ascii: "}"))
    }
}

extension JSONParser {
    /// The bytes of a proto3 JSON `bytes` field: standard or URL-safe base64, with or without padding, as proto3 JSON
    /// parsers accept it (protobuf.dev, "JSON Mapping"); nil when it is none of these.
    static func protoJSONBase64(_ text: String) -> Data? {
        if let data = Data(base64Encoded: text) { return data }
        var standard = String(text.unicodeScalars.map { $0 == "-" ? "+" : $0 == "_" ? "/" : Character($0) })
        switch standard.utf8.count % 4 {
        case 0: break
        case 1: return nil
        case let remainder: standard += String(repeating: "=", count: 4 - remainder)
        }
        return Data(base64Encoded: standard)
    }
}
