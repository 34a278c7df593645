import FirePack
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

/// `firepack` with a stream written before the expansion rule (Docs/FORMAT.md §8, "Expansion"): every command that
/// reads it says that its block is past a limit, not damaged, and how to read it; `--max-block-expansion` reads it,
/// and converting it so writes a stream that keeps to the rule. Nothing is dropped on the way: `--repair` refuses to
/// leave the block out.
@Suite("firepack tool: blocks past the expansion limit", .serialized)
struct BlockExpansionToolTests {
    private let folder = TemporaryFolder("expansion-tool")
    let old: StreamBeforeTheExpansionRule
    let file: String

    init() throws {
        old = try StreamBeforeTheExpansionRule()
        file = folder.path("old.fpks")
        try Data(old.bytes).write(to: URL(fileURLWithPath: file))
    }

    var advice: String { "--max-block-expansion \(old.expansionNeeded)" }
    var raised: [String] { ["--max-block-expansion", String(old.expansionNeeded)] }

    @Test func validateSaysItIsALimitAndRepairLeavesNothingOut() throws {
        let refused = try Tool.run(["validate", file])
        #expect(refused.status == 1)
        // The block, where it is and why; then that it is not damage, and how to read it.
        #expect(refused.stderr.contains("record 1 at byte \(old.longBlockOffset): a zstd block"), "\(refused.stderr)")
        #expect(refused.stderr.contains("not as damage: read it with \(advice) or more"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("damaged record ("), "\(refused.stderr)")

        let repair = folder.path("repaired.fpks")
        let repaired = try Tool.run(["validate", file, "--repair", repair])
        #expect(repaired.status != 0 && repaired.stderr.contains("--repair leaves out damaged records only"), "\(repaired.stderr)")
        #expect(!FileManager.default.fileExists(atPath: repair))

        let valid = try Tool.run(["validate", file] + raised)
        #expect(valid.status == 0 && valid.text.contains("valid fpks, 2 document(s), closed"), "\(valid.text) \(valid.stderr)")
    }

    @Test func convertReadsItWhenAllowedAndWritesAStreamThatKeepsToTheRule() throws {
        let lines = folder.path("old.jsonl")
        let refused = try Tool.run(["convert", file, lines, "--quiet"])
        #expect(refused.status != 0 && !FileManager.default.fileExists(atPath: lines))
        #expect(refused.stderr.contains("1 block past the block-expansion limit") && refused.stderr.contains(advice),
                "\(refused.stderr)")

        // Converted with the limit raised, into a stream: written by today's writer, it reads without it.
        let converted = folder.path("new.fpks")
        let result = try Tool.run(["convert", file, converted, "--quiet"] + raised)
        #expect(result.status == 0, "\(result.stderr)")
        let reader = try DocumentStreamReader(source: FileSource(path: converted))
        var documents: [Document] = []
        while let (_, _, document) = try reader.next() { documents.append(document) }
        #expect(documents == [old.small, old.long] && reader.problems.isEmpty, "\(reader.problems)")
        #expect(try Tool.run(["validate", converted]).status == 0)
    }

    @Test func inspectStatsAndSchemaTakeTheOption() throws {
        for command in [["inspect", file, "--record", "1"], ["stats", file], ["schema", file]] {
            let refused = try Tool.run(command)
            #expect(refused.status != 0 && refused.stderr.contains(advice), "\(command): \(refused.stderr)")
            let read = try Tool.run(command + raised)
            #expect(read.status == 0, "\(command): \(read.stderr)")
        }
        let record = try Tool.run(["inspect", file, "--record", "1", "--path", "text"] + raised)
        #expect(record.text.contains(String(repeating: "a", count: 2_000_000)), "\(record.text.prefix(40))")
    }

    @Test func theOptionIsCheckedAndAppliesToStreamsOnly() throws {
        #expect(try Tool.run(["validate", file, "--max-block-expansion", "0"]).status == 2)
        let lines = folder.path("lines.jsonl")
        try Data("{\"__name__\": \"c/d\", \"n\": 1}\n".utf8).write(to: URL(fileURLWithPath: lines))
        for command in [["validate", lines], ["convert", lines, folder.path("x.fpks")], ["schema", "Fixtures/books.fpk"]] {
            let result = try Tool.run(command + raised)
            #expect(result.status == 2 && result.stderr.contains("applies to fpks input"), "\(command): \(result.stderr)")
        }
    }
}
