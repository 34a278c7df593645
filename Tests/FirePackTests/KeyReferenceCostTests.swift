import Foundation
import Testing
@testable import FirePack
import FirePackTestSupport

/// Key references cost what their bytes pay for (Docs/FORMAT.md §3, Docs/SAFETY.md "key references"): a key-table
/// entry that points into another literal's bytes is refused before its literal is read, and a long key that
/// references repeat is checked and made into a `String` once per call.
@Suite("Key references: bounded cost")
struct KeyReferenceCostTests {
    struct Holder: Codable { var s: String; var m: [[String: Int?]] }

    /// Limits under which references may stand for long keys without bound: FirePack's writer then writes a repeat
    /// of any key as a reference, as it did for every key before the limit, and readers read them.
    static let unbounded = ReaderLimits(maxKeyExpansion: .max)

    /// `value` encoded with every repeated key a reference (`unbounded`).
    static func referencing<T: Encodable>(_ value: T) throws -> [UInt8] {
        let writer = FirePackWriter(options: .init(limits: unbounded))
        try FirePackEncoder().encode(value, into: writer)
        return writer.takeBytes()
    }

    /// A decoder whose limits let references stand for long keys without bound.
    static func unboundedDecoder() -> FirePackDecoder {
        let decoder = FirePackDecoder()
        decoder.limits = unbounded
        return decoder
    }

    /// `{"s": S, "m": [{r0: null}, {r1: null}, …]}` where S is `C2 80 10` repeated and entry `i` points at the `i`th
    /// repeat: read as a varint, `C2 80 10` is an even header of a 131,105-byte key, and the bytes after it are UTF-8,
    /// so every entry names a different valid-looking key of 131 KB inside S. The value is 175 KB; 5,000 such keys
    /// are 655 MB.
    static func overlappingEntries(count: Int = 5_000) -> (bytes: [UInt8], secondReference: Int) {
        let pattern: [UInt8] = [0xC2, 0x80, 0x10]
        let string = [UInt8]((0..<50_000).flatMap { _ in pattern })
        var maps: [UInt8] = []
        var referenceOffsets: [Int] = []
        for index in 0..<count {
            let reference = varintBytes(2 * index + 1)
            referenceOffsets.append(maps.count + 2)  // after B1 and the one-byte length
            maps += [0xB1, UInt8(reference.count + 1)] + reference + [0xC0]
        }
        let mapsArray = [0xD0] + varintBytes(varintBytes(count).count + maps.count) + varintBytes(count) + maps
        let sEntry = [0x02] + Array("s".utf8) + [0xCD] + varintBytes(string.count) + string
        let mEntry = [0x02] + Array("m".utf8) + mapsArray
        let body = sEntry + mEntry
        let root = [0xB2] + varintBytes(body.count) + body
        let stringStart = 1 + varintBytes(body.count).count + 2 + 1 + varintBytes(string.count).count
        let mapsStart = 1 + varintBytes(body.count).count + sEntry.count + 2 + mapsArray.count - maps.count
        var table: [UInt8] = [0xD3] + varintBytes(count) + [3]
        for index in 0..<count {
            let target = stringStart + 3 * index
            table += [UInt8(target & 0xFF), UInt8((target >> 8) & 0xFF), UInt8(target >> 16)]
        }
        return (root + table, mapsStart + referenceOffsets[min(1, count - 1)])
    }

    /// An error under a long key names the key by its start and end: a message that showed it whole was as large as
    /// the key (a megabyte from a one-byte reference), once per error.
    @Test func anErrorUnderALongKeyShowsItsStartAndEnd() {
        let key = String(repeating: "é", count: 1 << 19) + "!"  // 1 MiB and a byte; its last 32 bytes start inside an é
        let error = FirePackError(.typeMismatch, offset: 7, "not a number", path: [.key("m"), .key(key), .index(3)])
        let shown = "$.m." + String(repeating: "é", count: 100) + "…(1048577 bytes)…" + String(repeating: "é", count: 15) + "![3]"
        #expect(error.pathDescription == shown)
        #expect(error.description.utf8.count < 1_000, "\(error.description.utf8.count) bytes")
        let short = FirePackError(.typeMismatch, "x", path: [.key(String(repeating: "k", count: 256))])
        #expect(short.pathDescription == "$." + String(repeating: "k", count: 256))
    }

    /// Entries that overlap are refused at the second reference by every reader that reads the whole value, and by
    /// the lazy decoder, at the same byte; before, verification checked and hashed 655 MB, and `Value` made 5,000
    /// strings of 131 KB.
    @Test func entriesThatOverlapAreRefusedBeforeTheirLiteralsAreRead() throws {
        let (bytes, secondReference) = Self.overlappingEntries()
        #expect(bytes.count < 200_000)
        func check(_ error: FirePackError?, _ reader: String) {
            #expect(error?.code == .badKeyReference && error?.offset == secondReference, "\(reader): \(String(describing: error))")
            #expect(error?.message.contains("overlap") == true, "\(reader): \(String(describing: error))")
        }
        check(#expect(throws: FirePackError.self) { try FirePackReader.verify(bytes) }, "verify")
        check(#expect(throws: FirePackError.self) { try Value(firePackBytes: bytes) }, "Value")
        check(#expect(throws: FirePackError.self) { try FirePackReader.validate(bytes) }, "validate")
        let decoder = FirePackDecoder()
        for validation in [FirePackDecoder.InputValidation.lazy, .complete] {
            decoder.inputValidation = validation
            do {
                _ = try decoder.decode(Holder.self, from: Data(bytes))
                Issue.record("\(validation): decoded")
            } catch DecodingError.dataCorrupted(let context) {
                check(context.underlyingError as? FirePackError, "\(validation)")
            }
        }
        // One entry into S is not refused by the count: its one key fits the value. (The whole-input check still
        // refuses the table, whose entry is no key literal, after the value.)
        let one = Self.overlappingEntries(count: 1).bytes
        let error = #expect(throws: FirePackError.self) { try FirePackReader.verify(one) }
        #expect(error?.code == .badKeyTable, "\(String(describing: error))")
        guard case .map(let map)? = try Value(firePackBytes: one)["m"]?[0] else {
            Issue.record("no map")
            return
        }
        #expect(map.keys.count == 1 && map.keys[0].utf8.count == 131_105)
    }

    /// A 100 KB key in each of 2,000 maps: the literal once, then one-byte references. Decoded into dictionaries,
    /// every element's key is one shared String (2,000 copies were 200 MB from 100 KB); so is it in a `Value`.
    @Test func aLongKeyThatReferencesRepeatIsMadeOnce() throws {
        let key = String(repeating: "k", count: 100_000)
        let elements = (0..<2_000).map { [key: $0] }
        let bytes = try Self.referencing(elements)
        #expect(bytes.count < 115_000, "the repeats are references: \(bytes.count) bytes")
        func storage(_ string: String) -> UnsafeRawPointer? {
            var copy = string
            return copy.withUTF8 { UnsafeRawPointer($0.baseAddress) }
        }
        let decoded = try Self.unboundedDecoder().decode([[String: Int]].self, from: bytes)
        try #require(decoded == elements)
        let shared = decoded.dropFirst().compactMap { $0.keys.first.map(storage) }
        #expect(shared.count == 1_999 && Set(shared.map { $0.map(UInt.init(bitPattern:)) ?? 0 }).count == 1)
        guard case .array(let array) = try Value(firePackBytes: bytes, limits: Self.unbounded) else {
            Issue.record("not an array")
            return
        }
        let keys = array.compactMap { element -> String? in
            if case .map(let map) = element { return map.keys.first }
            return nil
        }
        #expect(keys.count == 2_000 && Set(keys.dropFirst().map { storage($0).map(UInt.init(bitPattern:)) ?? 0 }).count == 1)
    }

    struct Tagged: Codable, Equatable { var n: Int; var extra: Value }

    /// A `Value` in each element (and an unknown-field bag, which holds `Value`s) shares the key its elements
    /// reference: one String for the call, not one per element.
    @Test func valuesInEveryElementShareALongKey() throws {
        let key = String(repeating: "v", count: 50_000)
        let elements = (0..<500).map { Tagged(n: $0, extra: .map([key: .integer(Int64($0))])) }
        let bytes = try Self.referencing(elements)
        #expect(bytes.count < 60_000, "the repeats are references: \(bytes.count) bytes")
        let decoded = try Self.unboundedDecoder().decode([Tagged].self, from: bytes)
        try #require(decoded == elements)
        let addresses = decoded.dropFirst().compactMap { element -> UInt? in
            guard case .map(let map) = element.extra, var first = map.keys.first else { return nil }
            return first.withUTF8 { $0.baseAddress.map { UInt(bitPattern: $0) } }
        }
        #expect(addresses.count == 499 && Set(addresses).count == 1)
    }

    /// Two entries whose literals' bytes start at the same byte — one at a two-byte header `80 42` (4,224 bytes),
    /// one at its second byte `42` (33 bytes) — are two keys: the longer one's bytes are checked too (its byte 33 is
    /// not UTF-8), not taken for the shorter one's String.
    @Test func entriesWhoseBytesStartTogetherAreTwoKeys() throws {
        func varint(_ value: Int) -> [UInt8] { varintBytes(value) }
        let content: [UInt8] = [0x80, 0x42] + [UInt8](repeating: 0x41, count: 33) + [0xFF] + [UInt8](repeating: 0x42, count: 5_000)
        let bEntry: [UInt8] = [0x02, 0x62, 0xCE] + varint(content.count) + content
        let maps: [UInt8] = [0xB1, 0x02, 0x01, 0xC0, 0xB1, 0x02, 0x03, 0xC0]  // references to entries 0 and 1
        let body = bEntry + [0x02, 0x6D, 0xA2] + varint(maps.count) + maps
        let root = [0xD1] + varint(varint(2).count + body.count) + varint(2) + body
        let header = 1 + varint(varint(2).count + body.count).count + 1 + 3 + varint(content.count).count
        #expect(root[header] == 0x80 && root[header + 1] == 0x42)
        let bytes = root + [0xD3, 0x02, 0x02, UInt8((header + 1) & 0xFF), UInt8((header + 1) >> 8),
                            UInt8(header & 0xFF), UInt8(header >> 8)]
        let invalid = header + 2 + 33
        for (reader, read) in [("Value", { _ = try Value(firePackBytes: bytes) }), ("verify", { try FirePackReader.verify(bytes) })]
            as [(String, () throws -> Void)]
        {
            do {
                try read()
                Issue.record("\(reader): read")
            } catch let error as FirePackError {
                #expect(error.code == .invalidUTF8 && error.offset == invalid, "\(reader): \(error)")
            }
        }
    }

    struct Holder2: Codable, Equatable { var v: Value }

    /// A decoder used for a second small input keeps nothing of the first: the long keys it shares within a call
    /// are the call's. The two inputs hold different keys at the same bytes.
    @Test func aDecoderUsedAgainKeepsNoKeysOfTheLastInput() throws {
        let decoder = FirePackDecoder()
        for letter in ["a", "b", "c"] {
            let key = String(repeating: letter, count: 40)
            let value = Holder2(v: .array([.map([key: 1]), .map([key: 2])]))
            let bytes = try FirePackEncoder().encode(value)
            #expect(bytes.count < KeyReferenceMemo.minimumInputSize)
            #expect(try decoder.decode(Holder2.self, from: bytes) == value, "\(letter)")
        }
        // And a large input, then a small one, then a large one.
        for count in [300, 2, 300] {
            let key = String(repeating: "k\(count)", count: 20)
            let value = Holder2(v: .array((0..<count).map { .map([key: .integer(Int64($0))]) }))
            #expect(try decoder.decode(Holder2.self, from: FirePackEncoder().encode(value)) == value, "\(count)")
        }
    }

    /// The zero-copy reader's walks count long referenced keys against the same budget: a walk of the overlapping
    /// entries through `forEachEntry`, the cursor's `readKey()` and a copy through a writer are refused at the second
    /// reference, as `Value` is, instead of checking 5,000 keys of 131 KB (655 MB) one after another.
    @Test func walksAndCopiesCountLongKeysOnce() throws {
        let (bytes, secondReference) = Self.overlappingEntries()
        func check(_ reader: String, _ read: (inout FirePackReader) throws -> Void) {
            do {
                try FirePackReader.withReader(bytes) { try read(&$0) }
                Issue.record("\(reader): read")
            } catch let error as FirePackError {
                #expect(error.code == .badKeyReference && error.offset == secondReference, "\(reader): \(error)")
            } catch {
                Issue.record("\(reader): \(error)")
            }
        }
        check("forEachEntry") { reader in
            try reader.root["m"]?.forEachElement { map in try map.forEachEntry { _, _ in } }
        }
        check("value()") { reader in try reader.root["m"]?.forEachElement { _ = try $0.value() } }
        check("readKey") { reader in
            let root = try reader.enterMap()
            for _ in 0..<root.count {
                guard try reader.readKey() == "m" else {
                    try reader.skipValue()
                    continue
                }
                let maps = try reader.enterArray()
                for _ in 0..<maps.count {
                    let map = try reader.enterMap()
                    _ = try reader.readKey()
                    try reader.skipValue()
                    try reader.exitMap(map)
                }
                try reader.exitArray(maps)
            }
        }
        check("readValue") { reader in
            let root = try reader.enterMap()
            for _ in 0..<root.count {
                _ = try reader.readKey()
                guard try reader.peekType() == .array else {
                    try reader.skipValue()
                    continue
                }
                let maps = try reader.enterArray()
                for _ in 0..<maps.count { _ = try reader.readValue() }
            }
        }
        check("FirePackWriter.write(_:)") { reader in try FirePackWriter().write(reader.root) }
    }

    /// A walk over 2,000 maps that name one 100 KB key, and a cursor reading their values one by one, make that key
    /// one String for the walk; each `value()` used to make its own (200 MB from 115 KB).
    @Test func aWalkSharesALongKey() throws {
        let key = String(repeating: "w", count: 100_000)
        let bytes = try Self.referencing((0..<2_000).map { [key: $0] })
        func address(_ value: Value) -> UInt? {
            guard case .map(let map) = value, var first = map.keys.first else { return nil }
            return first.withUTF8 { $0.baseAddress.map { UInt(bitPattern: $0) } }
        }
        var walked: [UInt] = [], read: [UInt] = []
        var keysSeen = 0
        try FirePackReader.withReader(bytes, limits: Self.unbounded) { reader in
            try reader.root.forEachElement { element in
                if let address = address(try element.value()) { walked.append(address) }
                try element.forEachEntry { name, _ in if name == key { keysSeen += 1 } }
            }
            let array = try reader.enterArray()
            for _ in 0..<array.count { if let address = address(try reader.readValue()) { read.append(address) } }
        }
        #expect(keysSeen == 2_000)
        #expect(walked.count == 2_000 && Set(walked.dropFirst()).count == 1)
        #expect(read.count == 2_000 && Set(read.dropFirst()).count == 1)
    }

    /// A copy through a writer finds a long referenced key in its key table once: the copy of 1,000 maps naming a
    /// 50 KB key reads back equal and as small (references), and a map naming it twice is still refused.
    @Test func aCopyWritesALongReferencedKeyAsReferences() throws {
        let key = String(repeating: "c", count: 50_000)
        let original = try Self.referencing((0..<1_000).map { [key: $0, "n\($0 % 3)": $0] })
        let writer = FirePackWriter(options: .init(limits: Self.unbounded))
        try FirePackReader.withReader(original, limits: Self.unbounded) { try writer.write($0.root) }
        let copied = writer.takeBytes()
        #expect(copied.count < original.count + 4_096, "\(copied.count) bytes from \(original.count)")
        #expect(try Value(firePackBytes: copied, limits: Self.unbounded) == Value(firePackBytes: original, limits: Self.unbounded))

        // [{K: 1}, {K: 1, K: 2}], K's repeats references to the first.
        let literal = varintBytes(key.utf8.count << 1) + Array(key.utf8)
        let first = [0xB1] + varintBytes(literal.count + 1) + literal + [0x01]
        let second: [UInt8] = [0xB2, 0x04, 0x01, 0x01, 0x01, 0x02]
        let body = varintBytes(2) + first + second
        let head = [0xD0] + varintBytes(body.count)
        let literalOffset = head.count + varintBytes(2).count + 1 + varintBytes(literal.count + 1).count
        let bytes = head + body + [0xD3, 0x01, 0x04] + withUnsafeBytes(of: UInt32(literalOffset).littleEndian, Array.init)
        let twice = head.count + body.count - 2
        let expected = #expect(throws: FirePackError.self) { try Value(firePackBytes: bytes) }
        #expect(expected?.code == .duplicateKey && expected?.offset == twice, "\(String(describing: expected))")
        let error = #expect(throws: FirePackError.self) {
            try FirePackReader.withReader(bytes) { try FirePackWriter().write($0.root) }
        }
        #expect(error?.code == .duplicateKey && error?.offset == twice, "\(String(describing: error))")
    }

    /// An array of 4,000 maps, each with the keys `k…kb` and `k…ka` of `keyLength` bytes (alike up to their last
    /// byte), references after the first map (written under `unbounded` limits, and to be read under them).
    static func twoKeysInEveryMap(keyLength: Int) -> [UInt8] {
        let prefix = String(repeating: "k", count: keyLength - 1)
        let writer = FirePackWriter(options: .init(limits: unbounded))
        writer.beginArray()
        for index in 0..<4_000 {
            writer.beginMap()
            for key in [prefix + "b", prefix + "a"] {
                writer.writeKey(key)
                writer.writeInteger(Int64(index))
            }
            writer.endMap()
        }
        writer.endArray()
        return writer.takeBytes()
    }

    /// `value` written sorted, its repeated keys references (`unbounded`).
    static func sortedBytes(of value: Value) -> [UInt8] {
        let writer = FirePackWriter(options: .init(deterministic: true, limits: unbounded))
        writer.write(value)
        return writer.takeBytes()
    }

    /// Two long keys alike up to their last byte in every one of many maps, each a reference after its first: sorted
    /// (a deterministic copy), the pair is compared by rank, once per value, not once per map; a value of the same
    /// shape with short keys is the benign twin.
    @Test func sortingLongKeysThatReferencesRepeatCostsWhatShortKeysDo() throws {
        func sortedCopy(_ bytes: [UInt8]) throws -> [UInt8] {
            try FirePackReader.withReader(bytes, limits: Self.unbounded) { reader in
                let writer = FirePackWriter(options: .init(deterministic: true, limits: Self.unbounded))
                try writer.write(reader.root)
                return writer.takeBytes()
            }
        }
        let long = Self.twoKeysInEveryMap(keyLength: 64 << 10), short = Self.twoKeysInEveryMap(keyLength: 2)
        #expect(long.count < 200_000)
        // Sorted, each map's keys swap places: the bytes of the tree written sorted.
        #expect(try sortedCopy(long) == Self.sortedBytes(of: Value(firePackBytes: long, limits: Self.unbounded)))
        let measured = try CostMeasurement.ratio(hostile: { _ = try sortedCopy(long) }, benign: { _ = try sortedCopy(short) })
        #expect(measured.ratio < 3, "\(measured)")
    }

    /// The same two long keys in every map, read into a `Value` and written again (sorted, and as they are): each
    /// map's duplicate check and sort compares the pair eight bytes at a time, not one (this value took 14 s to read
    /// in a debug build, 2,500 times its short-key twin). Still a comparison per map, in proportion to the keys'
    /// length (Docs/SAFETY.md); bounded here at 64× the twin in a debug build, where it measured about 15×.
    @Test func aTreeOfLongKeysThatReferencesRepeatIsReadAndWrittenByWords() throws {
        let long = Self.twoKeysInEveryMap(keyLength: 64 << 10), short = Self.twoKeysInEveryMap(keyLength: 2)
        let tree = try Value(firePackBytes: long, limits: Self.unbounded)
        func lastBytes(_ value: Value?) -> [UInt8?] {
            guard case .map(let map)? = value else { return [] }
            return map.keys.map(\.utf8.last)
        }
        #expect(lastBytes(tree[0]) == [UInt8(ascii: "b"), UInt8(ascii: "a")])
        #expect(lastBytes(try Value(firePackBytes: Self.sortedBytes(of: tree), limits: Self.unbounded)[3_999]) == [UInt8(ascii: "a"), UInt8(ascii: "b")])
        let read = try CostMeasurement.ratio(
            hostile: { _ = try Value(firePackBytes: long, limits: Self.unbounded) },
            benign: { _ = try Value(firePackBytes: short, limits: Self.unbounded) })
        #expect(read.ratio < 64, "\(read)")
        let (longTree, shortTree) = (tree, try Value(firePackBytes: short, limits: Self.unbounded))
        let sorted = CostMeasurement.ratio(hostile: { _ = Self.sortedBytes(of: longTree) },
                                           benign: { _ = Self.sortedBytes(of: shortTree) })
        #expect(sorted.ratio < 64, "\(sorted)")
    }

    /// `[{K0: 0, K1: 0}, {K0: 0, K1: 0}, …]` with `count` maps, K0 and K1 two keys of `keyLength` bytes (literals in the
    /// first map, one-byte references after it), and the offset of each reference in order.
    static func longKeysReferenced(count: Int, keyLength: Int) -> (bytes: [UInt8], size: Int, references: [Int]) {
        let keys: [[UInt8]] = (0..<2).map { [UInt8](repeating: 0x6B, count: keyLength - 1) + [UInt8(0x30 + $0)] }
        let literals: [[UInt8]] = keys.map { varintBytes(2 * keyLength) + $0 + [0x00] }
        let first: [UInt8] = [0xB2] + varintBytes(literals[0].count * 2) + literals[0] + literals[1]
        let elements = varintBytes(count) + first + Array(repeatElement([0xB2, 0x04, 0x01, 0x00, 0x03, 0x00] as [UInt8], count: count - 1).joined())
        let head: [UInt8] = [0xD0] + varintBytes(elements.count)
        let root = head + elements
        let firstMap = head.count + varintBytes(count).count
        let keyOffsets = [firstMap + 1 + varintBytes(literals[0].count * 2).count]
            .flatMap { [$0, $0 + literals[0].count] }
        let references = (0..<2 * (count - 1)).map { firstMap + first.count + ($0 / 2) * 6 + 2 + ($0 % 2) * 2 }
        let table: [UInt8] = [0xD3, 0x02, 0x04] + keyOffsets.flatMap { offset -> [UInt8] in
            withUnsafeBytes(of: UInt32(offset).littleEndian, Array.init)
        }
        return (root + table, root.count, references)
    }

    /// References that stand for more than `ReaderLimits.maxKeyExpansion` (16) times the value's size in keys of more
    /// than 32 bytes are refused at the first reference past it, by every reader that reads the whole value and by
    /// the decoder (lazy or checking everything first), at the same byte. Before, 27 KB read as `[[String: Int]]`
    /// hashed 8 MB of keys, and 2.1 MB (two 1 MiB keys in 10,000 maps) took 74 s (release build).
    @Test func referencesStandForAtMostTheLimitTimesTheValue() throws {
        let (bytes, size, references) = Self.longKeysReferenced(count: 4_000, keyLength: 1_000)
        // The reference whose key takes the count past 16 × the value's size.
        let past = references[16 * size / 1_000]
        func check(_ error: FirePackError?, _ reader: String) {
            #expect(error?.code == .limitExceeded && error?.offset == past, "\(reader): \(String(describing: error))")
            #expect(error?.message.contains("maxKeyExpansion") == true, "\(reader): \(String(describing: error))")
        }
        check(#expect(throws: FirePackError.self) { try FirePackReader.verify(bytes) }, "verify")
        check(#expect(throws: FirePackError.self) { try FirePackReader.validate(bytes) }, "validate")
        check(#expect(throws: FirePackError.self) { try Value(firePackBytes: bytes) }, "Value")
        let decoder = FirePackDecoder()
        for validation in [FirePackDecoder.InputValidation.lazy, .complete] {
            decoder.inputValidation = validation
            do {
                _ = try decoder.decode([[String: Int]].self, from: bytes)
                Issue.record("\(validation): decoded")
            } catch DecodingError.dataCorrupted(let context) {
                check(context.underlyingError as? FirePackError, "\(validation)")
            }
        }
        // Under limits that allow what they stand for, every reader reads them.
        let enough = ReaderLimits(maxKeyExpansion: (references.count * 1_000 + size - 1) / size)
        try FirePackReader.verify(bytes, limits: enough)
        let tree = try Value(firePackBytes: bytes, limits: enough)
        guard case .array(let maps) = tree else { throw FirePackError(.unknownTag, offset: 0, "not an array") }
        #expect(maps.count == 4_000)
        decoder.limits = enough
        let decoded = try decoder.decode([[String: Int]].self, from: bytes)
        #expect(decoded.count == 4_000 && decoded.allSatisfy { $0.count == 2 && $0.keys.allSatisfy { $0.utf8.count == 1_000 } })
        decoder.limits = ReaderLimits(maxKeyExpansion: enough.maxKeyExpansion - 1)
        #expect(throws: DecodingError.self) { try decoder.decode([[String: Int]].self, from: bytes) }
    }

    /// FirePack's writer writes a repeat of a key as a reference only where readers with its limits accept it: a key
    /// of up to 32 bytes always, a longer one when it is at most twice `maxKeyExpansion` (each reference and its value
    /// take two bytes of the value at least); else the literal again.
    @Test func theWriterReferencesAKeyOnlyWhereReadersWithItsLimitsAcceptIt() throws {
        for (length, limit, referenced) in [(32, 16, true), (33, 16, false), (34, 17, true), (35, 17, false), (4_000, .max, true)] {
            let key = String(repeating: "k", count: length)
            let value = Value.array((0..<3).map { .map([key: .integer(Int64($0))]) })
            let limits = ReaderLimits(maxKeyExpansion: limit)
            let writer = FirePackWriter(options: .init(limits: limits))
            writer.write(value)
            let bytes = writer.takeBytes()
            let literals = bytes.count / length
            #expect(literals == (referenced ? 1 : 3), "\(length) bytes, limit \(limit): \(bytes.count) bytes")
            #expect(try Value(firePackBytes: bytes, limits: limits) == value)
            try FirePackReader.verify(bytes, limits: limits)
        }
        // What the encoder writes under the default limits, the default readers read: long keys are literals.
        let key = String(repeating: "e", count: 1_000)
        let elements = (0..<300).map { [key: $0] }
        let bytes = try FirePackEncoder().encode(elements)
        #expect(bytes.count > 300 * 1_000)
        #expect(try FirePackDecoder().decode([[String: Int]].self, from: bytes) == elements)
    }

    struct Bagged: Codable { var n: Int?; var unknownFields = FirePackUnknownFields() }

    /// What FirePack writes under a limit, its readers read under the same limit, whichever path reads each key twice
    /// or more: a reference counts once per call (a map's keys read by a keyed container and again into its
    /// unknown-field bag, converted from snake case first, or by a dictionary, or in a nested container, whose decoder
    /// shares the call's count). Here references stand for more than half the limit: counted twice, they would pass it.
    @Test func aReferenceCountsOncePerCallWhateverReadsIt() throws {
        let limits = ReaderLimits(maxKeyExpansion: 20)
        let keys = (0..<15).map { "key_\($0)_" + String(repeating: "k", count: 40 - "key_\($0)_".count) }
        let maps = (0..<100).map { index in Value.map(MapValue(keys.enumerated().map { ($1, Value.integer(Int64($0 + index % 2))) })) }
        let writer = FirePackWriter(options: .init(limits: limits))
        writer.write(.array(maps))
        let bytes = writer.takeBytes()
        let size = try bytes.withUnsafeBytes { try ReaderInput($0, rootStart: 0, limits: limits).rootEnd }
        let expanded = 40 * 15 * 99
        #expect(size < bytes.count && Double(expanded) / Double(size) > 10, "\(expanded) of \(size)")
        #expect(try Value(firePackBytes: bytes, limits: limits) == .array(maps))
        try FirePackReader.verify(bytes, limits: limits)
        let decoder = FirePackDecoder()
        decoder.limits = limits
        for strategy in [FirePackDecoder.KeyDecodingStrategy.useDefaultKeys, .convertFromSnakeCase] {
            decoder.keyDecodingStrategy = strategy
            let bagged = try decoder.decode([Bagged].self, from: bytes)
            #expect(bagged.count == 100 && bagged.allSatisfy { $0.unknownFields.keys.count == 15 }, "\(strategy)")
            #expect(try decoder.decode([[String: Int]].self, from: bytes).count == 100, "\(strategy)")
            #expect(try decoder.decode([Value].self, from: bytes) == maps, "\(strategy)")
        }
        // Under a limit below what they stand for, refused.
        let lower = ReaderLimits(maxKeyExpansion: expanded / size - 1)
        #expect(throws: FirePackError.self) { try Value(firePackBytes: bytes, limits: lower) }
    }
}
