import FirePack
import FirePackMacros
import Foundation
import Testing

// Read-modify-write by a service on last month's model: the fields it does not know come back unchanged, on the
// generated path and the Codable path alike.

struct OrderLine: Codable, Equatable {
    var sku: String
    var quantity: Int
}

/// This month's order, as the newest writer writes it.
@FirePackCodable
struct OrderThisMonth: Codable, Equatable {
    var id: String
    var total: Double
    var placed: Timestamp
    var store: GeoPoint
    var customer: DocumentReference
    var notes: [String: String]
    var lines: [OrderLine]
    var receipt: Data
    var discount: Double?
}

/// Last month's order: it knows two fields and keeps the rest.
@FirePackCodable
struct OrderLastMonth: Codable, Equatable {
    var id: String
    var total: Double
    var unknownFields = FirePackUnknownFields()
}

/// The same model without generated coding: synthesized `Codable` only.
struct OrderLastMonthCodable: Codable, Equatable {
    var id: String
    var total: Double
    var unknownFields = FirePackUnknownFields()
}

/// A bag between two fields: its entries are written at its place.
@FirePackCodable
struct Framed: Codable, Equatable {
    var a: Int
    var rest: FirePackUnknownFields
    @FirePackKey("z", aliases: ["zed"]) var z: Int
}

struct FramedCodable: Codable, Equatable {
    var a: Int
    var rest: FirePackUnknownFields
    var z: Int
}

@Suite("Unknown fields kept: a model written back loses nothing it did not declare")
struct UnknownFieldsTests {
    let order = try! OrderThisMonth(
        id: "o-1", total: 65.66, placed: Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789),
        store: GeoPoint(latitude: 48.8566, longitude: 2.3522), customer: DocumentReference(path: "customers/c-9"),
        notes: ["gift": "yes", "door": "back"], lines: [OrderLine(sku: "A-1", quantity: 2), OrderLine(sku: "B-7", quantity: 1)],
        receipt: Data([0, 1, 2, 255]), discount: nil)

    /// An encoder and decoder on the generated path (`generated`) or on the Codable path.
    func coders(generated: Bool) -> (FirePackEncoder, FirePackDecoder) {
        let encoder = FirePackEncoder(), decoder = FirePackDecoder()
        encoder.usesGeneratedCoding = generated
        decoder.usesGeneratedCoding = generated
        return (encoder, decoder)
    }

    @Test("new document → old model → change a field → write → new model: nothing lost, same bytes on both paths",
          arguments: [true, false])
    func readModifyWrite(generated: Bool) throws {
        let (encoder, decoder) = coders(generated: generated)
        let written = try encoder.encode(order)
        var old = try decoder.decode(OrderLastMonth.self, from: written)
        #expect(old.id == "o-1" && old.total == 65.66)
        #expect(old.unknownFields.keys == ["placed", "store", "customer", "notes", "lines", "receipt"])
        #expect(old.unknownFields["placed"] == .timestamp(order.placed))
        #expect(old.unknownFields["store"] == .geoPoint(order.store))
        #expect(old.unknownFields["customer"] == .reference(order.customer))
        #expect(old.unknownFields["receipt"] == .bytes(order.receipt))

        // Untouched, it writes the very bytes it read (the known keys come first in both models).
        #expect(try encoder.encode(old) == written)

        old.total = 70.5
        let rewritten = try encoder.encode(old)
        var expected = order
        expected.total = 70.5
        #expect(try decoder.decode(OrderThisMonth.self, from: rewritten) == expected)
        #expect(rewritten == (try encoder.encode(expected)))

        // The Codable-only twin reads and writes the same.
        let twin = try decoder.decode(OrderLastMonthCodable.self, from: written)
        #expect(twin.unknownFields == old.unknownFields)
        #expect(try encoder.encode(twin) == written)
    }

    @Test("the bag's entries are written at its place, in the order read; aliases and its own key", arguments: [true, false])
    func placeAndOrder(generated: Bool) throws {
        let (encoder, decoder) = coders(generated: generated)
        let document: Value = .map(["q": .integer(1), "a": .integer(2), "rest": .string("kept too"), "p": .null, "z": .integer(3)])
        let bytes = try encoder.encode(document)
        let framed = try decoder.decode(Framed.self, from: bytes)
        #expect(framed.a == 2 && framed.z == 3)
        #expect(framed.rest.keys == ["q", "rest", "p"])
        #expect(framed.rest["p"] == .null)
        let back = try decoder.decode(Value.self, from: try encoder.encode(framed))
        #expect(keys(back) == ["a", "q", "rest", "p", "z"])

        // An alias is a key of the model, not an unknown field (generated path; the Codable path has no aliases).
        if generated {
            let aliased = try decoder.decode(Framed.self, from: try encoder.encode(Value.map(["a": 1, "zed": 9, "w": 0])))
            #expect(aliased.z == 9 && aliased.rest.keys == ["w"])
        }
        let codable = try decoder.decode(FramedCodable.self, from: bytes)
        #expect(codable.rest == framed.rest)
        #expect(try encoder.encode(codable) == (try encoder.encode(framed)))
    }

    @Test("a field the model declares wins over a bag entry under the same key, before or after the bag",
          arguments: [true, false])
    func declaredFieldWins(generated: Bool) throws {
        let (encoder, decoder) = coders(generated: generated)
        let framed = Framed(a: 1, rest: FirePackUnknownFields(["a": .integer(5), "m": .boolean(true), "z": .integer(6)]), z: 2)
        let value = try decoder.decode(Value.self, from: try encoder.encode(framed))
        #expect(value == .map(["a": 1, "m": true, "z": 2]))
        let codable = FramedCodable(a: 1, rest: framed.rest, z: 2)
        #expect(try encoder.encode(codable) == (try encoder.encode(framed)))
        #expect(try encoder.encodeToValue(codable) == value)
    }

    @Test("deterministic output merges the bag's entries into key order, the same on both paths", arguments: [true, false])
    func deterministic(generated: Bool) throws {
        let (encoder, decoder) = coders(generated: generated)
        encoder.deterministic = true
        let framed = Framed(a: 1, rest: FirePackUnknownFields(["y": .integer(5), "b": .map(["k": 1, "c": 2])]), z: 2)
        let bytes = try encoder.encode(framed)
        let value = try decoder.decode(Value.self, from: bytes)
        #expect(keys(value) == ["a", "b", "y", "z"])
        #expect(keys(value["b"]) == ["c", "k"])
        #expect(bytes == (try encoder.encode(FramedCodable(a: 1, rest: framed.rest, z: 2))))
        #expect(bytes == Data(Value.map(["z": 2, "y": 5, "a": 1, "b": .map(["k": 1, "c": 2])]).firePackBytes(deterministic: true)))
    }

    @Test("through Document.data(as:) and Document(reference:from:)", arguments: [true, false])
    func documents(generated: Bool) throws {
        let (encoder, decoder) = coders(generated: generated)
        let reference = try DocumentReference(path: "orders/o-1")
        let document = try Document(reference: reference, from: order, encoder: encoder)
        var old = try document.data(as: OrderLastMonth.self, decoder: decoder)
        old.id = "o-2"
        let rewritten = try Document(reference: reference, from: old, encoder: encoder)
        var expected = order
        expected.id = "o-2"
        #expect(try rewritten.data(as: OrderThisMonth.self, decoder: decoder) == expected)
        #expect(rewritten.fields.keys == document.fields.keys)
    }

    @Test("with key strategies, unknown keys are kept exactly as stored")
    func keyStrategies() throws {
        let decoder = FirePackDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let encoder = FirePackEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let bytes = try FirePackEncoder().encode(Value.map(["id": "o", "total": 1.5, "giftWrap": true, "new_field": 7]))
        let old = try decoder.decode(OrderLastMonthCodable.self, from: bytes)
        #expect(old.unknownFields.keys == ["giftWrap", "new_field"])
        let back = try FirePackDecoder().decode(Value.self, from: try encoder.encode(old))
        #expect(back == .map(["id": "o", "total": 1.5, "giftWrap": true, "new_field": 7]))
    }

    @Test("a damaged unknown field is an error with its coding path and byte offset, on both paths", arguments: [true, false])
    func damage(generated: Bool) throws {
        let (encoder, decoder) = coders(generated: generated)
        var bytes = [UInt8](try encoder.encode(Value.map(["id": "o", "total": 1.5, "extra": "\u{1}\u{2}\u{3}"])))
        let at = try #require(bytes.firstRange(of: [1, 2, 3])).lowerBound
        bytes[at] = 0xFF
        let error = try #require(throws: DecodingError.self) { try decoder.decode(OrderLastMonth.self, from: bytes) }
        guard case .dataCorrupted(let context) = error else { Issue.record("\(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["extra"])
        #expect(context.debugDescription.contains("at byte \(at)"), "\(context.debugDescription)")
    }

    @Test("other coders see the bag as a map under its own key")
    func otherCoders() throws {
        let old = OrderLastMonthCodable(id: "o", total: 2, unknownFields: FirePackUnknownFields(["when": .timestamp(Timestamp(seconds: 0, nanoseconds: 5))]))
        let json = try JSONEncoder().encode(old)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect((object["unknownFields"] as? [String: Any])?["when"] != nil)
        #expect(try JSONDecoder().decode(OrderLastMonthCodable.self, from: json) == old)
    }

    @Test("a model without a bag still drops what it does not declare, as synthesized Codable does")
    func withoutBag() throws {
        let bytes = try FirePackEncoder().encode(Value.map(["title": "Dune", "pages": 412, "extra": true]))
        let book = try FirePackDecoder().decode(BookV1.self, from: bytes)
        #expect(try FirePackDecoder().decode(Value.self, from: try FirePackEncoder().encode(book)) == .map(["title": "Dune", "pages": 412]))
    }
}

/// A key declared precomposed ("café"); documents may hold it decomposed ("cafe" + U+0301), another key to FirePack.
@FirePackCodable
struct Menu: Codable, Equatable {
    var dish: String?
    var unknownFields = FirePackUnknownFields()
    enum CodingKeys: String, CodingKey {
        case dish = "caf\u{E9}"
        case unknownFields
    }
}

@Suite("Unknown fields: keys compared as bytes")
struct UnknownFieldKeyBytesTests {
    @Test("a key canonically equal to a declared one, but other bytes, is kept in the bag on both paths",
          arguments: [true, false])
    func decomposedKeyIsKept(generated: Bool) throws {
        let encoder = FirePackEncoder(), decoder = FirePackDecoder()
        encoder.usesGeneratedCoding = generated
        decoder.usesGeneratedCoding = generated
        let stored = Value.map(MapValue([("cafe\u{301}", "espresso"), ("caf\u{E9}", "latte")]))
        let menu = try decoder.decode(Menu.self, from: try encoder.encode(stored))
        #expect(menu.dish == "latte")
        #expect(menu.unknownFields.keys.map { Array($0.utf8) } == [Array("cafe\u{301}".utf8)])
        let back = try FirePackDecoder().decode(Value.self, from: try encoder.encode(menu))
        guard case .map(let fields) = back else { Issue.record("\(back)"); return }
        #expect(fields.keys.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
            == [Array("caf\u{E9}".utf8), Array("cafe\u{301}".utf8)].sorted { $0.lexicographicallyPrecedes($1) })
    }
}

/// The keys of a map value, in order (nil for anything else).
private func keys(_ value: Value?) -> [String]? {
    guard case .map(let map)? = value else { return nil }
    return map.keys
}
