import Foundation
import Testing
import FirePack
@testable import FirePackInterop
import FirePackTestSupport

/// The direct JSON → FirePack path (`JSONTranscoding`, used by `firepack convert` for JSON lines) against the tree
/// path it replaces: whatever it writes, `Value(json:)` reads and `FirePackWriter.write(_:)` writes byte for byte.
@Suite struct JSONTranscodingTests {
    /// The map the text holds, through the tree path, or nil when the tree path rejects it or it is not a map.
    func treeMap(_ text: [UInt8]) -> MapValue? {
        guard case .map(let map)? = try? Value(json: text) else { return nil }
        return map
    }

    func treeBytes(_ map: MapValue) -> [UInt8] {
        let writer = FirePackWriter()
        writer.write(.map(map))
        return writer.writtenBytes
    }

    func directBytes(_ text: [UInt8], skipping: String? = nil) -> [UInt8]? {
        let writer = FirePackWriter()
        do {
            try text.withUnsafeBytes { try JSONTranscoding.writeObject($0, skipping: skipping.map { Array($0.utf8) }, options: JSONOptions(), into: writer) }
        } catch { return nil }
        return writer.writtenBytes
    }

    @Test func randomObjectsWriteTheTreePathsBytes() throws {
        var random = RandomValues(seed: 10)
        var direct = 0
        for _ in 0..<3_000 {
            let map = random.map(depth: 0)
            for pretty in [false, true] {
                let text = Value.map(map).jsonBytes(options: JSONOptions(pretty: pretty))
                let tree = try #require(treeMap(text))
                guard let bytes = directBytes(text) else {
                    // Only an object that may read as something else than a map of its entries (a marker first, or a
                    // first key JSON writes with escapes) is left to the tree path.
                    let first = try #require(map.keys.first)
                    let escaped = first.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
                    #expect(ReversibleMarker(rawValue: first) != nil || escaped, "the direct path refused \(String(decoding: text, as: UTF8.self))")
                    continue
                }
                #expect(bytes == treeBytes(tree))
                direct += 1
            }
        }
        #expect(direct > 5_000)
    }

    @Test func skippingAKeyWritesTheMapWithoutIt() throws {
        var random = RandomValues(seed: 11)
        var located = 0
        for index in 0..<1_000 {
            var map = random.map(depth: 0)
            map["__name__"] = .string("books/b\(index)")
            let text = Value.map(map).jsonBytes()
            guard let bytes = directBytes(text, skipping: "__name__") else { continue }
            map["__name__"] = nil
            #expect(bytes == treeBytes(map))
            #expect(text.withUnsafeBytes { JSONTranscoding.lastMemberString(named: Array("__name__".utf8), in: $0) } == "books/b\(index)")
            // nil (the tree path) only where a top-level key has escapes.
            if let members = text.withUnsafeBytes({ JSONTranscoding.members(named: [Array("__name__".utf8)], in: $0, options: JSONOptions()) }) {
                #expect(members.first == .string("books/b\(index)"))
                located += 1
            }
        }
        #expect(located > 500)
        // A skipped key twice is a duplicate key, as on the tree path.
        #expect(directBytes(Array(#"{"__name__":"a/b","x":1,"__name__":"a/c"}"#.utf8), skipping: "__name__") == nil)
        #expect(treeMap(Array(#"{"__name__":"a/b","x":1,"__name__":"a/c"}"#.utf8)) == nil)
    }

    /// Damaged text: the direct path never writes what the tree path rejects, and writes the same bytes otherwise.
    @Test func damagedTextTakesNoOtherWay() throws {
        var random = RandomValues(seed: 12)
        var rng = SeededGenerator(seed: 13)
        var agreedValid = 0
        for index in 0..<10_000 {
            var map = random.map(depth: 0)
            if index % 2 == 0 { map["__name__"] = .string("c/d\(index)") }
            var text = Value.map(map).jsonBytes()
            for _ in 0..<Int.random(in: 1...3, using: &rng) { ByteMutation.random(using: &rng).apply(to: &text, using: &rng) }
            let tree = treeMap(text)
            if let bytes = directBytes(text) {
                let tree = try #require(tree, "the direct path wrote text the tree path rejects: \(String(decoding: text, as: UTF8.self).debugDescription)")
                #expect(bytes == treeBytes(tree))
                agreedValid += 1
            }
            let name = text.withUnsafeBytes { JSONTranscoding.lastMemberString(named: Array("__name__".utf8), in: $0) }
            if let name, let tree, directBytes(text, skipping: "__name__") != nil {
                #expect(tree["__name__"] == .string(name))
            }
            if let members = text.withUnsafeBytes({ JSONTranscoding.members(named: [Array("__name__".utf8)], in: $0, options: JSONOptions()) }), let tree {
                #expect(members[0] == tree["__name__"])
            }
        }
        #expect(agreedValid > 400)
    }

    @Test func markersAndEscapesGoThroughTheTree() throws {
        let cases = [
            #"{"t":{"__timestamp__":"2020-01-01T00:00:00.5Z"},"n":{"__timestamp__":"2020-01-01T00:00:00Z","x":1}}"#,
            #"{"t":{ "__timestamp__" : "1969-12-31T23:59:59+01:00" }}"#,
            #"{"t":{"__timestamp__":"not a time"}}"#,
            #"{"m":{"__map__":{"__bytes__":"AAE="}},"e":{"\u005f_bytes__":"AAE="}}"#,
            #"{"r":{"__reference__":"a/b"},"g":{"__geopoint__":[1.5,-2]},"d":{"__double__":"NaN"}}"#,
            #"{"k\n":"\u00e9","a":[1,2.5,-0.0,1e400]}"#,
        ]
        for text in cases.map({ Array($0.utf8) }) {
            let direct = directBytes(text)
            if let tree = treeMap(text) {
                #expect(direct == treeBytes(tree), "\(String(decoding: text, as: UTF8.self))")
            } else {
                #expect(direct == nil, "\(String(decoding: text, as: UTF8.self))")
            }
        }
        // A whole object that is a marker is not a map: the direct path leaves it to the tree.
        #expect(directBytes(Array(#"{"__timestamp__":"2020-01-01T00:00:00Z"}"#.utf8)) == nil)
        #expect(directBytes(Array(#"{"__map__":{"a":1}}"#.utf8)) == nil)
    }
}

/// The direct FirePack → JSON path (`JSONTranscoding.appendObject`, used by `firepack convert` for streams to JSON
/// lines) against the tree path: the same text, or nothing where the tree rejects the bytes.
@Suite struct JSONFromBytesTests {
    static let extra = (key: "__name__", value: "books/b")

    /// The tree path's line for the map `bytes` hold, or nil when they do not hold a map.
    func treeText(_ bytes: [UInt8], options: JSONOptions) -> [UInt8]? {
        guard case .map(var map)? = try? Value(firePackBytes: bytes), map[Self.extra.key] == nil else { return nil }
        map[Self.extra.key] = .string(Self.extra.value)
        return Value.map(map).jsonBytes(options: options)
    }

    func directText(_ bytes: [UInt8], options: JSONOptions) -> [UInt8]? {
        let buffer = ByteOutput(capacity: 16)   // small: appends must grow it
        buffer.append(contentsOf: Array("previous line\n".utf8))
        let written = bytes.withUnsafeBytes { raw -> Bool in
            guard let reader = try? FirePackReader(bytes: raw) else { return false }
            return JSONTranscoding.appendObject(reader, appending: Self.extra, options: options, to: buffer)
        }
        let output = buffer.bytes
        #expect(output.starts(with: Array("previous line\n".utf8)))
        if !written { #expect(output.count == 14, "a refused object leaves the output as it was") }
        return written ? Array(output.dropFirst(14)) : nil
    }

    @Test func randomMapsWriteTheTreePathsText() throws {
        var random = RandomValues(seed: 20)
        var direct = 0, attempted = 0
        for _ in 0..<3_000 {
            let map = random.map(depth: 0)
            guard map[Self.extra.key] == nil else { continue }
            attempted += 2
            let bytes = Value.map(map).firePackBytes()
            for options in [JSONOptions(), JSONOptions(form: .plain)] {
                let tree = try #require(treeText(bytes, options: options))
                let text = directText(bytes, options: options)
                #expect(text == nil || text == tree)
                if text != nil { direct += 1 }
            }
        }
        #expect(direct == attempted, "the direct path took every well-formed map")
        // Sorted keys and pretty output are the tree's; so is a field named like the extra member.
        let bytes = Value.map(["b": 1, "a": 2]).firePackBytes()
        #expect(directText(bytes, options: JSONOptions(sortedKeys: true)) == nil)
        #expect(directText(bytes, options: JSONOptions(pretty: true)) == nil)
        #expect(directText(Value.map(["__name__": "x"]).firePackBytes(), options: JSONOptions()) == nil)
        // An empty document: only the extra member.
        let output = ByteOutput()
        #expect(JSONTranscoding.appendObject(nil, appending: Self.extra, options: JSONOptions(), to: output))
        #expect(String(decoding: output.bytes, as: UTF8.self) == #"{"__name__":"books/b"}"#)
    }

    /// Damaged bytes: the direct path writes nothing the tree rejects, and the tree's text otherwise.
    @Test func damagedBytesTakeNoOtherWay() throws {
        var random = RandomValues(seed: 21)
        var rng = SeededGenerator(seed: 22)
        var agreed = 0
        for _ in 0..<10_000 {
            let map = random.map(depth: 0)
            var bytes = Value.map(map).firePackBytes()
            for _ in 0..<Int.random(in: 1...3, using: &rng) { ByteMutation.random(using: &rng).apply(to: &bytes, using: &rng) }
            guard let text = directText(bytes, options: JSONOptions()) else { continue }
            let tree = try #require(treeText(bytes, options: JSONOptions()), "the direct path wrote bytes the tree rejects: \(bytes)")
            #expect(text == tree)
            agreed += 1
        }
        #expect(agreed > 300)
    }

    /// Duplicate keys, in small maps and in maps past the pairwise check, are refused as the tree refuses them.
    @Test func duplicateKeysAreRefused() throws {
        for size in [2, 40] {
            let writer = FirePackWriter()
            writer.beginMap()
            for index in 0..<size {
                writer.writeKey("k\(index)")
                writer.writeInteger(Int64(index))
            }
            writer.endMap()
            var bytes = writer.writtenBytes
            // Make the last key equal to the first: "k<n-1>" → "k0" needs the same length, so rename k1 → k0 in place.
            let k1 = try #require(bytes.firstRange(of: Array("k1".utf8)))
            bytes[k1.upperBound - 1] = UInt8(ascii: "0")
            #expect((try? Value(firePackBytes: bytes)) == nil)
            #expect(directText(bytes, options: JSONOptions()) == nil)
        }
    }
}
