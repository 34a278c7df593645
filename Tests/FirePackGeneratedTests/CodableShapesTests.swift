import FirePack
import FirePackMacros
import Foundation
import Testing

// The shapes Codable allows where binary Codable libraries break — enums with associated values, class hierarchies
// through superEncoder/superDecoder, nested optionals, property wrappers around optionals — each checked against
// what Foundation's JSON coders do with the same type, and the Codable path's missing-key defaults beside
// @FirePackCodable's.

// MARK: - Models

/// Synthesized coding of an enum with associated values: `{"case": {"label": …, "_1": …}}`.
indirect enum Payment: Codable, Equatable {
    case card(last4: String, expiresYear: Int)
    case cash
    case voucher(String, Int)
    case split(Payment?, share: Double)
}

/// The same enum with generated coding, which must write and read the very same bytes and errors.
@FirePackCodable
indirect enum PaymentGenerated: Codable, Equatable {
    case card(last4: String, expiresYear: Int)
    case cash
    case voucher(String, Int)
    case split(PaymentGenerated?, share: Double)
}

/// Renamed cases and values, through `CodingKeys` and `<Case>CodingKeys`, as synthesized coding reads them.
enum Delivery: Codable, Equatable {
    case courier(name: String, eta: Timestamp?)
    case pickup
    enum CodingKeys: String, CodingKey { case courier = "by_courier", pickup = "at_store" }
    enum CourierCodingKeys: String, CodingKey { case name = "courier_name", eta }
}

@FirePackCodable
enum DeliveryGenerated: Codable, Equatable {
    case courier(name: String, eta: Timestamp?)
    case pickup
    enum CodingKeys: String, CodingKey { case courier = "by_courier", pickup = "at_store" }
    enum CourierCodingKeys: String, CodingKey { case name = "courier_name", eta }
}

/// An enum without values and without a raw type: `{"case": {}}`.
@FirePackCodable
enum Weekday: Codable, Equatable, CaseIterable {
    case monday, tuesday, sunday
}

/// A base class and a subclass that codes its superclass through `superEncoder()` / `superDecoder()`.
class Shape: Codable {
    var name: String
    init(name: String) { self.name = name }
}

final class Circle: Shape {
    var radius: Double
    private enum CodingKeys: String, CodingKey { case radius }

    init(name: String, radius: Double) {
        self.radius = radius
        super.init(name: name)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        radius = try container.decode(Double.self, forKey: .radius)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(radius, forKey: .radius)
        try super.encode(to: container.superEncoder())
    }
}

/// A subclass that shares its map with the superclass (`super.encode(to: encoder)`), and one that names the key.
final class Square: Shape {
    var side: Double
    private enum CodingKeys: String, CodingKey { case side, base }

    init(name: String, side: Double) {
        self.side = side
        super.init(name: name)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        side = try container.decode(Double.self, forKey: .side)
        try super.init(from: container.superDecoder(forKey: .base))
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(side, forKey: .side)
        try super.encode(to: container.superEncoder(forKey: .base))
    }
}

final class Label: Shape {
    var text: String
    private enum CodingKeys: String, CodingKey { case text }

    init(name: String, text: String) {
        self.text = text
        super.init(name: name)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(String.self, forKey: .text)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try super.encode(to: encoder)
    }
}

/// Nested optionals, on the Codable path and the generated one.
struct Maybe: Codable, Equatable {
    var value: Int??
    var note: String??
}

@FirePackCodable
struct MaybeGenerated: Codable, Equatable {
    var value: Int??
    var note: String??
}

/// A property wrapper around an optional: synthesized coding asks for the wrapper with `decode(_:forKey:)`, so an
/// absent key is `keyNotFound` in Foundation's coders and in FirePack's by default.
@propertyWrapper
struct Trimmed: Codable, Equatable {
    var wrappedValue: String?
    init(wrappedValue: String?) { self.wrappedValue = wrappedValue?.trimmingCharacters(in: .whitespaces) }
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        self.init(wrappedValue: container.decodeNil() ? nil : try container.decode(String.self))
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension Trimmed: FirePackDefaultValue {
    static var firePackDefault: Trimmed { Trimmed(wrappedValue: nil) }
}

struct Profile: Codable, Equatable {
    var name: String
    @Trimmed var title: String?
}

enum Plan: String, Codable, Equatable, FirePackDefaultValue {
    case free, pro
    static var firePackDefault: Plan { .free }
}

/// A model that grew fields old documents lack: on the Codable path, the missing-key strategy fills those whose
/// types have a default; `@FirePackCodable` gives the same with no attribute at all.
struct Account: Codable, Equatable {
    var name: String
    var tags: [String]
    var limits: [String: Int]
    var plan: Plan
    var nickname: String?
}

@FirePackCodable
struct AccountGenerated: Codable, Equatable {
    var name: String
    var tags: [String]
    var limits: [String: Int]
    var plan: Plan
    var nickname: String?
}

struct Counted: Codable, Equatable {
    var name: String
    var count: Int
}

/// A hand-written `init(from:)` that asks for an optional with `decode(_:forKey:)`.
struct Strict: Decodable, Equatable {
    var comment: String?
    private enum CodingKeys: String, CodingKey { case comment }
    init(comment: String?) { self.comment = comment }
    init(from decoder: any Decoder) throws {
        comment = try decoder.container(keyedBy: CodingKeys.self).decode(String?.self, forKey: .comment)
    }
}

// MARK: - Tests

@Suite("Every Codable shape, as Foundation's JSON coders code it")
struct CodableShapesTests {
    /// `value` encoded by FirePack and read back as a `Value`, then written as JSON through `Value`'s Codable form,
    /// next to `value` written by JSONEncoder: both as JSON objects, to compare shapes.
    func shapes<T: Encodable>(_ value: T) throws -> (firePack: NSObject, json: NSObject) {
        let tree = try FirePackDecoder().decode(Value.self, from: try FirePackEncoder().encode(value))
        let encoder = JSONEncoder()
        let firePack = try JSONSerialization.jsonObject(with: try encoder.encode(tree), options: .fragmentsAllowed) as! NSObject
        let json = try JSONSerialization.jsonObject(with: try encoder.encode(value), options: .fragmentsAllowed) as! NSObject
        return (firePack, json)
    }

    @Test("enums with associated values: the synthesized shape, round-tripped, the same as JSON's",
          arguments: [Payment.card(last4: "4242", expiresYear: 2030), .cash, .voucher("SPRING", 15),
                      .split(.voucher("A", 1), share: 0.5), .split(nil, share: 1)])
    func associatedValues(payment: Payment) throws {
        let (firePack, json) = try shapes(payment)
        #expect(firePack == json)
        #expect(try FirePackDecoder().decode(Payment.self, from: try FirePackEncoder().encode(payment)) == payment)
        let deterministic = FirePackEncoder()
        deterministic.deterministic = true
        #expect(try FirePackDecoder().decode(Payment.self, from: try deterministic.encode(payment)) == payment)
    }

    @Test("@FirePackCodable enums with associated values write the synthesized bytes and read them with the same errors")
    func generatedEnums() throws {
        func twin(_ payment: Payment) -> PaymentGenerated {
            switch payment {
            case .card(let last4, let year): .card(last4: last4, expiresYear: year)
            case .cash: .cash
            case .voucher(let code, let amount): .voucher(code, amount)
            case .split(let other, let share): .split(other.map(twin), share: share)
            }
        }
        let payments: [Payment] = [.card(last4: "4242", expiresYear: 2030), .cash, .voucher("SPRING", 15),
                                   .split(.voucher("A", 1), share: 0.5), .split(nil, share: 1), .split(.split(.cash, share: 2), share: 3)]
        for deterministic in [false, true] {
            for payment in payments {
                let codable = try Paths.encoder(generated: false, deterministic: deterministic).encode(payment)
                let generated = try Paths.encoder(generated: true, deterministic: deterministic).encode(twin(payment))
                #expect(codable == generated, "\(payment)")
                #expect(try FirePackDecoder().decode(PaymentGenerated.self, from: codable) == twin(payment))
            }
        }
        let deliveries: [(Delivery, DeliveryGenerated)] = [
            (.courier(name: "Jo", eta: Timestamp(seconds: 5, nanoseconds: 6)), .courier(name: "Jo", eta: Timestamp(seconds: 5, nanoseconds: 6))),
            (.courier(name: "Jo", eta: nil), .courier(name: "Jo", eta: nil)), (.pickup, .pickup),
        ]
        for (codable, generated) in deliveries {
            let bytes = try FirePackEncoder().encode(codable)
            #expect(bytes == (try FirePackEncoder().encode(generated)))
            #expect(try FirePackDecoder().decode(DeliveryGenerated.self, from: bytes) == generated)
        }
        #expect(try FirePackDecoder().decode(Value.self, from: try FirePackEncoder().encode(DeliveryGenerated.courier(name: "Jo", eta: nil)))
                == .map(["by_courier": .map(["courier_name": "Jo"])]))
        for day in Weekday.allCases {
            #expect(try FirePackDecoder().decode(Value.self, from: try FirePackEncoder().encode(day)) == .map([.init(stringLiteral: "\(day)"): .map([:])]))
        }

        // Every input, well formed or not: the same value or the same error (case, path, message with byte offset).
        let inputs: [Value] = [
            .map(["cash": .map([:]), "voucher": .map(["_0": "A", "_1": 1])]),      // two case keys
            .map(["unknown": .map([:])]), .map([:]), .string("cash"), .null,        // none, or not a map
            .map(["cash": 1]), .map(["cash": .null]), .map(["cash": .map(["x": 1])]), // a case without values
            .map(["other": 1, "voucher": .map(["_0": "A", "_1": 1])]),             // other keys are ignored
            .map(["voucher": .map(["_0": "A"])]), .map(["voucher": .map(["_0": 1, "_1": 1])]),
            .map(["card": .map(["last4": "1", "expiresYear": "x"])]),
            .map(["split": .map(["_0": .null, "share": 1.5])]), .map(["split": .map(["share": 1.5])]),
            .map(["split": .map(["_0": .map(["split": .map(["_0": .map(["bad": 1]), "share": 1])]), "share": 1])]),
        ]
        var failures: [String] = []
        for input in inputs {
            let bytes = try FirePackEncoder().encode(input)
            for reference in [nil, try DocumentReference(path: "payments/p")] {
                let codable = Outcome { "\(try Paths.decoder(generated: false).decode(Payment.self, from: bytes, in: reference))" }
                let generated = Outcome { "\(try Paths.decoder(generated: true).decode(PaymentGenerated.self, from: bytes, in: reference))" }
                #expect(codable.description.replacingOccurrences(of: "Payment", with: "PaymentGenerated")
                        == generated.description.replacingOccurrences(of: "PaymentGeneratedGenerated", with: "PaymentGenerated"), "\(input)")
                if case .failure(let message) = generated { failures.append(message) }
            }
        }
        // Most inputs are refused, each with its own message; the first, as the synthesized init(from:) says it.
        #expect(failures.count == 2 * 11 && Set(failures).count >= 16)
        #expect(failures[0].hasPrefix("typeMismatch(PaymentGenerated) path  — Invalid number of keys found, expected one. (at byte 0)."), "\(failures[0])")
    }

    @Test("an enum value with two case keys is refused as JSONDecoder refuses it")
    func associatedValuesTwoKeys() throws {
        let bytes = try FirePackEncoder().encode(Value.map(["cash": .map([:]), "voucher": .map(["_0": "A", "_1": 1])]))
        let error = try #require(throws: DecodingError.self) { try FirePackDecoder().decode(Payment.self, from: bytes) }
        let json = Data(#"{"cash": {}, "voucher": {"_0": "A", "_1": 1}}"#.utf8)
        let jsonError = try #require(throws: DecodingError.self) { try JSONDecoder().decode(Payment.self, from: json) }
        guard case .typeMismatch = error, case .typeMismatch = jsonError else {
            Issue.record("\(error) / \(jsonError)")
            return
        }
    }

    @Test("class hierarchies through superEncoder and superDecoder, under `super`, a named key, or the same map")
    func classHierarchies() throws {
        let circle = Circle(name: "c", radius: 2.5)
        let (firePack, json) = try shapes(circle)
        #expect(firePack == json)
        #expect(firePack == ["radius": 2.5, "super": ["name": "c"]] as NSDictionary)
        let circleBack = try FirePackDecoder().decode(Circle.self, from: try FirePackEncoder().encode(circle))
        #expect(circleBack.name == "c" && circleBack.radius == 2.5)

        let square = Square(name: "s", side: 3)
        #expect(try shapes(square).firePack == ["side": 3.0, "base": ["name": "s"]] as NSDictionary)
        let squareBack = try FirePackDecoder().decode(Square.self, from: try FirePackEncoder().encode(square))
        #expect(squareBack.name == "s" && squareBack.side == 3)

        let label = Label(name: "l", text: "hello")
        let labelShapes = try shapes(label)
        #expect(labelShapes.firePack == labelShapes.json)
        #expect(labelShapes.firePack == ["text": "hello", "name": "l"] as NSDictionary)
        let labelBack = try FirePackDecoder().decode(Label.self, from: try FirePackEncoder().encode(label))
        #expect(labelBack.name == "l" && labelBack.text == "hello")

        // In an array of the base type's values, as in a document's field.
        let shapes: [Shape] = [circle, square, label]
        let tree = try FirePackEncoder().encodeToValue(shapes)
        #expect(tree[0]?["super"]?["name"] == .string("c") && tree[2]?["name"] == .string("l"))
    }

    @Test("T??: absent, null and a value, as JSON's coders write and read them, on both paths",
          arguments: [Maybe(value: nil, note: nil), Maybe(value: .some(nil), note: .some(nil)),
                      Maybe(value: 3, note: "x"), Maybe(value: .some(nil), note: "y")])
    func nestedOptionals(maybe: Maybe) throws {
        let (firePack, json) = try shapes(maybe)
        #expect(firePack == json)
        let jsonBack = try JSONDecoder().decode(Maybe.self, from: try JSONEncoder().encode(maybe))
        #expect(try FirePackDecoder().decode(Maybe.self, from: try FirePackEncoder().encode(maybe)) == jsonBack)
        let generated = MaybeGenerated(value: maybe.value, note: maybe.note)
        #expect(try FirePackEncoder().encode(generated) == (try FirePackEncoder().encode(maybe)))
        let generatedBack = try FirePackDecoder().decode(MaybeGenerated.self, from: try FirePackEncoder().encode(generated))
        #expect(generatedBack.value == jsonBack.value && generatedBack.note == jsonBack.note)
    }

    @Test("a property wrapper around an optional: keyNotFound for an absent key as in JSONDecoder, unless defaults are asked for")
    func wrapperAroundOptional() throws {
        let profile = Profile(name: "Ada", title: "  Countess  ")
        #expect(profile.title == "Countess")
        #expect(try shapes(profile).firePack == shapes(profile).json)
        #expect(try FirePackDecoder().decode(Profile.self, from: try FirePackEncoder().encode(profile)) == profile)
        let untitled = Profile(name: "Ada", title: nil)
        #expect(try FirePackDecoder().decode(Profile.self, from: try FirePackEncoder().encode(untitled)) == untitled)

        let absent = try FirePackEncoder().encode(Value.map(["name": "Ada"]))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Profile.self, from: Data(#"{"name": "Ada"}"#.utf8)) }
        let error = try #require(throws: DecodingError.self) { try FirePackDecoder().decode(Profile.self, from: absent) }
        guard case .keyNotFound(let key, _) = error else { Issue.record("\(error)"); return }
        #expect(key.stringValue == "title")
        let decoder = FirePackDecoder()
        decoder.missingKeyDecodingStrategy = .useDefaultValues
        #expect(try decoder.decode(Profile.self, from: absent) == untitled)
    }

    @Test("missing keys: the strategy fills collections, optionals and types with a default, the same on both paths",
          arguments: [true, false])
    func missingKeyStrategy(generated: Bool) throws {
        let old = try FirePackEncoder().encode(Value.map(["name": "Ada"]))
        let decoder = FirePackDecoder()
        decoder.usesGeneratedCoding = generated
        let thrown = try #require(throws: DecodingError.self) { try decoder.decode(AccountGenerated.self, from: old) }
        guard case .keyNotFound(let key, let context) = thrown else { Issue.record("\(thrown)"); return }
        #expect(key.stringValue == "tags" && context.debugDescription.contains("at byte 0"))
        #expect(throws: DecodingError.self) { try decoder.decode(Account.self, from: old) }

        decoder.missingKeyDecodingStrategy = .useDefaultValues
        let account = try decoder.decode(Account.self, from: old)
        #expect(account == Account(name: "Ada", tags: [], limits: [:], plan: .free, nickname: nil))
        let accountGenerated = try decoder.decode(AccountGenerated.self, from: old)
        #expect(accountGenerated == AccountGenerated(name: "Ada", tags: [], limits: [:], plan: .free, nickname: nil))
        // A present key is decoded as always: a null is still an error for a non-optional.
        let withNull = try FirePackEncoder().encode(Value.map(["name": "Ada", "tags": .null]))
        #expect(throws: DecodingError.self) { try decoder.decode(AccountGenerated.self, from: withNull) }
        // Types without a default still need their key: a missing count is not zero.
        let countError = try #require(throws: DecodingError.self) { try decoder.decode(Counted.self, from: old) }
        guard case .keyNotFound(let countKey, _) = countError else { Issue.record("\(countError)"); return }
        #expect(countKey.stringValue == "count")
        // A hand-written `decode(String?.self, forKey:)`: keyNotFound as in JSONDecoder, nil with the strategy.
        let empty = try FirePackEncoder().encode(Value.map([:]))
        #expect(throws: DecodingError.self) { try FirePackDecoder().decode(Strict.self, from: empty) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Strict.self, from: Data("{}".utf8)) }
        #expect(try decoder.decode(Strict.self, from: empty) == Strict(comment: nil))
    }
}
