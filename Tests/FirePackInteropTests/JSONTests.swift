import Foundation
import Testing
import FirePackTestSupport
import FirePack
@testable import FirePackInterop

@Suite("JSON")
struct JSONTests {
    @Test func numbersBecomeIntegersOrDoubles() throws {
        let value = try Value(json: #"[0, -0, 42, -9223372036854775808, 9223372036854775807, 1.0, -0.0, 1e2, 2.5E-3, 0.1]"#)
        // `-0` is the double −0.0 (its sign kept, as Firestore's JavaScript SDK stores it), not the integer 0.
        #expect(value == [0, .double(-0.0), 42, .integer(.min), .integer(.max), 1.0, -0.0, 100.0, 0.0025, 0.1])
        for index in [1, 6] {
            guard case .double(let negativeZero) = value[index] else { Issue.record("not a double"); return }
            #expect(negativeZero.sign == .minus)
        }
    }

    /// No digit is lost silently: integers outside Int64 are an error naming where, unless doubles are asked for.
    @Test func integersOutsideInt64() throws {
        for (text, offset, path) in [(#"{"big": 18446744073709551615}"#, 8, "$.big"), (#"[1, -9223372036854775809]"#, 4, "$[1]"),
                                     ("9223372036854775808", 0, "$")] {
            do {
                _ = try Value(json: text)
                Issue.record("\(text) read without an error")
            } catch {
                #expect(error.code == .invalidJSON && error.offset == offset && error.pathDescription == path, "\(error)")
                #expect(error.message.contains("outside Int64"))
            }
        }
        let doubles = try Value(json: #"{"big": 18446744073709551615}"#, options: JSONOptions(largeIntegers: .asDoubles))
        #expect(doubles["big"] == .double(18_446_744_073_709_551_615.0))
    }

    @Test func byteOrderMarkIsSkipped() throws {
        #expect(try Value(json: [0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8)) == ["a": 1])
        // Only at the start.
        #expect(throws: FirePackError.self) { try Value(json: Array("[1,".utf8) + [0xEF, 0xBB, 0xBF] + Array("2]".utf8)) }
    }

    @Test func stringsAndEscapes() throws {
        let value = try Value(json: #"{"a\"b": "line\nbreak \u00e9 \ud83d\ude00 \/ \\ \t", "plain": "héllo"}"#)
        #expect(value["a\"b"] == "line\nbreak é 😀 / \\ \t")
        #expect(value["plain"] == "héllo")
        let round = try Value(json: value.jsonBytes())
        #expect(round == value)
        #expect(Value.string("\u{1}\"").jsonString() == #""\u0001\"""#)
    }

    @Test func reversibleFormIsLossless() throws {
        var generator = RandomValuesForJSON(seed: 11)
        for index in 0..<300 {
            let value = generator.value()
            let text = value.jsonBytes()
            let back = try Value(json: text)
            #expect(back == value, "case \(index): \(String(decoding: text, as: UTF8.self))")
            let pretty = try Value(json: value.jsonBytes(options: JSONOptions(pretty: true)))
            #expect(pretty == value)
        }
    }

    @Test func markersAndTheirEscape() throws {
        let value: Value = ["t": .timestamp(Timestamp(seconds: 1_412_262_083, nanoseconds: 45_123_456)),
                            "g": .geoPoint(GeoPoint(latitude: 37.4, longitude: -122.1)), "r": .reference(try DocumentReference(path: "books/b")),
                            "b": .bytes(Data([0, 255])), "v": .vector(VectorValue([1, 0.5])), "s": .serverTimestamp,
                            "n": .double(.nan), "i": .double(-.infinity), "looksLikeAMarker": ["__bytes__": "not base64!"]]
        let text = value.jsonString()
        #expect(text == #"{"t":{"__timestamp__":"2014-10-02T15:01:23.045123456Z"},"g":{"__geopoint__":[37.4,-122.1]},"r":{"__reference__":"books/b"},"b":{"__bytes__":"AP8="},"v":{"__vector__":[1.0,0.5]},"s":{"__serverTimestamp__":true},"n":{"__double__":"NaN"},"i":{"__double__":"-Infinity"},"looksLikeAMarker":{"__map__":{"__bytes__":"not base64!"}}}"#)
        #expect(try Value(json: text) == value)
        let plain = value.jsonString(options: JSONOptions(form: .plain))
        #expect(plain == #"{"t":"2014-10-02T15:01:23.045123456Z","g":{"latitude":37.4,"longitude":-122.1},"r":"books/b","b":"AP8=","v":[1.0,0.5],"s":null,"n":null,"i":null,"looksLikeAMarker":{"__bytes__":"not base64!"}}"#)
    }

    /// A map whose first key is `__map__` among others is not an escape: its first value is read as an ordinary
    /// one, markers and escapes inside it included (it was read as an escape's object, then decoded once more).
    @Test func aFirstKeyThatIsTheEscapeAmongOthers() throws {
        let values: [Value] = [
            ["f": ["__map__": ["__map__": ["a": 1]], "x": 1]],
            ["f": ["__map__": ["__bytes__": "AA=="], "x": 1]],
            ["__map__": ["__timestamp__": "not a time"], "y": 2],
            ["__map__": ["__map__": ["__map__": 1]], "z": .null],
            ["__map__": .bytes(Data([1])), "b": ["__map__": ["__map__": .timestamp(Timestamp(seconds: 1, nanoseconds: 2))]]],
        ]
        for value in values {
            for options in [JSONOptions(), JSONOptions(pretty: true), JSONOptions(sortedKeys: true)] {
                let text = value.jsonBytes(options: options)
                #expect(try Value(json: text) == value, "\(String(decoding: text, as: UTF8.self))")
            }
        }
        // Written by hand: the escape's object read again as an ordinary value, so a marker in it is one.
        #expect(try Value(json: Array(#"{"__map__":{"__bytes__":"AQ=="},"x":1}"#.utf8)) == ["__map__": .bytes(Data([1])), "x": 1])
    }

    /// Objects whose first key is a marker, nested within one another: each value is read once (reading an escape's
    /// object both ways doubled the time per level), and nesting past the limit is refused, never a crash.
    @Test func nestedMarkersAreReadOnceAndBounded() throws {
        let levels = 60
        let nested = String(repeating: #"{"__map__":"#, count: levels) + "{}" + String(repeating: #","k":1}"#, count: levels)
        var expected: Value = [:]
        for _ in 0..<levels { expected = ["__map__": expected, "k": 1] }
        #expect(try Value(json: Array(nested.utf8), options: JSONOptions(maxDepth: 100)) == expected)
        let escapes = String(repeating: #"{"__map__":"#, count: 30) + #"{"a":1}"# + String(repeating: "}", count: 30)
        #expect(try Value(json: Array(escapes.utf8)) != nil)
        for marker in ["__double__", "__map__", "__geopoint__"] {
            let deep = String(repeating: #"{"\#(marker)":"#, count: 100_000) + "1" + String(repeating: "}", count: 100_000)
            #expect(throws: FirePackError.self, "\(marker)") { try Value(json: Array(deep.utf8)) }
        }
    }

    /// Whether a key follows an escape's object is found by a scan of that object; an escape nested in it is answered
    /// from the same scan, so that escapes within escapes cost one pass over the text, not one per level.
    @Test func nestedEscapesAreScannedOnce() throws {
        // Maps whose first key is `__map__` (another key follows), and escapes within escapes (none follows).
        let maps = String(repeating: #"{"__map__":"#, count: 95) + #"{"a":[1,{"b":"}"}]}"#
            + String(repeating: #" , "k" : 1}"#, count: 95)
        let escapes = String(repeating: #"{"__map__": "#, count: 190) + "{}" + String(repeating: "}", count: 190)
        // A marker's key may be spelled with escapes: `\u005f` is `_`.
        let spelled = maps.replacingOccurrences(of: #""__map__""#, with: #""\u005f_map__""#)
        for text in [maps, escapes, spelled] {
            let bytes = Array(text.utf8)
            var scanned = 0
            let value = try bytes.withUnsafeBytes { buffer in
                var parser = JSONParser(base: buffer.baseAddress!, count: buffer.count, maxDepth: 100)
                defer { scanned = parser.scannedFollows.scannedBytes }
                return try parser.parseDocument()
            }
            #expect(value == (try Value(json: bytes)))
            #expect(scanned > 0)
            #expect(scanned <= bytes.count, "\(scanned) bytes scanned")
        }
        var expected: Value = ["a": [1, ["b": "}"]]]
        for _ in 0..<95 { expected = ["__map__": expected, "k": 1] }
        #expect(try Value(json: Array(maps.utf8)) == expected)
        #expect(try Value(json: Array(spelled.utf8)) == expected)
        var escaped: Value = [:]
        for _ in 0..<95 { escaped = ["__map__": escaped] }
        #expect(try Value(json: Array(escapes.utf8)) == escaped)
    }

    @Test func prettyAndSorted() throws {
        let value: Value = ["b": [1, 2], "a": [:]]
        #expect(value.jsonString(options: JSONOptions(pretty: true, sortedKeys: true)) == "{\n  \"a\": {},\n  \"b\": [\n    1,\n    2\n  ]\n}")
    }

    @Test func malformedJSONNamesOffsetAndPath() {
        func fails(_ text: String, _ code: FirePackError.Code, offset: Int? = nil, path: String? = nil,
                   sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try Value(json: text)
                Issue.record("expected \(code) for \(text)", sourceLocation: sourceLocation)
            } catch {
                #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
                if let offset { #expect(error.offset == offset, "\(error)", sourceLocation: sourceLocation) }
                if let path { #expect(error.pathDescription == path, "\(error)", sourceLocation: sourceLocation) }
            }
        }
        fails("", .truncated, offset: 0)
        fails("[1, 2", .truncated, offset: 5)
        fails(#"{"a": [1, {"b": tru}]}"#, .invalidJSON, offset: 16, path: "$.a[1].b")
        fails(#"{"a": 1, "a": 2}"#, .duplicateKey, offset: 9)
        fails("[01]", .invalidJSON)
        fails("1 2", .trailingBytes, offset: 2)
        fails("\"\u{1}\"", .invalidJSON)
        fails(#""\ud800""#, .invalidUTF8)
        fails("1e999", .invalidJSON)
        fails(#"{"__timestamp__": "yesterday"}"#, .invalidJSON)
        fails(String(repeating: "[", count: 101) + String(repeating: "]", count: 101), .depthLimitExceeded)
        do {
            _ = try Value(json: [0x22, 0xC3, 0x28, 0x22])
            Issue.record("invalid UTF-8 accepted")
        } catch {
            #expect(error.code == .invalidUTF8 && error.offset == 1)
        }
    }

    @Test("corpus files round-trip JSON → Value → FirePack → Value → JSON → Value", arguments: CorpusFiles.names)
    func corpusRoundTrip(name: String) throws {
        guard CorpusFiles.isAvailable else {
            print(CorpusFiles.skipMessage)
            return
        }
        let json = try CorpusFiles.load(name)
        let value = try Value(json: json)
        let packed = value.firePackBytes()
        let unpacked = try Value(firePackBytes: packed)
        #expect(unpacked == value)
        #expect(try Value(json: unpacked.jsonBytes()) == value)
        #expect(packed.count < json.count)
        #expect(Value.firestoreCompare(try Value(firePackBytes: value.firePackBytes(deterministic: true)), value) == 0)
    }

    @Test("twitter.json keeps its 64-bit ids exact")
    func twitterIDs() throws {
        guard CorpusFiles.isAvailable else { print(CorpusFiles.skipMessage); return }
        let value = try Value(json: CorpusFiles.load("twitter.json"))
        guard case .array(let statuses) = value["statuses"] else { Issue.record("no statuses"); return }
        #expect(statuses.count == 100)
        for status in statuses {
            guard case .integer(let id) = status["id"], case .string(let idString) = status["id_str"] else {
                Issue.record("id is not an integer"); continue
            }
            #expect(String(id) == idString)
        }
    }
}

/// Random values for JSON round trips (JSON's reversible form covers every FirePack type).
struct RandomValuesForJSON {
    var rng: SeededGenerator
    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func value(depth: Int = 0) -> Value {
        let pick = Int.random(in: 0..<(depth < 3 ? 15 : 13), using: &rng)
        switch pick {
        case 0: return .null
        case 1: return .boolean(Bool.random(using: &rng))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &rng))
        case 3: return .double(Double(bitPattern: rng.next()))
        case 4: return .double([0.1, -0.0, 1e300, .leastNonzeroMagnitude, .nan, .infinity, 1.0, 1e16][Int.random(in: 0..<8, using: &rng)])
        case 5: return .timestamp(Timestamp(seconds: Int64.random(in: -62_135_596_800...253_402_300_799, using: &rng),
                                                 nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &rng)))
        case 6: return .string(["", "a", "é\"\\\n\u{0}", "😀 日本", "__bytes__"][Int.random(in: 0..<5, using: &rng)])
        case 7: return .bytes(Data((0..<Int.random(in: 0..<20, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 8: return .reference(try! DocumentReference(path: "c/d\(Int.random(in: 0..<9, using: &rng))"))
        case 9: return .geoPoint(GeoPoint(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng)))
        case 10: return .vector(VectorValue((0..<Int.random(in: 0..<4, using: &rng)).map { _ in Double(bitPattern: rng.next()) }))
        case 11: return .serverTimestamp
        case 12: return .double(Double(bitPattern: 0x7FF8_0000_0000_0000 | UInt64.random(in: 1...0xFFFF, using: &rng)))
        case 13: return .array((0..<Int.random(in: 0..<5, using: &rng)).map { _ in value(depth: depth + 1) })
        default:
            var map = MapValue()
            for _ in 0..<Int.random(in: 0..<5, using: &rng) {
                map[["id", "__timestamp__", "__map__", "x", "ключ"][Int.random(in: 0..<5, using: &rng)]] = value(depth: depth + 1)
            }
            return .map(map)
        }
    }
}


@Suite("Reversible JSON and Value's Codable form")
struct ReversibleFormsTests {
    /// One list of markers: what Value's Codable form writes through JSONEncoder, FirePack's JSON reader reads back,
    /// and the other way round, including `__double__` and maps whose only key looks like a marker.
    @Test func bothFormsAgree() throws {
        let values: [Value] = [
            ["__double__": 1], ["__map__": 2], ["__timestamp__": "not a time"], .double(.nan), .double(-.infinity),
            .double(Double(bitPattern: 0x7FF0_0000_0000_0001)), [.double(.infinity), ["k": .double(.nan)]],
            .timestamp(Timestamp(seconds: 5, nanoseconds: 6)), .bytes(Data([1, 2])), .serverTimestamp,
        ]
        for value in values {
            #expect(try Value(json: JSONEncoder().encode(value)) == value, "\(value)")
            #expect(try JSONDecoder().decode(Value.self, from: Data(value.jsonBytes())) == value, "\(value)")
        }
    }
}
