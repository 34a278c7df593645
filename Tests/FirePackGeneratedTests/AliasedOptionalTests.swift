import FirePack
import FirePackMacros
import Foundation
import Testing

// A property whose type is an Optional the macro cannot see as one (a typealias): synthesized `Codable` reads an absent
// key as nil and leaves nil out, and so does generated coding (`FirePackValueCoding+AliasedOptionals.swift`).

/// Optionals of every kind under another name: a native scalar, a generated struct, a plain `Codable` type.
typealias Nickname = String?
typealias MaybeStop = Stop?
typealias MaybeURL = URL?

/// A model whose optional properties are all spelled through typealiases.
@FirePackCodable
struct Passenger: Codable, Equatable {
    var name: String
    var nickname: Nickname
    var homeStop: MaybeStop
    var website: MaybeURL
    @FirePackKey("seat", aliases: ["seatNumber"]) var seat: Nickname

    init(name: String, nickname: Nickname, homeStop: MaybeStop, website: MaybeURL, seat: Nickname) {
        (self.name, self.nickname, self.homeStop, self.website, self.seat) = (name, nickname, homeStop, website, seat)
    }
}

/// A model with an unknown-field bag and an Optional under another name.
@FirePackCodable
struct Traveller: Codable, Equatable {
    var name: String
    var nickname: Nickname
    var unknownFields = FirePackUnknownFields()
}

/// An enum whose associated value is an Optional under another name.
@FirePackCodable
enum Seating: Codable, Equatable {
    case reserved(seat: Nickname)
    case standing
}

/// A generic model: `value` is of a type parameter, an Optional only once specialised. Synthesized `Codable` codes it
/// with `decode`/`encode` (an absent key is `keyNotFound`, nil is written as null), and so does generated coding.
@FirePackCodable
struct Boxed<Content: Codable & Equatable>: Codable, Equatable {
    var value: Content
}

@Suite("Optionals spelled through a typealias")
struct AliasedOptionalTests {
    let empty = Passenger(name: "Ada", nickname: nil, homeStop: nil, website: nil, seat: nil)
    let full = Passenger(
        name: "Ada", nickname: "A", homeStop: Stop(stopName: "Gare", dwellSeconds: 40),
        website: URL(string: "https://example.com/ada"), seat: "12C")

    @Test("nil is left out, as synthesized Codable leaves it out: the same bytes on both paths, and no key in JSON")
    func nilIsLeftOut() throws {
        for passenger in [empty, full] {
            let generated = try Paths.encoder(generated: true).encode(passenger)
            let codable = try Paths.encoder(generated: false).encode(passenger)
            #expect(generated == codable)
        }
        let stored = try FirePackDecoder().decode(Value.self, from: Paths.encoder(generated: true).encode(empty))
        guard case .map(let map) = stored else { Issue.record("not a map: \(stored)"); return }
        #expect(map.keys == ["name"])
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(empty)) as? [String: Any]
        #expect(json.map { Array($0.keys) } == ["name"])
    }

    @Test("an absent key reads as nil on both paths, also through an alias chain; null reads as nil")
    func absentKeyIsNil() throws {
        let onlyName = try FirePackEncoder().encode(Value.map(MapValue([("name", "Ada")])))
        let withNulls = try FirePackEncoder().encode(
            Value.map(MapValue([("name", "Ada"), ("nickname", .null), ("homeStop", .null), ("seat", .null)])))
        for generated in [true, false] {
            let decoder = Paths.decoder(generated: generated)
            #expect(try decoder.decode(Passenger.self, from: onlyName) == empty)
            #expect(try decoder.decode(Passenger.self, from: withNulls) == empty)
        }
    }

    @Test("values round-trip, and an old document's alias is read")
    func valuesRoundTrip() throws {
        let bytes = try FirePackEncoder().encode(full)
        #expect(try FirePackDecoder().decode(Passenger.self, from: bytes) == full)
        let old = try FirePackEncoder().encode(Value.map(MapValue([("name", "Ada"), ("seatNumber", "3A")])))
        #expect(try FirePackDecoder().decode(Passenger.self, from: old).seat == "3A")
    }

    @Test("an enum's associated value under a typealias: left out when nil, nil when absent, on both paths")
    func associatedValue() throws {
        let reserved = Seating.reserved(seat: nil)
        #expect(try Paths.encoder(generated: true).encode(reserved) == Paths.encoder(generated: false).encode(reserved))
        let stored = try FirePackEncoder().encode(Value.map(MapValue([("reserved", .map(MapValue()))])))
        for generated in [true, false] {
            #expect(try Paths.decoder(generated: generated).decode(Seating.self, from: stored) == reserved)
        }
    }

    @Test("a type parameter that is an Optional once specialised keeps synthesized Codable's rules on both paths")
    func typeParameter() throws {
        let none = Boxed<String?>(value: nil)
        #expect(try Paths.encoder(generated: true).encode(none) == Paths.encoder(generated: false).encode(none))
        let empty = try FirePackEncoder().encode(Value.map(MapValue()))
        let outcomes = [true, false].map { generated in
            Outcome { "\(try Paths.decoder(generated: generated).decode(Boxed<String?>.self, from: empty))" }
        }
        #expect(outcomes[0] == outcomes[1])
        #expect(outcomes[0].isFailure)
    }

    @Test("a bag entry under the key of a nil aliased optional is written, as for one written T?; the model's wins")
    func bagEntryUnderTheKey() throws {
        var traveller = Traveller(name: "Ada", nickname: nil)
        traveller.unknownFields["nickname"] = "kept in the bag"
        for deterministic in [false, true] {
            let encoder = Paths.encoder(generated: true, deterministic: deterministic)
            let codable = Paths.encoder(generated: false, deterministic: deterministic)
            #expect(try FirePackDecoder().decode(Value.self, from: encoder.encode(traveller))["nickname"] == "kept in the bag")
            #expect(try encoder.encode(traveller) == codable.encode(traveller))
            var named = traveller
            named.nickname = "the model's"
            #expect(try FirePackDecoder().decode(Value.self, from: encoder.encode(named))["nickname"] == "the model's")
        }
    }
}
