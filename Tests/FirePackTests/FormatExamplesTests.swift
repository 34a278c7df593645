import Foundation
import Testing
@testable import FirePack

/// Every hex example of Docs/FORMAT.md, byte for byte; the examples must also appear verbatim in the document.
@Suite("Format examples")
struct FormatExamplesTests {
    static let examples: [(Value, String)] = [
        (42, "2A"),
        (-1, "FF"),
        (-32, "E0"),
        (127, "7F"),
        (-100, "C3 9C"),
        (200, "C4 C8 00"),
        (100_000, "C5 A0 86 01 00"),
        (.integer(.min), "C6 00 00 00 00 00 00 00 80"),
        (nil, "C0"),
        (false, "C1"),
        (true, "C2"),
        (65.66, "D5 12 19 A6"),
        (-0.5, "D5 81 05"),
        (3.0, "D5 00 03"),
        (.double(-0.0), "D5 80 00"),
        (0.0009765625, "C7 00 00 80 3A"),
        (.double(.infinity), "C7 00 00 80 7F"),
        (.double(1.0 / 3.0), "C8 55 55 55 55 55 55 D5 3F"),
        (.timestamp(Timestamp(seconds: 1_412_262_083, nanoseconds: 0)), "C9 C3 68 2D 54 00 00 00 00"),
        (.timestamp(Timestamp(seconds: 1_412_262_083, nanoseconds: 45_123_456)), "CA C3 68 2D 54 00 00 00 00 80 87 B0 02"),
        (.geoPoint(GeoPoint(latitude: 1.0 / 3.0, longitude: 2.0 / 3.0)), "CB 55 55 55 55 55 55 D5 3F 55 55 55 55 55 55 E5 3F"),
        (.geoPoint(GeoPoint(latitude: 37.422, longitude: -122.084)), "D7 23 2E 92 00 1C 23 FE"),
        (.geoPoint(GeoPoint(latitude: 0.5, longitude: Double(Float(0.1)))), "D7 80 00 00 00 3F CD CC CC 3D"),
        (.serverTimestamp, "CC"),
        ("hi", "82 68 69"),
        (.bytes(Data([1, 2, 3])), "CE 03 01 02 03"),
        (.reference(try! DocumentReference(path: "books/hitchhiker")), "CF 10 62 6F 6F 6B 73 2F 68 69 74 63 68 68 69 6B 65 72"),
        ([1, 2], "A2 02 01 02"),
        ([], "A0 00"),
        (["a": 1], "B1 03 02 61 01"),
        (.map([:]), "B0 00"),
        (.vector(VectorValue([1.0 / 3.0])), "D2 01 55 55 55 55 55 55 D5 3F"),
        (.vector(VectorValue([1.0, 2.5])), "D6 01 02 0A 19"),
        (.vector(VectorValue([-0.5, 65.66])), "D6 12 02 CE FF A6 19"),
        (.vector(VectorValue([Double(Float(0.1))])), "D6 80 01 CD CC CC 3D"),
        ([1.5, 2.5], "D8 01 02 0F 19"),
        ([1000, 2000, 3000], "D8 C4 03 E8 03 D0 07 B8 0B"),
        ([3.0, 4.0, 5.0], "D8 00 03 03 04 05"),
        ([[1.5, 2.5], [3.5, 4.5]], "D9 01 02 02 0F 19 23 2D"),
        ([.double(Double(Float(0.1))), .double(Double(Float(0.2)))], "D8 80 02 CD CC CC 3D CD CC 4C 3E"),
        ([.double(1.0 / 3.0), .double(2.0 / 3.0)], "D8 C8 02 55 55 55 55 55 55 D5 3F 55 55 55 55 55 55 E5 3F"),
        (
            [[.double(1.0 / 3.0), .double(2.0 / 3.0)], [.double(2.0 / 3.0), .double(1.0 / 3.0)], [-70, .double(1.0 / 3.0)]],
            "D9 81 03 02 55 55 55 55 55 55 D5 3F 55 55 55 55 55 55 E5 3F 55 55 55 55 55 55 E5 3F 55 55 55 55 55 55 D5 3F"
                + " BA FF FF FF FF FF F4 7F 55 55 55 55 55 55 D5 3F"
        ),
    ]

    /// Doubles in format version 1, which has no decimal form (§1, "Which form a double takes").
    static let version1Doubles: [(Double, String)] = [
        (1.5, "C7 00 00 C0 3F"),
        (-0.0, "C7 00 00 00 80"),
        (0.1, "C8 9A 99 99 99 99 99 B9 3F"),
    ]

    @Test("each tag encodes to its documented bytes and decodes back")
    func documentedExamples() {
        for (value, expected) in Self.examples { assertEncode(value, expected) }
    }

    @Test("every tag byte introduces the type of FORMAT.md's tag table, and the others none")
    func everyTagByteHasItsType() {
        // Docs/FORMAT.md §1, range by range.
        var expected = [ValueType?](repeating: nil, count: 256)
        for tag in 0x00...0x7F { expected[tag] = .integer }
        for tag in 0x80...0x9F { expected[tag] = .string }
        for tag in 0xA0...0xAF { expected[tag] = .array }
        for tag in 0xB0...0xBF { expected[tag] = .map }
        for tag in 0xE0...0xFF { expected[tag] = .integer }
        let special: [Int: ValueType] = [
            0xC0: .null, 0xC1: .boolean, 0xC2: .boolean, 0xC3: .integer, 0xC4: .integer, 0xC5: .integer,
            0xC6: .integer, 0xC7: .double, 0xC8: .double, 0xC9: .timestamp, 0xCA: .timestamp, 0xCB: .geoPoint,
            0xCC: .serverTimestamp, 0xCD: .string, 0xCE: .bytes, 0xCF: .reference, 0xD0: .array, 0xD1: .map,
            0xD2: .vector, 0xD5: .double, 0xD6: .vector, 0xD7: .geoPoint, 0xD8: .array, 0xD9: .array,
        ]
        for (tag, type) in special { expected[tag] = type }
        for tag in 0...255 {
            #expect(ValueType(tag: UInt8(tag)) == expected[tag], "tag 0x\(String(tag, radix: 16))")
        }
    }

    @Test("format version 1 writes doubles in binary forms only, and version 3 reads them")
    func version1Doubles() throws {
        for (double, expected) in Self.version1Doubles {
            let encoded = Value.double(double).firePackBytes(formatVersion: 1)
            #expect(hex(encoded) == hex(bytes(hex: expected)))
            let decoded = try Value(firePackBytes: encoded)
            #expect(decoded == .double(double))
        }
    }

    @Test("the examples appear verbatim in Docs/FORMAT.md")
    func documentMatchesTests() throws {
        let format = try String(contentsOf: repositoryRoot.appendingPathComponent("Docs/FORMAT.md"), encoding: .utf8)
        for (_, expected) in Self.examples where expected.count > 2 {
            #expect(format.contains("`\(expected)`"), "FORMAT.md lacks \(expected)")
        }
        #expect(format.contains("A2 0A"))
        #expect(format.contains("D3 01 01 04"))
        #expect(format.contains("`89 46 50 4B 03 C0`"))
        for (_, expected) in Self.version1Doubles { #expect(format.contains("`\(expected)`"), "FORMAT.md lacks \(expected)") }
        #expect(format.contains("`D5 02 96`"))
    }

    @Test("long string: CD, varint length, bytes")
    func longString() {
        assertEncode(.string(String(repeating: "a", count: 57)), "CD 39" + String(repeating: " 61", count: 57))
        assertEncode(.string(String(repeating: "b", count: 31)), "9F" + String(repeating: " 62", count: 31))
        assertEncode(.string(String(repeating: "c", count: 200)), "CD C8 01" + String(repeating: " 63", count: 200))
    }

    @Test("large containers: D0 / D1 with length and count")
    func largeContainers() {
        assertEncode(.array(Array(repeating: 0, count: 16)), "D0 11 10" + String(repeating: " 00", count: 16))
        var map = MapValue()
        for index in 0..<16 { map["k\(String(index, radix: 16))"] = .integer(Int64(index)) }
        var expected = "D1 41 10"   // 16 entries × (1 header + 2 key bytes + 1 value) = 64 bytes, + 1 count byte
        for index in 0..<16 { expected += " 04 6B \(String(format: "%02X", Character(String(index, radix: 16)).asciiValue!)) \(String(format: "%02X", index))" }
        assertEncode(.map(map), expected)
    }

    @Test("key table example: [{\"id\": 1}, {\"id\": 2}]")
    func keyTableExample() {
        assertEncode([["id": 1], ["id": 2]], "A2 0A B1 04 04 69 64 01 B1 02 01 02 D3 01 01 04")
    }

    @Test("a key repeated is cheaper than a literal only when the reference is shorter")
    func keyReferenceRule() {
        // A one-byte key literal costs 2 bytes, a reference to index 0 costs 1: referenced.
        assertEncode([["a": 1], ["a": 2]], "A2 09 B1 03 02 61 01 B1 02 01 02 D3 01 01 04")
        // The empty key costs one byte as a literal and is never referenced.
        assertEncode([["": 1], ["": 2]], "A2 08 B1 02 00 01 B1 02 00 02")
    }

    @Test("file header: 89 46 50 4B, the version (03, or 01 when asked), then the value")
    func fileHeader() throws {
        for (version, expected) in [(3, "89 46 50 4B 03 D5 01 0F"), (1, "89 46 50 4B 01 C7 00 00 C0 3F")] {
            let writer = FirePackWriter(options: .init(formatVersion: version))
            writer.writeFileHeader()
            writer.writeDouble(1.5)
            let file = writer.takeBytes()
            #expect(hex(file) == expected)
            let value = try file.withUnsafeBytes { raw in
                var reader = try FirePackReader(fileBytes: raw)
                return try reader.readValue()
            }
            #expect(value == 1.5)
        }
    }

    @Test("extension values are skipped in O(1) and refused as values")
    func extensionValue() throws {
        let input = bytes(hex: "A2 06 D4 05 02 AA BB 07")
        try input.withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw)
            let array = try reader.enterArray()
            #expect(array.count == 2)
            #expect(throws: FirePackError.self) { try reader.peekType() }
            try reader.skipValue()
            #expect(try reader.readInteger() == 7)
            try reader.exitArray(array)
        }
        assertDecodeFails(input, .unsupportedExtension, offset: 2)
    }
}
