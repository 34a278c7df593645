import Testing
import FirePackTestSupport
@testable import FirePack

/// FirePack's strict UTF-8 check against the standard library's (`UTF8Span(validating:)`): the same verdict and the
/// same offset for the first invalid sequence, on text that mixes every sequence length and its boundary cases with
/// damage of every kind, at every alignment.
@Suite struct UTF8ValidationTests {
    /// Scalars at the edges of each form (and of the narrower second-byte ranges after E0, ED, F0 and F4), and
    /// the commonest CJK and Latin ones.
    static let scalars: [Unicode.Scalar] = [
        "a", "~", "\u{7F}", "\u{80}", "é", "\u{7FF}", "\u{800}", "\u{FFF}", "\u{1000}", "あ", "語", "\u{D7FF}", "\u{E000}",
        "\u{FFFD}", "\u{FFFF}", "\u{10000}", "🔥", "\u{3FFFF}", "\u{40000}", "\u{10FFFF}",
    ]

    static func expected(_ bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            do {
                _ = try UTF8Span(validating: Span(_unsafeElements: buffer))
                return nil
            } catch {
                return (error as! UTF8.ValidationError).byteOffsets.lowerBound
            }
        }
    }

    @Test func agreesWithTheStandardLibraryOnMixedAndDamagedText() {
        var rng = SeededGenerator(seed: 0x0708)
        var invalid = 0, valid = 0
        for round in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...24, using: &rng) {
                let scalar = Self.scalars.randomElement(using: &rng)!
                bytes += Array(String(Character(scalar)).utf8)
            }
            // Damage one in two: a random byte anywhere, a cut sequence, or one of the forms UTF-8 forbids.
            if round % 2 == 1 {
                let forbidden: [[UInt8]] = [[0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x9F, 0x80], [0xED, 0xA0, 0x80], [0xF0, 0x8F, 0x80, 0x80],
                                            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0x80], [0xE3, 0x81], [0xE3, 0x41, 0x82]]
                let at = Int.random(in: 0...bytes.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0 where !bytes.isEmpty: bytes[Int.random(in: 0..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.removeLast(min(bytes.count, Int.random(in: 1...2, using: &rng)))
                default: bytes.insert(contentsOf: forbidden.randomElement(using: &rng)!, at: at)
                }
            }
            // Checked at an offset inside a larger buffer, as the reader does, so that loads near either end show.
            let lead = Int.random(in: 0...9, using: &rng)
            let buffer = [UInt8](repeating: 0xE3, count: lead) + bytes + [UInt8](repeating: 0x81, count: Int.random(in: 0...4, using: &rng))
            let found = buffer.withUnsafeBytes { UTF8Validation.firstInvalidOffset($0.baseAddress!, start: lead, count: bytes.count) }
            #expect(found == Self.expected(bytes), "\(bytes.map { String($0, radix: 16) })")
            if found == nil { valid += 1 } else { invalid += 1 }
        }
        #expect(valid > 9_000 && invalid > 5_000)
    }
}
