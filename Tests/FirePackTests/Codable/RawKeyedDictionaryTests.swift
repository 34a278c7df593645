import FirePack
import Foundation
import Testing

private enum ShelfGenre: String, Codable, CaseIterable {
    case fiction, poetry, drama
}

private enum Level: Int, Codable {
    case low = 1, high = 20
}

/// Declares `CodingKeyRepresentable`: Swift's own `Dictionary` coding already makes it keyed.
private enum Shelf: String, Codable, CodingKeyRepresentable {
    case top, bottom
}

private struct ShelfLibrary: Codable, Equatable {
    var counts: [ShelfGenre: Int]
    var levels: [Level: [String]]
    var shelves: [Shelf: Double]
}

@Suite("Dictionaries keyed by enums are FirePack maps, both ways")
struct RawKeyedDictionaryTests {
    fileprivate let library = ShelfLibrary(counts: [.fiction: 3, .poetry: 0], levels: [.low: ["a"], .high: []], shelves: [.top: 1.5])

    @Test("written as maps keyed by the raw values, by the streaming and the deterministic encoder alike", arguments: [false, true])
    func encodesMaps(deterministic: Bool) throws {
        let encoder = FirePackEncoder()
        encoder.deterministic = deterministic
        let bytes = try encoder.encode(library)
        let value = try FirePackDecoder().decode(Value.self, from: bytes)
        if deterministic, case .map(let counts)? = value["counts"] { #expect(Array(counts.keys) == ["fiction", "poetry"]) }
        #expect(value["counts"]?["fiction"] == .integer(3) && value["counts"]?["poetry"] == .integer(0))
        #expect(value["levels"]?["1"] == .array(["a"]) && value["levels"]?["20"] == .array([]))
        #expect(value["shelves"]?["top"] == .double(1.5))
        #expect(try FirePackDecoder().decode(ShelfLibrary.self, from: bytes) == library)
        // Foundation's JSON coders keep Swift's flat array for a key type that is not CodingKeyRepresentable.
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(library)) as? [String: Any]
        #expect(json?["counts"] is [Any] && json?["shelves"] is [String: Any])
    }

    @Test("a key that is no raw value of the key type is an error naming the key, its path and byte offset")
    func unknownKey() throws {
        let document = Value.map(["counts": .map(["fiction": 1, "essay": 2]), "levels": .map([:]), "shelves": .map([:])])
        let bytes = try FirePackEncoder().encode(document)
        #expect { try FirePackDecoder().decode(ShelfLibrary.self, from: bytes) } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["counts", "essay"]
                && context.debugDescription.contains(#"Key "essay" is not a raw value of ShelfGenre"#)
                && context.debugDescription.contains("(at byte ")
        }
        let level = try FirePackEncoder().encode(Value.map(["counts": .map([:]), "levels": .map(["2": .array([])]), "shelves": .map([:])]))
        #expect(throws: DecodingError.self) { try FirePackDecoder().decode(ShelfLibrary.self, from: level) }
    }

    @Test("through Value and documents too")
    func throughValue() throws {
        let value = try FirePackEncoder().encodeToValue(library)
        #expect(value["counts"]?["poetry"] == .integer(0))
        #expect(try FirePackDecoder().decode(ShelfLibrary.self, from: value) == library)
    }
}
