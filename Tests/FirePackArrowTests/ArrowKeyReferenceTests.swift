import CArrowABI
import FirePack
@testable import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackArrow

/// Records of version-1 and 2 streams repeat a map key by reference (version-3 blocks do not). The Arrow readers work
/// out what a long key names (its column, its profile) once per record, not once per reference: a 50 KB key in each
/// of 4,000 maps was matched and compared 4,000 times (Docs/SAFETY.md, "key references").
@Suite("Arrow: long keys that references repeat")
struct ArrowKeyReferenceTests {
    private let folder = TemporaryFolder("arrow-key-references")

    /// A version-2 stream of one document whose `m` is `count` maps, each `{key: i, "n": i}`, its key repeated by
    /// reference: written under limits that let references stand for long keys (the default writes them out).
    func stream(key: String, count: Int, name: String) throws -> String {
        let path = folder.url.appendingPathComponent(name).path
        let writer = DocumentStreamWriter(
            sink: try AtomicFileSink(destination: path), header: true, version: 2, existingRecords: 0,
            deterministic: false, blocks: [], streamOffset: 0, limits: ReaderLimits(maxKeyExpansion: .max))
        let maps = (0..<count).map { Value.map([key: .integer(Int64($0)), "n": .integer(Int64($0))]) }
        try writer.append(Document(reference: try DocumentReference(path: "c/d"), fields: ["m": .array(maps)]))
        try writer.close()
        return path
    }

    func read(_ path: String, options: ArrowBatchReader.Options = .init()) throws -> (rows: Int, keys: [String]) {
        let reader = try ArrowBatchReader(path: path, options: options)
        let rows = try rowCount(reader)
        guard case .list(let element)? = reader.schema.columns.first(where: { $0.name == "m" })?.type,
            case .map(let fields) = element.type
        else { return (rows, []) }
        return (rows, fields.map(\.name))
    }

    @Test func aLongKeyInEveryMapIsMatchedOncePerRecord() throws {
        let long = String(repeating: "L", count: 50_000), short = "s"
        let hostile = try stream(key: long, count: 4_000, name: "long.fpks")
        let benign = try stream(key: short, count: 4_000, name: "short.fpks")
        let size = try Data(contentsOf: URL(fileURLWithPath: hostile)).count
        #expect(size < 120_000, "the repeats are references: \(size) bytes")
        // Read with a schema that names the key: the records are read in place, and each reference to the key is
        // matched with its column once per record.
        var named = ArrowBatchReader.Options()
        func schema(_ key: String) -> ArrowDocumentSchema {
            let fields = [ArrowColumn(name: key, type: .int64), ArrowColumn(name: "n", type: .int64)]
            return ArrowDocumentSchema(columns: [ArrowColumn(name: "m", type: .list(ArrowColumn(name: "item", type: .map(fields))))])
        }
        var results = (hostile: (rows: 0, keys: [String]()), benign: (rows: 0, keys: [String]()))
        let measured = try CostMeasurement.ratio(
            hostile: {
                named.schema = schema(long)
                results.hostile = try read(hostile, options: named)
            },
            benign: {
                named.schema = schema(short)
                results.benign = try read(benign, options: named)
            })
        #expect(results.hostile.rows == 1 && Set(results.hostile.keys) == [long, "n"])
        #expect(results.benign.rows == 1 && Set(results.benign.keys) == [short, "n"])
        // 4,000 comparisons of 50 KB were 200 MB of work from 90 KB of stream.
        #expect(measured.ratio < 3, "long key \(measured.hostile) s, short key \(measured.benign) s")
        // A profile checks each record whole: what the references stand for (200 MB of keys) is past the readers'
        // limit (`ReaderLimits.maxKeyExpansion`), and the record is reported, not profiled.
        let profile = try DocumentProfile.of(paths: [hostile], sample: nil)
        #expect(profile.problemCount == 1 && "\(profile.problems)".contains("maxKeyExpansion"), "\(profile.problems)")
        #expect(try !profile.report().contains { $0.path.hasPrefix("m[]." + long) })

        // A schema without the key skips it in every map, checked once.
        var options = ArrowBatchReader.Options()
        let item = ArrowColumn(name: "item", type: .map([ArrowColumn(name: "n", type: .int64)]))
        options.schema = ArrowDocumentSchema(columns: [ArrowColumn(name: "m", type: .list(item))])
        let skipping = try CostMeasurement.ratio(
            hostile: { results.hostile = try read(hostile, options: options) },
            benign: { results.benign = try read(benign, options: options) })
        #expect(results.hostile.rows == 1 && results.hostile.keys == ["n"])
        #expect(skipping.ratio < 3, "long key \(skipping.hostile) s, short key \(skipping.benign) s")
    }

    @Test func aLongNameIsShownByItsStartAndEndInWarnings() {
        let name = String(repeating: "é", count: 300) + "x"  // 601 bytes: the last 32 start inside an é
        let shown = Array(name.utf8).withUnsafeBytes { ColumnBuilder.shownName($0) }
        #expect(shown == String(repeating: "é", count: 100) + "…(601 bytes)…" + String(repeating: "é", count: 15) + "x")
        let short = Array("short".utf8).withUnsafeBytes { ColumnBuilder.shownName($0) }
        #expect(short == "short")
    }
}
