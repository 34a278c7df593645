import Foundation
import Testing
import FirePackTestSupport
@testable import FirePack

/// Truncated, flipped, inserted and deleted bytes: every case must decode or throw, never crash or hang.
@Suite("Mutations")
struct MutationTests {
    static let seed: UInt64 = 0xF1AE_9ACC
    static let casesPerBatch = 12_500

    static let corpus: [[UInt8]] = {
        var generator = RandomValues(seed: seed)
        generator.maxDepth = 3
        generator.maxWidth = 5
        var encodings = (0..<150).map { _ in generator.value().firePackBytes() }
        encodings += FormatExamplesTests.examples.map { $0.0.firePackBytes() }
        encodings.append(Value.array((0..<20).map { ["id": .integer(Int64($0)), "name": "n"] }).firePackBytes())
        return encodings
    }()

    @Test("100,000 mutated encodings decode or throw", arguments: 0..<8)
    func mutations(batch: Int) {
        var rng = SeededGenerator(seed: Self.seed &+ UInt64(batch))
        var decoded = 0, rejected = 0
        for caseIndex in 0..<Self.casesPerBatch {
            let bytes = ByteMutation.mutated(Self.corpus[Int.random(in: 0..<Self.corpus.count, using: &rng)], using: &rng)
            switch exercise(bytes) {
            case .success: decoded += 1
            case .failure(let error):
                rejected += 1
                if error.offset == nil || error.offset! < 0 || error.offset! > bytes.count {
                    Issue.record("error without a valid offset: \(error), batch \(batch) case \(caseIndex), seed \(Self.seed)")
                }
            }
        }
        #expect(decoded + rejected == Self.casesPerBatch)
        #expect(rejected > Self.casesPerBatch / 4, "mutations should mostly be caught")
    }

    /// Decodes whole, walks with the cursor, and follows lookups, returning the first error.
    func exercise(_ bytes: [UInt8]) -> Result<Void, FirePackError> {
        do {
            let value = try Value(firePackBytes: bytes)
            // What decodes must re-encode to something that decodes to the same value.
            let again = try Value(firePackBytes: value.firePackBytes())
            if again != value { Issue.record("re-encoding changed \(value)") }
            try FirePackReader.withReader(bytes) { reader in
                let root = reader.root
                if root.type == .map { try root.forEachEntry { key, _ in _ = try root[key.string] } }
                if root.type == .array { _ = try root[0]?.value(); _ = try root.lookup("[1].id") }
                try reader.skipValue()
            }
            return .success(())
        } catch let error as FirePackError {
            // The lazy paths must reject the same bytes without crashing, too.
            _ = try? FirePackReader.withReader(bytes) { reader in
                _ = try? readThroughCursor(&reader)
                _ = try? reader.root.lookup("[0].id")
                try? reader.root.forEachEntry { _, value in _ = try? value.value() }
            }
            return .failure(error)
        } catch {
            Issue.record("unexpected error type: \(error)")
            return .failure(FirePackError(.invalidValue, offset: 0, "\(error)"))
        }
    }
}
