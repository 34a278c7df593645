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
        // Read with a schema that names the key, under a limit that lets the references stand for the key
        // (`maxKeyExpansion`): the records are read in place, and each reference to the key is matched with its
        // column once per record.
        var named = ArrowBatchReader.Options()
        named.maxKeyExpansion = .max
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
        let raised = try DocumentProfile.of(paths: [hostile], sample: nil, maxKeyExpansion: .max)
        #expect(raised.problemCount == 0 && raised.documents == 1)
        #expect(try raised.report().contains { $0.path == "m[]." + long })

        // A schema without the key skips it in every map, checked once.
        var options = ArrowBatchReader.Options()
        options.maxKeyExpansion = .max
        let item = ArrowColumn(name: "item", type: .map([ArrowColumn(name: "n", type: .int64)]))
        options.schema = ArrowDocumentSchema(columns: [ArrowColumn(name: "m", type: .list(item))])
        let skipping = try CostMeasurement.ratio(
            hostile: { results.hostile = try read(hostile, options: options) },
            benign: { results.benign = try read(benign, options: options) })
        #expect(results.hostile.rows == 1 && results.hostile.keys == ["n"])
        #expect(skipping.ratio < 3, "long key \(skipping.hostile) s, short key \(skipping.benign) s")
    }

    /// Reading refuses what inference refuses: a record whose references stand for more than the limit allows is
    /// damaged to both (it was reported by inference and then read as a row without the fields inference left out),
    /// whether the reader reads the key into a column or skips it; raised, both read it.
    @Test func aRecordPastTheKeyLimitIsDamagedToReadingAsToInference() throws {
        let long = String(repeating: "L", count: 5_000)
        let hostile = try stream(key: long, count: 400, name: "past.fpks")
        let item = ArrowColumn(name: "item", type: .map([ArrowColumn(name: "n", type: .int64)]))
        let given = ArrowDocumentSchema(columns: [ArrowColumn(name: "m", type: .list(item))])
        for schema in [nil, given] {
            var options = ArrowBatchReader.Options()
            options.schema = schema
            options.skipDamaged = true
            let reader = try ArrowBatchReader(path: hostile, options: options)
            #expect(try rowCount(reader) == 0, "\(schema == nil ? "inferred" : "given")")
            #expect(reader.problemCount == 1 && "\(reader.problems)".contains("maxKeyExpansion"), "\(reader.problems)")
            options.skipDamaged = false
            let error = #expect(throws: (any Error).self) { try rowCount(try ArrowBatchReader(path: hostile, options: options)) }
            #expect("\(String(describing: error))".contains("record 0"), "\(String(describing: error))")
            #expect("\(String(describing: error))".contains("maxKeyExpansion"), "\(String(describing: error))")
            options.maxKeyExpansion = .max
            let raised = try ArrowBatchReader(path: hostile, options: options)
            #expect(try rowCount(raised) == 1 && raised.problemCount == 0)
        }
    }

    /// The same for any damage inference finds in a field that only the damaged record has: the schema inferred from
    /// every record has no column for the field, and reading, which skips a field outside the schema by its length,
    /// read the record as a row without it. Now it is reported by both, with inference's message, whatever columns
    /// are read; and given as a sample's schema, the field outside it is a schema error that the damage wins over.
    @Test func aRecordDamagedInAFieldOnlyItHasIsReportedByReadingToo() throws {
        let path = folder.url.appendingPathComponent("damaged-field.fpks").path
        let writer = DocumentStreamWriter(
            sink: try AtomicFileSink(destination: path), header: true, version: 2, existingRecords: 0,
            deterministic: false, blocks: [], streamOffset: 0)
        for (index, fields) in [["a": 1], ["a": 2, "x": "ok!"], ["a": 3] as MapValue].enumerated() {
            try writer.append(Document(reference: try DocumentReference(path: "c/d\(index)"), fields: fields))
        }
        try writer.close()
        // "ok!" becomes "o\u{FF}!" (not UTF-8) inside the second record, whose CRC is made to match again.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let text = Array("ok!".utf8)
        let at = try #require((0...(bytes.count - 3)).first { Array(bytes[$0..<($0 + 3)]) == text })
        bytes[at + 1] = 0xFF
        var record = at
        while Array(bytes[record..<(record + 4)]) != [0xF3, 0x50, 0x52, 0x1E] { record -= 1 }
        let length = Int(bytes[record + 4]) | Int(bytes[record + 5]) << 8 | Int(bytes[record + 6]) << 16
        let payload = Array(bytes[(record + 12)..<(record + 12 + length)])
        let checksum = payload.withUnsafeBytes { crc32($0) }
        bytes.replaceSubrange((record + 8)..<(record + 12), with: withUnsafeBytes(of: checksum.littleEndian, Array.init))
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let profile = try DocumentProfile.of(paths: [path], sample: nil)
        #expect(profile.documents == 2 && profile.problemCount == 1 && "\(profile.problems)".contains("UTF-8"))
        var options = ArrowBatchReader.Options()
        options.skipDamaged = true
        let reader = try ArrowBatchReader(path: path, options: options)
        #expect(reader.schema.columns.map(\.name) == [ArrowDocumentSchema.nameColumn, "a"])
        #expect(try rowCount(reader) == 2)
        #expect(reader.problems.map(\.description) == profile.problems.map(\.description), "\(reader.problems)")
        // Reading some columns only, it is reported all the same: it is not a document, whatever is read of it.
        options.columns = ["a"]
        let projecting = try ArrowBatchReader(path: path, options: options)
        #expect(try rowCount(projecting) == 2)
        #expect(projecting.problems.map(\.description) == profile.problems.map(\.description), "\(projecting.problems)")
        options.columns = nil
        // Where mismatches become nulls, the field outside the schema is not one: the record is damaged all the same.
        options.nullsForMismatches = true
        let nulling = try ArrowBatchReader(path: path, options: options)
        #expect(try rowCount(nulling) == 2 && nulling.warningCounts.isEmpty)
        #expect(nulling.problems.map(\.description) == profile.problems.map(\.description), "\(nulling.problems)")
        options.nullsForMismatches = false
        options.skipDamaged = false
        let error = #expect(throws: (any Error).self) { try rowCount(try ArrowBatchReader(path: path, options: options)) }
        #expect("\(String(describing: error))".contains("record 1") && "\(String(describing: error))".contains("UTF-8"))
        // A value nulled in a record later taken back as damaged is not counted: its row is not there.
        var nullingOptions = ArrowBatchReader.Options()
        nullingOptions.schema = ArrowDocumentSchema(columns: [ArrowColumn(name: "a", type: .string), ArrowColumn(name: "x", type: .string)])
        nullingOptions.nullsForMismatches = true
        nullingOptions.skipDamaged = true
        let counted = try ArrowBatchReader(path: path, options: nullingOptions)
        #expect(try rowCount(counted) == 2 && counted.problemCount == 1)
        #expect(counted.warningCounts == ["a": 2], "\(counted.warningCounts)")
        #expect(counted.warningExamples.count == 2, "\(counted.warningExamples)")
        // Given that schema as a sample's (a Spark planner's), the field outside it was a schema error that ended
        // reading; the record is damaged, and damage wins.
        var sampled = ArrowBatchReader.Options()
        sampled.schema = reader.schema
        sampled.schemaIsSampled = true
        sampled.skipDamaged = true
        let planned = try ArrowBatchReader(path: path, options: sampled)
        #expect(try rowCount(planned) == 2)
        #expect(planned.problems.map(\.description) == profile.problems.map(\.description), "\(planned.problems)")
    }

    /// A document decompressed from a version-3 block has no byte of the file, and a byte range numbers its records
    /// from its own start: a record inference rejected is known by its block and its bytes, so that every range's
    /// reader reports it, not the first range's alone.
    @Test func aRejectedRecordOfACompressedBlockIsReportedByEveryRangesReader() throws {
        let path = folder.url.appendingPathComponent("blocks.fpks").path
        let writer = try DocumentStreamWriter.creatingAtomically(atPath: path, codec: .zstd, blockSize: 64)
        for index in 0..<12 {
            guard index == 8 else {
                try writer.append(Document(reference: try DocumentReference(path: "c/d\(index)"), fields: ["a": .integer(Int64(index))]))
                continue
            }
            // Its field `x`, which only it has, is not UTF-8: bytes the record writer does not check.
            try writer.append(writtenBy: { record in
                try record.writeDocumentRecord(path: "c/d8") { fields in
                    fields.writeKey("a")
                    fields.writeInteger(8)
                    fields.writeKey("x")
                    [UInt8]([0x6F, 0xFF, 0x21]).withUnsafeBytes { fields.writeString(utf8: $0) }
                }
            })
        }
        try writer.close()
        let ranges = try StreamSplits.ranges(path: path, targetBytes: 1)
        #expect(ranges.count > 3, "\(ranges)")
        var rows = 0, problems: [StreamProblem] = []
        for range in ranges {
            var options = ArrowBatchReader.Options()
            (options.offset, options.length, options.skipDamaged) = (range.offset, range.length, true)
            let reader = try ArrowBatchReader(path: path, options: options)
            rows += try rowCount(reader)
            problems += reader.problems
        }
        #expect(rows == 11 && problems.count == 1 && "\(problems)".contains("UTF-8"), "\(rows) rows, \(problems)")
    }

    @Test func aLongNameIsShownByItsStartAndEndInWarnings() {
        let name = String(repeating: "é", count: 300) + "x"  // 601 bytes: the last 32 start inside an é
        let shown = Array(name.utf8).withUnsafeBytes { ColumnBuilder.shownName($0) }
        #expect(shown == String(repeating: "é", count: 100) + "…(601 bytes)…" + String(repeating: "é", count: 15) + "x")
        let short = Array("short".utf8).withUnsafeBytes { ColumnBuilder.shownName($0) }
        #expect(short == "short")
    }
}
