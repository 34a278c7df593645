import FirePack
import Foundation
import Testing

/// `[String: V]` is read straight from the map (DecoderImpl+Dictionaries.swift); these pin down that it gives what
/// `Dictionary.init(from:)` through a keyed container gives, as Foundation's JSONDecoder shows it.
@Suite("Dictionaries keyed by String, read in one pass")
struct StringKeyedDictionaryTests {
    struct Holder: Codable, Equatable {
        var labels: [String: String]
        var counts: [String: Int]
        var nested: [String: [String: Double]]
    }

    @Test("values of every kind, nested, and empty maps round-trip")
    func roundTrip() throws {
        let holder = Holder(labels: ["a": "x", "é": "ü", "": "empty key"], counts: ["one": 1, "12": 12],
                            nested: ["p": ["lat": 1.5, "lng": -2], "q": [:]])
        let bytes = try FirePackEncoder().encode(holder)
        #expect(try FirePackDecoder().decode(Holder.self, from: bytes) == holder)
        #expect(try FirePackDecoder().decode([String: String].self, from: try FirePackEncoder().encode([String: String]())) == [:])
    }

    /// Maps of strings, integers, doubles and flags are read by concrete code (`decodeScalarMap`): each gives what
    /// the generic route gives — the values with their bit patterns, the first value of a key given twice (its second
    /// never read), and a value's error at its key.
    @Test("maps of Swift's scalars: values, a key given twice, an error at its key")
    func scalarMaps() throws {
        func roundTrip<V: Codable & Equatable>(_ map: [String: V]) throws -> [String: V] {
            try FirePackDecoder().decode([String: V].self, from: try FirePackEncoder().encode(map))
        }
        #expect(try roundTrip(["a": 1, "b": -7, "max": Int.max, "min": Int.min]) == ["a": 1, "b": -7, "max": Int.max, "min": Int.min])
        #expect(try roundTrip(["a": Int64(1) << 40, "b": -1]) == ["a": Int64(1) << 40, "b": -1])
        #expect(try roundTrip(["t": true, "f": false]) == ["t": true, "f": false])
        let doubles = try roundTrip(["x": 65.66, "z": -0.0, "inf": .infinity, "nan": Double(bitPattern: 0x7FF8_0000_0000_0BAD)])
        #expect(doubles["x"] == 65.66 && doubles["inf"] == .infinity)
        #expect(doubles["z"]?.bitPattern == (-0.0).bitPattern && doubles["nan"]?.bitPattern == 0x7FF8_0000_0000_0BAD)

        // The same key twice, its second value of another type: the first value, as a keyed container finds it.
        var twice = [UInt8](try FirePackEncoder().encode(Value.map(["ab": 1, "cd": "not a number"])))
        let key = try #require(twice.firstRange(of: Array("cd".utf8))).lowerBound
        twice.replaceSubrange(key..<key + 2, with: Array("ab".utf8))
        #expect(try FirePackDecoder().decode([String: Int].self, from: twice) == ["ab": 1])
        #expect(try FirePackDecoder().decode([String: Double].self, from: twice) == ["ab": 1])
        #expect(try FirePackDecoder().decode([String: Int64].self, from: twice) == ["ab": 1])

        // A value of the wrong type, at its key, as JSONDecoder reports it.
        let bytes = try FirePackEncoder().encode(Value.map(["ok": true, "7": "yes"]))
        let error = try #require(throws: DecodingError.self) { try FirePackDecoder().decode([String: Bool].self, from: bytes) }
        let jsonError = try #require(throws: DecodingError.self) {
            try JSONDecoder().decode([String: Bool].self, from: Data(#"{"ok": true, "7": "yes"}"#.utf8))
        }
        guard case .typeMismatch(_, let context) = error, case .typeMismatch(_, let jsonContext) = jsonError else {
            Issue.record("\(error) / \(jsonError)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == jsonContext.codingPath.map(\.stringValue))
        #expect(context.codingPath.map(\.intValue) == [7])

        // A NaN under the `.throw` strategy fails at its key.
        let decoder = FirePackDecoder()
        decoder.nonConformingFloatDecodingStrategy = .throw
        let nan = try FirePackEncoder().encode(["a": 1.5, "b": Double.nan])
        let nanError = try #require(throws: DecodingError.self) { try decoder.decode([String: Double].self, from: nan) }
        guard case .dataCorrupted(let nanContext) = nanError else { Issue.record("\(nanError)"); return }
        #expect(nanContext.codingPath.map(\.stringValue) == ["b"])
    }

    @Test("a value's error names its key as the standard library's dictionary key does (intValue for integer keys)")
    func errorPaths() throws {
        let bytes = try FirePackEncoder().encode(Value.map(["counts": .map(["a": 1, "12": "x"])]))
        let error = try #require(throws: DecodingError.self) { try FirePackDecoder().decode([String: [String: Int]].self, from: bytes) }
        let json = Data(#"{"counts": {"a": 1, "12": "x"}}"#.utf8)
        let jsonError = try #require(throws: DecodingError.self) { try JSONDecoder().decode([String: [String: Int]].self, from: json) }
        guard case .typeMismatch(_, let context) = error, case .typeMismatch(_, let jsonContext) = jsonError else {
            Issue.record("\(error) / \(jsonError)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == jsonContext.codingPath.map(\.stringValue))
        #expect(context.codingPath.map(\.intValue) == jsonContext.codingPath.map(\.intValue))
        #expect(context.codingPath.map(\.intValue) == [nil, 12])
        #expect(context.debugDescription.contains("at byte"))
    }

    @Test("not a map, a key that is not UTF-8, and a key given twice")
    func damage() throws {
        let notMap = try FirePackEncoder().encode(Value.array([1]))
        let error = try #require(throws: DecodingError.self) { try FirePackDecoder().decode([String: Int].self, from: notMap) }
        guard case .typeMismatch = error else { Issue.record("\(error)"); return }

        var bytes = [UInt8](try FirePackEncoder().encode(Value.map(["ab": "x", "cd": "y"])))
        let second = try #require(bytes.firstRange(of: Array("cd".utf8))).lowerBound
        bytes[second] = 0xFF
        let badKey = try #require(throws: DecodingError.self) { try FirePackDecoder().decode([String: String].self, from: bytes) }
        guard case .dataCorrupted(let context) = badKey else { Issue.record("\(badKey)"); return }
        #expect(context.codingPath.isEmpty && context.debugDescription.contains("at byte \(second)"), "\(context.debugDescription)")

        // The same key twice (a map FirePack never writes; lazy decoding does not look for it): the first value
        // wins, and the second is never read, as a keyed container finds the first entry for the key.
        var twice = [UInt8](try FirePackEncoder().encode(Value.map(["ab": "x", "cd": "y"])))
        let key = try #require(twice.firstRange(of: Array("cd".utf8))).lowerBound
        twice.replaceSubrange(key..<key + 2, with: Array("ab".utf8))
        let value = try #require(twice.lastIndex(of: UInt8(ascii: "y")))
        twice[value] = 0xFF
        #expect(try FirePackDecoder().decode([String: String].self, from: twice) == ["ab": "x"])
        // Both values readable: still the first, for strings (read by concrete code) and for other values alike.
        let readable = try FirePackEncoder().encode(Value.map(["ab": "x", "cd": "y", "ef": "z"]))
        var repeated = [UInt8](readable)
        let third = try #require(repeated.firstRange(of: Array("ef".utf8))).lowerBound
        repeated.replaceSubrange(third..<third + 2, with: Array("ab".utf8))
        #expect(try FirePackDecoder().decode([String: String].self, from: repeated) == ["ab": "x", "cd": "y"])
        #expect(try FirePackDecoder().decode([String: Value].self, from: repeated) == ["ab": "x", "cd": "y"])
    }
}
