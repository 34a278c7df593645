import Testing

@testable import FirePack

/// `Fields.found` counts the distinct entries that keys have matched: all of them means the map holds no unknown
/// fields. Entries are counted once however often they are asked for, so code that asks for a key twice (the public
/// `decode(_:forKey:in:)` allows it) loses no unknown field.
@Suite struct FoundEntriesTests {
    /// Hand-written `init(firePack:)` that asks for `a` twice, then for `b`, then for everything else.
    private struct AsksTwice: FirePackDecodable, Equatable {
        var a: Int
        var again: Int
        var b: String?
        var rest: FirePackUnknownFields

        init(firePack reader: inout FirePackValueReader) throws {
            var fields = try reader.readFields()
            a = try reader.decode(Int.self, forKey: "a", in: &fields)
            again = try reader.decode(Int.self, forKey: "a", in: &fields)
            b = try reader.decodeIfPresent(String.self, forKey: "b", in: &fields)
            rest = try reader.unknownFields(in: fields, known: ["a", "b"])
        }

        init(from decoder: any Decoder) throws {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "generated path only"))
        }
    }

    @Test func anEntryAskedForTwiceCountsOnce() throws {
        let decoder = FirePackDecoder()
        let two = try decoder.decode(AsksTwice.self, from: FirePackEncoder().encodeToBytes(["a": 1, "b": "x"] as Value))
        #expect(two.a == 1 && two.again == 1)
        #expect(two.b == "x")
        #expect(two.rest.isEmpty)

        let three = try decoder.decode(
            AsksTwice.self, from: FirePackEncoder().encodeToBytes(["a": 2, "b": "y", "c": true] as Value))
        #expect(three.b == "y")
        #expect(three.rest["c"] == true)
        #expect(three.rest.fields.count == 1)
    }

    /// Keys asked for in any order and again, present and absent, in maps of every size up to 70 entries (past the
    /// 64 entries the bits count, and on both sides of the entry cache's threshold): each present key is read every
    /// time, each absent one is nil. (A shortcut that answered nil once every entry had been found failed it.)
    @Test func absentKeysAfterEveryEntryIsFoundAreNil() throws {
        struct Probe: FirePackDecodable {
            var values: [Int?]
            static let keys: [StaticString] = [
                "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11", "k12", "k13", "k14", "k15",
                "k16", "k17", "k18", "k19", "k20", "k21", "k22", "k23", "k24", "k25", "k26", "k27", "k28", "k29", "k30",
                "k31", "k32", "k33", "k34", "k35", "k36", "k37", "k38", "k39", "k40", "k41", "k42", "k43", "k44", "k45",
                "k46", "k47", "k48", "k49", "k50", "k51", "k52", "k53", "k54", "k55", "k56", "k57", "k58", "k59", "k60",
                "k61", "k62", "k63", "k64", "k65", "k66", "k67", "k68", "k69", "k70", "k71", "k72", "k73", "k74",
            ]
            init(firePack reader: inout FirePackValueReader) throws {
                var fields = try reader.readFields()
                // Asked in reverse order of the bytes' keys, then every key again: hits, misses and repeats.
                values = try Self.keys.reversed().map { try reader.decodeIfPresent(Int.self, forKey: $0, in: &fields) }
                values += try Self.keys.map { try reader.decodeIfPresent(Int.self, forKey: $0, in: &fields) }
            }
            init(from decoder: any Decoder) throws {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "generated path only"))
            }
        }
        for size in [0, 1, 2, 3, 8, 9, 63, 64, 65, 70] {
            let present = Array(0..<size)
            var map = MapValue()
            for index in present { map["k\(index)"] = .integer(Int64(index)) }
            let probe = try FirePackDecoder().decode(Probe.self, from: FirePackEncoder().encodeToBytes(Value.map(map)))
            let expected = (0..<Probe.keys.count).map { present.contains($0) ? $0 : nil }
            #expect(probe.values == expected.reversed() + expected, "size \(size)")
        }
    }
}
