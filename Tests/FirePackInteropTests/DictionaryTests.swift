import Foundation
import Testing
import FirePack
@testable import FirePackInterop

@Suite("Dictionary path")
struct DictionaryTests {
    struct Book: Codable, Equatable {
        @DocumentID var id: String?
        var title: String
        var pages: Int
        var published: Date
        var location: GeoPoint?
        var tags: [String]
        @ServerTimestamp var updatedAt: Timestamp?
        @ExplicitNull var deletedAt: Date?
        var ratings: [String: Double]
    }

    let book = Book(id: nil, title: "Dune", pages: 412, published: Date(timeIntervalSince1970: 1_000_000_000.25),
                    location: GeoPoint(latitude: 1, longitude: 2), tags: ["sf"], updatedAt: nil, deletedAt: nil,
                    ratings: ["critics": 4.5])

    @Test func representationOfEveryType() throws {
        let value: Value = ["null": nil, "b": true, "i": 7, "d": 1.5, "t": .timestamp(Timestamp(seconds: 1, nanoseconds: 2)),
                            "s": "x", "bytes": .bytes(Data([1])), "r": .reference(try DocumentReference(path: "a/b")),
                            "g": .geoPoint(GeoPoint(latitude: 3, longitude: 4)), "v": .vector(VectorValue([1])),
                            "pending": .serverTimestamp, "a": [1, "two"], "m": ["k": false]]
        let any = try #require(value.anyValue as? [String: Any])
        #expect(any["null"] is NSNull)
        #expect(any["i"] as? Int64 == 7)
        #expect(any["b"] as? Bool == true)
        #expect(any["pending"] is ServerTimestampSentinel)
        #expect(any["t"] as? Timestamp == (Timestamp(seconds: 1, nanoseconds: 2)))
        #expect(Value.firestoreCompare(try Value(any: any), value) == 0)
    }

    @Test("keys a Swift dictionary takes for one are refused by the checked conversions, with their path")
    func canonicallyEquivalentKeys() throws {
        let composed = "caf\u{e9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed && !composed.utf8.elementsEqual(decomposed.utf8))
        let map = MapValue([(composed, Value.integer(1)), (decomposed, Value.integer(2))])
        #expect(map.count == 2, "FirePack compares keys by their bytes")
        let value: Value = ["outer": [.map(map)]]
        let error = #expect(throws: FirePackError.self) { try value.checkedAnyValue() }
        #expect(error?.code == .duplicateKey && error?.path == [.key("outer"), .index(0), .key(decomposed)])
        #expect(error?.message.contains("Unicode normalization") == true)
        // Without such keys, the checked conversion is `anyValue`.
        let plain: Value = ["a": [1, ["b": "c"]]]
        let checked = try #require(try plain.checkedAnyValue() as? [String: Any])
        #expect(try Value(any: checked) == plain)

        struct Scores: Encodable { var byName: [String: Int] }
        struct Keys: Encodable {
            enum CodingKeys: String, CodingKey { case a = "caf\u{e9}", b = "cafe\u{301}" }
            var a = 1, b = 2
        }
        #expect(throws: FirePackError.self) { try DictionaryEncoder().encode(Keys()) }
        let encoded = try DictionaryEncoder().encode(Scores(byName: ["x": 1]))
        #expect((encoded["byName"] as? [String: Any])?["x"] as? Int64 == 1)
    }

    @Test func jsonSerializationOutputConvertsWithTheRightTypes() throws {
        let object = try JSONSerialization.jsonObject(with: Data(#"{"t": true, "one": 1, "zero": 0, "d": 1.5, "e": 1e2, "big": 9007199254740993, "neg": -3, "s": "x", "a": [null]}"#.utf8))
        let value = try Value(any: object)
        #expect(value["t"] == true)
        #expect(value["one"] == 1, "1 is an integer, not true")
        #expect(value["zero"] == 0)
        #expect(value["d"] == 1.5)
        #expect(value["e"] == 100.0)
        #expect(value["big"] == .integer(9_007_199_254_740_993))
        #expect(value["neg"] == -3)
        #expect(value["a"] == [nil])
        #expect(try Value(any: [Int32(5), Float(0.5), UInt8(9)]) == [5, 0.5, 9])
        #expect(throws: FirePackError.self) { try Value(any: ["bad": UInt64.max]) }
        do {
            _ = try Value(any: ["list": [1, URL(string: "https://x")!]])
            Issue.record("a URL is not a Firestore value")
        } catch {
            #expect(error.path == [.key("list"), .index(1)])
        }
    }

    @Test func dictionaryCodersHaveFirePacksSemantics() throws {
        let encoder = DictionaryEncoder()
        let dictionary = try encoder.encode(book)
        #expect(dictionary["id"] == nil)
        #expect(dictionary["updatedAt"] is ServerTimestampSentinel)
        #expect(dictionary["deletedAt"] is NSNull)
        #expect(dictionary["published"] as? Timestamp == Timestamp(date: book.published))
        #expect(dictionary["pages"] as? Int64 == 412)
        let reference = try DocumentReference(path: "books/dune")
        let decoded = try DictionaryDecoder().decode(Book.self, from: dictionary, in: reference)
        var expected = book
        expected.id = "dune"
        #expect(decoded == expected)
        // The same strategies apply, through the same options.
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        let snake = try encoder.encode(book)
        #expect(snake["published"] as? Double == 1_000_000_000.25)
        #expect((snake["ratings"] as? [String: Any])?["critics"] as? Double == 4.5)
        #expect(throws: EncodingError.self) { try encoder.encode([1, 2]) }
        #expect(try DictionaryEncoder().encodeToAny([1, 2]) as? [Int64] == [1, 2])
    }

    @Test func dictionaryDecodingErrorsNameThePath() throws {
        var dictionary = try DictionaryEncoder().encode(book)
        dictionary["pages"] = "many"
        do {
            _ = try DictionaryDecoder().decode(Book.self, from: dictionary)
            Issue.record("decoded a string as Int")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["pages"])
        }
        dictionary["pages"] = Set([1])
        #expect(throws: DecodingError.self) { try DictionaryDecoder().decode(Book.self, from: dictionary) }
    }

    @Test("seeded random values round-trip through [String: Any]")
    func randomRoundTrips() throws {
        var generator = RandomValuesForJSON(seed: 31)
        for index in 0..<300 {
            let value = generator.value()
            // Exact (bit for bit, integer vs double) once map order, which [String: Any] cannot keep, is normalised.
            #expect(sortedMaps(try Value(any: value.anyValue)) == sortedMaps(value), "case \(index): \(value)")
        }
    }

    @Test("corpus files round-trip through [String: Any]", arguments: CorpusFiles.names)
    func corpusRoundTrip(name: String) throws {
        guard CorpusFiles.isAvailable else { print(CorpusFiles.skipMessage); return }
        let value = try Value(json: CorpusFiles.load(name))
        #expect(sortedMaps(try Value(any: value.anyValue)) == sortedMaps(value))
        // And as JSONSerialization hands it out: the same values, except that on Linux JSONSerialization does not
        // round decimals correctly (62,860 of canada.json's 111,080 doubles are off, by up to 5 ulps:
        // -65.613616999999977 becomes …96, not the …98 that Double("…") and FirePack's reader give).
        let foundation = try Value(any: JSONSerialization.jsonObject(with: Data(CorpusFiles.load(name))))
        if name == "canada.json" {
            let close = withinULPs(sortedMaps(foundation), sortedMaps(value), 8)
            #expect(close, "JSONSerialization's canada.json differs by more than 8 ulps or in structure")
        } else {
            #expect(sortedMaps(foundation) == sortedMaps(value))
        }
    }

    /// Equal, except that doubles may differ by up to `ulps` units in the last place.
    func withinULPs(_ a: Value, _ b: Value, _ ulps: Int64) -> Bool {
        switch (a, b) {
        case let (.double(x), .double(y)): return abs(Int64(bitPattern: x.bitPattern) &- Int64(bitPattern: y.bitPattern)) <= ulps
        case let (.array(x), .array(y)): return x.count == y.count && zip(x, y).allSatisfy { withinULPs($0, $1, ulps) }
        case let (.map(x), .map(y)): return x.keys == y.keys && zip(x.values, y.values).allSatisfy { withinULPs($0, $1, ulps) }
        default: return a == b
        }
    }

    func sortedMaps(_ value: Value) -> Value {
        switch value {
        case .array(let elements): return .array(elements.map(sortedMaps))
        case .map(let map):
            return .map(MapValue(map.map { ($0.key, sortedMaps($0.value)) }.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }))
        default: return value
        }
    }
}
