import Testing
import FirePackTestSupport
@testable import FirePack

/// `ReaderInput.getInteger` and `DecoderImpl.decodeInteger` read integers that fit themselves
/// (`getFittingInteger`) and leave every other value, and every error, to `getIntegerOfAnyForm` and
/// `decodeIntegerOfAnyForm`: each pair must agree on every input.
@Suite struct IntegerDecodeTests {
    /// Every tag byte followed by bytes that make each integer form small, large, negative or cut, and integers of
    /// every width at their bounds; read at every offset, cut at every length up to ten bytes and at the end, as
    /// `Int64`, `Int`, `Int8`, `UInt8`, `UInt32` and `UInt64`: the same integer and end, or the same error.
    @Test func theFastPathReadsEveryIntegerAsTheFullFunction() {
        var inputs: [[UInt8]] = []
        let tails: [[UInt8]] = [
            [], [0x01], [0x80], [0xFF], [0x7F, 0x00], [0x00, 0x80], [0xFF, 0xFF, 0xFF, 0x7F], [0x00, 0x00, 0x00, 0x80],
            [1, 2, 3, 4, 5, 6, 7, 8], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F], [0, 0, 0, 0, 0, 0, 0, 0x80],
            [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x41],
        ]
        for tag in 0...255 {
            for tail in tails { inputs.append([UInt8(tag)] + tail) }
        }
        for value: Int64 in [0, 127, 128, -1, -32, -33, 255, 256, -129, 65_535, 1 << 31, -(1 << 31) - 1, .max, .min] {
            inputs.append(Value.integer(value).firePackBytes())
        }
        var read = 0, errors = 0
        forEveryCut(of: inputs, upTo: 10) { input, decoder, offset, limit, wrapped in
            let fast = Result { () throws(FirePackError) in try input.getInteger(at: offset, limit: limit) }
            let full = Result { () throws(FirePackError) in
                try input.getIntegerOfAnyForm(at: offset, limit: limit)
            }
            #expect(
                fast.map { [$0.0, Int64($0.next)] } == full.map { [$0.0, Int64($0.next)] },
                "offset \(offset), limit \(limit) of \(wrapped)")
            if case .success = full { read += 1 } else { errors += 1 }
            func agree<I: FixedWidthInteger>(_ type: I.Type) {
                let fast = Outcome { try decoder.decodeInteger(I.self, at: offset, end: limit) }
                let full = Outcome { try decoder.decodeIntegerOfAnyForm(I.self, at: offset, end: limit) }
                #expect(fast == full, "\(I.self) at offset \(offset), limit \(limit) of \(wrapped)")
            }
            agree(Int64.self)
            agree(Int.self)
            agree(Int8.self)
            agree(UInt8.self)
            agree(UInt32.self)
            agree(UInt64.self)
        }
        #expect(read > 2_000 && errors > 10_000, "\(read) integers, \(errors) errors")
    }

    /// An integer's description, or an error's (`DecodingError` is not `Equatable`).
    enum Outcome: Equatable {
        case integer(String)
        case error(String)

        init(_ body: () throws -> some FixedWidthInteger) {
            do { self = .integer("\(try body())") } catch { self = .error("\(error)") }
        }
    }
}
