import Testing
@testable import FirePack
import FirePackTestSupport

/// A writer without key references checks a map's keys against that map's own, in place, until a map reaches
/// `keysCheckedInPlace` keys; then the root value's keys move to the key table (FirePackWriter+OpenKeys.swift).
/// Either way a key written twice in one map is refused, the same key in another map is not, and the bytes are the
/// literals a writer that checks nothing writes.
@Suite("Writer: keys checked in place without key references")
struct WriterKeysInPlaceTests {
    static let threshold = FirePackWriter.keysCheckedInPlace

    /// Keys of one length sharing their first and last bytes, so they share a filter bit and are compared in full.
    static func alike(_ count: Int) -> [String] {
        (0..<count).map { "k" + String(1000 + $0) + "z" }
    }

    @Test("a repeat at every position of maps on both sides of the threshold is refused, and nothing else is")
    func repeatsAtEveryPosition() throws {
        for count in [1, 2, Self.threshold - 1, Self.threshold, Self.threshold + 1, 3 * Self.threshold] {
            for keys in [Self.alike(count), (0..<count).map { "key\($0)" }] {
                for repeated in 0..<count {
                    let writer = FirePackWriter(options: .init(keyReferences: false))
                    writer.beginMap()
                    for (index, key) in keys.enumerated() {
                        #expect(writer.writeKey(key), "\(count) keys: \(key) is new")
                        writer.writeInteger(Int64(index))
                        if index == repeated || index == count - 1 {
                            #expect(!writer.writeKey(keys[repeated]), "\(count) keys: \(keys[repeated]) again")
                        }
                    }
                    writer.endMap()
                    let expected = Value.map(MapValue(keys.enumerated().map { ($1, Value.integer(Int64($0))) }))
                    let bytes = writer.takeBytes()
                    #expect(bytes == expected.firePackBytes(keyReferences: false))
                    #expect(try Value(firePackBytes: bytes) == expected)
                }
            }
        }
    }

    @Test("the same keys in nested and sibling maps, below and past the threshold, are each their map's own")
    func nestedMaps() throws {
        for inner in [3, Self.threshold + 4] {
            let keys = Self.alike(inner)
            let writer = FirePackWriter(options: .init(keyReferences: false))
            var expected: [(String, Value)] = []
            writer.beginMap()
            for key in keys.prefix(3) {
                #expect(writer.writeKey(key))
                writer.writeBoolean(true)
                expected.append((key, true))
            }
            for name in ["first", "second"] {
                #expect(writer.writeKey(name))
                writer.beginMap()
                for (index, key) in keys.enumerated() {
                    #expect(writer.writeKey(key), "\(inner): \(key) in \(name)")
                    writer.writeInteger(Int64(index))
                }
                #expect(!writer.writeKey(keys[inner - 1]) && !writer.writeKey(keys[0]))
                writer.endMap()
                expected.append(
                    (name, .map(MapValue(keys.enumerated().map { ($1, Value.integer(Int64($0))) }))))
            }
            // The outer map still knows its own keys, in place or in the table, once the inner maps are closed.
            #expect(!writer.writeKey(keys[0]) && !writer.writeKey("first"))
            #expect(writer.writeKey(keys[inner - 1]) == (inner > 3))
            if inner > 3 {
                writer.writeNull()
                expected.append((keys[inner - 1], .null))
            }
            writer.endMap()
            let bytes = writer.takeBytes()
            #expect(!bytes.contains(0xD3), "no key table (D3) without references")
            #expect(try Value(firePackBytes: bytes) == .map(MapValue(expected)))
            // The next root value starts with no keys: in place again.
            writer.beginMap()
            #expect(writer.writeKey(keys[0]) && writer.state.keysInPlace)
            writer.writeNull()
            writer.endMap()
        }
    }

    @Test("keys stay found when a deferred value or a flush moves them")
    func movedKeys() throws {
        // A deferred value moves the keys written after it.
        let writer = FirePackWriter(options: .init(keyReferences: false))
        writer.beginMap()
        writer.writeKey("name")
        let deferred = writer.deferValue()
        for key in Self.alike(5) {
            writer.writeKey(key)
            writer.writeNull()
        }
        writer.insertDeferredValue(at: deferred) { $0.writeString(String(repeating: "n", count: 300)) }
        for key in Self.alike(5) + ["name"] { #expect(!writer.writeKey(key), "\(key) after the deferred value") }
        #expect(writer.writeKey("late"))
        writer.writeNull()
        writer.endMap()
        let value = try Value(firePackBytes: writer.takeBytes())
        #expect(value["name"] == .string(String(repeating: "n", count: 300)) && value["late"] == .null)

        // A flush with a value in progress moves it to the buffer's start.
        final class Collected { var bytes: [UInt8] = [] }
        let collected = Collected()
        let flushing = FirePackWriter(
            options: .init(keyReferences: false), sink: .init { collected.bytes += Array($0) })
        flushing.writeString(String(repeating: "x", count: 500))
        flushing.beginMap()
        for key in Self.alike(4) {
            flushing.writeKey(key)
            flushing.writeNull()
        }
        try flushing.flush()
        let first = collected.bytes.count
        #expect(first > 500 && first < 510, "only the string is complete")
        for key in Self.alike(4) { #expect(!flushing.writeKey(key), "\(key) after the flush") }
        #expect(flushing.writeKey("after"))
        flushing.writeNull()
        flushing.endMap()
        try flushing.flush()
        let second = try Value(firePackBytes: Array(collected.bytes[first...]))
        #expect(second["after"] == .null && second[Self.alike(4)[3]] == .null)
    }
}
