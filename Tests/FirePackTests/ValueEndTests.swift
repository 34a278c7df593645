import Testing
import FirePackTestSupport
@testable import FirePack

/// `ReaderInput.valueEnd` ends the commonest values itself and leaves the rest, and every error, to
/// `valueEndOfAnyTag`: both must agree on every input.
@Suite struct ValueEndTests {
    /// Every offset of valid and mutated encodings of random values, and every tag byte followed by varied bytes,
    /// at every limit up to twelve bytes past the offset and at the end: the same end, or the same error (code,
    /// offset and message).
    @Test func theFastPathEndsEveryValueAsTheFullFunction() {
        var random = RandomValues(seed: 41)
        var rng = SeededGenerator(seed: 42)
        var inputs: [[UInt8]] = []
        for round in 0..<80 {
            let valid = Value.array((0..<6).map { _ in random.value(depth: 1) }).firePackBytes()
            inputs.append(round.isMultiple(of: 2) ? valid : ByteMutation.mutated(valid, using: &rng))
        }
        for tag in 0...255 {
            // The tag, then a one-byte length, a two-byte varint, a cut varint and a length past the end, inside a
            // bytes value (`CE`), so that the input opens whatever the tag.
            for tail: [UInt8] in [[3, 0, 0, 0, 0], [0x81, 0x01, 0, 0], [0x80], [0x7F, 1], []] {
                inputs.append([0xCE, UInt8(1 + tail.count), UInt8(tag)] + tail)
            }
        }
        var ends = 0, errors = 0
        for bytes in inputs {
            bytes.withUnsafeBytes { raw in
                guard let input = try? ReaderInput(raw, rootStart: 0, limits: .default) else { return }
                for offset in 0..<input.count {
                    // The limits at which a value is cut (its first bytes) and the end of the input.
                    for limit in Set(Array(offset...min(offset + 12, input.count)) + [input.count]) {
                        let fast = Result { () throws(FirePackError) in try input.valueEnd(at: offset, limit: limit) }
                        let full = Result { () throws(FirePackError) in
                            try input.valueEndOfAnyTag(at: offset, limit: limit)
                        }
                        #expect(fast == full, "offset \(offset), limit \(limit) of \(bytes)")
                        if case .success = full { ends += 1 } else { errors += 1 }
                    }
                }
            }
        }
        #expect(ends > 10_000 && errors > 10_000, "\(ends) ends, \(errors) errors")
    }
}
