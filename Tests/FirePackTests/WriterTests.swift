import Foundation
import Testing
import FirePackTestSupport
@testable import FirePack

/// Splits concatenated root values with `encodedLength(ofValueAt:)` and decodes each.
func splitValues(_ bytes: [UInt8]) throws -> [Value] {
    var values: [Value] = []
    try bytes.withUnsafeBytes { raw in
        var offset = 0
        while offset < raw.count {
            let rest = UnsafeRawBufferPointer(rebasing: raw[offset...])
            let length = try FirePackReader.encodedLength(ofValueAt: rest)
            values.append(try Value(firePackBytes: UnsafeRawBufferPointer(rebasing: rest[..<length])))
            offset += length
        }
    }
    return values
}

@Suite("Writer")
struct WriterTests {
    @Test("a deferred value is put in its place: the bytes of writing in order, key references and long bodies included")
    func deferredValue() throws {
        // Keys repeated after the deferred place become references whose table offsets move with the insertion, and a
        // body past 127 bytes moves the map's header when it closes.
        for pad in [0, 200] {
            let path = try DocumentReference(path: "books/" + String(repeating: "x", count: pad / 10 + 1))
            func write(_ writer: FirePackWriter, deferring: Bool) {
                writer.beginMap()
                writer.writeKey("name")
                let place = deferring ? writer.deferValue() : -1
                if !deferring { writer.writeReference(path) }
                writer.writeKey("fields")
                writer.beginMap()
                for index in 0..<3 {
                    writer.writeKey("k\(index)")
                    writer.beginMap()
                    writer.writeKey("price")
                    writer.writeDouble(Double(index) + 0.25)
                    writer.writeKey("note")
                    writer.writeString(String(repeating: "n", count: pad / 3))
                    writer.endMap()
                }
                writer.endMap()
                if deferring { writer.insertDeferredValue(at: place) { $0.writeReference(path) } }
                writer.writeKey("after")
                writer.writeInteger(7)
                writer.endMap()
            }
            let inOrder = FirePackWriter()
            write(inOrder, deferring: false)
            let deferred = FirePackWriter()
            write(deferred, deferring: true)
            #expect(deferred.writtenBytes == inOrder.writtenBytes)
            let value = try Value(firePackBytes: deferred.writtenBytes)
            #expect(value["name"] == .reference(path))
            #expect(value["fields"]?["k2"]?["price"] == .double(2.25))
        }
    }

    @Test("values written one after another split again with encodedLength(ofValueAt:)")
    func concatenatedValues() throws {
        var generator = RandomValues(seed: 5)
        let values = (0..<200).map { _ in generator.value() }
        let writer = FirePackWriter()
        for value in values { writer.write(value) }
        let bytes = writer.takeBytes()
        #expect(writer.writerIndex == 0)
        #expect(try splitValues(bytes) == values)
    }

    @Test("a sink receives complete values only, and the buffer stays small")
    func sinkStreaming() throws {
        var received: [UInt8] = []
        var chunks = 0
        let writer = FirePackWriter(options: .init(flushThreshold: 4096), sink: .init { chunk in
            received += chunk
            chunks += 1
        })
        var expected: [Value] = []
        for index in 0..<2_000 {
            let value: Value = ["id": .integer(Int64(index)), "name": .string("document \(index)"), "tags": ["a", "b"]]
            expected.append(value)
            writer.write(value)
            try writer.flushIfNeeded()
            #expect(writer.writerIndex < 4096 + 200)
        }
        try writer.flush()
        #expect(chunks > 10)
        #expect(writer.writerIndex == 0)
        #expect(try splitValues(received) == expected)
    }

    @Test("flushing in the middle of a value keeps it intact, key references included")
    func flushMidValue() throws {
        var received: [UInt8] = []
        let writer = FirePackWriter(sink: .init { received += $0 })
        writer.write(["first": 1])
        writer.beginArray()
        writer.beginMap(); writer.writeKey("shared"); writer.writeInteger(1); writer.endMap()
        try writer.flush()
        #expect(received == (["first": 1] as Value).firePackBytes())
        writer.beginMap(); writer.writeKey("shared"); writer.writeInteger(2); writer.endMap()
        writer.endArray()
        try writer.flush()
        let second = Array(received[(["first": 1] as Value).firePackBytes().count...])
        #expect(try Value(firePackBytes: second) == [["shared": 1], ["shared": 2]])
        #expect(second.suffix(4) == [0xD3, 0x01, 0x01, 0x04])
    }

    @Test("a file-descriptor sink writes complete values to the file")
    func fileDescriptorSink() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("firepack-sink-\(UUID().uuidString).fpk")
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil))
        let handle = try FileHandle(forWritingTo: url)
        let writer = FirePackWriter(sink: .fileDescriptor(handle.fileDescriptor))
        writer.writeFileHeader()
        writer.write(["hello": "file"])
        try writer.flush()
        try handle.close()
        let bytes = try [UInt8](Data(contentsOf: url))
        let value = try bytes.withUnsafeBytes { raw in
            var reader = try FirePackReader(fileBytes: raw)
            return try reader.readValue()
        }
        #expect(value == ["hello": "file"])
    }

    @Test("once warm, writing the same shape of value does not grow or move the buffer")
    func bufferReuse() {
        let writer = FirePackWriter(options: .init(initialCapacity: 64))
        let value: Value = ["title": .string(String(repeating: "t", count: 500)), "items": .array((0..<50).map { .integer(Int64($0)) })]
        writer.write(value)
        _ = writer.takeBytes()
        let storage = writer.storage, capacity = writer.capacity
        for _ in 0..<100 {
            writer.write(value)
            writer.clear()
        }
        #expect(writer.storage == storage && writer.capacity == capacity)
    }

    @Test("write(ValueView) copies a sub-value with its keys re-encoded")
    func copySubValue() throws {
        let source: Value = [["id": 1, "book": ["id": 2, "title": "Dune", "tags": ["x", "y"]]], ["id": 3]]
        let encoded = source.firePackBytes()
        let copied = try FirePackReader.withReader(encoded) { reader -> [UInt8] in
            let book = try #require(try reader.root.lookup("[0].book"))
            let writer = FirePackWriter()
            try writer.write(book)
            return writer.takeBytes()
        }
        #expect(try Value(firePackBytes: copied) == source[0]?["book"])
        // A malformed sub-value is refused and leaves the writer empty.
        let broken = bytes(hex: "A1 03 82 C3 28")
        try FirePackReader.withReader(broken) { reader in
            let writer = FirePackWriter()
            #expect(throws: FirePackError.self) { try writer.write(reader.root) }
            #expect(writer.writerIndex == 0 && !writer.isInsideValue)
        }
    }

    @Test("a key written twice in one map is refused; the same key in another map is not")
    func duplicateKeysRefused() throws {
        for references in [true, false] {
            let writer = FirePackWriter(options: .init(keyReferences: references))
            writer.beginArray()
            writer.beginMap()
            #expect(writer.writeKey("id"))
            writer.writeInteger(1)
            #expect(!writer.writeKey("id"))
            #expect(writer.writeKey(""))
            writer.writeInteger(2)
            #expect(!writer.writeKey(""))
            writer.endMap()
            writer.beginMap()
            #expect(writer.writeKey("id"))
            writer.beginMap()
            #expect(writer.writeKey("id"))
            writer.writeInteger(3)
            writer.endMap()
            #expect(!writer.writeKey("id"))
            writer.endMap()
            writer.endArray()
            #expect(try Value(firePackBytes: writer.takeBytes()) == [["id": 1, "": 2], ["id": ["id": 3]]])
        }
        // Copying a malformed map with a duplicate key throws instead of writing it.
        try FirePackReader.withReader(bytes(hex: "B2 06 02 61 01 02 61 02")) { reader in
            let writer = FirePackWriter()
            #expect(throws: FirePackError.self) { try writer.write(reader.root) }
        }
    }

    @Test("write(ValueView) into a deterministic writer sorts keys as writing the tree does: the same bytes")
    func copySortsKeysWhenDeterministic() throws {
        var random = RandomValues(seed: 0x50)
        var values: [Value] = [["b": 1, "a": ["z": [1, 2], "y": "x", "": true], "ab": [["d": 1, "c": 2]]]]
        for _ in 0..<200 { values.append(.map(random.map(depth: 0))) }
        for value in values {
            let encoded = value.firePackBytes()  // keys in their written order, some by reference
            for version in [3, 1] {
                let copied = try FirePackReader.withReader(encoded) { reader -> [UInt8] in
                    let writer = FirePackWriter(options: .init(deterministic: true, formatVersion: version))
                    try writer.write(reader.root)
                    return writer.takeBytes()
                }
                #expect(copied == value.firePackBytes(deterministic: true, formatVersion: version), "\(value)")
            }
        }
        // A repeated key is found in sorted order too.
        try FirePackReader.withReader(bytes(hex: "B2 06 02 61 01 02 61 02")) { reader in
            let writer = FirePackWriter(options: .init(deterministic: true))
            let error = #expect(throws: FirePackError.self) { try writer.write(reader.root) }
            #expect(error?.code == .duplicateKey)
        }
    }

    @Test("key-table offsets widen past 255 bytes")
    func wideKeyTableOffsets() throws {
        let padding = Value.string(String(repeating: "p", count: 70_000))
        let value: Value = ["pad": padding, "late": ["later": 1], "again": ["later": 2]]
        let encoded = value.firePackBytes()
        #expect(try Value(firePackBytes: encoded) == value)
        // Table: D3, one entry, width 3 (the literal "later" sits past byte 65,535).
        #expect(Array(encoded.suffix(6).prefix(3)) == [0xD3, 0x01, 0x03])
    }

    @Test("deterministic mode sorts keys by UTF-8 bytes")
    func deterministicOrder() throws {
        let value: Value = ["b": 1, "a": 2, "é": 3, "Z": 4, "aa": 5]
        let canonical = value.firePackBytes(deterministic: true)
        guard case .map(let map) = try Value(firePackBytes: canonical) else { Issue.record("not a map"); return }
        #expect(map.keys == ["Z", "a", "aa", "b", "é"])
        #expect(value.firePackBytes() != canonical)
    }
}

@Suite("Lookups")
struct LookupTests {
    static let library: Value = ["books": [["title": "Dune", "cover": ["small": "dune-s.jpg", "large": "dune-l.jpg"]],
                                           ["title": "Emma", "cover": ["small": "emma-s.jpg"]],
                                           ["title": "Ulysses", "a.b": ["c": 42]]],
                                 "count": 3]

    @Test func pathsFollowKeysAndIndices() throws {
        try FirePackReader.withReader(Self.library.firePackBytes()) { reader in
            let root = reader.root
            #expect(try root.lookup("books[1].cover.small")?.string() == "emma-s.jpg")
            #expect(try root.lookup("books[2].`a.b`.c")?.integer() == 42)
            #expect(try root.lookup("count")?.integer() == 3)
            #expect(try root.lookup("books[3]") == nil)
            #expect(try root.lookup("books[1].cover.large") == nil)
            #expect(try root.lookup("count.x") == nil)
            #expect(try root.lookup("books")?.count() == 3)
            #expect(try root.lookup("books[0]")?.value() == Self.library["books"]?[0])
            var titles: [String] = []
            try root["books"]?.forEachElement { titles.append(try $0["title"]!.string()) }
            #expect(titles == ["Dune", "Emma", "Ulysses"])
            var keys: [String] = []
            try root.forEachEntry { key, _ in keys.append(key.string) }
            #expect(keys == ["books", "count"])
        }
    }

    @Test func pathSyntax() throws {
        #expect(try PathComponent.parse("a.b[2].`c.d`[0]") == [.key("a"), .key("b"), .index(2), .key("c.d"), .index(0)])
        #expect(try PathComponent.parse("[3]") == [.index(3)])
        #expect(try PathComponent.parse(#"`x\`y`"#) == [.key("x`y")])
        for bad in ["", "a..b", "a[", "a[-1]", "a[x]", "`open", "a]b", "a.", "a[1]b"] {
            #expect(throws: FirePackError.self, "\(bad)") { try PathComponent.parse(bad) }
        }
    }
}
