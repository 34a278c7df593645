import Testing
import FirePackTestSupport
@testable import FirePack

/// The decoders' memo of resolved key references reads every key exactly as the input does without it.
@Suite struct KeyReferenceMemoTests {
    /// Every offset of valid and damaged inputs with many key references, read forward and then backward through one
    /// memo (so that a reference is often met after its index was remembered from a later one): the same key or the
    /// same error as `ReaderInput.getKey` reading it alone.
    @Test func everyKeyReadsAsWithoutTheMemo() throws {
        var random = RandomValues(seed: 31)
        var rng = SeededGenerator(seed: 32)
        var compared = 0, references = 0
        for round in 0..<60 {
            // An array of maps sharing keys: every map after the first refers to the first one's literals.
            let maps = (0..<40).map { index -> Value in
                var map = MapValue()
                for key in ["id", "title", "author", "pages", "tags"] { map[key] = random.value(depth: 2) }
                map["index"] = .integer(Int64(index))
                return .map(map)
            }
            let valid = Value.array(maps).firePackBytes()
            let bytes = round.isMultiple(of: 3) ? valid : ByteMutation.mutated(valid, using: &rng)
            bytes.withUnsafeBytes { raw in
                guard let input = try? ReaderInput(raw, rootStart: 0, limits: .default), input.count >= KeyReferenceMemo.minimumInputSize else { return }
                var memo = KeyReferenceMemo(for: input)
                for offset in Array(0..<input.rootEnd) + (0..<input.rootEnd).reversed() {
                    let expected = Result { () throws(FirePackError) in try input.getKey(at: offset, limit: input.rootEnd) }
                    let memoized = Result { () throws(FirePackError) in try memo.getKey(at: offset, limit: input.rootEnd, in: input) }
                    switch (expected, memoized) {
                    case (.success(let a), .success(let b)):
                        #expect(a == b, "offset \(offset)")
                        if raw[offset] & 1 == 1 { references += 1 }
                    case (.failure(let a), .failure(let b)):
                        #expect(a.code == b.code && a.offset == b.offset && a.message == b.message, "offset \(offset): \(a) / \(b)")
                    default:
                        Issue.record("offset \(offset): \(expected) / \(memoized)")
                    }
                    compared += 1
                }
            }
        }
        #expect(compared > 100_000)
        #expect(references > 10_000, "references were read through the memo")
    }
}
