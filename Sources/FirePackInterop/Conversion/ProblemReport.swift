import FirePack

/// Problems found by a command, grouped by kind: every one counted, the first ones kept as example lines.
///
/// Memory is bounded whatever the input holds (600,000 documents that break one rule are one kind with a count and
/// a few examples, not 600,000 lines): at most `maxExamples` lines are kept, and at most `maxKinds` kinds are told
/// apart (the rest are counted as "other problems").
public struct ProblemReport: Sendable {
    /// How many example lines are kept and printed.
    public let maxExamples: Int
    /// How many kinds are told apart.
    public static let maxKinds = 64

    /// Every problem counted.
    public private(set) var total = 0
    /// The first problems, one line each.
    public private(set) var examples: [String] = []
    /// Each kind with its count, in the order first seen.
    public private(set) var kinds: [(kind: String, count: Int)] = []

    /// An empty report that keeps `maxExamples` example lines.
    public init(maxExamples: Int) { self.maxExamples = maxExamples }

    /// Whether no problem was counted.
    public var isEmpty: Bool { total == 0 }

    /// Counts one problem of `kind`; keeps `line` while fewer than `maxExamples` are kept.
    public mutating func add(kind: String, _ line: @autoclosure () -> String) {
        total += 1
        if examples.count < maxExamples { examples.append(line()) }
        if let index = kinds.firstIndex(where: { $0.kind == kind }) {
            kinds[index].count += 1
        } else if kinds.count < Self.maxKinds {
            kinds.append((kind, 1))
        } else if let other = kinds.firstIndex(where: { $0.kind == "other problems" }) {
            kinds[other].count += 1
        } else {
            kinds[kinds.count - 1] = ("other problems", kinds[kinds.count - 1].count + 1)
        }
    }

    /// Counts `count` problems of `kind` already described elsewhere (for example a stream reader's counts by code).
    public mutating func add(kind: String, count: Int) {
        guard count > 0 else { return }
        total += count
        if let index = kinds.firstIndex(where: { $0.kind == kind }) {
            kinds[index].count += count
        } else {
            kinds.append((kind, count))
        }
    }

    /// Keeps an example line without counting a problem (its count comes through `add(kind:count:)`).
    public mutating func addExample(_ line: String) {
        if examples.count < maxExamples { examples.append(line) }
    }

    /// The example lines, then — when problems were left out or there are several kinds — one line per kind.
    /// `showingMore` says how to see the examples left out (a command's option), where the caller has a way.
    public func lines(prefix: String, showingMore: String? = nil) -> [String] {
        var lines = examples.map { prefix + $0 }
        if total > examples.count || kinds.count > 1 {
            let hint = showingMore.map { "; \($0)" } ?? ""
            let omitted = total > examples.count ? " (\(total - examples.count) not shown\(hint))" : ""
            lines.append("\(prefix)\(total) problem(s)\(omitted), by kind:")
            for (kind, count) in kinds { lines.append("\(prefix)  \(count) × \(kind)") }
        }
        return lines
    }
}
