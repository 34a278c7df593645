import Foundation
import Testing
@testable import FirePack

/// The one Codable encoder over its two sinks (bytes in order, a tree): the same errors and coding paths on both, and
/// the layout that keeps a single-value container out of a box.
///
/// Coding paths through nested containers made by hand are the whole path from the root. Foundation's JSONEncoder
/// (measured here: swift-foundation on Linux) reports only the last key for them, which is where FirePack differs.
@Suite("Encoder sinks")
struct EncoderSinkTests {
    /// Writes NaN three containers deep, through nested keyed and unkeyed containers made by hand.
    struct DeepNaN: Encodable {
        enum Keys: String, CodingKey { case outer, inner, list }
        func encode(to encoder: any Encoder) throws {
            var root = encoder.container(keyedBy: Keys.self)
            var outer = root.nestedContainer(keyedBy: Keys.self, forKey: .outer)
            var list = outer.nestedUnkeyedContainer(forKey: .list)
            try list.encode(1.5)
            var element = list.nestedContainer(keyedBy: Keys.self)
            try element.encode(Double.nan, forKey: .inner)
        }
    }

    /// Encodes `value` with `.throw` for NaN, through the byte sink (plain) or the tree sink (deterministic, or
    /// `encodeToValue`), and returns the error's coding path.
    func nanPath(_ value: some Encodable, _ route: String) throws -> [String] {
        let encoder = FirePackEncoder()
        encoder.nonConformingFloatEncodingStrategy = .throw
        do {
            switch route {
            case "bytes": _ = try encoder.encodeToBytes(value)
            case "sorted":
                encoder.deterministic = true
                _ = try encoder.encodeToBytes(value)
            default: _ = try encoder.encodeToValue(value)
            }
        } catch EncodingError.invalidValue(_, let context) {
            return context.codingPath.map(\.stringValue)
        }
        Issue.record("NaN encoded with .throw through \(route)")
        return []
    }

    @Test("an error inside nested containers made by hand carries the whole coding path on both sinks",
          arguments: ["bytes", "sorted", "tree"])
    func nestedContainerPaths(route: String) throws {
        #expect(try nanPath(DeepNaN(), route) == ["outer", "list", "Index 1", "inner"])
    }

    /// A value whose map is written after a sibling's: bytes in order cannot, the tree can.
    struct LateSibling: Encodable {
        enum Keys: String, CodingKey { case first, second, late }
        func encode(to encoder: any Encoder) throws {
            var root = encoder.container(keyedBy: Keys.self)
            var first = root.nestedContainer(keyedBy: Keys.self, forKey: .first)
            var second = root.nestedUnkeyedContainer(forKey: .second)
            try second.encode(2)
            try first.encode(Double.nan, forKey: .late)
        }
    }

    @Test("an error in a container written after its sibling names the container's own path", arguments: ["bytes", "sorted", "tree"])
    func lateContainerPath(route: String) throws {
        #expect(try nanPath(LateSibling(), route) == ["first", "late"])
    }

    @Test("a container written after its sibling, and a super encoder used late, land where JSONEncoder puts them")
    func lateWritesThroughTheTree() throws {
        struct Late: Encodable {
            enum Keys: String, CodingKey { case a, b, parent }
            func encode(to encoder: any Encoder) throws {
                var root = encoder.container(keyedBy: Keys.self)
                var a = root.nestedUnkeyedContainer(forKey: .a)
                let parent = root.superEncoder(forKey: .parent)
                try root.encode("b", forKey: .b)
                try a.encode(1)
                var inParent = parent.container(keyedBy: Keys.self)
                try inParent.encode(true, forKey: .a)
            }
        }
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Late())) as? [String: Any]
        #expect((json?["a"] as? [Int]) == [1])
        let bytes = try FirePackEncoder().encodeToBytes(Late())
        #expect(try Value(firePackBytes: bytes) == ["a": [1], "parent": ["a": true], "b": "b"])
        #expect(try FirePackEncoder().encodeToValue(Late()) == ["a": [1], "parent": ["a": true], "b": "b"])
    }

    @Test("a container asked for under a key that holds a whole map or array keeps what it holds, as JSONEncoder does",
          arguments: [false, true])
    func containerOverAWholeValue(deterministic: Bool) throws {
        struct Grown: Encodable {
            enum Keys: String, CodingKey { case map, list, other }
            func encode(to encoder: any Encoder) throws {
                var root = encoder.container(keyedBy: Keys.self)
                try root.encode(["a": 1], forKey: .map)  // one key: a dictionary's order is not fixed
                try root.encode([1, 2], forKey: .list)
                try root.encode("kept", forKey: .other)
                var map = root.nestedContainer(keyedBy: Keys.self, forKey: .map)
                try map.encode(3, forKey: .other)
                var list = root.nestedUnkeyedContainer(forKey: .list)
                try list.encode(3)
            }
        }
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Grown())) as? [String: Any]
        #expect((json?["map"] as? [String: Int]) == ["a": 1, "other": 3])
        #expect((json?["list"] as? [Int]) == [1, 2, 3])
        let encoder = FirePackEncoder()
        encoder.deterministic = deterministic
        let expected: Value = ["map": ["a": 1, "other": 3], "list": [1, 2, 3], "other": "kept"]
        let bytes = try Value(firePackBytes: encoder.encodeToBytes(Grown()))
        #expect(bytes["map"] == expected["map"] && bytes["list"] == expected["list"] && bytes["other"] == "kept")
        #expect(try encoder.encodeToValue(Grown())["map"] == expected["map"])
    }

    @Test("a super encoder never used leaves an empty map at its place, as JSONEncoder does, on both sinks",
          arguments: [false, true])
    func unusedSuperEncoder(deterministic: Bool) throws {
        struct Unused: Encodable {
            enum Keys: String, CodingKey { case a, parent, list }
            func encode(to encoder: any Encoder) throws {
                var root = encoder.container(keyedBy: Keys.self)
                try root.encode(1, forKey: .a)
                _ = root.superEncoder()
                _ = root.superEncoder(forKey: .parent)
                var list = root.nestedUnkeyedContainer(forKey: .list)
                _ = list.superEncoder()
                try list.encode(2)
            }
        }
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Unused())) as? [String: Any]
        #expect((json?["super"] as? [String: Any])?.isEmpty == true)
        #expect((json?["parent"] as? [String: Any])?.isEmpty == true)
        #expect((json?["list"] as? [Any])?.count == 2)
        let encoder = FirePackEncoder()
        encoder.deterministic = deterministic
        let expected: Value = ["a": 1, "super": [:], "parent": [:], "list": [[:], 2]]
        let bytes = try Value(firePackBytes: encoder.encodeToBytes(Unused()))
        #expect(deterministic ? bytes == ["a": 1, "list": [[:], 2], "parent": [:], "super": [:]] : bytes == expected)
        #expect(try encoder.encodeToValue(Unused()) == expected)
        // Asked for under a key written before, or of a container closed already: bytes in order cannot give it
        // its place, and the value takes the tree, where it replaces the key's value as JSONEncoder's does.
        struct Replaced: Encodable {
            enum Keys: String, CodingKey { case a, x, y }
            func encode(to encoder: any Encoder) throws {
                var root = encoder.container(keyedBy: Keys.self)
                try root.encode(1, forKey: .a)
                _ = root.superEncoder(forKey: .a)
                var x = root.nestedUnkeyedContainer(forKey: .x)
                _ = root.nestedUnkeyedContainer(forKey: .y)
                _ = x.superEncoder()
            }
        }
        let replaced = try JSONSerialization.jsonObject(with: JSONEncoder().encode(Replaced())) as? [String: Any]
        #expect((replaced?["a"] as? [String: Any])?.isEmpty == true && (replaced?["x"] as? [Any])?.count == 1)
        let tree: Value = ["a": [:], "x": [[:]], "y": []]
        #expect(try Value(firePackBytes: encoder.encodeToBytes(Replaced())) == tree)
        #expect(try encoder.encodeToValue(Replaced()) == tree)
        // A super encoder asked for a container it leaves empty (a base class with an empty list): what that container
        // leaves, as JSONEncoder writes it, on both sinks.
        struct EmptyBase: Encodable {
            enum Keys: String, CodingKey { case a }
            func encode(to encoder: any Encoder) throws {
                var root = encoder.container(keyedBy: Keys.self)
                try root.encode(1, forKey: .a)
                _ = root.superEncoder().unkeyedContainer()
            }
        }
        let empty = try JSONSerialization.jsonObject(with: JSONEncoder().encode(EmptyBase())) as? [String: Any]
        #expect((empty?["super"] as? [Any])?.isEmpty == true)
        #expect(try Value(firePackBytes: encoder.encodeToBytes(EmptyBase())) == ["a": 1, "super": []])
        #expect(try encoder.encodeToValue(EmptyBase()) == ["a": 1, "super": []])
    }

    @Test("a single-value container refuses a second value on both sinks", arguments: [false, true])
    func singleValueWrittenTwice(deterministic: Bool) throws {
        struct Twice: Encodable {
            func encode(to encoder: any Encoder) throws {
                var container = encoder.singleValueContainer()
                try container.encode(1)
                try container.encode(2)
            }
        }
        let encoder = FirePackEncoder()
        encoder.deterministic = deterministic
        #expect(throws: EncodingError.self) { _ = try encoder.encodeToBytes(["x": Twice()]) }
        #expect(throws: EncodingError.self) { _ = try encoder.encodeToValue(Twice()) }
    }

    @Test("a key written twice keeps its first place and last value on both sinks, beside unknown fields")
    func repeatedKeyAndBag() throws {
        struct Repeated: Encodable {
            enum Keys: String, CodingKey { case a, b, bag }
            var bag = FirePackUnknownFields(["b": "from the bag", "c": 3])
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: Keys.self)
                try c.encode("first", forKey: .a)
                try c.encode(bag, forKey: .bag)
                try c.encode("model", forKey: .b)
                try c.encode("last", forKey: .a)
            }
        }
        let expected: Value = ["a": "last", "b": "model", "c": 3]
        let plain = try Value(firePackBytes: FirePackEncoder().encodeToBytes(Repeated()))
        #expect(plain == expected)
        #expect(keys(plain) == ["a", "b", "c"])
        #expect(try keys(FirePackEncoder().encodeToValue(Repeated())) == ["a", "b", "c"])
    }

    func keys(_ value: Value) -> [String] {
        if case .map(let map) = value { return map.keys }
        return []
    }

    /// A dictionary through its own `encode(to:)` (a keyed container and a coding key per entry), for comparison
    /// with the encoder's direct writing of `[String: V]`.
    struct ThroughContainer<V: Encodable>: Encodable {
        let dictionary: [String: V]
        func encode(to encoder: any Encoder) throws { try dictionary.encode(to: encoder) }
    }

    @Test("[String: V] written directly gives the bytes, errors and untouched keys of Dictionary.encode(to:)",
          arguments: [false, true])
    func stringKeyedDictionaries(deterministic: Bool) throws {
        let encoder = FirePackEncoder()
        encoder.deterministic = deterministic
        let nested: [String: [String: [Int]]] = ["someKey": ["innerKey": [1, 2]], "b": [:], "": ["x": []]]
        #expect(try encoder.encodeToBytes(nested) == encoder.encodeToBytes(ThroughContainer(dictionary: nested)))
        #expect(try encoder.encodeToValue(nested) == encoder.encodeToValue(ThroughContainer(dictionary: nested)))
        // A key strategy never touches a dictionary's keys, at any depth.
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let tree = try encoder.encodeToValue(nested)
        #expect(Set(keys(tree)) == ["someKey", "b", ""])
        if case .map(let map) = tree { #expect(keys(map["someKey"] ?? .null) == ["innerKey"]) }
        encoder.nonConformingFloatEncodingStrategy = .throw
        for value in [ThroughContainer(dictionary: ["a": [1, .nan]])] {
            var paths: [[String]] = []
            for attempt in 0..<2 {
                do {
                    _ = attempt == 0 ? try encoder.encodeToBytes(value.dictionary) : try encoder.encodeToBytes(value)
                } catch EncodingError.invalidValue(_, let context) {
                    paths.append(context.codingPath.map(\.stringValue))
                }
            }
            #expect(paths == [["a", "Index 1"], ["a", "Index 1"]])
        }
    }

    @Test("a single-value container over bytes fits an existential's inline buffer (no box per value)")
    func singleValueContainerLayout() {
        #expect(MemoryLayout<EncoderImpl.SingleValueContainer>.size <= 3 * MemoryLayout<Int>.size)
    }
}
