import FirePack
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackInterop

/// JSON doubles read by the Clinger fast path are strtod's, bit for bit; the numbers it does not take go to strtod.
@Suite("JSON numbers")
struct JSONNumberTests {
    /// `text` through the fast path, or nil where it does not apply.
    func fast(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { JSONParser.clingerDouble(UnsafeRawPointer($0.baseAddress!), count: $0.count) }
    }

    @Test("random decimals: the fast path gives strtod's bits, and reading JSON gives them whichever path it takes")
    func randomDecimals() throws {
        var random = SeededGenerator(seed: 1990)
        var taken = 0
        for _ in 0..<100_000 {
            let integerDigits = Int.random(in: 1...12, using: &random)
            let fractionDigits = Int.random(in: 0...12, using: &random)
            var text = Bool.random(using: &random) ? "-" : ""
            text += String(Int.random(in: 1...9, using: &random))
            for _ in 1..<integerDigits { text += String(Int.random(in: 0...9, using: &random)) }
            if Int.random(in: 0..<4, using: &random) == 0 { text = text.hasPrefix("-") ? "-0" : "0" }
            if fractionDigits > 0 {
                text += "."
                for _ in 0..<fractionDigits { text += String(Int.random(in: 0...9, using: &random)) }
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                text += ["e", "E", "e+", "e-", "E-"].randomElement(using: &random)! + String(Int.random(in: 0...30, using: &random))
            }
            let expected = try #require(Double(text), "\(text)")
            if let double = fast(text) {
                taken += 1
                #expect(double.bitPattern == expected.bitPattern, "\(text)")
            }
            guard case .double(let read)? = try? Value(json: Array(text.utf8)) else {
                // An integer without fraction or exponent reads as one.
                #expect(fractionDigits == 0 && !text.contains(where: { $0 == "e" || $0 == "E" }), "\(text)")
                continue
            }
            #expect(read.bitPattern == expected.bitPattern, "\(text)")
        }
        #expect(taken > 50_000, "most random decimals of up to 15 digits take the fast path")
    }

    @Test("the edges: 2^53, 10^±22, leading zeros, negative zero; what it leaves to strtod")
    func edges() {
        #expect(fast("9007199254740992")?.bitPattern == 9_007_199_254_740_992.0.bitPattern)
        #expect(fast("9007199254740993") == nil)  // 2^53 + 1: not exact
        #expect(fast("1e22") == 1e22 && fast("1e23") == nil && fast("1e-22") == 1e-22 && fast("1e-23") == nil)
        #expect(fast("0.000000000000000000001") == 1e-21)
        #expect(fast("-0.0")?.bitPattern == (-0.0).bitPattern && fast("0.0")?.bitPattern == 0.0.bitPattern)
        #expect(fast("18.90") == 18.9 && fast("-65.613617") == -65.613617)
        #expect(fast("12345678901234567890") == nil)  // 20 digits
        #expect(fast("1e00005") == nil)  // an exponent of more than four digits
    }

    @Test("reading JSON takes a fraction's digits in the number's one pass only where the fast path would; strtod's bits")
    func fractionsReadInOnePass() throws {
        let texts = [
            "9007199254740992.0", "9007199254740993.0", "-9007199254740993.5", "0.9007199254740993",
            "1234567890123456789.0", "1234567890.123456789", "1234567890.1234567891", "0.1234567890123456789",
            "0.00000000000000000000001", "0.0000000000000000000000001", "0.00000000000000000000000000012345",
            "-0.0", "0.0", "-0.000", "9223372036854775807.5", "-9223372036854775808.25", "99999999999999999999.5",
            "0.1e1", "2.5E-3", "18.90", "-65.613617",
        ]
        var random = SeededGenerator(seed: 2026)
        let generated = (0..<20_000).map { _ in
            let zeros = String(repeating: "0", count: Int.random(in: 0...24, using: &random))
            let digits = (0..<Int.random(in: 1...20, using: &random)).map { _ in
                String(Int.random(in: 0...9, using: &random))
            }.joined()
            return (Bool.random(using: &random) ? "-" : "") + "0." + zeros + digits
        }
        for text in texts + generated {
            let expected = try #require(Double(text), "\(text)")
            guard case .double(let read)? = try? Value(json: Array(text.utf8)) else {
                Issue.record("\(text) did not read as a double")
                continue
            }
            #expect(read.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    @Test("no number is changed without a word: -0 keeps its sign, and one too small for a double is refused, not 0")
    func numbersADoubleCannotHold() throws {
        func read(_ text: String) throws -> Value { try Value(json: Array(text.utf8)) }
        guard case .double(let negativeZero) = try read("-0") else { throw FirePackError(.invalidValue, "-0") }
        #expect(negativeZero.bitPattern == (-0.0).bitPattern)
        #expect(try read("0") == .integer(0) && read("[0, -0]") == .array([.integer(0), .double(-0.0)]))
        // Back as written: −0.0 is a double in JSON too.
        let back = try Value(json: Value.double(-0.0).jsonBytes())
        guard case .double(let again) = back else { throw FirePackError(.invalidValue, "\(back)") }
        #expect(again.bitPattern == (-0.0).bitPattern)
        for (text, offset) in [("1E-400", 0), ("[1, -1e-400]", 4), ("0.\(String(repeating: "0", count: 400))1", 0),
                               ("2e-324", 0), ("{\"a\": 123e-999}", 6)] {
            let error = #expect(throws: FirePackError.self, "\(text)") { try read(text) }
            #expect(error?.offset == offset && error?.message.contains("too small for a double") == true, "\(text): \(String(describing: error))")
        }
        // Zeros written with exponents are zeros, and the smallest subnormal is read.
        for text in ["0e-400", "-0.0E-999", "0.000"] {
            guard case .double(let zero) = try read(text) else { throw FirePackError(.invalidValue, text) }
            #expect(zero == 0, "\(text)")
        }
        #expect(try read("3e-324") == .double(.leastNonzeroMagnitude) && read("4.9e-324") == .double(.leastNonzeroMagnitude))
        // A REST `integerValue` written `-0` is still 0 (the text alone: `-0.0` is no integer); a double is no ID.
        let rest = try Document(firestoreJSON: Array(#"{"name":"c/d","fields":{"n":{"integerValue":-0}}}"#.utf8))
        #expect(rest.fields["n"] == .integer(0))
        #expect(throws: FirePackError.self) {
            try Document(firestoreJSON: Array(#"{"name":"c/d","fields":{"n":{"integerValue":-0.0}}}"#.utf8))
        }
        let naming = DocumentNaming(collection: "c", idField: "id")
        #expect(throws: (any Error).self) { try naming.document(from: read(#"{"id": -0, "x": 1}"#), line: 1) }
    }
}
