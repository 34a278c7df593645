import Foundation
import Testing
@testable import FirePack
import FirePackTestSupport

/// Packed vectors (Docs/FORMAT.md §1, tag `D6`): which form a vector takes, that every element comes back bit for
/// bit through every reader, and how malformed vectors are reported.
@Suite("Packed vectors")
struct PackedVectorTests {
    /// Vectors as data holds them: embeddings printed with a few decimals, float32 embeddings, coordinates, and
    /// vectors with a value no packed form holds.
    static func samples() -> [[Double]] {
        var generator = SeededGenerator(seed: 0xD6)
        var vectors: [[Double]] = [[], [0], [-0.0], [1, 2.5], [.nan, 1], [.infinity], [-0.0, 1.5], [1.0 / 3.0]]
        for _ in 0..<400 {
            let count = Int.random(in: 1...64, using: &generator)
            let kind = Int.random(in: 0..<4, using: &generator)
            let scale = Int.random(in: 0...8, using: &generator)
            vectors.append(
                (0..<count).map { _ in
                    switch kind {
                    case 0: Double("\(Int.random(in: -999_999...999_999, using: &generator))e-\(scale)")!
                    case 1: Double(Float.random(in: -1...1, using: &generator))
                    case 2: Double.random(in: -1e6...1e6, using: &generator)
                    default: Double(Int.random(in: -300...300, using: &generator)) / 4
                    }
                })
        }
        return vectors
    }

    func elements(of bytes: [UInt8]) throws -> [[Double]] {
        // Through the tree, the zero-copy view, the cursor and the Codable decoder.
        let value = try Value(firePackBytes: bytes)
        guard case .vector(let tree) = value else { throw FirePackError(.typeMismatch, "not a vector: \(value)") }
        let viewed = try bytes.withUnsafeBytes { raw in Array(try FirePackReader(bytes: raw).root.vector()) }
        let read = try bytes.withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw)
            return Array(try reader.readVector())
        }
        let decoded = try FirePackDecoder().decode(VectorValue.self, from: bytes)
        return [tree.array, viewed, read, decoded.array]
    }

    @Test("every vector comes back bit for bit through every reader, in versions 1 and 3")
    func roundTrip() throws {
        var packed = 0
        for vector in Self.samples() {
            for version in [1, 3] {
                let bytes = Value.vector(VectorValue(vector)).firePackBytes(formatVersion: version)
                for (reader, elements) in try elements(of: bytes).enumerated() {
                    #expect(
                        elements.map(\.bitPattern) == vector.map(\.bitPattern),
                        "reader \(reader), version \(version): \(hex(bytes))")
                }
                if version == 1 { #expect(bytes[0] == 0xD2) } else if bytes[0] == 0xD6 { packed += 1 }
            }
        }
        #expect(packed > 250)  // most samples pack: the test would pass vacuously otherwise
    }

    @Test("the bulk decode of every form and mantissa width gives each element as read one at a time")
    func bulkDecode() throws {
        var generator = SeededGenerator(seed: 0xB01C)
        var forms: [PackedVector.Form] = [.binary64, .binary32]
        for width in 1...8 { forms += [.decimal(width: width, scale: 0), .decimal(width: width, scale: width + 3)] }
        for form in forms {
            for count in [1, 2, 3, 4, 17, 768] {
                // Random bytes: every mantissa and bit pattern a form can hold, signs and the top byte included.
                let bytes = (0..<(count * form.width)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let bulk = bytes.withUnsafeBytes { raw in
                    let view = VectorView(raw, form: form)
                    #expect(view.count == count)
                    return view.vectorValue.array
                }
                let one = bytes.withUnsafeBytes { raw in (0..<count).map { form.element(at: $0, in: raw) } }
                #expect(bulk.map(\.bitPattern) == one.map(\.bitPattern), "\(form), \(count) elements")
            }
        }
    }

    @Test("the shortest form: binary32 or decimal when strictly shorter than binary64, binary32 on a tie")
    func formChoice() throws {
        let cases: [([Double], String)] = [
            ([1.0, 2.5], "D6 01 02 0A 19"),  // scale 1, one byte each: 10, 25
            ([-0.5, 65.66], "D6 12 02 CE FF A6 19"),  // scale 2, two bytes each: -50, 6566
            ([Double(Float(0.1))], "D6 80 01 CD CC CC 3D"),  // binary32: no short decimal
            ([1.0 / 3.0], "D2 01 55 55 55 55 55 55 D5 3F"),
            ([], "D2 00"),
            ([-0.0, 1.5], "D6 80 02 00 00 00 80 00 00 C0 3F"),  // −0.0 has no mantissa: binary32
            ([0.25, 0.5], "D6 02 02 19 32"),  // decimal in 1 byte each beats binary32's 4
            ([1e8, 2e8], "D6 80 02 20 BC BE 4C 20 BC 3E 4D"),  // decimal needs 4 bytes: a tie, binary32 wins
            ([-1.28], "D6 02 01 80"),  // −128 fits one byte of two's complement
            ([1.28], "D6 12 01 80 00"),  // 128 does not
            ([-14073748835532.8], "D6 51 01 00 00 00 00 00 80"),  // −2^47 in 6 bytes: shorter than D2
            ([1234567.0, 0.1], "D6 31 02 46 61 BC 00 01 00 00 00"),  // a form per element, whatever each scalar takes
        ]
        for (vector, expected) in cases {
            let bytes = Value.vector(VectorValue(vector)).firePackBytes()
            #expect(hex(bytes) == expected, "\(vector)")
        }
        // One element of 7 mantissa bytes (2^48 + 1): 2 + 1 + 7 = 10 bytes is no shorter than D2's 10.
        let bytes = Value.vector(VectorValue([281474976710657.0])).firePackBytes()
        #expect(bytes[0] == 0xD2)
    }

    @Test("malformed packed vectors are reported at the byte that is wrong")
    func malformed() {
        assertDecodeFails(hex: "D6", .truncated, offset: 0)
        assertDecodeFails(hex: "D6 81 01 00 00 00 00", .unknownTag, offset: 1)
        assertDecodeFails(hex: "D6 FF 00", .unknownTag, offset: 1)
        assertDecodeFails(hex: "D6 80 02 00 00 80 3F", .lengthOutOfBounds, offset: 2)
        assertDecodeFails(hex: "D6 01 03 0A 19", .lengthOutOfBounds, offset: 2)
        // 2^53 + 1 in 7 bytes, after one valid element.
        assertDecodeFails(hex: "D6 60 02 01 00 00 00 00 00 00 01 00 00 00 00 00 20", .invalidDecimal, offset: 10)
        // −(2^53 + 1) in 8 bytes.
        assertDecodeFails(hex: "D6 70 01 FF FF FF FF FF FF DF FF", .invalidDecimal, offset: 3)
        assertDecodeFails(
            bytes(hex: "D6 80 05 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"), .limitExceeded,
            offset: 0, limits: ReaderLimits(maxElementCount: 4))
    }

    @Test("the largest mantissas read: ±2^53")
    func mantissaLimits() throws {
        let value = try Value(firePackBytes: bytes(hex: "D6 70 02 00 00 00 00 00 00 20 00 00 00 00 00 00 00 E0 FF"))
        #expect(value == .vector(VectorValue([0x1p53, -0x1p53])))
    }

    @Test("only the writer's form is canonical; version 1 has no packed form")
    func canonical() throws {
        let cases: [(String, Int?, Int?)] = [
            ("D6 01 02 0A 19", nil, 0),
            ("D2 02 00 00 00 00 00 00 F0 3F 00 00 00 00 00 00 04 40", 0, nil),
            ("D6 80 02 00 00 80 3F 00 00 20 40", 1, 0),  // binary32 where decimal is shorter
            ("D6 11 02 0A 00 19 00", 1, 0),  // decimal, wider than needed
            ("D6 12 02 64 00 FA 00", 1, 0),  // scale 2 where 1 does: 100, 250
        ]
        for (text, offset3, offset1) in cases {
            let input = bytes(hex: text)
            #expect(try Value(firePackBytes: input) == .vector(VectorValue([1.0, 2.5])), "\(text)")
            #expect(try FirePackReader.firstNonCanonicalOffset(in: input) == offset3, "\(text)")
            #expect(try FirePackReader.firstNonCanonicalOffset(in: input, formatVersion: 1) == offset1, "\(text)")
        }
    }
}

/// Packed geopoints (Docs/FORMAT.md §1, tag `D7`): the pair `[latitude, longitude]` in the vector's packed forms.
@Suite("Packed geopoints")
struct PackedGeoPointTests {
    @Test("a geopoint takes the packed form its pair would, else CB; every one comes back bit for bit")
    func forms() throws {
        let cases: [(Double, Double, String)] = [
            (37.422, -122.084, "D7 23 2E 92 00 1C 23 FE"),  // scale 3, three bytes each: 37422, -122084
            (1.0 / 3.0, 2.0 / 3.0, "CB 55 55 55 55 55 55 D5 3F 55 55 55 55 55 55 E5 3F"),
            (0.5, Double(Float(0.1)), "D7 80 00 00 00 3F CD CC CC 3D"),  // 0.1f has no short decimal: binary32
            (0, -0.0, "D7 80 00 00 00 00 00 00 00 80"),  // −0.0 has no mantissa
            (-90, 180, "D7 10 A6 FF B4 00"),  // scale 0, two bytes each
        ]
        for (latitude, longitude, expected) in cases {
            let point = GeoPoint(latitude: latitude, longitude: longitude)
            let bytes = Value.geoPoint(point).firePackBytes()
            #expect(hex(bytes) == expected, "\(point)")
            #expect(hex(Value.geoPoint(point).firePackBytes(formatVersion: 1)).hasPrefix("CB"))
        }
        var generator = SeededGenerator(seed: 0xD7)
        for index in 0..<3_000 {
            let (latitude, longitude): (Double, Double) =
                switch index % 3 {
                case 0:
                    (
                        Double("\(Int.random(in: -90_000_000...90_000_000, using: &generator))e-6")!,
                        Double("\(Int.random(in: -180_0000...180_0000, using: &generator))e-4")!
                    )
                case 1:
                    (
                        Double(Float.random(in: -90...90, using: &generator)),
                        Double(Float.random(in: -180...180, using: &generator))
                    )
                default: (Double.random(in: -90...90, using: &generator), Double.random(in: -180...180, using: &generator))
                }
            let point = GeoPoint(latitude: latitude, longitude: longitude)
            for version in [1, 3] {
                let bytes = Value.geoPoint(point).firePackBytes(formatVersion: version)
                guard case .geoPoint(let back) = try Value(firePackBytes: bytes) else {
                    Issue.record("not a geopoint: \(hex(bytes))")
                    continue
                }
                let viewed = try bytes.withUnsafeBytes { try FirePackReader(bytes: $0).root.geoPoint() }
                let decoded = try FirePackDecoder().decode(GeoPoint.self, from: bytes)
                for read in [back, viewed, decoded] {
                    #expect(read.latitude.bitPattern == latitude.bitPattern, "\(hex(bytes))")
                    #expect(read.longitude.bitPattern == longitude.bitPattern, "\(hex(bytes))")
                }
                if index % 3 < 2 && version == 3 { #expect(bytes[0] == 0xD7, "\(point): \(hex(bytes))") }
            }
        }
    }

    @Test("malformed packed geopoints are reported at the byte that is wrong")
    func malformed() throws {
        assertDecodeFails(hex: "D7", .truncated, offset: 0)
        assertDecodeFails(hex: "D7 23 2E 92 00 1C 23", .truncated, offset: 0)
        assertDecodeFails(hex: "D7 81 00 00 00 00 00 00 00 00", .unknownTag, offset: 1)
        assertDecodeFails(hex: "D7 00 5B 00", .invalidGeoPoint, offset: 0)  // latitude 91
        assertDecodeFails(hex: "D7 10 00 00 B5 00", .invalidGeoPoint, offset: 0)  // longitude 181
        assertDecodeFails(hex: "D7 70 FF FF FF FF FF FF FF 7F 00 00 00 00 00 00 00 00", .invalidDecimal, offset: 2)
        #expect(try FirePackReader.firstNonCanonicalOffset(in: bytes(hex: "CB 00 00 00 00 00 00 E0 3F 00 00 00 00 00 00 E0 3F")) == 0)
    }
}
