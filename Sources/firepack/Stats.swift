import ArgumentParser
import FirePack
import FirePackInterop
import Foundation

/// `firepack stats FILE`: what a value is made of, and what it costs in each format.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count values per type, key reuse and depth, and compare sizes with minified JSON.",
        discussion: """
            Examples:
              firepack stats Fixtures/books.json
              firepack stats books.fpk
            """
    )

    @Argument(help: "The file to measure, or - for standard input.")
    var file: String

    @Option(help: "The input format (default: from the file's extension).")
    var from: FileFormat?

    func run() throws {
        let (format, gzip) = try FileFormat.resolve(from, path: file, role: "input")
        let input = try FileHandleIO.read(file, gzip: gzip)
        let value = try format.readValue(input, file: file)
        var census = Census()
        census.visit(value, depth: 0)
        let packed = value.firePackBytes()
        let json = value.jsonBytes()
        var lines = ["\(file): \(format.rawValue), \(input.count) bytes", "", "type             count"]
        for (type, count) in census.counts.sorted(by: { $0.value > $1.value }) {
            lines.append(type.description.padding(toLength: 16, withPad: " ", startingAt: 0) + " " + String(count))
        }
        lines.append("")
        let distinct = census.distinctKeys.count
        let reuse = distinct == 0 ? "" : String(format: " (%.1f uses each)", Double(census.keyOccurrences) / Double(distinct))
        lines.append("keys: \(census.keyOccurrences) occurrences, \(distinct) distinct" + reuse)
        lines.append("deepest nesting: \(census.maxDepth)")
        lines.append("")
        lines.append("FirePack:        \(packed.count) bytes")
        lines.append("minified JSON:   \(json.count) bytes")
        let ratio: Double = 100 * Double(packed.count) / Double(max(json.count, 1))
        lines.append(String(format: "FirePack / JSON: %.1f%%", ratio))
        FileHandleIO.print(lines.joined(separator: "\n"))
    }
}

/// Counts values by type, keys, and nesting depth.
struct Census {
    var counts: [ValueType: Int] = [:]
    var keyOccurrences = 0
    var distinctKeys: Set<String> = []
    var maxDepth = 0

    mutating func visit(_ value: Value, depth: Int) {
        counts[value.type, default: 0] += 1
        maxDepth = max(maxDepth, depth)
        switch value {
        case .array(let elements): for element in elements { visit(element, depth: depth + 1) }
        case .map(let map):
            keyOccurrences += map.count
            for (key, element) in map {
                distinctKeys.insert(key)
                visit(element, depth: depth + 1)
            }
        default: break
        }
    }
}
