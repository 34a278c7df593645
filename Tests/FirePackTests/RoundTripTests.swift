import Foundation
import Testing
import FirePackTestSupport
@testable import FirePack

@Suite("Round trips")
struct RoundTripTests {
    @Test("seeded random values round-trip through writer, reader, cursor and deterministic mode", arguments: 0..<8)
    func randomValues(batch: Int) throws {
        for index in 0..<100 {
            let seed = UInt64(batch * 100 + index) &* 0x9E37_79B9 &+ 12_345
            var generator = RandomValues(seed: seed)
            let value = generator.value()
            let encoded = value.firePackBytes()
            let decoded = try Value(firePackBytes: encoded)
            #expect(decoded == value, "seed \(seed)")
            let viaCursor = try FirePackReader.withReader(encoded) { try readThroughCursor(&$0) }
            #expect(viaCursor == value, "cursor, seed \(seed)")
            let canonical = value.firePackBytes(deterministic: true)
            #expect(try Value(firePackBytes: canonical) == sortedKeys(value), "deterministic, seed \(seed)")
            #expect(reversedKeys(value).firePackBytes(deterministic: true) == canonical, "insertion order leaks into deterministic bytes, seed \(seed)")
            let withoutReferences = FirePackWriter(options: .init(keyReferences: false))
            withoutReferences.write(value)
            #expect(try Value(firePackBytes: withoutReferences.takeBytes()) == value, "no key references, seed \(seed)")
        }
    }

    @Test("a 1 MiB string")
    func largeString() throws {
        let text = String(repeating: "FirePack ✓ ", count: 1 << 20 / 12)
        let value: Value = ["text": .string(text), "after": 1]
        #expect(try Value(firePackBytes: value.firePackBytes()) == value)
    }

    @Test("nesting exactly at the depth limit")
    func nestingAtTheLimit() throws {
        var value: Value = "leaf"
        for level in 0..<ReaderLimits.default.maxDepth { value = level.isMultiple(of: 2) ? [value] : ["k": value] }
        #expect(try Value(firePackBytes: value.firePackBytes()) == value)
        assertDecodeFails(Value.array([value]).firePackBytes(), .depthLimitExceeded)
    }

    @Test("10,000 objects sharing keys: keys are written once and referenced")
    func sharedKeys() throws {
        let objects: [Value] = (0..<10_000).map { (index: Int) -> Value in
            var book = MapValue()
            book["id"] = .integer(Int64(index))
            book["title"] = .string("Book \(index)")
            book["published"] = .boolean(index % 2 == 0)
            book["author_name"] = "Douglas Adams"
            book["page_count"] = .integer(Int64(100 + index % 400))
            return .map(book)
        }
        let value = Value.array(objects)
        let compact = value.firePackBytes()
        let plainWriter = FirePackWriter(options: .init(keyReferences: false))
        plainWriter.write(value)
        let plain = plainWriter.takeBytes()
        #expect(try Value(firePackBytes: compact) == value)
        // Each of the 9,999 repeats replaces five literals (37 key bytes + 5 headers) by five 1-byte references;
        // the key table costs `D3 05 01` + five 1-byte offsets.
        #expect(plain.count - compact.count == 9_999 * 37 - 8)
        try FirePackReader.withReader(compact) { reader in
            let last = try #require(try reader.root[9_999])
            #expect(try last["author_name"]?.string() == "Douglas Adams")
            #expect(try last["id"]?.integer() == 9_999)
        }
    }

    @Test("container headers at every size boundary", arguments: [0, 1, 15, 16, 126, 127, 128, 129, 16_383, 16_384, 70_000])
    func containerBoundaries(count: Int) throws {
        let array = Value.array((0..<count).map { .integer(Int64($0 % 100)) })
        #expect(try Value(firePackBytes: array.firePackBytes()) == array)
        var map = MapValue()
        for index in 0..<count { map["k\(index)"] = .integer(Int64(index % 100)) }
        let nested: Value = [.map(map), array, .map(map)]
        #expect(try Value(firePackBytes: nested.firePackBytes()) == nested)
    }

    @Test("key references across moved container bodies resolve to the right literal")
    func referencesAfterBodiesMove() throws {
        // Long first objects force their headers to grow (body ≥ 128 bytes) after their literals were recorded.
        let big = String(repeating: "x", count: 300)
        let value: Value = [["first": .string(big), "second": [["deep": .string(big)]]],
                            ["second": 2, "first": 1, "deep": 3],
                            [["deep": 4]]]
        #expect(try Value(firePackBytes: value.firePackBytes()) == value)
    }

    func sortedKeys(_ value: Value) -> Value { transformMaps(value) { $0.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) } } }
    func reversedKeys(_ value: Value) -> Value { transformMaps(value) { $0.reversed() } }

    func transformMaps(_ value: Value, _ order: ([(String, Value)]) -> [(String, Value)]) -> Value {
        switch value {
        case .array(let elements): return .array(elements.map { transformMaps($0, order) })
        case .map(let map): return .map(MapValue(order(map.map { ($0.key, transformMaps($0.value, order)) })))
        default: return value
        }
    }
}
