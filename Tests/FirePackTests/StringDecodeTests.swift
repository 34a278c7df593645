import Testing
import FirePackTestSupport
@testable import FirePack

/// `ReaderInput.getString` and `DecoderImpl.decodeString` read ASCII strings themselves (`getASCIIString`) and leave
/// every other string, and every error, to `getStringOfAnyForm` and `decodeStringOfAnyForm`: each pair must agree on
/// every input.
@Suite struct StringDecodeTests {
    /// Strings of every length up to 40 in both forms (`80`–`9F`, and `CD` with a length), ASCII, with a valid
    /// two-byte character or an invalid byte at each position, their mutations, and every tag byte followed by
    /// varied bytes; read at every offset, cut at the first bytes and at the end: the same string, or the same error.
    @Test func theFastPathReadsEveryStringAsTheFullFunction() {
        var rng = SeededGenerator(seed: 43)
        var strings: [[UInt8]] = []
        for length in 0...40 {
            let ascii = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
            strings.append(ascii)
            for position in Set([0, length / 2, max(0, length - 1), max(0, length - 2)]) where position < length {
                var accented = ascii
                accented.replaceSubrange(position..<position + 1, with: [0xC3, 0xA9])  // é
                strings.append(accented)
                var invalid = ascii
                invalid[position] = [0xFF, 0x80, 0xC3][position % 3]
                strings.append(invalid)
            }
        }
        var inputs: [[UInt8]] = []
        for string in strings {
            if string.count < 32 { inputs.append([0x80 | UInt8(string.count)] + string) }
            inputs.append([0xCD] + [UInt8(string.count)] + string)
            inputs.append([0xCD, 0x80 | UInt8(string.count & 0x7F), UInt8(string.count >> 7)] + string)  // two-byte length
            inputs.append([0xCD] + [UInt8(string.count + 1)] + string)  // a length past the end
        }
        inputs += inputs.map { ByteMutation.mutated($0, using: &rng) }
        for tag in 0...255 {
            for tail: [UInt8] in [[3, 0x41, 0x42, 0x43, 0], [0x81, 0x01, 0x41], [0x80], [0x7F, 1], []] {
                inputs.append([UInt8(tag)] + tail)
            }
        }
        var read = 0, errors = 0
        forEveryCut(of: inputs, upTo: 2) { input, decoder, offset, limit, wrapped in
            let fast = Outcome { try decoder.decodeString(at: offset, end: limit) }
            let full = Outcome { try decoder.decodeStringOfAnyForm(at: offset, end: limit) }
            #expect(fast == full, "offset \(offset), limit \(limit) of \(wrapped)")
            if case .string = full { read += 1 } else { errors += 1 }
            let bytes = Result { () throws(FirePackError) in try input.getString(at: offset, limit: limit) }
            let allBytes = Result { () throws(FirePackError) in
                try input.getStringOfAnyForm(at: offset, limit: limit)
            }
            #expect(
                bytes.map { [$0.start, $0.count, $0.next] } == allBytes.map { [$0.start, $0.count, $0.next] },
                "offset \(offset), limit \(limit) of \(wrapped)")
        }
        #expect(read > 2_000 && errors > 10_000, "\(read) strings, \(errors) errors")
    }

    /// A string, or an error's description (`DecodingError` is not `Equatable`).
    enum Outcome: Equatable {
        case string(String)
        case error(String)

        init(_ body: () throws -> String) {
            do { self = .string(try body()) } catch { self = .error("\(error)") }
        }
    }
}
