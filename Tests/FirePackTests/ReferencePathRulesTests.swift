import FirePackTestSupport
import Testing

@testable import FirePack

/// `ReferencePath.problem(in:naming:)`, the one pass every path read goes through, against the rules as
/// Docs/FORMAT.md §1 states them, written here the plain way (split into segments, each rule a comparison of strings),
/// over seeded paths built from segments at the edges of each rule.
@Suite("Reference path rules")
struct ReferencePathRulesTests {
    /// Segments at the edges: empty, dots, underscores around four, reserved and numeric-ID forms, the full form's
    /// words and near misses of them, non-ASCII.
    static let segments = [
        "", ".", "..", "...", ".a", "_", "__", "___", "____", "_____", "__a", "a__", "__a__", "___a___", "__id__",
        "__id1__", "__id42__", "__idx__", "__id4_", "_id42__", "projects", "project", "projectss", "Projects",
        "databases", "database", "documents", "documentz", "(default)", "p", "books", "b", "é", "日本",
    ]

    /// The rules, plainly: every segment non-empty, not `.` or `..`, not `__…__` (four characters at least) unless
    /// `__id` digits `__`; then the full form's prefix, or an even count of segments for a document (odd for a
    /// collection).
    static func isValid(_ path: String, document: Bool) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for part in parts {
            if part.isEmpty || part == "." || part == ".." { return false }
            let bytes = Array(part.utf8)
            let reserved = bytes.count >= 4 && part.hasPrefix("__") && part.hasSuffix("__")
            let numericID =
                bytes.count >= 7 && part.hasPrefix("__id") && part.hasSuffix("__")
                && bytes[4..<(bytes.count - 2)].allSatisfy { (48...57).contains($0) }
            if reserved && !numericID { return false }
        }
        let fullForm = parts.count > 5 && parts[0] == "projects" && parts[2] == "databases" && parts[4] == "documents"
        if fullForm && ((parts.count - 5) % 2 == 0) == document { return true }
        return (parts.count % 2 == 0) == document
    }

    @Test func theOnePassAgreesWithTheRules() {
        var random = SeededGenerator(seed: 71)
        var checked = 0, valid = 0
        for _ in 0..<20_000 {
            let count = Int.random(in: 1...9, using: &random)
            var parts = (0..<count).map { _ in Self.segments.randomElement(using: &random)! }
            // Full-form prefixes, exact or with one word changed, half of the time.
            if count >= 5 && Bool.random(using: &random) {
                parts[0] = "projects"
                parts[2] = "databases"
                parts[4] = "documents"
                if Int.random(in: 0..<4, using: &random) == 0 {
                    parts[[0, 2, 4].randomElement(using: &random)!] = Self.segments.randomElement(using: &random)!
                }
            }
            let path = parts.joined(separator: "/")
            for document in [true, false] {
                let expected = Self.isValid(path, document: document)
                let problem = ReferencePath.problem(in: path, naming: document ? .document : .collection)
                #expect((problem == nil) == expected, "\(path) as a \(document ? "document" : "collection"): \(problem ?? "valid")")
                checked += 1
                valid += expected ? 1 : 0
            }
        }
        // Both outcomes are well represented.
        #expect(checked == 40_000 && valid > 2_000 && valid < 38_000, "\(valid) valid")
    }

    @Test func theEdgesOfEachRule() {
        #expect(ReferencePath.problem(in: "c/___", naming: .document) == nil)
        #expect(ReferencePath.problem(in: "c/____", naming: .document) == "a segment of the form __…__ is reserved")
        #expect(ReferencePath.problem(in: "c/__id7__", naming: .document) == nil)
        #expect(ReferencePath.problem(in: "c/__id__", naming: .document) == "a segment of the form __…__ is reserved")
        #expect(ReferencePath.problem(in: "projects/p/databases/d/documents/c/x", naming: .document) == nil)
        #expect(ReferencePath.problem(in: "projects/p/databases/d/documentz/c/x", naming: .document) != nil)
        #expect(ReferencePath.problem(in: "projects/p/databases/d/documents/c", naming: .collection) == nil)
    }
}
