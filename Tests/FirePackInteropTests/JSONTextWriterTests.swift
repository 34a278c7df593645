import Foundation
import Testing
import FirePack
@testable import FirePackInterop
import FirePackTestSupport

/// The JSON text of the values FirePack prints itself rather than through Foundation, held to what Foundation and the
/// standard library print: doubles (`Double.description`), bytes (`Data.base64EncodedString()`), and the vectors and
/// geopoints made of doubles, through the tree (`Value.jsonBytes`) and straight from the bytes (`appendObject`).
@Suite struct JSONTextWriterTests {
    /// Doubles of every kind: short decimals at every scale (prices, coordinates), integers, powers of ten at the
    /// edges of fixed notation, random bit patterns (17 digits), subnormals, extremes and both zeros.
    func doubles(_ count: Int, seed: UInt64) -> [Double] {
        var rng = SeededGenerator(seed: seed)
        var doubles: [Double] = [0, -0.0, 1, -1, 0.1, 1e-4, 1e-5, 9.999e-5, 1e15, 1e16, 9007199254740992,
                                 9007199254740994, 123456789012345.6, 0.000123, .leastNonzeroMagnitude,
                                 .leastNormalMagnitude, .greatestFiniteMagnitude, Double("5e-324")!, 2.5e-8, 65.66, 0.3]
        while doubles.count < count {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                let digits = Int.random(in: 1...17, using: &rng)
                let mantissa = UInt64.random(in: 0..<UInt64(pow(10, Double(digits))), using: &rng)
                doubles.append(Double(mantissa) / pow(10, Double(Int.random(in: 0...22, using: &rng))))
            case 1: doubles.append(Double(bitPattern: UInt64.random(in: 0..<0x7FF0_0000_0000_0000, using: &rng)))
            case 2: doubles.append(Double(Int64.random(in: -1_000_000...1_000_000, using: &rng)))
            default: doubles.append((Double.random(in: -180...180, using: &rng) * 1e6).rounded() / 1e6)
            }
            if Bool.random(using: &rng) { doubles[doubles.count - 1].negate() }
        }
        return doubles
    }

    func text(_ value: Value) -> String { String(decoding: value.jsonBytes(), as: UTF8.self) }

    /// The text the direct path writes for `fields`, with the `__name__` member it appends.
    func directText(_ fields: MapValue) throws -> String {
        let bytes = Value.map(fields).firePackBytes()
        let output = ByteOutput()
        let written = bytes.withUnsafeBytes { raw -> Bool in
            guard let reader = try? FirePackReader(bytes: raw) else { return false }
            return JSONTranscoding.appendObject(reader, appending: AddedMembers(name: ("__name__", "a/b")), options: JSONOptions(), to: output)
        }
        #expect(written)
        return String(decoding: output.bytes, as: UTF8.self)
    }

    @Test func doublesPrintDescriptionsText() throws {
        let doubles = doubles(200_000, seed: 41)
        for double in doubles {
            #expect(text(.double(double)) == double.description, "\(double.bitPattern)")
        }
        // Non-finite: markers when reversible, null when plain.
        #expect(text(.double(.infinity)) == #"{"__double__":"Infinity"}"#)
        #expect(String(decoding: Value.double(.nan).jsonBytes(options: JSONOptions(form: .plain)), as: UTF8.self) == "null")
        // Straight from the bytes: tagged, in the decimal form, and packed, as the tree prints them.
        for start in stride(from: 0, to: 2_000, by: 20) {
            let slice = Array(doubles[start..<start + 20])
            let fields: MapValue = ["one": .double(slice[0]), "packed": .array(slice.map(Value.double))]
            let expected = #"{"one":\#(slice[0].description),"packed":[\#(slice.map(\.description).joined(separator: ","))],"__name__":"a/b"}"#
            #expect(try directText(fields) == expected)
        }
    }

    @Test func integersPrintTheirDescriptions() throws {
        // Every digit count from 1 to 19 (two digits are written at a time: odd and even counts), both signs, the
        // powers of ten and their neighbours, and the extremes.
        var rng = SeededGenerator(seed: 7)
        var integers: [Int64] = [0, 1, -1, 9, 10, 99, 100, .max, .min, .max - 1, .min + 1]
        var power: Int64 = 1
        for _ in 0..<19 {
            integers += [power - 1, power, power + 1, -power, Int64.random(in: power...(power > Int64.max / 10 ? .max : power * 10 - 1), using: &rng)]
            if power <= Int64.max / 10 { power *= 10 }
        }
        for _ in 0..<20_000 { integers.append(Int64.random(in: .min ... .max, using: &rng) >> Int64.random(in: 0...63, using: &rng)) }
        for integer in integers {
            #expect(text(.integer(integer)) == String(integer))
        }
        for start in stride(from: 0, to: 1_000, by: 20) {
            let slice = integers[start..<start + 20]
            let fields: MapValue = ["one": .integer(slice.first!), "many": .array(slice.map(Value.integer))]
            let expected = #"{"one":\#(slice.first!),"many":[\#(slice.map(String.init).joined(separator: ","))],"__name__":"a/b"}"#
            #expect(try directText(fields) == expected)
        }
    }

    @Test func stringsOfEveryShortLengthReadBackThroughFoundation() throws {
        // Lengths 0 to 40 (a string of 4 to 16 bytes is copied as two overlapping words), plain, with a character to
        // escape at each end and in the middle, and with multi-byte characters; each read back by JSONSerialization,
        // through the tree and straight from the bytes.
        var rng = SeededGenerator(seed: 11)
        let plain = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.:/")
        let special: [Character] = ["\"", "\\", "\n", "\u{01}", "\u{1F}", "é", "日", "🔥"]
        for length in 0...40 {
            for variant in 0..<4 {
                var characters = (0..<length).map { _ in plain.randomElement(using: &rng)! }
                if length > 0 && variant > 0 {
                    let at = [0, length / 2, length - 1][variant - 1]
                    characters[at] = special.randomElement(using: &rng)!
                }
                let string = String(characters)
                for text in [text(.string(string)), try directText(["s": .string(string)])] {
                    let parsed: Any
                    if text.hasPrefix("{") {
                        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
                        parsed = object["s"] as Any
                    } else {
                        parsed = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
                    }
                    #expect(parsed as? String == string, "length \(length), variant \(variant): \(text)")
                }
            }
        }
    }

    @Test func vectorsAndGeopointsPrintTheirDoubles() throws {
        let doubles = doubles(4_000, seed: 42)
        var rng = SeededGenerator(seed: 43)
        for start in stride(from: 0, to: doubles.count - 40, by: 40) {
            // Embedding-like vectors (six decimals: a decimal form), binary32 and binary64 ones, and a geopoint.
            let count = Int.random(in: 1...40, using: &rng)
            let decimal = (0..<count).map { _ in (Double.random(in: -1...1, using: &rng) * 1e6).rounded() / 1e6 }
            let float = (0..<count).map { _ in Double(Float.random(in: -1...1, using: &rng)) }
            let any = Array(doubles[start..<start + count])
            let point = GeoPoint(
                latitude: (Double.random(in: -90...90, using: &rng) * 1e6).rounded() / 1e6,
                longitude: Double.random(in: -180...180, using: &rng))
            var fields: MapValue = [:]
            var expected: [String] = []
            for (name, elements) in [("decimal", decimal), ("float", float), ("any", any)] {
                fields[name] = .vector(VectorValue(elements))
                expected.append(#""\#(name)":{"__vector__":[\#(elements.map(\.description).joined(separator: ","))]}"#)
            }
            fields["where"] = .geoPoint(point)
            expected.append(#""where":{"__geopoint__":[\#(point.latitude.description),\#(point.longitude.description)]}"#)
            #expect(try directText(fields) == "{" + expected.joined(separator: ",") + #","__name__":"a/b"}"#)
            #expect(text(.map(fields)) == "{" + expected.joined(separator: ",") + "}")
        }
        // Plain: a vector is an array, a geopoint a map of its two parts.
        let plain = JSONOptions(form: .plain)
        let point = GeoPoint(latitude: 1.5, longitude: -0.25)
        #expect(String(decoding: Value.geoPoint(point).jsonBytes(options: plain), as: UTF8.self)
                == #"{"latitude":1.5,"longitude":-0.25}"#)
        #expect(String(decoding: Value.vector(VectorValue([0.5, 2])).jsonBytes(options: plain), as: UTF8.self)
                == "[0.5,2.0]")
        #expect(text(.vector(VectorValue([]))) == #"{"__vector__":[]}"#)
    }

    @Test func bytesPrintFoundationsBase64() throws {
        var rng = SeededGenerator(seed: 44)
        for count in 0..<200 {
            let data = Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) })
            let base64 = data.base64EncodedString()
            #expect(text(.bytes(data)) == #"{"__bytes__":"\#(base64)"}"#, "\(count) bytes")
            #expect(String(decoding: Value.bytes(data).jsonBytes(options: JSONOptions(form: .plain)), as: UTF8.self)
                    == #""\#(base64)""#)
            #expect(try directText(["b": .bytes(data)]) == #"{"b":{"__bytes__":"\#(base64)"},"__name__":"a/b"}"#)
        }
    }
}
