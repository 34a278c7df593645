import Foundation
import Testing
import FirePackTestSupport
@testable import FirePack

@Suite("Codable mapping")
struct CodableMappingTests {
    struct Scalars: Codable, Equatable {
        var string = "s", bool = true, int = Int.min, int8 = Int8.min, int16 = Int16.max, int32 = Int32.min, int64 = Int64.max
        var uint = UInt(Int64.max), uint8 = UInt8.max, uint16 = UInt16.max, uint32 = UInt32.max, uint64 = UInt64(Int64.max)
        var float: Float = 1.5, double = -0.0, decimal = Decimal(string: "12.75")!
    }

    @Test func scalarsOfEveryWidth() throws {
        try assertRoundTrip(Scalars())
        let tree = try Value(firePackBytes: FirePackEncoder().encodeToBytes(Scalars()))
        #expect(tree["uint32"] == .integer(Int64(UInt32.max)))
        #expect(tree["decimal"] == .double(12.75))
        #expect(tree["float"] == .double(1.5))
    }

    @Test func decimalsAreTheDoublesShortestTextOrAnError() throws {
        #expect(try FirePackDecoder().decode(Decimal.self, from: Value.double(65.66).firePackBytes()) == Decimal(string: "65.66")!)
        #expect(try FirePackDecoder().decode(Decimal.self, from: Value.integer(.min).firePackBytes()) == Decimal(Int64.min))
        #expect(try FirePackDecoder().decode(Decimal.self, from: Value.double(.nan).firePackBytes()).isNaN)
        // No infinity in Decimal (Foundation's Decimal(Double) traps on one), and no exponent past about ±128: errors
        // at the value's offset, never a trap, a 0 or a NaN.
        for double in [Double.infinity, -.infinity, 1e300, -1e300, .leastNonzeroMagnitude] {
            guard case .dataCorrupted(let context)? = decodingError(Decimal.self, from: .double(double)) else {
                Issue.record("\(double) decoded as a Decimal")
                continue
            }
            #expect(context.debugDescription.contains("\(double)"), "\(context.debugDescription)")
        }
        struct Price: Codable { var price: Decimal }
        #expect(throws: DecodingError.self) {
            try FirePackDecoder().decode(Price.self, from: Value.map(["price": .double(.infinity)]).firePackBytes())
        }
    }

    @Test func topLevelScalarsAndArrays() throws {
        try assertRoundTrip("hello", expecting: "hello")
        try assertRoundTrip(42, expecting: 42)
        try assertRoundTrip([1, 2, 3], expecting: [1, 2, 3])
        try assertRoundTrip([[1], [2, 3], []], expecting: [[1], [2, 3], []])
        try assertRoundTrip(Optional<Int>.none, expecting: .null)
    }

    @Test func overflowIsAClearErrorBothWays() throws {
        #expect(throws: EncodingError.self) { try FirePackEncoder().encodeToBytes(UInt64.max) }
        #expect(throws: EncodingError.self) { try FirePackEncoder().encodeToBytes(["big": UInt(UInt64(Int64.max) + 1)]) }
        let error = decodingError(Int8.self, from: 300)
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.debugDescription.contains("300") && context.debugDescription.contains("Int8"))
        #expect(decodingError(UInt.self, from: -1) != nil)
    }

    @Test func boolsAndNumbersNeverCoerce() throws {
        guard case .typeMismatch? = decodingError(Bool.self, from: 1) else { Issue.record("Bool from 1"); return }
        guard case .typeMismatch? = decodingError(Int.self, from: true) else { Issue.record("Int from true"); return }
        guard case .typeMismatch? = decodingError(Double.self, from: false) else { Issue.record("Double from false"); return }
        guard case .typeMismatch? = decodingError(String.self, from: 1) else { Issue.record("String from 1"); return }
        #expect(try FirePackDecoder().decode(Int.self, from: Value.double(42.0).firePackBytes()) == 42)
        guard case .dataCorrupted? = decodingError(Int.self, from: 42.5) else { Issue.record("Int from 42.5"); return }
        #expect(try FirePackDecoder().decode(Double.self, from: Value.integer(7).firePackBytes()) == 7.0)
    }

    struct Nested: Codable, Equatable {
        struct Inner: Codable, Equatable { var name: String; var tags: [String] }
        var inner: Inner
        var optional: String?
        var list: [Inner]
        var grid: [[Int]]
        var set: Set<String>
        var byName: [String: Int]
        var byNumber: [Int: String]
        var byGenre: [Genre: Int]
        var statusPairs: [Status: Int]
    }

    @Test func nestedTypesCollectionsAndDictionaries() throws {
        let value = Nested(inner: .init(name: "a", tags: ["x"]), optional: nil, list: [.init(name: "b", tags: []), .init(name: "c", tags: ["y", "z"])],
                           grid: [[1, 2], [], [3]], set: ["only"], byName: ["one": 1, "two": 2], byNumber: [7: "seven"], byGenre: [.scienceFiction: 3], statusPairs: [.draft: 1])
        let bytes = try assertRoundTrip(value)
        let tree = try Value(firePackBytes: bytes)
        #expect(tree["optional"] == nil, "nil optionals are left out")
        #expect(tree["byNumber"] == ["7": "seven"])
        #expect(tree["byGenre"] == ["science fiction": 3], "CodingKeyRepresentable keys make a map")
        #expect(tree["statusPairs"] == ["draft": 1], "raw-valued keys make a map too (Docs/EVOLUTION.md), where Swift's own coding writes a key/value array")
        #expect(tree["set"] == ["only"])
    }

    struct Dates: Codable, Equatable {
        var date: Date
        var dates: [Date]
        var byName: [String: Date]
        var timestamp: Timestamp
        var point: GeoPoint
        var reference: DocumentReference
        var embedding: VectorValue
        var url: URL
        var data: Data
        var id: UUID
    }

    @Test func firestoreAndFoundationTypesAreNativeEverywhere() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let value = Dates(date: date, dates: [date], byName: ["when": date], timestamp: Timestamp(seconds: -5, nanoseconds: 999_999_999),
                          point: GeoPoint(latitude: 51.5, longitude: -0.12), reference: try DocumentReference(path: "books/dune"),
                          embedding: VectorValue([0.25, -1]), url: URL(string: "https://example.com/a?b=c")!, data: Data([0, 1, 255]),
                          id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)
        let tree = try Value(firePackBytes: try assertRoundTrip(value))
        let exact = Value.timestamp(Timestamp(seconds: 1_700_000_000, nanoseconds: 250_000_000))
        #expect(tree["date"] == exact)
        #expect(tree["dates"]?[0] == exact)
        #expect(tree["byName"]?["when"] == exact, "a Date inside [String: Date] is still a timestamp")
        #expect(tree["point"] == .geoPoint(GeoPoint(latitude: 51.5, longitude: -0.12)))
        #expect(tree["reference"] == .reference(try DocumentReference(path: "books/dune")))
        #expect(tree["embedding"] == .vector(VectorValue([0.25, -1])))
        #expect(tree["url"] == "https://example.com/a?b=c")
        #expect(tree["data"] == .bytes(Data([0, 1, 255])))
        #expect(tree["id"] == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(try FirePackDecoder().decode(Date.self, from: exact.firePackBytes()) == date)
    }

    struct Enums: Codable, Equatable {
        var status: Status
        var priority: Priority
        var shapes: [Shape]
    }

    @Test func enumsWithRawAndAssociatedValues() throws {
        let value = Enums(status: .inReview, priority: .high, shapes: [.circle(radius: 2), .rectangle(width: 1, height: 3), .point])
        let tree = try Value(firePackBytes: try assertRoundTrip(value))
        #expect(tree["status"] == "in review")
        #expect(tree["priority"] == 10)
        #expect(tree["shapes"]?[0] == ["circle": ["radius": 2.0]])
        guard case .dataCorrupted? = decodingError(Status.self, from: "archived") else { Issue.record("unknown raw value"); return }
    }

    @Test func codingKeysRenameAndLeaveOut() throws {
        let language = ProgrammingLanguage(id: nil, name: "Swift", year: Date(timeIntervalSince1970: 1_401_667_200), reducedName: "changed")
        let bytes = try FirePackEncoder().encodeToBytes(language)
        let tree = try Value(firePackBytes: bytes)
        #expect(tree["language_name"] == "Swift")
        #expect(tree["reducedName"] == nil, "a property left out of CodingKeys is not written")
        let decoded = try FirePackDecoder().decode(ProgrammingLanguage.self, from: bytes)
        #expect(decoded.name == "Swift" && decoded.reducedName == "not stored", "and keeps its default on decode")
    }

    @Test func customSingleValueTypeAsHexString() throws {
        let tag = Tag(title: "towel", color: Color(red: 1, green: 0.4, blue: 0))
        let tree = try Value(firePackBytes: try assertRoundTrip(tag))
        #expect(tree == ["title": "towel", "color": "#FF6600FF"])
        let error = decodingError(Tag.self, from: ["title": "x", "color": "red"])
        guard case .dataCorrupted(let context)? = error else { Issue.record("bad color"); return }
        #expect(context.codingPath.map(\.stringValue) == ["color"])
    }

    class Animal: Codable {
        var name: String
        init(name: String) { self.name = name }
    }

    final class Dog: Animal, Equatable {
        var breed: String
        enum CodingKeys: String, CodingKey { case breed }
        init(name: String, breed: String) { self.breed = breed; super.init(name: name) }
        required init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            breed = try container.decode(String.self, forKey: .breed)
            try super.init(from: container.superDecoder())
        }
        override func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(breed, forKey: .breed)
            try super.encode(to: container.superEncoder())
        }
        static func == (a: Dog, b: Dog) -> Bool { a.name == b.name && a.breed == b.breed }
    }

    @Test func classesWithSuperEncoderAndSuperDecoder() throws {
        let tree = try Value(firePackBytes: try assertRoundTrip(Dog(name: "Laika", breed: "mixed")))
        #expect(tree == ["breed": "mixed", "super": ["name": "Laika"]])
    }

    struct HandWritten: Codable, Equatable {
        var name: String
        var latitude: Double
        var longitude: Double
        var scores: [Int]

        enum CodingKeys: String, CodingKey { case name, position, scores }
        enum PositionKeys: String, CodingKey { case latitude, longitude }

        init(name: String, latitude: Double, longitude: Double, scores: [Int]) {
            (self.name, self.latitude, self.longitude, self.scores) = (name, latitude, longitude, scores)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            scores = try container.decode([Int].self, forKey: .scores)   // out of written order
            let position = try container.nestedContainer(keyedBy: PositionKeys.self, forKey: .position)
            latitude = try position.decode(Double.self, forKey: .latitude)
            longitude = try position.decode(Double.self, forKey: .longitude)
            name = try container.decode(String.self, forKey: .name)
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            var position = container.nestedContainer(keyedBy: PositionKeys.self, forKey: .position)
            try position.encode(latitude, forKey: .latitude)
            try position.encode(longitude, forKey: .longitude)
            var scoreList = container.nestedUnkeyedContainer(forKey: .scores)
            for score in scores { try scoreList.encode(score) }
        }
    }

    @Test func handWrittenNestedContainers() throws {
        let tree = try Value(firePackBytes: try assertRoundTrip(HandWritten(name: "HQ", latitude: 1.5, longitude: 2.5, scores: [3, 4])))
        #expect(tree == ["name": "HQ", "position": ["latitude": 1.5, "longitude": 2.5], "scores": [3, 4]])
    }

    struct OutOfOrder: Codable, Equatable {
        var a: Int, b: Int, inner: Int
        enum CodingKeys: String, CodingKey { case a, nested, b }
        enum InnerKeys: String, CodingKey { case inner }
        init(a: Int, b: Int, inner: Int) { (self.a, self.b, self.inner) = (a, b, inner) }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            a = try c.decode(Int.self, forKey: .a)
            b = try c.decode(Int.self, forKey: .b)
            inner = try c.nestedContainer(keyedBy: InnerKeys.self, forKey: .nested).decode(Int.self, forKey: .inner)
        }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(a, forKey: .a)
            var nested = c.nestedContainer(keyedBy: InnerKeys.self, forKey: .nested)
            try c.encode(b, forKey: .b)              // the parent moves on …
            try nested.encode(inner, forKey: .inner) // … and the nested container is written afterwards
        }
    }

    struct RepeatedKey: Encodable {
        enum CodingKeys: String, CodingKey { case name }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode("first", forKey: .name)
            try c.encode("last", forKey: .name)
        }
    }

    /// Asking twice for the container of one key gives the same container, as Foundation's JSONEncoder does: what the
    /// first one holds is kept (it was replaced by an empty one).
    struct TwiceAskedContainer: Encodable {
        enum CodingKeys: String, CodingKey { case meta, list, after }
        enum MetaKeys: String, CodingKey { case a, b }
        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            var first = c.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
            try first.encode(1, forKey: .a)
            var list = c.nestedUnkeyedContainer(forKey: .list)
            try list.encode("x")
            try c.encode(true, forKey: .after)
            var second = c.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
            try second.encode(2, forKey: .b)
            var again = c.nestedUnkeyedContainer(forKey: .list)
            try again.encode("y")
        }
    }

    @Test func aContainerAskedForTwiceKeepsWhatItHolds() throws {
        let expected: Value = ["meta": ["a": 1, "b": 2], "list": ["x", "y"], "after": true]
        for encoder in [FirePackEncoder(), { let e = FirePackEncoder(); e.deterministic = true; return e }()] {
            let value = try Value(firePackBytes: encoder.encodeToBytes(TwiceAskedContainer()))
            // Key order aside (the deterministic encoder sorts them).
            #expect(["meta", "list", "after"].allSatisfy { value[$0] == expected[$0] }, "\(value)")
        }
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(TwiceAskedContainer())) as? [String: Any]
        #expect((json?["meta"] as? [String: Int]) == ["a": 1, "b": 2] && (json?["list"] as? [String]) == ["x", "y"])
    }

    enum Weekday: Codable, Equatable { case monday, tuesday(Int) }

    /// An enum's keys cannot name a damaged entry, so `allKeys` leaves it out; the case's container then throws that
    /// entry's error, with its offset, instead of decoding a case read past it.
    @Test func aDamagedEntryAfterAnEnumsCaseIsAnError() throws {
        let monday = try FirePackEncoder().encodeToBytes(Weekday.monday)
        #expect(try FirePackDecoder().decode(Weekday.self, from: monday) == .monday)
        // {"monday": {}, <a key reference to entry 0 of a key table the value does not have>}
        let damaged = bytes(hex: "B2 0B 0C 6D 6F 6E 64 61 79 B0 00 01 C0")
        let decoder = FirePackDecoder()
        decoder.inputValidation = .lazy
        let error = #expect(throws: DecodingError.self) { try decoder.decode(Weekday.self, from: damaged) }
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.debugDescription.contains("byte 11"), "\(context.debugDescription)")
    }

    @Test func containersOutOfOrderAndRepeatedKeysFallBackCorrectly() throws {
        let tree = try Value(firePackBytes: try assertRoundTrip(OutOfOrder(a: 1, b: 2, inner: 3)))
        #expect(tree == ["a": 1, "nested": ["inner": 3], "b": 2])
        #expect(try Value(firePackBytes: FirePackEncoder().encodeToBytes(RepeatedKey())) == ["name": "last"])
        #expect(try FirePackEncoder().encodeToBytes([RepeatedKey(), RepeatedKey()]).count > 0)
    }

    @Test func valuePassesThroughNatively() throws {
        var generator = RandomValues(seed: 99)
        for _ in 0..<50 {
            let value = generator.value()
            let bytes = try FirePackEncoder().encodeToBytes(value)
            #expect(bytes == value.firePackBytes())
            #expect(try FirePackDecoder().decode(Value.self, from: bytes) == value)
        }
    }

    @Test func valueThroughJSONUsesTheKeyedForm() throws {
        let value: Value = ["t": .timestamp(Timestamp(seconds: 1, nanoseconds: 5)), "g": .geoPoint(GeoPoint(latitude: 1, longitude: 2)),
                            "r": .reference(try DocumentReference(path: "a/b")), "b": .bytes(Data([9])), "v": .vector(VectorValue([1.5])),
                            "s": .serverTimestamp, "m": ["__bytes__": "x"], "n": nil, "i": 3, "d": 2.5, "a": [true, "x"]]
        let json = try JSONEncoder().encode(value)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text.contains(#""__timestamp__":"1970-01-01T00:00:01.000000005Z""#))
        #expect(text.contains(#""__map__":{"__bytes__":"x"}"#))
        #expect(Value.firestoreCompare(try JSONDecoder().decode(Value.self, from: json), value) == 0, "JSONDecoder does not keep key order")
    }

    @Test func encodingIntoAReusedWriter() throws {
        let writer = FirePackWriter()
        let encoder = FirePackEncoder()
        let books = (0..<100).map { sampleBookWithTags($0) }
        for book in books { try encoder.encode(book, into: writer) }
        let bytes = writer.takeBytes()
        var decoded: [BookWithTags] = []
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
                let length = try FirePackReader.encodedLength(ofValueAt: rest)
                decoded.append(try FirePackDecoder().decode(BookWithTags.self, from: UnsafeRawBufferPointer(rebasing: rest[..<length])))
                offset += length
            }
        }
        #expect(decoded == books)
    }
}
