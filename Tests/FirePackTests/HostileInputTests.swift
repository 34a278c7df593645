import Testing
@testable import FirePack
import FirePackTestSupport

/// Hostile input costs time in proportion to its size: each case measures a hostile input against a benign one of the
/// same size in the same run (the fastest of three runs each) and bounds the ratio. Sizes are small so that a debug
/// build runs each case in well under a few seconds; `scripts/measure/stress-hostile.py` runs the large versions against the
/// release tool.
@Suite("Hostile input: linear time, bounded state")
struct HostileInputTests {
    /// How much slower than a benign input of the same size a hostile one may be (the attacks measured 10–14×).
    static let maximumRatio = 3.0

    /// `{"k0": {"k1": 0}, "k1": {"k2": 0}, …}`: every key of the outer map was last written in a closed inner map.
    /// The benign twin has the same shape and key lengths, its inner keys never repeated outside.
    /// Without key references the outer map's keys are checked in place until it has `keysCheckedInPlace`, then in
    /// the table, at the same cost.
    @Test(arguments: [true, false])
    func keysRepeatedFromClosedMapsCostLinearTime(references: Bool) throws {
        let count = 20_000
        func write(inner: (Int) -> String) -> [UInt8] {
            let writer = FirePackWriter(options: .init(keyReferences: references))
            writer.beginMap()
            for index in 0..<count {
                writer.writeKey("k\(index)")
                writer.beginMap()
                writer.writeKey(inner(index + 1))
                writer.writeInteger(0)
                writer.endMap()
            }
            writer.endMap()
            return writer.takeBytes()
        }
        var hostileBytes: [UInt8] = [], benignBytes: [UInt8] = []
        let measured = CostMeasurement.ratio(hostile: { hostileBytes = write { "k\($0)" } },
                                              benign: { benignBytes = write { "j\($0)" } })
        #expect(measured.ratio < Self.maximumRatio, "hostile \(measured.hostile) s, benign \(measured.benign) s")
        // The same bytes are still written: a repeat in the outer map is still a reference, never a second literal.
        let value = try Value(firePackBytes: hostileBytes)
        #expect(value["k5"]?["k6"] == .integer(0))
        // With references the hostile keys are written once, then referenced; without, as often as the benign.
        #expect(references ? benignBytes.count > hostileBytes.count : benignBytes.count == hostileBytes.count)
    }

    /// Keys chosen (with this process's seed, as an attacker who knew it would) to share the low bits of the fast hash
    /// switch the table to `Hasher` and cost about as much as random keys of the same length; random keys never do.
    @Test func collidingKeysSwitchTheTableToASeededHash() throws {
        let count = 3_000
        var colliding: [String] = []
        var candidate = 0
        while colliding.count < count {
            let key = "key-\(candidate)"
            candidate += 1
            var bytes = Array(key.utf8)
            let hash = bytes.withUnsafeMutableBytes { WriterKeyTable.hash(UnsafeRawBufferPointer($0)) }
            if hash & 0x3FF == 0 { colliding.append(key) }
        }
        let random: [String] = (0..<count).map { index in
            let base = colliding[index]
            return "key-" + String(repeating: "x", count: base.utf8.count - 4 - String(index).count) + String(index)
        }
        func write(_ keys: [String]) -> FirePackWriter {
            let writer = FirePackWriter()
            writer.beginMap()
            for key in keys { writer.writeKey(key); writer.writeNull() }
            return writer
        }
        #expect(write(colliding).keys.usesStrongHash)
        #expect(!write(random).keys.usesStrongHash)
        let measured = CostMeasurement.ratio(hostile: { _ = write(colliding) }, benign: { _ = write(random) })
        #expect(measured.ratio < Self.maximumRatio, "hostile \(measured.hostile) s, benign \(measured.benign) s")
        // Still a correct table after the switch: every key found again (as a reference), none lost.
        let writer = FirePackWriter()
        writer.beginArray()
        for _ in 0..<2 {
            writer.beginMap()
            for key in colliding { #expect(writer.writeKey(key)); writer.writeNull() }
            writer.endMap()
        }
        #expect(writer.keys.usesStrongHash && writer.keys.referenceCount == count)
        writer.endArray()
        let value = try Value(firePackBytes: writer.takeBytes())
        guard case .map(let second)? = value[1] else { Issue.record("not a map"); return }
        #expect(second.count == count && second[colliding[count - 1]] == .null)
    }

    /// Benign keys that differ in one byte, at any position of a key of any length, spread over the table's slots as
    /// random keys would: 256 keys into 1,024 slots fill about 226 of them. A hash whose low bits ignored some byte
    /// positions (a key's last bytes land in the high bits of the word that reads them) sent such keys to a few slots,
    /// probes ran past `maximumProbes`, and benign keys switched the table to the slow hash.
    @Test func keysThatDifferInOneByteSpreadOverTheSlots() {
        for length in 1...40 {
            for position in 0..<length {
                var slots = Set<UInt32>()
                var key = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                for byte in 0...255 {
                    key[position] = UInt8(byte)
                    slots.insert(key.withUnsafeBytes { WriterKeyTable.hash($0) } & 0x3FF)
                }
                #expect(slots.count >= 190, "length \(length), byte \(position): \(slots.count) slots")
            }
        }
    }

    /// A key table longer than the value could name is refused when the input is opened, before any reader holds
    /// state per entry (a 30,000,000-entry table behind an empty map took 506 MB).
    @Test func aKeyTableIsBoundedByTheValuesSize() throws {
        let value: Value = ["a": ["b": 1], "c": ["b": 2]]
        let bytes = value.firePackBytes()
        let tablePosition = try #require(bytes.lastIndex(of: UInt8(0xD3)))
        let root = Array(bytes[..<tablePosition])
        let entries = root.count / 2 + 1
        var hostile = root + [UInt8(0xD3)] + varintBytes(entries) + [1]
        hostile += [UInt8](repeating: UInt8(2), count: entries)
        let error = #expect(throws: FirePackError.self) { try Value(firePackBytes: hostile) }
        #expect(error?.code == .badKeyTable && error?.offset == root.count, "\(String(describing: error))")
        #expect(throws: FirePackError.self) { try FirePackReader.encodedLength(ofValueAt: hostile) }
        // The writer's own tables stay far below the bound.
        #expect(try Value(firePackBytes: bytes) == value)
    }
    /// Maps that each reference the same long key literals: whole-input verification checks each literal's UTF-8 once
    /// and compares the references by their literals' hashes, so a one-byte reference to a long key costs what a short
    /// key does. Two keys a map compare in place; seventeen go through the set.
    @Test(arguments: [2, 17])
    func referencesToLongKeysAreVerifiedInLinearTime(keysPerMap: Int) throws {
        let unbounded = ReaderLimits(maxKeyExpansion: .max)
        let length = keysPerMap == 2 ? 20_000 : 2_000, maps = keysPerMap == 2 ? 20_000 : 2_000
        // Keys of the same length that differ in their last byte only: a comparison of their bytes is a full pass.
        let shortKeys = (0..<keysPerMap).map { $0 < 10 ? "0\($0)" : "\($0)" }
        let longKeys = shortKeys.map { String(repeating: "k", count: length - 2) + $0 }
        func write(_ keys: [String], padding: Int) -> [UInt8] {
            // Limits that let the writer reference long keys: under the default ones it writes them out each time.
            let writer = FirePackWriter(options: .init(keyReferences: true, limits: unbounded))
            writer.beginArray()
            writer.writeString(String(repeating: "p", count: padding))
            for _ in 0..<maps {
                writer.beginMap()
                for (index, key) in keys.enumerated() {
                    writer.writeKey(key)
                    writer.writeInteger(Int64(index))
                }
                writer.endMap()
            }
            writer.endArray()
            return writer.takeBytes()
        }
        let hostile = write(longKeys, padding: 0)
        // The same maps with short keys, the long keys' bytes as a string: as many bytes, none of them repeated work.
        let benign = write(shortKeys, padding: hostile.count - write(shortKeys, padding: 0).count)
        #expect(abs(hostile.count - benign.count) < hostile.count / 100)
        #expect(hostile.count < keysPerMap * length + maps * keysPerMap * 4, "the repeats are references")
        // What the references stand for is past the default limit (`ReaderLimits.maxKeyExpansion`): refused. Past
        // the limit, each reference still costs what a short key does.
        let refused = #expect(throws: FirePackError.self) { try FirePackReader.verify(hostile) }
        #expect(refused?.code == .limitExceeded, "\(String(describing: refused))")
        let measured = try CostMeasurement.ratio(
            hostile: { try FirePackReader.verify(hostile, limits: unbounded) },
            benign: { try FirePackReader.verify(benign, limits: unbounded) })
        #expect(measured.ratio < Self.maximumRatio, "hostile \(measured.hostile) s, benign \(measured.benign) s")
        // Duplicates are still found through references: `[{K: 0}, {K: 0, K: 1}]`, the second map's keys references
        // (the writer refuses to write a key twice, so the bytes are laid out here).
        let key = Array(longKeys[0].utf8)
        let firstBody = varintBytes(2 * key.count) + key + [0x00]
        let first = [0xB1] + varintBytes(firstBody.count) + firstBody
        // The map's first two keys reference K; the rest (for the set's path) are short literals.
        let secondBody: [UInt8] = [0x01, 0x00, 0x01, 0x01] + shortKeys.dropLast(2).flatMap { [0x04] + Array($0.utf8) + [0x00] }
        let secondHeader = keysPerMap <= 15
            ? [0xB0 + UInt8(keysPerMap)] + varintBytes(secondBody.count)
            : [0xD1] + varintBytes(secondBody.count + 1) + [UInt8(keysPerMap)]  // D1 L count: L counts the count
        let second = secondHeader + secondBody
        let array = [0xA2] + varintBytes(first.count + second.count)
        let literalAt = array.count + 1 + varintBytes(firstBody.count).count
        let duplicated = array + first + second + [0xD3, 0x01, 0x02, UInt8(literalAt & 0xFF), UInt8(literalAt >> 8)]
        do {
            try FirePackReader.verify(duplicated)
            Issue.record("a key twice in one map was not found")
        } catch {
            #expect(error.code == .duplicateKey && error.offset == array.count + first.count + secondHeader.count + 2, "\(error)")
        }
        #expect((try? Value(firePackBytes: duplicated)) == nil)
    }
}
