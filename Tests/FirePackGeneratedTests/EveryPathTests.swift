import FirePack
import FirePackMacros
import FirePackStreams
import Foundation
import Testing

// A model's evolution attributes (`@FirePackKey`, `@FirePackIgnored`, the unknown-field bag) hold on every path a
// value can take: a tree (`encodeToValue`, documents), deterministic output, a bag holding a key the model declares, a
// nested value that bytes in order cannot hold, and the snake-case key strategies. The synthesized `Codable`
// conformance, which knows none of them, is never used in their place.

// MARK: - Models

/// A model with every attribute and a bag; its property names change under snake case.
@FirePackCodable
struct Shipment: Codable, Equatable {
    var trackingNumber: String
    @FirePackKey("carrier_code", aliases: ["carrier"]) var carrierCode: String
    @FirePackKey("weightGrams") var weight: Int
    var isInsured = false
    @FirePackIgnored var cachedLabel = "label"
    var note: String?
    var unknownFields = FirePackUnknownFields()

    init(trackingNumber: String, carrierCode: String, weight: Int) {
        (self.trackingNumber, self.carrierCode, self.weight) = (trackingNumber, carrierCode, weight)
    }
}

/// Writes its key twice, as Codable allows (the last value wins): bytes written in order cannot, so it needs a tree.
struct Rewritten: Codable, Equatable {
    var value: Int

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(0, forKey: .value)
        try container.encode(value, forKey: .value)
    }
}

/// A generated model holding a value that needs a tree.
@FirePackCodable
struct Crate: Codable, Equatable {
    @FirePackKey("crate_label") var label: String
    var content: Rewritten
    @FirePackIgnored var note = "never stored"

    init(label: String, content: Rewritten) { (self.label, self.content) = (label, content) }
}

/// Camel-case names at every level: a nested generated struct, an enum with associated values, a string-keyed map
/// (whose keys no strategy touches) and an optional.
@FirePackCodable
struct Route: Codable, Equatable {
    var routeName: String
    var firstStop: Stop
    var legMinutes: [String: Int]
    var payment: PaymentGenerated
    var lastChecked: Timestamp?
}

/// A stop of a route.
@FirePackCodable
struct Stop: Codable, Equatable {
    var stopName: String
    var dwellSeconds: Int
}

/// The same route with synthesized coding only.
struct RouteCodable: Codable, Equatable {
    var routeName: String
    var firstStop: StopCodable
    var legMinutes: [String: Int]
    var payment: Payment
    var lastChecked: Timestamp?
}

/// A stop with synthesized coding only.
struct StopCodable: Codable, Equatable {
    var stopName: String
    var dwellSeconds: Int
}

/// Two properties that snake case gives the same key.
@FirePackCodable
struct Clash: Codable, Equatable {
    var aB = 1
    var a_b = 2
}

/// A model holding the clash one level down.
@FirePackCodable
struct ClashHolder: Codable, Equatable {
    var inner = Clash()
}

/// A tree of generated nodes, as deep as a test makes it.
@FirePackCodable
final class Node: Codable {
    var children: [Node] = []

    init(depth: Int) { children = depth > 0 ? [Node(depth: depth - 1)] : [] }
}

/// The keys of a map value, in order (nil for anything else).
private func keys(_ value: Value?) -> [String]? {
    guard case .map(let map)? = value else { return nil }
    return map.keys
}

// MARK: - Tests

@Suite("Evolution attributes hold on every path: trees, deterministic output, snake-case keys")
struct EveryPathTests {
    let decoder = FirePackDecoder()

    /// A shipment whose bag holds a field a newer model added, one under a key the model declares, and one that
    /// sorts first.
    var shipment: Shipment {
        var shipment = Shipment(trackingNumber: "T-1", carrierCode: "DHL", weight: 1_200)
        shipment.cachedLabel = "computed, never stored"
        shipment.unknownFields["addedLater"] = true
        shipment.unknownFields["carrier_code"] = "stale bag entry"
        shipment.unknownFields["a_first"] = 1
        return shipment
    }

    @Test("deterministic output with a bag keeps the model's key names and leaves ignored properties out")
    func deterministicWithABag() throws {
        let encoder = FirePackEncoder()
        encoder.deterministic = true
        let bytes = try encoder.encode(shipment)
        let value = try decoder.decode(Value.self, from: bytes)
        #expect(keys(value) == ["a_first", "addedLater", "carrier_code", "isInsured", "trackingNumber", "weightGrams"])
        #expect(value["carrier_code"] == "DHL")
        let back = try decoder.decode(Shipment.self, from: bytes)
        #expect(back.cachedLabel == "label" && back.carrierCode == "DHL" && back.weight == 1_200)
        #expect(back.unknownFields.keys == ["a_first", "addedLater"])
        // The same bytes as the in-order bytes sorted.
        let inOrder = try decoder.decode(Value.self, from: FirePackEncoder().encode(shipment))
        #expect(bytes == Data(inOrder.firePackBytes(deterministic: true)))
    }

    @Test("a bag entry under a key the model declares is left out, in order and sorted; the declared field wins")
    func declaredFieldWins() throws {
        let value = try decoder.decode(Value.self, from: FirePackEncoder().encode(shipment))
        #expect(keys(value) == ["trackingNumber", "carrier_code", "weightGrams", "isInsured", "addedLater", "a_first"])
        #expect(value["carrier_code"] == "DHL")
    }

    @Test("a bag entry under an optional property's key is written when the property is nil, left out when it is not")
    func bagEntryUnderAnOptionalsKey() throws {
        var shipment = Shipment(trackingNumber: "T-4", carrierCode: "DPD", weight: 10)
        shipment.unknownFields["note"] = "kept in the bag"
        for deterministic in [false, true] {
            let encoder = FirePackEncoder()
            encoder.deterministic = deterministic
            #expect(try decoder.decode(Value.self, from: encoder.encode(shipment))["note"] == "kept in the bag")
            var noted = shipment
            noted.note = "the model's"
            #expect(try decoder.decode(Value.self, from: encoder.encode(noted))["note"] == "the model's")
            #expect(try decoder.decode(Shipment.self, from: encoder.encode(shipment)).note == "kept in the bag")
        }
    }

    @Test("a tree is as deep as the value, not the readers' default depth")
    func deepTrees() throws {
        let node = Node(depth: 150)
        let value = try FirePackEncoder().encodeToValue(node)
        var depth = 0
        var level = value
        while case .array(let children)? = level["children"], let child = children.first {
            depth += 1
            level = child
        }
        #expect(depth == 150)
    }

    @Test("trees — encodeToValue and documents — are the generated bytes' value")
    func trees() throws {
        let encoder = FirePackEncoder()
        let bytesValue = try decoder.decode(Value.self, from: encoder.encode(shipment))
        #expect(try encoder.encodeToValue(shipment) == bytesValue)
        #expect(try encoder.encodeToValue([shipment, shipment]) == .array([bytesValue, bytesValue]))
        let document = try Document(reference: DocumentReference(path: "shipments/t-1"), from: shipment, encoder: encoder)
        #expect(Value.map(document.fields) == bytesValue)
        #expect(document.fields["cachedLabel"] == nil)
    }

    @Test("a nested value that bytes in order cannot hold goes through a tree; the generated model around it stays generated")
    func nestedTreeValue() throws {
        let crate = Crate(label: "fragile", content: Rewritten(value: 7))
        let inOrder: Value = .map(["crate_label": "fragile", "content": .map(["value": 7])])
        for deterministic in [false, true] {
            let encoder = FirePackEncoder()
            encoder.deterministic = deterministic
            let value = try decoder.decode(Value.self, from: encoder.encode(crate))
            #expect(value == (deterministic ? .map(["content": .map(["value": 7]), "crate_label": "fragile"]) : inOrder))
            #expect(try encoder.encodeToValue(crate) == inOrder)
            #expect(try decoder.decode(Crate.self, from: encoder.encode(crate)) == crate)
        }
    }

    @Test("convertToSnakeCase converts the model's keys, not the bag's, and not an ignored property's")
    func snakeCaseEncoding() throws {
        let encoder = FirePackEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var shipment = Shipment(trackingNumber: "T-2", carrierCode: "UPS", weight: 800)
        shipment.cachedLabel = "computed"
        shipment.unknownFields["legacyFlag"] = true
        let bytes = try encoder.encode(shipment)
        let value = try decoder.decode(Value.self, from: bytes)
        #expect(keys(value) == ["tracking_number", "carrier_code", "weight_grams", "is_insured", "legacyFlag"])
        #expect(try encoder.encodeToValue(shipment) == value)

        encoder.deterministic = true
        let sorted = try decoder.decode(Value.self, from: encoder.encode(shipment))
        #expect(keys(sorted) == ["carrier_code", "is_insured", "legacyFlag", "tracking_number", "weight_grams"])
    }

    @Test("convertFromSnakeCase reads converted keys, snake-case names as given, aliases, and keeps unknown keys as stored")
    func snakeCaseDecoding() throws {
        let snake = FirePackDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        let stored = Value.map([
            "tracking_number": "T-3", "carrier": "GLS", "weight_grams": 950, "is_insured": true, "new_field": 5,
            "cached_label": "stored by someone else",
        ])
        let shipment = try snake.decode(Shipment.self, from: FirePackEncoder().encode(stored))
        #expect(shipment.trackingNumber == "T-3" && shipment.carrierCode == "GLS" && shipment.weight == 950)
        #expect(shipment.isInsured && shipment.cachedLabel == "label")
        #expect(shipment.unknownFields.keys == ["new_field", "cached_label"])

        // Written back under the inverse strategy: every stored key as it was.
        let encoder = FirePackEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let rewritten = try decoder.decode(Value.self, from: encoder.encode(shipment))
        #expect(Set(keys(rewritten) ?? []) == ["tracking_number", "carrier_code", "weight_grams", "is_insured", "new_field", "cached_label"])
    }

    @Test("a model that refuses unknown keys compares them converted")
    func refusedKeysUnderSnakeCase() throws {
        let snake = FirePackDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        let known = try FirePackEncoder().encode(Value.map(["theme": "dark", "font_size": 12]))
        #expect(try snake.decode(StrictSettings.self, from: known) == StrictSettings(theme: "dark", fontSize: 12))
        let unknown = try FirePackEncoder().encode(Value.map(["theme": "dark", "fontSize": 12, "extra_key": 1]))
        #expect {
            try snake.decode(StrictSettings.self, from: unknown)
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains("\"extra_key\"") && context.debugDescription.contains("byte")
        }
    }

    @Test("under snake case, generated coding writes and reads the bytes synthesized Codable does", arguments: [false, true])
    func snakeCaseMatchesTheCodablePath(deterministic: Bool) throws {
        let legs = ["firstLeg": 12, "second_leg": 30]
        let route = Route(
            routeName: "north", firstStop: Stop(stopName: "Depot", dwellSeconds: 90),
            legMinutes: legs,
            payment: .split(.card(last4: "4242", expiresYear: 2030), share: 0.5),
            lastChecked: Timestamp(seconds: 1_700_000_000, nanoseconds: 5))
        let codable = RouteCodable(
            routeName: "north", firstStop: StopCodable(stopName: "Depot", dwellSeconds: 90),
            legMinutes: legs,
            payment: .split(.card(last4: "4242", expiresYear: 2030), share: 0.5),
            lastChecked: Timestamp(seconds: 1_700_000_000, nanoseconds: 5))
        let encoder = FirePackEncoder(), snake = FirePackDecoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.deterministic = deterministic
        snake.keyDecodingStrategy = .convertFromSnakeCase
        let generatedBytes = try encoder.encode(route)
        let codableBytes = try encoder.encode(codable)
        let generatedValue = try decoder.decode(Value.self, from: generatedBytes)
        let codableValue = try decoder.decode(Value.self, from: codableBytes)
        #expect(generatedValue == codableValue)
        if deterministic { #expect(generatedBytes == codableBytes) }
        #expect(keys(generatedValue) == (deterministic
            ? ["first_stop", "last_checked", "leg_minutes", "payment", "route_name"]
            : ["route_name", "first_stop", "leg_minutes", "payment", "last_checked"]))
        #expect(keys(generatedValue["leg_minutes"]).map(Set.init) == ["firstLeg", "second_leg"])
        #expect(try snake.decode(Route.self, from: codableBytes) == route)
        #expect(try snake.decode(RouteCodable.self, from: generatedBytes) == codable)
    }

    @Test("two keys that snake case makes one are an error, not a value lost")
    func collidingKeys() throws {
        let encoder = FirePackEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        for deterministic in [false, true] {
            encoder.deterministic = deterministic
            #expect {
                try encoder.encode(Clash())
            } throws: { error in
                guard case EncodingError.invalidValue(_, let context) = error else { return false }
                return context.debugDescription.contains("become \"a_b\" under convertToSnakeCase")
            }
        }
        #expect(try decoder.decode(Value.self, from: FirePackEncoder().encode(Clash())) == .map(["aB": 1, "a_b": 2]))
        // One level down, the error's coding path is the map's.
        encoder.deterministic = false
        #expect {
            try encoder.encode(ClashHolder())
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["inner"] && context.debugDescription.contains("\"a_b\"")
        }
    }
}
