import FirePack
import FirePackInterop
import Foundation
import Testing

/// Datastore `EntityProto` records (Firestore managed exports) → documents: every meaning Firestore writes, and every
/// thing that cannot become a document refused with its byte offset and field path, never dropped.
/// (python/tests/test_firestore_export.py checks the same against App Engine's own decoder.)
@Suite struct DatastoreEntityTests {
    /// A protobuf message under construction (proto2: groups included).
    struct Message {
        var bytes: [UInt8] = []
        mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 { bytes.append(UInt8(value & 0x7F) | 0x80); value >>= 7 }
            bytes.append(UInt8(value))
        }
        mutating func tag(_ field: Int, _ wire: Int) { varint(UInt64(field << 3 | wire)) }
        mutating func int(_ field: Int, _ value: Int64) { tag(field, 0); varint(UInt64(bitPattern: value)) }
        mutating func bytes(_ field: Int, _ payload: [UInt8]) { tag(field, 2); varint(UInt64(payload.count)); bytes += payload }
        mutating func string(_ field: Int, _ text: String) { bytes(field, Array(text.utf8)) }
        mutating func double(_ field: Int, _ value: Double) {
            tag(field, 1)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
        }
        mutating func group(_ field: Int, _ body: (inout Message) -> Void) {
            tag(field, 3)
            body(&self)
            tag(field, 4)
        }
    }

    /// A property (field 14 indexed, 15 not) with a meaning and a value message.
    static func property(_ name: String, meaning: Int = 0, multiple: Bool = false, raw: Bool = true, into entity: inout Message,
                         value: (inout Message) -> Void) {
        var property = Message()
        if meaning != 0 { property.int(1, Int64(meaning)) }
        property.string(3, name)
        property.int(4, multiple ? 1 : 0)
        var propertyValue = Message()
        value(&propertyValue)
        property.bytes(5, propertyValue.bytes)
        entity.bytes(raw ? 15 : 14, property.bytes)
    }

    /// An entity keyed `path` (kind, name-or-id pairs) in `app`.
    static func entity(_ path: [(String, Any)], app: String = "s~demo", namespace: String? = nil, _ body: (inout Message) -> Void) -> [UInt8] {
        var key = Message()
        key.string(13, app)
        if let namespace { key.string(20, namespace) }
        var elements = Message()
        for (kind, id) in path {
            elements.group(1) { element in
                element.string(2, kind)
                if let number = id as? Int64 { element.int(3, number) } else { element.string(4, id as! String) }
            }
        }
        key.bytes(14, elements.bytes)
        var entity = Message()
        entity.bytes(13, key.bytes)
        body(&entity)
        return entity.bytes
    }

    @Test func everyMeaningFirestoreWrites() throws {
        var map = Message()
        Self.property("x", into: &map) { $0.int(1, 7) }
        Self.property("__type__", into: &map) { _ in }
        var vector = Message()
        Self.property("__type__", into: &vector) { $0.string(3, "__vector__") }
        for element in [0.5, -1.0] { Self.property("value", multiple: true, into: &vector) { $0.double(4, element) } }
        let bytes = Self.entity([("books", "b1"), ("reviews", Int64(42))]) { entity in
            Self.property("title", raw: false, into: &entity) { $0.string(3, "Dune ü") }
            Self.property("pages", into: &entity) { $0.int(1, -412) }
            Self.property("price", into: &entity) { $0.double(4, -0.0) }
            Self.property("ok", into: &entity) { $0.int(2, 1) }
            Self.property("nothing", into: &entity) { _ in }
            Self.property("when", meaning: 7, into: &entity) { $0.int(1, -1) }   // 1969-12-31T23:59:59.999999Z
            Self.property("where", meaning: 9, into: &entity) { value in
                value.group(5) { point in point.double(6, 51.5); point.double(7, -0.12) }
            }
            Self.property("cover", meaning: 14, into: &entity) { $0.bytes(3, [0, 0xFF]) }
            Self.property("isbn", meaning: 16, into: &entity) { $0.bytes(3, [1]) }
            Self.property("tags", multiple: true, into: &entity) { $0.string(3, "a") }
            Self.property("empty", meaning: 24, into: &entity) { _ in }
            Self.property("tags", multiple: true, into: &entity) { $0.string(3, "b") }
            Self.property("author", into: &entity) { value in
                value.group(12) { reference in
                    reference.string(13, "s~demo")
                    reference.group(14) { element in element.string(15, "authors"); element.string(17, "herbert") }
                }
            }
            Self.property("elsewhere", into: &entity) { value in
                value.group(12) { reference in
                    reference.string(13, "s~other")
                    reference.group(14) { element in element.string(15, "books"); element.int(16, 9) }
                }
            }
            Self.property("details", meaning: 19, into: &entity) { $0.bytes(3, map.bytes) }
            Self.property("embedding", meaning: 19, into: &entity) { $0.bytes(3, vector.bytes) }
        }
        let document = try Document(datastoreEntity: bytes)
        #expect(document.reference.path == "books/b1/reviews/__id42__")
        let expected: MapValue = [
            "title": "Dune ü",            // indexed properties come first, as Datastore lists them
            "pages": -412, "price": .double(-0.0), "ok": true, "nothing": .null,
            "when": .timestamp(Timestamp(seconds: -1, nanoseconds: 999_999_000)),
            "where": .geoPoint(GeoPoint(latitude: 51.5, longitude: -0.12)),
            "cover": .bytes(Data([0, 0xFF])), "isbn": .bytes(Data([1])),
            "tags": ["a", "b"], "empty": [],
            "author": .reference(try DocumentReference(path: "authors/herbert")),
            "elsewhere": .reference(try DocumentReference(path: "projects/other/databases/(default)/documents/books/__id9__")),
            "details": ["x": 7, "__type__": .null],
            "embedding": .vector(VectorValue([0.5, -1.0])),
        ]
        #expect(document.fields == expected)
        guard case .double(let price)? = document.fields["price"] else { Issue.record("price is not a double"); return }
        #expect(price.bitPattern == (-0.0).bitPattern)
    }

    @Test func whatCannotBeADocumentIsRefusedWithItsPlace() throws {
        func refusal(_ bytes: [UInt8]) -> FirePackError? {
            do { _ = try Document(datastoreEntity: bytes); return nil } catch { return error }
        }
        // A property given twice (not as list elements), with the offset of the second and its path.
        var twice = Self.entity([("c", "d")]) { entity in
            Self.property("n", into: &entity) { $0.int(1, 1) }
        }
        let second = twice.count
        Self.property("n", into: &twice.asMessage) { $0.int(1, 2) }
        let duplicate = try #require(refusal(twice))
        #expect(duplicate.code == .duplicateKey && duplicate.offset == second + 2 && duplicate.path == [.key("n")], "\(duplicate)")

        // A user value, a value of two kinds, a string that is not UTF-8 (inside a map: the path says where).
        let user = try #require(refusal(Self.entity([("c", "d")]) { entity in
            Self.property("who", into: &entity) { $0.group(8) { user in user.string(9, "a@b") } }
        }))
        #expect(user.message.contains("user value") && user.path == [.key("who")])
        let twoKinds = try #require(refusal(Self.entity([("c", "d")]) { entity in
            Self.property("v", into: &entity) { $0.int(1, 1); $0.string(3, "x") }
        }))
        #expect(twoKinds.message.contains("two kinds"))
        // EMPTY_LIST with a value, or as one of a list's values: the value would be dropped.
        for (multiple, what) in [(false, "holds a value"), (true, "is one of a list's values")] {
            let emptyWithValue = try #require(refusal(Self.entity([("c", "d")]) { entity in
                Self.property("e", meaning: 24, multiple: multiple, into: &entity) { $0.int(1, 5) }
            }))
            #expect(emptyWithValue.message.contains(what) && emptyWithValue.path == [.key("e")], "\(emptyWithValue)")
        }
        var inner = Message()
        Self.property("s", into: &inner) { $0.bytes(3, [0xC3, 0x28]) }
        let utf8 = try #require(refusal(Self.entity([("c", "d")]) { entity in
            Self.property("m", meaning: 19, into: &entity) { $0.bytes(3, inner.bytes) }
        }))
        #expect(utf8.code == .invalidUTF8 && utf8.path == [.key("m"), .key("s")], "\(utf8)")

        // A namespace, a key without a name or ID, a reserved ID, no key at all, a cut message, unbalanced groups.
        #expect(refusal(Self.entity([("c", "d")], namespace: "tenant") { _ in })?.message.contains("namespace 'tenant'") == true)
        #expect(refusal(Self.entity([("c", "__x__")]) { _ in })?.code == .invalidReference)
        #expect(refusal([])?.message.contains("no key") == true)
        let whole = Self.entity([("c", "d")]) { entity in Self.property("n", into: &entity) { $0.int(1, 1) } }
        // Cut anywhere: refused at or before the cut, or — cut between two fields — a document with less in it.
        for cut in 1..<whole.count {
            if let error = refusal(Array(whole.prefix(cut))) {
                #expect((error.offset ?? -1) <= cut, "cut at \(cut): \(error)")
            } else {
                #expect(try Document(datastoreEntity: Array(whole.prefix(cut))).fields.isEmpty, "cut at \(cut)")
            }
        }
        let open = Self.entity([("c", "d")]) { entity in
            Self.property("g", into: &entity) { value in value.tag(5, 3); value.double(6, 1) }
        }
        #expect(refusal(open) != nil)
    }

    @Test func valuesOutsideFirestoresRangesAreErrorsOrKeptNeverTraps() throws {
        // Any Int64 of microseconds is a timestamp FirePack holds (Firestore's years 1–9999 are not enforced here).
        for micros in [Int64.min, Int64.max, -1, 0] {
            let document = try Document(datastoreEntity: Self.entity([("c", "d")]) { entity in
                Self.property("t", meaning: 7, into: &entity) { $0.int(1, micros) }
            })
            guard case .timestamp(let time)? = document.fields["t"] else { Issue.record("\(micros)"); continue }
            // Exact modulo 2⁶⁴ (the floor-divided seconds of Int64.min times 10⁶ wrap; the sum comes back).
            #expect(time.seconds &* 1_000_000 &+ Int64(time.nanoseconds / 1_000) == micros && time.nanoseconds % 1_000 == 0)
        }
        // A point outside the globe, or NaN, is refused at the point value, with the field's path.
        for (latitude, longitude) in [(200.0, 0.0), (0.0, -181.0), (Double.nan, 0.0)] {
            var entity = Self.entity([("c", "d")]) { _ in }
            let start = entity.count
            Self.property("p", meaning: 9, into: &entity.asMessage) { value in
                value.group(5) { point in point.double(6, latitude); point.double(7, longitude) }
            }
            let error = try #require(throws: FirePackError.self) { try Document(datastoreEntity: entity) }
            #expect(error.code == .invalidGeoPoint && error.path == [.key("p")], "\(error)")
            #expect((error.offset ?? 0) > start && (error.offset ?? .max) < entity.count)
        }
    }

    @Test func namesAreBytesAndPathsCannotBeForged() throws {
        // "é" precomposed and decomposed are two fields, each with its own list (String equality would merge them).
        let document = try Document(datastoreEntity: Self.entity([("c", "d")]) { entity in
            Self.property("\u{E9}", multiple: true, into: &entity) { $0.int(1, 1) }
            Self.property("e\u{301}", multiple: true, into: &entity) { $0.int(1, 2) }
            Self.property("\u{E9}", multiple: true, into: &entity) { $0.int(1, 3) }
        })
        #expect(document.fields.keys.map { Array($0.utf8) } == [Array("\u{E9}".utf8), Array("e\u{301}".utf8)])
        #expect(document.fields.values == [[1, 3], [2]])
        // A '/' inside a kind or name, ID 0: no single document.
        for path in [[("users", "alice/posts/p1")], [("a/b", "c")]] as [[(String, Any)]] {
            let error = try #require(throws: FirePackError.self) { try Document(datastoreEntity: Self.entity(path) { _ in }) }
            #expect(error.code == .invalidReference && error.message.contains("'/'"), "\(error)")
        }
        #expect(throws: FirePackError.self) { try Document(datastoreEntity: Self.entity([("c", Int64(0))]) { _ in }) }
        // A reference into another database of the same project keeps its full name.
        let other = try Document(datastoreEntity: Self.entity([("c", "d")]) { entity in
            Self.property("r", into: &entity) { value in
                value.group(12) { reference in
                    reference.string(13, "s~demo")
                    reference.group(14) { element in element.string(15, "x"); element.string(17, "y") }
                    reference.string(23, "staging")
                }
            }
        })
        #expect(other.fields["r"] == .reference(try DocumentReference(path: "projects/demo/databases/staging/documents/x/y")))
    }

    @Test func fieldsThatWouldBeLostAreRefused() throws {
        func refused(_ body: (inout Message) -> Void) -> FirePackError? {
            do { _ = try Document(datastoreEntity: Self.entity([("c", "d")], body)); return nil } catch { return error }
        }
        // An unknown value field; a string sent as fixed64; `multiple` as bytes; a meaning_uri.
        #expect(refused { Self.property("v", into: &$0) { $0.int(9, 1) } }?.message.contains("field 9") == true)
        #expect(refused { Self.property("v", into: &$0) { $0.double(3, 1) } }?.message.contains("field 3 with wire type 1") == true)
        var wrongMultiple = Message()
        wrongMultiple.string(3, "v")
        wrongMultiple.bytes(4, [1])
        #expect(refused { $0.bytes(15, wrongMultiple.bytes) }?.message.contains("property field 4") == true)
        var uri = Message()
        uri.string(2, "ZLIB")
        uri.string(3, "v")
        #expect(refused { $0.bytes(15, uri.bytes) }?.message.contains("meaning_uri") == true)
    }

    @Test func listsCountAsNesting() throws {
        // A map in a list in a map …: each list is a level, so 60 of each pass the depth limit of 100.
        var map = Message()
        for _ in 0..<60 {
            var outer = Message()
            Self.property("m", meaning: 19, multiple: true, into: &outer) { $0.bytes(3, map.bytes) }
            map = outer
        }
        let nested = Self.entity([("c", "d")]) { $0.bytes += map.bytes }
        #expect { try Document(datastoreEntity: nested) } throws: { ($0 as? FirePackError)?.code == .depthLimitExceeded }
    }

    @Test func deepGroupsAndEntitiesAreBounded() throws {
        // 100,000 nested unknown groups cost no stack: refused at the depth limit.
        var deep = Message()
        for _ in 0..<100_000 { deep.tag(30, 3) }
        let bytes = Self.entity([("c", "d")]) { $0.bytes += deep.bytes }
        #expect(throws: FirePackError.self) { try Document(datastoreEntity: bytes) }
        // Maps nested past the reader's depth limit.
        var map = Message()
        for _ in 0..<150 {
            var outer = Message()
            Self.property("m", meaning: 19, into: &outer) { $0.bytes(3, map.bytes) }
            map = outer
        }
        let nested = Self.entity([("c", "d")]) { $0.bytes += map.bytes }
        #expect { try Document(datastoreEntity: nested) } throws: { ($0 as? FirePackError)?.code == .depthLimitExceeded }
    }

    @Test func numericIDsAreTheOneReservedFormAPathMayHold() throws {
        #expect(try DocumentReference(path: "books/__id42__").documentID == "__id42__")
        #expect(throws: FirePackError.self) { try DocumentReference(path: "books/__id__") }
        #expect(throws: FirePackError.self) { try DocumentReference(path: "books/__id4x__") }
        #expect(throws: FirePackError.self) { try DocumentReference(path: "books/__name__") }
    }
}

extension Array where Element == UInt8 {
    /// The bytes as a message to append more fields to.
    var asMessage: DatastoreEntityTests.Message {
        get { DatastoreEntityTests.Message(bytes: self) }
        set { self = newValue.bytes }
    }
}
