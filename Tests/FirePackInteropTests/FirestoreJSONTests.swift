import Foundation
import Testing
import FirePack
@testable import FirePackInterop

@Suite("Firestore REST JSON")
struct FirestoreJSONTests {
    func text(_ value: Value) throws -> String { String(decoding: try value.firestoreJSONBytes(), as: UTF8.self) }

    @Test func everyTypeInItsRESTForm() throws {
        #expect(try text(nil) == #"{"nullValue":null}"#)
        #expect(try text(true) == #"{"booleanValue":true}"#)
        #expect(try text(816) == #"{"integerValue":"816"}"#)
        #expect(try text(.integer(.min)) == #"{"integerValue":"-9223372036854775808"}"#)
        #expect(try text(3.5) == #"{"doubleValue":3.5}"#)
        #expect(try text(.double(.nan)) == #"{"doubleValue":"NaN"}"#)
        #expect(try text(.double(-.infinity)) == #"{"doubleValue":"-Infinity"}"#)
        #expect(try text(.timestamp(Timestamp(seconds: 1_412_262_083, nanoseconds: 45_123_456))) == #"{"timestampValue":"2014-10-02T15:01:23.045123456Z"}"#)
        #expect(try text("hi") == #"{"stringValue":"hi"}"#)
        #expect(try text(.bytes(Data([0, 255]))) == #"{"bytesValue":"AP8="}"#)
        #expect(try text(.reference(try DocumentReference(path: "projects/p/databases/(default)/documents/books/b"))) == #"{"referenceValue":"projects/p/databases/(default)/documents/books/b"}"#)
        #expect(try text(.geoPoint(GeoPoint(latitude: 37.4, longitude: -122.1))) == #"{"geoPointValue":{"latitude":37.4,"longitude":-122.1}}"#)
        #expect(try text([1, "a"]) == #"{"arrayValue":{"values":[{"integerValue":"1"},{"stringValue":"a"}]}}"#)
        #expect(try text([]) == #"{"arrayValue":{}}"#)
        #expect(try text(["k": false]) == #"{"mapValue":{"fields":{"k":{"booleanValue":false}}}}"#)
        #expect(try text(.map([:])) == #"{"mapValue":{}}"#)
        #expect(try text(.vector(VectorValue([1, 0.5]))) == #"{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"value":{"arrayValue":{"values":[{"doubleValue":1.0},{"doubleValue":0.5}]}}}}}"#)
    }

    @Test func readingAcceptsTheAlternatives() throws {
        func read(_ text: String) throws -> Value { try Value(firestoreJSON: Array(text.utf8)) }
        #expect(try read(#"{"integerValue": 42}"#) == 42)
        #expect(try read(#"{"nullValue": "NULL_VALUE"}"#) == nil)
        #expect(try read(#"{"doubleValue": 2}"#) == 2.0)
        // Proto3 JSON's other spelling of a double: a string holding the number's text, read by the same rules.
        #expect(try read(#"{"doubleValue": "65.66"}"#) == 65.66)
        #expect(try read(#"{"doubleValue": "-1.5e3"}"#) == -1500.0)
        #expect(try read(#"{"doubleValue": "2"}"#) == 2.0)
        if case .double(let zero) = try read(#"{"doubleValue": "-0"}"#) { #expect(zero.bitPattern == (-0.0).bitPattern) } else { Issue.record("\"-0\" is not a double") }
        // A doubleValue is a double whatever its text: an integer past Int64 that a double holds exactly reads (1e20,
        // as JavaScript's JSON.stringify and Go write it), bare or as a string; one it would round is refused.
        #expect(try read(#"{"doubleValue": 100000000000000000000}"#) == 1e20)
        #expect(try read(#"{"doubleValue": "-100000000000000000000"}"#) == -1e20)
        #expect(try read(#"{"doubleValue": 18446744073709551616}"#) == 0x1p64)
        for text in ["100000000000000000001", "\"18446744073709551617\"", "9007199254740993"] {
            let error = #expect(throws: FirePackError.self) { try read(#"{"doubleValue": \#(text)}"#) }
            #expect(error?.message.contains("a double cannot hold exactly") == true && error?.offset == 16, "\(text): \(String(describing: error))")
        }
        // A number out of range says why, as the same number written bare does.
        for (text, why) in [("1e400", "out of the range of a double"), ("1e-400", "too small for a double")] {
            let error = #expect(throws: FirePackError.self) { try read(#"{"doubleValue": "\#(text)"}"#) }
            #expect(error?.message.contains(why) == true && error?.offset == 16, "\(text): \(String(describing: error))")
        }
        for text in ["", " 1", "1 ", "+1", "01", "0x10", "1.", ".5", "1e", "inf", "nan", "1e400", "9007199254740993"] {
            let error = #expect(throws: FirePackError.self, "\(text)") {
                try read(#"{"doubleValue": "\#(text)"}"#)
            }
            #expect(error?.code == .invalidJSON && error?.offset == 16, "\(text): \(String(describing: error))")
        }
        #expect(try read(#"{"arrayValue": {}}"#) == [])
        #expect(try read(#"{"mapValue": {"fields": {"__bytes__": {"stringValue": "x"}}}}"#) == ["__bytes__": "x"], "marker-like keys are plain keys here")
        #expect(try read(#"{"timestampValue": "2014-10-02T17:01:23.5+02:00"}"#) == .timestamp(Timestamp(seconds: 1_412_262_083, nanoseconds: 500_000_000)))
    }

    @Test func documentsBothWays() throws {
        let document = Document(reference: try DocumentReference(path: "projects/p/databases/(default)/documents/books/dune"),
                                fields: ["title": "Dune", "pages": 412, "tags": ["sf"]],
                                createTime: Timestamp(seconds: 1, nanoseconds: 500), updateTime: Timestamp(seconds: 2, nanoseconds: 0))
        let bytes = try document.firestoreJSONBytes()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"name":"projects/p/databases/(default)/documents/books/dune","fields":{"title":{"stringValue":"Dune"},"pages":{"integerValue":"412"},"tags":{"arrayValue":{"values":[{"stringValue":"sf"}]}}},"createTime":"1970-01-01T00:00:01.0000005Z","updateTime":"1970-01-01T00:00:02Z"}"#)
        #expect(try Document(firestoreJSON: bytes) == document)
        let pretty = try document.firestoreJSONBytes(pretty: true)
        #expect(try Document(firestoreJSON: pretty) == document)
        let empty = Document(reference: try DocumentReference(path: "a/b"), fields: [:])
        #expect(try Document(firestoreJSON: empty.firestoreJSONBytes()) == empty)
        // Nested as deep as FirePack's readers take (three REST levels each): indented all the same.
        var deep: Value = "leaf"
        for _ in 0..<98 { deep = ["m": deep] }
        let nested = Document(reference: try DocumentReference(path: "a/b"), fields: ["d": deep])
        #expect(try Document(firestoreJSON: nested.firestoreJSONBytes(pretty: true)) == nested)
    }

    /// proto3 JSON's `bytes`: standard or URL-safe base64, padded or not, as its parsers must accept.
    @Test func bytesInEveryBase64FormProto3JSONAllows() throws {
        for text in ["+/8=", "-_8=", "-_8", "AQ", "AQ==", ""] {
            let value = try Value(firestoreJSON: Array(#"{"bytesValue":"\#(text)"}"#.utf8))
            let expected: [UInt8] = text.hasPrefix("+") || text.hasPrefix("-") ? [0xFB, 0xFF] : text.isEmpty ? [] : [1]
            #expect(value == .bytes(Data(expected)), "\(text)")
        }
        for text in ["A", "A===", "!!!!", "A\\u0000"] {
            #expect(throws: FirePackError.self, "\(text)") { try Value(firestoreJSON: Array(#"{"bytesValue":"\#(text)"}"#.utf8)) }
        }
    }

    /// A tree is written through its FirePack bytes: one nested past what FirePack's readers take is refused, said so.
    /// (Made, written and freed on a thread with a large stack: each level is a frame of the recursive tree writers.)
    @Test func aTreeDeeperThanReadersTakeIsRefusedSaidSo() throws {
        final class Outcome: @unchecked Sendable { var errors: [FirePackError?] = [] }
        let outcome = Outcome(), done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var deep: Value = 1
            for _ in 0...ReaderLimits.maximumDepth { deep = [deep] }
            for write in [{ try deep.firestoreJSONBytes() }, { try deep.firestoreProtoBytes() }] as [() throws -> [UInt8]] {
                do {
                    _ = try write()
                    outcome.errors.append(nil)
                } catch {
                    outcome.errors.append(error as? FirePackError)
                }
            }
            deep = 1
            done.signal()
        }
        thread.stackSize = 256 << 20
        thread.start()
        done.wait()
        #expect(outcome.errors.count == 2)
        for error in outcome.errors {
            #expect(error?.code == .depthLimitExceeded && error?.offset == nil
                    && error?.message.contains("nested deeper than 1000 levels") == true, "\(String(describing: error))")
        }
    }

    @Test func serverTimestampsMustBeResolvedFirst() throws {
        #expect(throws: FirePackError.self) { try (["a": [.serverTimestamp]] as Value).firestoreJSONBytes() }
        do {
            _ = try (["a": [.serverTimestamp]] as Value).firestoreJSONBytes()
        } catch {
            #expect(error.path == [.key("a"), .index(0)])
        }
    }

    @Test func malformedInputNamesThePath() {
        func fails(_ text: String, path: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try Value(firestoreJSON: Array(text.utf8))
                Issue.record("accepted \(text)", sourceLocation: sourceLocation)
            } catch {
                #expect(error.pathDescription == path, "\(error)", sourceLocation: sourceLocation)
            }
        }
        fails(#"{"integerValue": "12x"}"#, path: "$.integerValue")
        fails(#"{"integerValue": "99999999999999999999"}"#, path: "$.integerValue")
        fails(#"{"stringValue": "a", "integerValue": "1"}"#, path: "$")
        fails(#"{"mapValue": {"fields": {"k": {"bytesValue": "%%"}}}}"#, path: "$.mapValue.fields.k.bytesValue")
        fails(#"{"arrayValue": {"values": [{"nullValue": null}, {"referenceValue": "books"}]}}"#, path: "$.arrayValue.values[1].referenceValue")
        fails(#"{"geoPointValue": {"latitude": 91, "longitude": 0}}"#, path: "$.geoPointValue")
        fails(#"{"fooValue": 1}"#, path: "$.fooValue")
        fails(#"[1]"#, path: "$")
        #expect(throws: FirePackError.self) { try Document(firestoreJSON: Array(#"{"fields": {}}"#.utf8)) }
        #expect(throws: FirePackError.self) { try Value(firestoreJSON: Array(#"{"stringValue": "#.utf8)) }
    }

    @Test("seeded random values round-trip (NaN payloads become NaN, as in Firestore)")
    func randomRoundTrips() throws {
        var generator = RandomValuesForJSON(seed: 77)
        for index in 0..<400 {
            let value = restRepresentable(generator.value())
            let back = try Value(firestoreJSON: value.firestoreJSONBytes())
            #expect(back == value, "case \(index): \(value)")
        }
    }

    /// REST JSON's "NaN" is one NaN: a NaN of other bits (a payload, a sign) is refused, naming its path, not
    /// written as "NaN" and lost; in a vector too.
    @Test func aNaNWithAPayloadIsRefusedNotLost() throws {
        let payload = Double(bitPattern: 0x7FF8_0000_0000_0001), negativePayload = Double(bitPattern: 0xFFF8_0000_0000_0002)
        for (value, path) in [(Value.map(["d": .double(payload)]), [PathComponent.key("d")]),
                              (["v": .vector(VectorValue([1, negativePayload]))], [.key("v"), .index(1)]),
                              (["a": [1, .double(payload)]], [.key("a"), .index(1)])] {
            let error = #expect(throws: FirePackError.self, "\(value)") { try value.firestoreJSONBytes() }
            #expect(error?.message.contains("cannot hold") == true, "\(String(describing: error))")
            #expect(error?.path == path, "\(String(describing: error))")
        }
        // The default NaN of either sign (0/0 on x86 is the negative one) is "NaN".
        #expect(try text(.double(.nan)) == #"{"doubleValue":"NaN"}"#)
        #expect(try text(.double(-Double.nan)) == #"{"doubleValue":"NaN"}"#)
    }

    @Test("corpus files round-trip through REST JSON", arguments: CorpusFiles.names)
    func corpusRoundTrip(name: String) throws {
        guard CorpusFiles.isAvailable else { print(CorpusFiles.skipMessage); return }
        let value = try Value(json: CorpusFiles.load(name))
        #expect(try Value(firestoreJSON: value.firestoreJSONBytes()) == value)
    }

    /// Replaces what the REST form cannot hold: the server-timestamp sentinel (by null) and NaN payloads.
    func restRepresentable(_ value: Value) -> Value {
        switch value {
        case .serverTimestamp: return .null
        case .double(let double) where double.isNaN: return .double(.nan)
        case .vector(let vector): return .vector(VectorValue(vector.array.map { $0.isNaN ? .nan : $0 }))
        case .array(let elements): return .array(elements.map(restRepresentable))
        case .map(let map): return .map(MapValue(map.map { ($0.key, restRepresentable($0.value)) }))
        default: return value
        }
    }
}

@Suite("Firestore REST JSON: input that ends early")
struct FirestoreJSONTruncationTests {
    /// Every prefix of a document: each one throws (no prefix is a whole document) and names an offset inside the text.
    @Test func everyPrefixOfADocumentThrowsInBounds() {
        let text = Array(#"{"name":"books/b","fields":{"x":{"integerValue":12},"y":{"doubleValue":-1.5e3},"z":{"arrayValue":{"values":[{"integerValue":"7"}]}}}}"#.utf8)
        for length in 0..<text.count {
            let prefix = Array(text[..<length])
            do {
                _ = try Document(firestoreJSON: prefix)
                Issue.record("prefix of \(length) bytes decoded")
            } catch {
                #expect(error.offset.map { $0 <= length } == true, "prefix of \(length) bytes: \(error)")
            }
        }
        #expect(throws: Never.self) { try Document(firestoreJSON: text) }
    }

    @Test func aNumberCutOffAtTheEndIsTruncated() {
        let text = Array(#"{"name":"books/b","fields":{"x":{"integerValue":"#.utf8)
        #expect(throws: FirePackError.self) { try Document(firestoreJSON: text) }
        do { _ = try Document(firestoreJSON: text) } catch {
            #expect(error.code == .truncated)
            #expect(error.offset == text.count)
        }
    }
}

@Suite("Firestore REST JSON: document members")
struct FirestoreJSONDocumentShapeTests {
    @Test func anUnknownMemberIsAnErrorNotDropped() {
        let text = Array(#"{"name":"books/b","fields":{},"extra":1}"#.utf8)
        do {
            _ = try Document(firestoreJSON: text)
            Issue.record("a document with an extra member was accepted")
        } catch {
            #expect(error.code == .invalidDocument)
            #expect(error.path == [.key("extra")])
            #expect(error.offset == 38)
        }
    }

    @Test func fieldsMayBeLeftOutOfAnEmptyDocument() throws {
        let document = try Document(firestoreJSON: Array(#"{"name":"books/b"}"#.utf8))
        #expect(document.fields.isEmpty && document.reference.path == "books/b")
    }
}
