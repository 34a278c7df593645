import CArrowABI
import FirePack
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackArrow

/// The Arrow reader and schema inference with a stream written before the expansion rule (Docs/FORMAT.md §8,
/// "Expansion"): its block is refused as past a limit, counted apart from damage, and read when the options allow it.
@Suite("Arrow: blocks past the expansion limit")
struct ArrowBlockExpansionTests {
    let folder = TemporaryFolder("arrow-expansion")

    /// The rows of every batch `reader` gives.
    func rows(_ reader: ArrowBatchReader) throws -> Int {
        var batch = ArrowArray()
        var rows = 0
        while try reader.nextBatch(into: &batch) {
            rows += Int(batch.length)
            batch.release?(&batch)
        }
        return rows
    }

    @Test func theReaderAndInferenceTakeTheLimit() throws {
        let old = try StreamBeforeTheExpansionRule()
        let path = folder.path("old.fpks")
        try Data(old.bytes).write(to: URL(fileURLWithPath: path))

        let refusing = try ArrowBatchReader(path: path)
        let error = #expect(throws: StreamProblem.self) { try rows(refusing) }
        #expect(error?.code == .limitExceeded && error?.reason.contains("reading it needs a limit of at least \(old.expansionNeeded)") == true,
                "\(String(describing: error))")

        var skipping = ArrowBatchReader.Options()
        skipping.skipDamaged = true
        let skipper = try ArrowBatchReader(path: path, options: skipping)
        #expect(try rows(skipper) == 1)
        #expect(skipper.blocksPastExpansion == 1 && skipper.blockExpansionNeeded == old.expansionNeeded)

        var allowing = ArrowBatchReader.Options()
        allowing.maxBlockExpansion = old.expansionNeeded
        let reader = try ArrowBatchReader(path: path, options: allowing)
        #expect(try rows(reader) == 2 && reader.problemCount == 0)
        #expect(reader.schema.columns.contains { $0.name == "text" })

        let profile = try DocumentProfile.of(paths: [path], sample: nil)
        #expect(profile.documents == 1 && profile.blocksPastExpansion == 1)
        let whole = try DocumentProfile.of(paths: [path], sample: nil, maxBlockExpansion: old.expansionNeeded)
        #expect(whole.documents == 2 && whole.problemCount == 0)
    }
}
