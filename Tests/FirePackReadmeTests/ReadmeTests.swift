import Foundation
import Testing

/// The README's Swift blocks compile (ReadmeTour.swift is generated from them) and print what their comments say.
@Suite("README")
struct ReadmeTests {
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let generated = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "ReadmeTour.swift")

    static func blocks() throws -> [ReadmeBlock] {
        ReadmeBlock.parse(try String(contentsOf: root.appending(path: "README.md"), encoding: .utf8))
    }

    @Test func theCompiledTourIsTheREADMEs() throws {
        let expected = ReadmeBlock.swiftSource(for: try Self.blocks())
        let current = try String(contentsOf: Self.generated, encoding: .utf8)
        if current != expected {
            if ProcessInfo.processInfo.environment["FIREPACK_UPDATE_README"] == "1" {
                try expected.write(to: Self.generated, atomically: true, encoding: .utf8)
            }
            Issue.record("""
                Tests/FirePackReadmeTests/ReadmeTour.swift is not what README.md's Swift blocks give: run \
                `FIREPACK_UPDATE_README=1 swift test --filter ReadmeTests`, then build and test again
                """)
        }
    }

    @Test func everyBlockPrintsWhatItsCommentsSay() throws {
        let blocks = try Self.blocks()
        let compiled = readmeBlocks()
        #expect(blocks.map(\.line) == compiled.map(\.line))
        #expect(blocks.contains { !$0.expectedOutput.isEmpty })
        for (block, function) in zip(blocks, compiled) {
            var printed: [String] = []
            try function.run { items in printed.append(items.map { String(describing: $0) }.joined(separator: " ")) }
            #expect(printed == block.expectedOutput, "README.md block at line \(block.line)")
        }
    }
}
