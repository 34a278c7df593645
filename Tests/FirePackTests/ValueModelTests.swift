import Foundation
import Testing
import FirePackTestSupport
@testable import FirePack

@Suite("Value model")
struct ValueModelTests {
    @Test func timestampValidation() throws {
        #expect(throws: FirePackError.self) { try Timestamp(validatingSeconds: 0, nanoseconds: 1_000_000_000) }
        #expect(throws: FirePackError.self) { try Timestamp(validatingSeconds: 0, nanoseconds: -1) }
        let edge = Timestamp(seconds: 253_402_300_799, nanoseconds: 999_999_999)
        #expect(edge.description == "9999-12-31T23:59:59.999999999Z")
        #expect(Timestamp(seconds: -62_135_596_800, nanoseconds: 0).description == "0001-01-01T00:00:00Z")
        #expect(Timestamp(seconds: 1_412_262_083, nanoseconds: 45_000_000).description == "2014-10-02T15:01:23.045Z")
        #expect(Timestamp(seconds: -1, nanoseconds: 500_000_000).description == "1969-12-31T23:59:59.5Z")
        #expect(Timestamp.firestoreRange.contains(edge))
    }

    @Test func timestampFromDateIsExact() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let timestamp = Timestamp(date: date)
        #expect(timestamp.seconds == 1_700_000_000)
        #expect(timestamp.nanoseconds == 250_000_000)
        #expect(timestamp.dateValue() == date)
        let before = Timestamp(date: Date(timeIntervalSince1970: -0.75))
        #expect(before.seconds == -1 && before.nanoseconds == 250_000_000)
        #expect(Timestamp(date: Date(timeIntervalSince1970: .infinity)).seconds == .max)
        let now = Timestamp()
        #expect(abs(now.dateValue().timeIntervalSinceNow) < 5)
    }

    @Test func timestampOrderingAndCoding() throws {
        let a = Timestamp(seconds: 10, nanoseconds: 5), b = Timestamp(seconds: 10, nanoseconds: 6)
        #expect(a < b && !(b < a))
        let json = try JSONEncoder().encode(a)
        #expect(String(decoding: json, as: UTF8.self).contains("\"nanoseconds\":5"))
        #expect(try JSONDecoder().decode(Timestamp.self, from: json) == a)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Timestamp.self, from: Data(#"{"seconds":1,"nanoseconds":-3}"#.utf8)) }
    }

    @Test func geoPointValidation() throws {
        #expect(throws: FirePackError.self) { try GeoPoint(validatingLatitude: 91, longitude: 0) }
        #expect(throws: FirePackError.self) { try GeoPoint(validatingLatitude: 0, longitude: -180.5) }
        #expect(throws: FirePackError.self) { try GeoPoint(validatingLatitude: .nan, longitude: 0) }
        let point = GeoPoint(latitude: -90, longitude: 180)
        #expect(try JSONDecoder().decode(GeoPoint.self, from: JSONEncoder().encode(point)) == point)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(GeoPoint.self, from: Data(#"{"latitude":100,"longitude":0}"#.utf8)) }
    }

    @Test func documentReferences() throws {
        let relative = try DocumentReference(path: "books/hitchhiker")
        #expect(relative.documentID == "hitchhiker" && relative.parent.path == "books")
        let full = try DocumentReference(path: "projects/p/databases/(default)/documents/books/hitchhiker/reviews/r1")
        #expect(full.documentID == "r1" && full.parent.path == "projects/p/databases/(default)/documents/books/hitchhiker/reviews")
        for bad in ["", "books", "books//x", "/books/x", "books/x/", "projects/p/databases/d/documents", "a/b/c"] {
            #expect(throws: FirePackError.self, "\(bad)") { try DocumentReference(path: bad) }
        }
        #expect(try DocumentReference(path: "a/b") < DocumentReference(path: "a/b/c/d"))
        #expect(try DocumentReference(path: "a/b") < DocumentReference(path: "aa/b"))
    }

    @Test func vectorsCompareBitForBit() {
        #expect(VectorValue([.nan]) == VectorValue([.nan]))
        #expect(VectorValue([0.0]) != VectorValue([-0.0]))
        #expect(Set([VectorValue([1, 2]), VectorValue([1, 2])]).count == 1)
    }

    @Test func literalsSubscriptsAndDescription() throws {
        let value: Value = ["title": "Dune", "pages": 412, "rating": 4.5, "tags": ["sf", nil, true],
                            "at": .timestamp(Timestamp(seconds: 0, nanoseconds: 0)), "where": .geoPoint(GeoPoint(latitude: 1, longitude: 2)),
                            "ref": .reference(try DocumentReference(path: "a/b")), "raw": .bytes(Data([0xAB])), "v": .vector(VectorValue([1])),
                            "pending": .serverTimestamp]
        #expect(value["title"] == "Dune")
        #expect(value["tags"]?[1] == .null)
        #expect(value["tags"]?[3] == nil)
        #expect(value["missing"] == nil)
        #expect(value[0] == nil)
        #expect(value.description == #"{"title": "Dune", "pages": 412, "rating": 4.5, "tags": ["sf", null, true], "at": timestamp(1970-01-01T00:00:00Z), "where": geopoint(1.0, 2.0), "ref": reference(a/b), "raw": bytes(ab), "v": vector([1.0]), "pending": serverTimestamp}"#)
        #expect(value.type == .map)
    }

    @Test func mapsKeepOrderAndCompareKeysByBytes() {
        var map: MapValue = ["b": 1, "a": 2]
        map["c"] = 3
        map["b"] = 4
        #expect(map.keys == ["b", "a", "c"])
        #expect(map["b"] == 4)
        map["a"] = nil
        #expect(map.keys == ["b", "c"])
        // Canonically equivalent but different bytes: two distinct keys, as in Firestore.
        var unicode = MapValue()
        unicode["\u{E9}"] = 1
        unicode["e\u{301}"] = 2
        #expect(unicode.count == 2)
        #expect(Value.string("\u{E9}") != Value.string("e\u{301}"))
        // Large maps use an index; behaviour is identical.
        var large = MapValue()
        for index in 0..<100 { large["k\(index)"] = .integer(Int64(index)) }
        large["k5"] = nil
        #expect(large.count == 99 && large["k6"] == 6 && large["k5"] == nil && large.position(ofKey: "k99") == 98)
        #expect((["a": 1, "b": 2] as MapValue) != (["b": 2, "a": 1] as MapValue))
    }

    @Test func firestoreTypeOrder() throws {
        let ordered: [Value] = [nil, false, true, .double(.nan), -5, 1, 1.5, 2, .timestamp(Timestamp(seconds: 0, nanoseconds: 0)),
                                .serverTimestamp, "", "a", "b", .bytes(Data()), .bytes(Data([0])), .reference(try DocumentReference(path: "a/b")),
                                .geoPoint(GeoPoint(latitude: 0, longitude: 0)), [], [1], .vector(VectorValue([9])),
                                .vector(VectorValue([0, 0])), [:], ["a": 1]]
        for (i, a) in ordered.enumerated() {
            for (j, b) in ordered.enumerated() {
                #expect((a < b) == (i < j), "\(a) vs \(b)")
            }
        }
    }

    @Test func numbersCompareExactlyAndTieBreakConsistently() {
        #expect(Value.firestoreCompare(1, 1.0) == 0)
        #expect(Value.integer(1) < .double(1.0) && !(Value.double(1.0) < .integer(1)))
        #expect(Value.integer(.max) < .double(9_223_372_036_854_775_808.0))
        #expect(Value.integer(9_007_199_254_740_993) > .double(9_007_199_254_740_992.0))
        #expect(Value.double(-0.0) < .double(0.0) || Value.double(0.0) < .double(-0.0))
        #expect(Value.firestoreCompare(.double(-0.0), .double(0.0)) == 0)
        #expect(Value.firestoreCompare(["a": 1, "b": 2], ["b": 2, "a": 1]) == 0)
    }

    @Test("< is a strict total order consistent with == on random values")
    func totalOrder() {
        var generator = RandomValues(seed: 77)
        generator.maxDepth = 2
        let values = (0..<150).map { _ in generator.value() }
        for a in values {
            for b in values {
                let outcomes = [a < b, b < a, a == b].filter { $0 }.count
                #expect(outcomes == 1, "\(a) vs \(b)")
            }
        }
        let sorted = values.sorted()
        for (a, b) in zip(sorted, sorted.dropFirst()) { #expect(!(b < a)) }
    }

    @Test func hashingMatchesEquality() {
        let nan = Value.double(Double(bitPattern: 0x7FF8_0000_0000_0042))
        #expect(Set([nan, nan, .double(0.0), .double(-0.0)]).count == 3)
        #expect(Set<Value>([["a": 1], ["a": 1]]).count == 1)
    }
}
