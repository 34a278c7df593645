import Foundation

/// README.md's Swift code blocks and what their `print`s must print, and the Swift file that compiles them.
struct ReadmeBlock {
    /// The README line of the opening fence.
    var line: Int
    /// The block's lines, `import`s removed.
    var code: [String]
    /// The block's imports.
    var imports: [String]
    /// Declarations with an attached macro (`@FirePackCodable`), which must be at file scope: the lines from the
    /// attribute to the closing brace at column 0.
    var declarations: [String] = []
    /// One entry per `print` line: the comment at its end, or the comment line right after it.
    var expectedOutput: [String]

    /// The blocks of `readme`, in order.
    static func parse(_ readme: String) -> [ReadmeBlock] {
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var blocks: [ReadmeBlock] = []
        var index = 0
        while index < lines.count {
            guard lines[index] == "```swift" else { index += 1; continue }
            var block = ReadmeBlock(line: index + 1, code: [], imports: [], expectedOutput: [])
            index += 1
            var hoisting = false
            while index < lines.count && lines[index] != "```" {
                let line = lines[index]
                if line.hasPrefix("@FirePackCodable") { hoisting = true }
                if hoisting {
                    block.declarations.append(line)
                    if line == "}" { hoisting = false }
                } else if line.hasPrefix("import ") { block.imports.append(line) } else { block.code.append(line) }
                if line.contains("print(") {
                    if let comment = line.range(of: " // ", options: .backwards) {
                        block.expectedOutput.append(String(line[comment.upperBound...]).trimmingCharacters(in: .whitespaces))
                    } else if index + 1 < lines.count, let next = lines[index + 1].range(of: "// ") {
                        block.expectedOutput.append(String(lines[index + 1][next.upperBound...]).trimmingCharacters(in: .whitespaces))
                    }
                }
                index += 1
            }
            blocks.append(block)
            index += 1
        }
        return blocks
    }

    /// The Swift source that compiles `blocks`: one function per block, taking `print` as a parameter so that the
    /// test records what it prints.
    static func swiftSource(for blocks: [ReadmeBlock]) -> String {
        let imports = Set(blocks.flatMap(\.imports) + ["import Foundation"]).sorted()
        var source = """
        // Generated from README.md by Tests/FirePackReadmeTests (run `FIREPACK_UPDATE_README=1 swift test --filter \
        ReadmeTests` after editing the README's Swift blocks); do not edit.
        \(imports.joined(separator: "\n"))

        /// README.md's Swift blocks, in order, with the README line of each.
        func readmeBlocks() -> [(line: Int, run: (@escaping (Any...) -> Void) throws -> Void)] {
            [\(blocks.enumerated().map { "(\($1.line), readmeBlock\($0 + 1))" }.joined(separator: ", "))]
        }

        """
        for (number, block) in blocks.enumerated() {
            if !block.declarations.isEmpty {
                source += "\n// README.md line \(block.line): declarations with a macro, at file scope.\n"
                source += block.declarations.joined(separator: "\n") + "\n"
            }
            source += "\n/// README.md line \(block.line).\n"
            source += "func readmeBlock\(number + 1)(print: @escaping (Any...) -> Void) throws {\n"
            for line in block.code {
                source += line.isEmpty ? "\n" : "    \(line)\n"
            }
            source += "}\n"
        }
        return source
    }
}
