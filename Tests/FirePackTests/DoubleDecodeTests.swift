import Testing
import FirePackTestSupport
@testable import FirePack

/// `ReaderInput.getDouble`, `getDecimalParts` and `DecoderImpl.decodeDouble` read doubles that fit themselves
/// (`getFittingDouble`, `getFittingDecimalParts`) and leave every other value, and every error, to their
/// `…OfAnyForm` functions: each pair must agree on every input.
@Suite struct DoubleDecodeTests {
    /// Every tag byte followed by bytes that make each double form (binary64, binary32, decimal with every header)
    /// whole, cut or invalid, and doubles as the writer writes them (decimal and binary, ±0, NaN, ±∞, subnormal, 300
    /// random decimals);
    /// read at every offset, cut at every length up to ten bytes and at the end: the same bits and end, or the
    /// same error.
    @Test func theFastPathReadsEveryDoubleAsTheFullFunction() {
        var inputs: [[UInt8]] = []
        let tails: [[UInt8]] = [
            [], [0x00], [0x12, 0x05], [0x70, 1, 2, 3, 4, 5, 6, 7, 8], [0x60, 0x20, 0, 0, 0, 0, 0, 0],
            [0x70, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0x8F, 0x01], [0x3A, 0x01, 0x02, 0x03, 0x04],
            [0, 0, 0xC0, 0x7F], [0, 0, 0, 0, 0, 0, 0xF0, 0x7F], [1, 0, 0, 0, 0, 0, 0, 0x80],
        ]
        for tag in 0...255 {
            for tail in tails { inputs.append([UInt8(tag)] + tail) }
        }
        let doubles: [Double] = [
            0, -0.0, 65.66, -65.66, 0.1, 1e300, -1e-300, .nan, .infinity, -.infinity, .leastNonzeroMagnitude, 3.5,
            123_456_789.123, 9_007_199_254_740_992, .pi,
        ]
        var rng = SeededGenerator(seed: 44)
        let decimals = (0..<300).map { _ in
            Double(Int.random(in: -10_000_000...10_000_000, using: &rng)) / [1, 10, 100, 1_000, 1e6][Int.random(in: 0..<5, using: &rng)]
        }
        for double in doubles + decimals { inputs.append(Value.double(double).firePackBytes()) }
        var read = 0, errors = 0
        forEveryCut(of: inputs, upTo: 10) { input, decoder, offset, limit, wrapped in
            let fast = Result { () throws(FirePackError) in try input.getDouble(at: offset, limit: limit) }
            let full = Result { () throws(FirePackError) in
                try input.getDoubleOfAnyForm(at: offset, limit: limit)
            }
            #expect(
                fast.map { [$0.0.bitPattern, UInt64($0.next)] } == full.map { [$0.0.bitPattern, UInt64($0.next)] },
                "offset \(offset), limit \(limit) of \(wrapped)")
            if case .success = full { read += 1 } else { errors += 1 }
            let parts = Result { () throws(FirePackError) in
                try input.getDecimalParts(at: offset, limit: limit)
            }
            let allParts = Result { () throws(FirePackError) in
                try input.getDecimalPartsOfAnyForm(at: offset, limit: limit)
            }
            #expect(
                parts.map { [$0.0, UInt64($0.header), UInt64($0.next)] }
                    == allParts.map { [$0.0, UInt64($0.header), UInt64($0.next)] },
                "decimal parts at offset \(offset), limit \(limit) of \(wrapped)")
            let decoded = Outcome { try decoder.decodeDouble(at: offset, end: limit) }
            let allDecoded = Outcome { try decoder.decodeDoubleOfAnyForm(at: offset, end: limit) }
            #expect(decoded == allDecoded, "decoding at offset \(offset), limit \(limit) of \(wrapped)")
        }
        #expect(read > 300 && errors > 10_000, "\(read) doubles, \(errors) errors")
    }

    /// A double's bits, or an error's description (`DecodingError` is not `Equatable`).
    enum Outcome: Equatable {
        case bits(UInt64)
        case error(String)

        init(_ body: () throws -> Double) {
            do { self = .bits(try body().bitPattern) } catch { self = .error("\(error)") }
        }
    }
}
