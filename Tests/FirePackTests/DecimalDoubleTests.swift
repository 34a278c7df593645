import Foundation
import Testing
@testable import FirePack
import FirePackTestSupport

/// The decimal form of doubles (Docs/FORMAT.md §1, tag `D5`): which doubles take it, that every double comes back
/// bit for bit, and how malformed forms are reported.
@Suite("Decimal doubles")
struct DecimalDoubleTests {
    /// The decimal form §1's rule gives `value`, found independently of the writer from the shortest decimal text
    /// Swift prints for it: nil when that text has a mantissa of 2^50 or more or a scale above 15.
    static func expectedForm(_ value: Double) -> (mantissa: UInt64, scale: Int)? {
        guard value.isFinite else { return nil }
        let text = value.magnitude.description  // "65.66", "1e-05", "1.0", "1e+16"
        let parts = text.split(separator: "e")
        let exponent = parts.count == 2 ? Int(parts[1])! : 0
        let pieces = parts[0].split(separator: ".", omittingEmptySubsequences: false)
        var fraction = pieces.count == 2 ? String(pieces[1]) : ""
        while fraction.hasSuffix("0") { fraction.removeLast() }
        var digits = String(pieces[0]) + fraction
        var scale = fraction.count - exponent
        while scale < 0 {
            digits += "0"
            scale += 1
        }
        guard scale <= 15, let mantissa = UInt64(digits), mantissa < 1 << 50 else { return nil }
        return (mantissa, scale)
    }

    /// Doubles as data holds them: short decimal text (prices, coordinates, measurements) of every length and scale.
    static func decimalSamples(count: Int) -> [Double] {
        var generator = SeededGenerator(seed: 0xD5)
        return (0..<count).map { _ in
            let digits = Int.random(in: 1...17, using: &generator)
            let mantissa = UInt64.random(in: 0..<UInt64(pow(10.0, Double(digits))), using: &generator)
            let scale = Int.random(in: 0...24, using: &generator)
            let sign = Bool.random(using: &generator) ? "-" : ""
            return Double("\(sign)\(mantissa)e-\(scale)")!
        }
    }

    static func form(of bytes: [UInt8]) -> UInt8 { bytes[0] }

    @Test("short decimals take D5 with the smallest scale, exactly where the rule says")
    func decimalsTakeTheDecimalForm() throws {
        var decimal = 0
        for value in Self.decimalSamples(count: 20_000) {
            let encoded = Value.double(value).firePackBytes()
            let decoded = try Value(firePackBytes: encoded)
            guard case .double(let back) = decoded else {
                Issue.record("\(value) decoded as \(decoded)")
                continue
            }
            #expect(back.bitPattern == value.bitPattern, "\(value) came back as \(back)")
            let binarySize = Double(Float(value)).bitPattern == value.bitPattern ? 5 : 9
            if let (mantissa, scale) = Self.expectedForm(value),
                case let count = (64 - mantissa.leadingZeroBitCount + 7) / 8, 2 + max(count, 1) < binarySize
            {
                // Header: sign, byte count less one, scale; then the mantissa, most significant byte first.
                let header = (value.sign == .minus ? 0x80 : 0) | (max(count, 1) - 1) << 4 | scale
                let expected = [0xD5, UInt8(header)] + (0..<max(count, 1)).reversed().map { UInt8(truncatingIfNeeded: mantissa >> (8 * $0)) }
                #expect(hex(encoded) == hex(expected), "\(value)")
                decimal += 1
            } else {
                #expect(encoded[0] == (binarySize == 5 ? 0xC7 : 0xC8), "\(value): \(hex(encoded))")
            }
        }
        // The samples are mostly short decimals: the test would pass vacuously if none took the form.
        #expect(decimal > 10_000)
    }

    @Test("a scale tried first gives the search's answer, whatever it is")
    func aGuessedScaleGivesTheSearchsAnswer() {
        let specials: [Double] = [0, -0.0, .nan, .infinity, 0x1p50, 0x1p48, 0x1p16, 65_535.5, 0x1p-1074, 1e15, 1e-15, 0.1, 5e-16]
        var checked = 0, wrong: [String] = []
        for value in Self.decimalSamples(count: 3_000) + specials {
            for bound in [0x1p16, 0x1p48, DecimalDouble.writerMantissaLimit] {
                let expected = DecimalDouble.decompose(value.magnitude, below: bound)
                for guess in -1...16 {
                    var scale = guess
                    let found = DecimalDouble.decompose(value.magnitude, below: bound, near: &scale)
                    // The guess moves to the scale found, except for zero (scale 0 says nothing of the next value).
                    let nextGuess = expected.map { value.magnitude > 0 ? $0.scale : guess } ?? guess
                    if found?.mantissa != expected?.mantissa || found?.scale != expected?.scale || scale != nextGuess {
                        wrong.append("\(value) below \(bound) near \(guess): \(String(describing: found)), next \(scale)")
                    }
                    checked += 1
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        #expect(checked > 150_000)
    }

    @Test("a writer that tries each double's scale from the one before writes what a new writer writes for it")
    func aCarriedScaleWritesWhatANewWriterWrites() throws {
        let samples = Self.decimalSamples(count: 4_000)
        var generator = SeededGenerator(seed: 0x6E0)
        var values: [Value] = []
        for start in stride(from: 0, to: samples.count - 8, by: 8) {
            let latitude = Double(Int.random(in: -90_000_000...90_000_000, using: &generator)) / 1e6
            let longitude = Double(Int.random(in: -180_000...180_000, using: &generator)) / 1e3
            values += [
                .double(samples[start]), .vector(VectorValue(Array(samples[start..<start + 8]))),
                .array(samples[start + 2..<start + 6].map(Value.double)),
                .geoPoint(try GeoPoint(validatingLatitude: latitude, longitude: longitude)), .double(latitude),
            ]
        }
        let writer = FirePackWriter()
        var separately: [UInt8] = []
        for value in values {
            writer.write(value)
            separately += value.firePackBytes()
        }
        let together = writer.takeBytes()
        let firstDifference =
            zip(together, separately).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(together.count, separately.count)
        #expect(
            together.count == separately.count && firstDifference == together.count,
            "\(together.count) bytes against \(separately.count), first differing at byte \(firstDifference)")
        // Not vacuous: most doubles take the decimal form (D5), where the scale matters.
        let decimals = values.filter { value in
            if case .double = value { return value.firePackBytes().first == 0xD5 }
            return false
        }
        #expect(decimals.count > 500)
    }

    @Test("every double comes back bit for bit: specials, subnormals, NaN payloads, random bit patterns")
    func everyDoubleRoundTrips() throws {
        var generator = SeededGenerator(seed: 0xB17)
        var values: [Double] = [
            0, -0.0, .infinity, -.infinity, .nan, -.nan, .signalingNaN, Double(bitPattern: 0x7FF8_0000_0000_1234),
            .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, .pi, 0x1p50, 0x1p50 - 1, 0x1p53, 1e15, 1e16, 1e-15, 1e-16, 12345678901e-15,
            0.1 + 0.2, 1.0 / 3.0, Double("5e-324")!, 4503599627370495.5, 1125899906842623.0, 562949953421311.0, 562949953421313.0,
        ]
        for _ in 0..<20_000 { values.append(Double(bitPattern: UInt64.random(in: .min ... .max, using: &generator))) }
        for value in values {
            for version in [1, 3] {
                let encoded = Value.double(value).firePackBytes(formatVersion: version)
                guard case .double(let back) = try Value(firePackBytes: encoded) else {
                    Issue.record("\(value) did not decode as a double")
                    continue
                }
                #expect(back.bitPattern == value.bitPattern, "\(value) (\(hex(encoded))) came back as \(back)")
                if version == 1 { #expect(encoded[0] != 0xD5, "version 1 wrote \(hex(encoded))") }
            }
        }
        #expect(hex(Value.double(.nan).firePackBytes()).hasPrefix("C8"))
        // A mantissa of 6 bytes (below 2^48) makes a decimal form shorter than binary64's 9 bytes; 7 bytes do not.
        #expect(hex(Value.double(281474976710655.0).firePackBytes()).hasPrefix("D5 50 FF"))  // 2^48 - 1
        #expect(hex(Value.double(281474976710657.0).firePackBytes()).hasPrefix("C8"))  // 2^48 + 1
        #expect(hex(Value.double(0x1p48).firePackBytes()).hasPrefix("C7"))  // binary32 is exact and shorter
        #expect(hex(Value.double(0.000123).firePackBytes()) == "D5 06 7B")  // 123 / 10^6
        #expect(hex(Value.double(1e-16).firePackBytes()).hasPrefix("C8"))  // scale 16: past the header's four bits
    }

    @Test("a malformed decimal is reported at the byte that is wrong")
    func malformedDecimals() {
        assertDecodeFails(hex: "D5", .truncated, offset: 0)
        assertDecodeFails(hex: "D5 01", .truncated, offset: 0)  // a one-byte mantissa is missing
        assertDecodeFails(hex: "D5 17 01", .truncated, offset: 0)  // header: 2 bytes of mantissa, scale 7
        assertDecodeFails(hex: "D5 60 20 00 00 00 00 00 01", .invalidDecimal, offset: 2)  // 2^53 + 1
        assertDecodeFails(hex: "D5 F0 FF FF FF FF FF FF FF FF", .invalidDecimal, offset: 2)
        // [[decimal cut by its array's end], 5]: the mantissa would be the outer array's next element.
        assertDecodeFails(hex: "A2 05 A1 02 D5 01 05", .truncated, offset: 4)
    }

    @Test("readers accept every decimal form of a value; only the writer's is canonical")
    func nonShortestDecimals() throws {
        let largest = try Value(firePackBytes: bytes(hex: "D5 60 20 00 00 00 00 00 00"))  // 2^53
        #expect(largest == .double(0x1p53))
        let cases: [(String, Double, Int?, Int?)] = [
            // bytes, value, first non-canonical offset in version 3, and in version 1
            ("D5 01 0F", 1.5, nil, 0),
            ("D5 02 96", 1.5, 1, 0),
            ("D5 11 00 0F", 1.5, 1, 0),
            ("C7 00 00 C0 3F", 1.5, 0, nil),
            ("C8 00 00 00 00 00 00 F8 3F", 1.5, 0, 0),
            ("D5 80 00", -0.0, nil, 0),
            ("D5 81 00", -0.0, 1, 0),
            ("C8 55 55 55 55 55 55 D5 3F", 1.0 / 3.0, nil, nil),
        ]
        for (text, value, offset3, offset1) in cases {
            let input = bytes(hex: text)
            guard case .double(let decoded) = try Value(firePackBytes: input) else {
                Issue.record("\(text) is not a double")
                continue
            }
            #expect(decoded.bitPattern == value.bitPattern, "\(text)")
            #expect(try FirePackReader.firstNonCanonicalOffset(in: input) == offset3, "\(text) in version 3")
            #expect(try FirePackReader.firstNonCanonicalOffset(in: input, formatVersion: 1) == offset1, "\(text)")
        }
    }

    @Test("the coders write the form of the encoder's format version, and read both")
    func codersFollowTheFormatVersion() throws {
        struct Reading: Codable, Equatable {
            var price: Double
            var ratio: Float
            var history: [Double]
        }
        let reading = Reading(price: 65.66, ratio: 0.25, history: [0.1, -0.0, 1e-7, .pi, 12.5])
        let encoder = FirePackEncoder()
        let version3 = try encoder.encodeToBytes(reading)
        encoder.formatVersion = 1
        let version1 = try encoder.encodeToBytes(reading)
        #expect(version3.contains(0xD5))
        #expect(version1.count > version3.count)
        for encoded in [version3, version1] {
            #expect(try FirePackDecoder().decode(Reading.self, from: encoded) == reading)
        }
        // Every double's tag: binary forms only in version 1; 65.66 is decimal in version 3.
        func tags(_ encoded: [UInt8]) throws -> [String] {
            try encoded.withUnsafeBytes { raw in
                let root = try FirePackReader(bytes: raw).root
                var tags = [try root["price"]!.tagHex, try root["ratio"]!.tagHex]
                try root["history"]!.forEachElement { tags.append($0.tagHex) }
                return tags
            }
        }
        #expect(try tags(version1).allSatisfy { $0 == "C7" || $0 == "C8" })
        #expect(try tags(version3) == ["D5", "D5", "D5", "D5", "D5", "C8", "D5"])
        let value = try Value(firePackBytes: version1)
        #expect(value == (try Value(firePackBytes: version3)))
        encoder.deterministic = true
        #expect(try encoder.encodeToBytes(reading) == value.firePackBytes(deterministic: true, formatVersion: 1))
    }
}
