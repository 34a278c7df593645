import FirePack
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackArrow

/// `DocumentProfile.report()` (`firepack schema`, Python's `schema_report`) costs time in proportion to the field
/// paths seen: a document of many distinct keys is a small input, and a search of the column list per path made it
/// paths² (80,000 keys took 21 s; a million never finished).
@Suite("Arrow: the schema report's cost")
struct SchemaReportCostTests {
    private let folder = TemporaryFolder("schema-report")

    /// A stream of one document with `count` distinct top-level keys, and one map holding a tenth as many (a struct
    /// up to `ArrowDocumentSchema.maxInferredMapKeys`, JSON text past it).
    func stream(keys count: Int) throws -> String {
        let path = folder.url.appendingPathComponent("keys-\(count).fpks").path
        let writer = try DocumentStreamWriter.creatingAtomically(atPath: path)
        var fields = MapValue()
        var nested = MapValue()
        for index in 0..<count {
            fields["k\(index)"] = .integer(Int64(index))
            if index % 10 == 0 { nested["n\(index / 10)"] = .boolean(true) }
        }
        fields["nested"] = .map(nested)
        try writer.append(Document(reference: try DocumentReference(path: "c/d"), fields: fields))
        try writer.close()
        return path
    }

    @Test func eightTimesTheKeysCostAboutEightTimesAsMuch() throws {
        let (small, large) = (try stream(keys: 2_500), try stream(keys: 20_000))
        var lines = (small: 0, large: 0)
        let measured = try CostMeasurement.ratio(
            hostile: { lines.large = try DocumentProfile.of(paths: [large], sample: nil).report().count },
            benign: { lines.small = try DocumentProfile.of(paths: [small], sample: nil).report().count })
        // Linear is 8×; the search per path was 64×.
        #expect(measured.ratio < 24, "20,000 keys \(measured.hostile) s, 2,500 keys \(measured.benign) s")
        // 2,000 nested keys are JSON text (one line); 250 are a struct, a line each.
        #expect(lines.small == 2_500 + 250 + 1 && lines.large == 20_000 + 1, "\(lines)")
        // Each path still gets its own column, nested ones included.
        let report = try DocumentProfile.of(paths: [small], sample: nil).report()
        #expect(report.first { $0.path == "k17" }?.column == "int64")
        #expect(report.first { $0.path == "nested.n249" }?.column == "bool")
    }
}
