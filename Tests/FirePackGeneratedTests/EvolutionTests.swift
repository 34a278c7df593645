import FirePack
import FirePackMacros
import Foundation
import Testing

// Models that change over time, as a service meets them: last year's documents read by this year's model, a field
// renamed, a field the model keeps to itself, and a model that must refuse what it does not know.

/// Version 1 of a book, as old documents were written.
@FirePackCodable
struct BookV1: Codable, Equatable {
    var title: String
    var pages: Int
}

enum BookGenre: String, Codable, Equatable {
    case unknown, fiction, poetry
}

/// Version 2: `pages` renamed `page_count` (old documents still read), new fields with defaults, a cache never
/// stored.
@FirePackCodable
struct BookV2: Codable, Equatable {
    var title: String
    @FirePackKey("page_count", aliases: ["pages", "pageCount"]) var pages: Int
    @FirePackDefault(BookGenre.unknown) var genre: BookGenre
    var rating: Double = 2.5
    var tags: [String] = ["untagged"]
    var labels: [String: String] = ["shelf": "new"]
    var subtitle: String? = "none"
    var edition = 1
    @FirePackIgnored var cachedSummary: String = ""
    @FirePackKey("isbn13", aliases: ["isbn"]) var isbn: String?
}

/// A model that refuses keys it does not declare (aliases count as declared).
@FirePackCodable(unknownKeys: .reject)
struct StrictSettings: Codable, Equatable {
    var theme: String
    @FirePackKey("font_size", aliases: ["fontSize"]) var fontSize: Int
    @FirePackIgnored var session: String?
}

/// A class: its initializer is generated in its body; defaults work the same.
@FirePackCodable
final class Counter: Codable {
    var name: String
    var count: Int = 10
    @FirePackDefault([String]()) var history: [String]

    init(name: String, count: Int, history: [String]) {
        self.name = name
        self.count = count
        self.history = history
    }
}

@Suite("Models that evolve: defaults, renamed keys, ignored and refused fields")
struct EvolutionTests {
    let encoder = FirePackEncoder()
    let decoder = FirePackDecoder()

    func map(_ fields: [(String, Value)]) throws -> Data {
        try encoder.encode(Value.map(MapValue(fields)))
    }

    @Test("an old document reads into the new model: the old key by its alias, absent fields by their defaults")
    func oldDocumentNewModel() throws {
        let old = try encoder.encode(BookV1(title: "Dune", pages: 412))
        let book = try decoder.decode(BookV2.self, from: old)
        #expect(book == BookV2(title: "Dune", pages: 412, genre: .unknown, rating: 2.5, tags: ["untagged"],
                               labels: ["shelf": "new"], subtitle: "none", edition: 1, cachedSummary: "", isbn: nil))
        // Written back, it has the new key only, never the ignored field.
        let written = try decoder.decode(Value.self, from: try encoder.encode(book))
        #expect(written["page_count"] == .integer(412) && written["pages"] == nil && written["cachedSummary"] == nil)
        #expect(written["genre"] == .string("unknown") && written["subtitle"] == .string("none"))
        #expect(try decoder.decode(BookV2.self, from: try encoder.encode(book)) == book)
    }

    @Test("the key wins over its aliases, aliases are tried in order, and a null is a value, not an absent key")
    func keysAndNulls() throws {
        let both = try map([("title", "T"), ("pages", 1), ("pageCount", 2), ("page_count", 3), ("genre", "poetry")])
        #expect(try decoder.decode(BookV2.self, from: both).pages == 3)
        let aliases = try map([("title", "T"), ("pageCount", 2), ("pages", 1), ("isbn", "978")])
        let book = try decoder.decode(BookV2.self, from: aliases)
        #expect(book.pages == 1 && book.isbn == "978")
        // An optional with an initial value: absent keeps it, null clears it.
        #expect(try decoder.decode(BookV2.self, from: map([("title", "T"), ("pages", 1), ("subtitle", .null)])).subtitle == nil)
        // A null for a non-optional with a default is an error: the default stands for a field never written.
        #expect(throws: DecodingError.self) { try decoder.decode(BookV2.self, from: map([("title", "T"), ("pages", 1), ("rating", .null)])) }
        // A string map present replaces the initial one (read by concrete code); a damaged one names its key.
        let labelled = try map([("title", "T"), ("pages", 1), ("labels", .map(["shelf": "old", "room": "b"]))])
        #expect(try decoder.decode(BookV2.self, from: labelled).labels == ["shelf": "old", "room": "b"])
        #expect { try decoder.decode(BookV2.self, from: map([("title", "T"), ("pages", 1), ("labels", .map(["shelf": 1]))])) } throws: { error in
            guard case DecodingError.typeMismatch(_, let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["labels", "shelf"]
        }
        // A present ignored key is not read.
        #expect(try decoder.decode(BookV2.self, from: map([("title", "T"), ("pages", 1), ("cachedSummary", "x")])).cachedSummary == "")
    }

    @Test("a required key absent under every name is keyNotFound naming the key and its aliases")
    func missingEverywhere() throws {
        #expect { try decoder.decode(BookV2.self, from: map([("title", "T")])) } throws: { error in
            guard case DecodingError.keyNotFound(let key, let context) = error else { return false }
            return key.stringValue == "page_count" && context.debugDescription.contains(#"(nor "pages", "pageCount")"#)
                && context.debugDescription.contains("at byte 0")
        }
    }

    @Test("unknownKeys: .reject refuses a key the model does not declare, naming it and its byte offset")
    func reject() throws {
        let good = try map([("theme", "dark"), ("fontSize", 12)])
        #expect(try decoder.decode(StrictSettings.self, from: good) == StrictSettings(theme: "dark", fontSize: 12, session: nil))
        let extra = try map([("theme", "dark"), ("font_size", 12), ("beta", true)])
        #expect { try decoder.decode(StrictSettings.self, from: extra) } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["beta"] && context.debugDescription.contains(#"Unknown key "beta""#)
                && context.debugDescription.contains("at byte ")
        }
        // An ignored property's key is not declared in the document either.
        #expect(throws: DecodingError.self) { try decoder.decode(StrictSettings.self, from: map([("theme", "a"), ("font_size", 1), ("session", "s")])) }
        // Nested, the path leads to the key.
        #expect { try decoder.decode([StrictSettings].self, from: try encoder.encode(Value.array([.map(MapValue([("theme", "a"), ("font_size", 1), ("x", 1)]))]))) } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.codingPath.map(\.stringValue) == ["Index 0", "x"]
        }
    }

    @Test("a class's generated initializer keeps initial values and defaults for absent keys")
    func classDefaults() throws {
        let counter = try decoder.decode(Counter.self, from: map([("name", "c")]))
        #expect(counter.name == "c" && counter.count == 10 && counter.history == [])
        let full = try decoder.decode(Counter.self, from: map([("name", "c"), ("count", 3), ("history", .array(["a"]))]))
        #expect(full.count == 3 && full.history == ["a"])
    }

    @Test("synthesized Codable does not know the attributes: the differences are the documented ones")
    func codablePathDiffers() throws {
        // JSONDecoder (synthesized Codable) throws keyNotFound where the generated path uses the default.
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(BookV2.self, from: Data(#"{"title":"T","pages":1}"#.utf8)) }
        #expect(try decoder.decode(BookV2.self, from: map([("title", "T"), ("pages", 1)])).genre == .unknown)
    }
}
