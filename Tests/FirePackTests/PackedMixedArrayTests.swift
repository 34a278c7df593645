import Foundation
import Testing
@testable import FirePack

/// Packed arrays of integers and doubles together (form `81`, Docs/FORMAT.md §1): what the writer packs, that every
/// element keeps its kind and bits, and that every reader reads one as the tagged array of the same elements.
@Suite("Packed arrays of integers and doubles")
struct PackedMixedArrayTests {
    /// A GeoJSON-like ring as a serializer that prints `-70.0` as `-70` writes it.
    static let ring: [Value] = (0..<40).map { index in
        let x: Value = index % 13 == 5 ? .integer(-70) : .double(-70 + Double(index) / 7)
        return [x, .double(44 + Double(index) / 9)]
    }

    static let mixed: [Value] =
        (0..<60).map { .double(Double($0) + 1.0 / 3) } + [.integer(-70), .integer(1 << 47 - 1), .integer(-(1 << 47))]

    /// Whether `a` and `b` are the same numbers, kind for kind and bit for bit.
    static func sameNumbers(_ a: [Value], _ b: [Value]) -> Bool {
        a.count == b.count
            && zip(a, b).allSatisfy { pair in
                switch pair {
                case (.double(let x), .double(let y)): x.bitPattern == y.bitPattern
                case (.integer(let x), .integer(let y)): x == y
                case (.array(let x), .array(let y)): sameNumbers(x, y)
                default: false
                }
            }
    }

    @Test("the writer packs integers among doubles in form 81 when that is shorter, kinds and bits kept")
    func writerPacks() throws {
        let withNaN: [Value] = Self.mixed + [.double(Double(bitPattern: 0x7FF8_0000_0000_1234)), .double(-0.0)]
        for (elements, prefix) in [(Self.mixed, [0xD8, 0x81, 63]), (withNaN, [0xD8, 0x81, 65]), (Self.ring, [0xD9, 0x81, 40, 2])] {
            let packed = Value.array(elements).firePackBytes()
            #expect(Array(packed.prefix(prefix.count)) == prefix.map(UInt8.init), "\(hex(Array(packed.prefix(8))))")
            #expect(packed.count < PackedArrayTests.tagged(elements).count)
            let back = try #require(try Value(firePackBytes: packed).arrayValue)
            #expect(Self.sameNumbers(back, elements))
            try FirePackReader.verify(packed)
        }
        // Deterministic output chooses by the same rule.
        let encoder = FirePackEncoder()
        encoder.deterministic = true
        #expect(try encoder.encodeToBytes(Value.array(Self.ring)) == Value.array(Self.ring).firePackBytes())
    }

    @Test("what form 81 cannot hold, or holds in more bytes, stays in another form")
    func writerLeavesOtherForms() throws {
        let numbers: [[Value]] = [
            // Short, or integers too many: tagged is shorter.
            [1, 1.5], (0..<10).map { $0 % 2 == 0 ? .integer(Int64($0)) : .double(Double($0) / 7) },
            // An integer beyond 48 bits.
            Self.mixed + [.integer(1 << 47)], Self.mixed + [.integer(-(1 << 47) - 1)],
            // A double whose bits are a box.
            Self.mixed + [.double(Double(bitPattern: 0x7FF4_0000_0000_0001))],
        ]
        for elements in numbers + [Self.mixed + ["a"], Self.mixed + [nil]] {
            let encoded = Value.array(elements).firePackBytes()
            #expect(encoded[0] != 0xD8 || encoded[1] != 0x81, "\(elements.suffix(2))")
            #expect(try Value(firePackBytes: encoded) == .array(elements))
        }
        for elements in numbers {
            #expect(Self.sameNumbers(try #require(try Value(firePackBytes: elements.firePackArray).arrayValue), elements))
        }
        // The box pattern among doubles alone is binary64 (`C8`), every bit kept.
        let boxBits: [Value] = (0..<20).map { .double(Double(bitPattern: 0x7FF4_0000_0000_0000 | UInt64($0 + 1))) }
        let encoded = Value.array(boxBits).firePackBytes()
        #expect(Array(encoded.prefix(2)) == [0xD8, 0xC8])
        #expect(Self.sameNumbers(try #require(try Value(firePackBytes: encoded).arrayValue), boxBits))
        // Rows of unequal length: each row on its own.
        let ragged = Value.array(Self.ring + [[1.5]]).firePackBytes()
        #expect(ragged.first != 0xD9)
    }

    @Test("the zero-copy view and the cursor read each element as what it is")
    func readers() throws {
        let bytes = Value.array(Self.mixed).firePackBytes()
        let integerIndex = 60
        try bytes.withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw)
            let root = reader.root
            #expect(try root.count() == 63)
            let integer = try #require(try root[integerIndex]), double = try #require(try root[1])
            #expect(integer.type == .integer && double.type == .double)
            #expect(try integer.integer() == -70)
            #expect(try double.double() == 1 + 1.0 / 3)
            #expect(integer.tagHex == "C6" && double.tagHex == "C8")
            // Read as the other kind: the tagged element's mismatch, at the element's first byte.
            let start = 3 + integerIndex * 8
            do {
                _ = try integer.double()
                Issue.record("an integer read as a double")
            } catch let error as FirePackError {
                #expect(error.code == .typeMismatch && error.offset == start, "\(error)")
                #expect(error.message.contains("integer"), "\(error)")
            }
            var seen: [Value] = []
            try root.forEachElement { seen.append(try $0.value()) }
            #expect(Self.sameNumbers(seen, Self.mixed))
            let array = try reader.enterArray()
            for index in 0..<63 {
                #expect(try reader.peekType() == (index < 60 ? .double : .integer))
                if index < 60 {
                    #expect(throws: FirePackError.self) { try reader.readInteger() }
                    #expect(try reader.readDouble() == Double(index) + 1.0 / 3)
                } else {
                    #expect(try reader.readValue() == Self.mixed[index])
                }
            }
            try reader.exitArray(array)
        }
    }

    @Test("the Codable decoder and generated coding read form 81 as the tagged array")
    func codable() throws {
        let decoder = FirePackDecoder()
        for elements in [Self.mixed, Self.ring] {
            let packed = Value.array(elements).firePackBytes(), tagged = PackedArrayTests.tagged(elements)
            #expect(packed[1] == 0x81)
            if elements.count == Self.mixed.count {
                #expect(try decoder.decode([Double].self, from: packed) == decoder.decode([Double].self, from: tagged))
                #expect(try decoder.decode([Double?].self, from: packed) == decoder.decode([Double?].self, from: tagged))
                #expect(try decoder.decode([PackedArrayTests.Meters].self, from: packed)
                    == decoder.decode([PackedArrayTests.Meters].self, from: tagged))
                // 1/3 does not read as Int: the error names its index and byte, as tagged.
                do {
                    _ = try decoder.decode([Int].self, from: packed)
                    Issue.record("1/3 decoded as Int")
                } catch DecodingError.dataCorrupted(let context) {
                    #expect(context.codingPath.map(\.intValue) == [0])
                    #expect(context.debugDescription.contains("at byte 3"), "\(context.debugDescription)")
                }
            } else {
                #expect(try decoder.decode([[Double]].self, from: packed) == decoder.decode([[Double]].self, from: tagged))
                #expect(try decoder.decode([PackedArrayTests.Pair].self, from: packed)
                    == decoder.decode([PackedArrayTests.Pair].self, from: tagged))
            }
            #expect(Self.sameNumbers(try decoder.decode([Value].self, from: packed), elements))
        }
        // Non-finite doubles under `.throw` fail as tagged ones do.
        let infinite = Value.array(Self.mixed + [.double(.infinity)]).firePackBytes()
        #expect(infinite[1] == 0x81)
        decoder.nonConformingFloatDecodingStrategy = .throw
        #expect(throws: DecodingError.self) { try decoder.decode([Double].self, from: infinite) }
    }

    @Test("hostile bytes: every 8 bytes are an element, sizes checked as for the other forms")
    func hostile() throws {
        // Any bit pattern reads: a box of the largest and smallest integers, a NaN, a pattern next to the box.
        let elements = bytes(hex: "D8 81 04 FF FF FF FF FF 7F F4 7F 00 00 00 00 00 80 F4 7F 01 00 00 00 00 00 F8 7F 00 00 00 00 00 00 F5 7F")
        let values = try #require(try Value(firePackBytes: elements).arrayValue)
        #expect(Self.sameNumbers(values, [
            .integer(1 << 47 - 1), .integer(-(1 << 47)), .double(Double(bitPattern: 0x7FF8_0000_0000_0001)),
            .double(Double(bitPattern: 0x7FF5_0000_0000_0000)),
        ]))
        assertDecodeFails(hex: "D8 81 02 00 00 00 00 00 00 F4 7F", .lengthOutOfBounds, offset: 2)
        assertDecodeFails(hex: "D9 81 02 01 00 00 00 00 00 00 F4 7F", .lengthOutOfBounds, offset: 2)
        assertDecodeFails(hex: "D6 81 01 00 00 00 00 00 00 F4 7F", .unknownTag, offset: 1)
    }
}

extension Array where Element == Value {
    fileprivate var firePackArray: [UInt8] { Value.array(self).firePackBytes() }
}

extension Value {
    fileprivate var arrayValue: [Value]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
