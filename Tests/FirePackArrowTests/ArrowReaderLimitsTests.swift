import CArrowABI
import FirePack
@testable import FirePackArrow
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

/// What a sampled schema misses, schemas that name a field twice, and batches of large records: never a value lost
/// without a word, never a record called damaged for the batch's size.
@Suite("Arrow reader: sampled times, duplicate names, batch bytes")
struct ArrowReaderLimitsTests {
    let folder = TemporaryFolder("arrow-limits")

    /// Ten documents without times, then one with a create time and one with an update time.
    func lateTimes() throws -> String {
        var documents = try (0..<10).map { index in
            Document(reference: try DocumentReference(path: "c/\(index)"), fields: ["a": .integer(Int64(index))])
        }
        documents.append(
            Document(reference: try DocumentReference(path: "c/created"), fields: ["a": 1],
                     createTime: Timestamp(seconds: 1_700_000_000, nanoseconds: 5)))
        documents.append(
            Document(reference: try DocumentReference(path: "c/updated"), fields: ["a": 2],
                     updateTime: Timestamp(seconds: 1_700_000_001, nanoseconds: 0)))
        return try writeStream(documents, name: "late-times.fpks", in: folder)
    }

    func readAll(_ reader: ArrowBatchReader) throws -> Int { try rowCount(reader) }

    @Test("a time the sample did not see is an error naming the record, or a counted warning: never dropped")
    func timesOutsideASampledSchema() throws {
        let path = try lateTimes()
        var options = ArrowBatchReader.Options()
        options.sample = 5
        let reader = try ArrowBatchReader(path: path, options: options)
        #expect(reader.schema.columns.map(\.name) == ["__name__", "a"])
        let error = try #require(throws: FirePackError.self) { try readAll(reader) }
        #expect(error.code == .typeMismatch)
        #expect(error.message.contains("record 10 at byte") && error.message.contains("__create_time__"), "\(error)")

        options.nullsForMismatches = true
        let lenient = try ArrowBatchReader(path: path, options: options)
        #expect(try readAll(lenient) == 12)
        #expect(lenient.warningCounts == ["__create_time__": 1, "__update_time__": 1])

        // A schema read whole has the columns; a schema the caller gave, or columns chosen, leave them out as asked.
        #expect(try ArrowBatchReader(path: path).schema.columns.map(\.name)
                == ["__name__", "__create_time__", "__update_time__", "a"])
        var given = ArrowBatchReader.Options()
        given.schema = ArrowDocumentSchema(columns: [ArrowColumn(name: "__name__", type: .reference), ArrowColumn(name: "a", type: .int64)])
        #expect(try readAll(ArrowBatchReader(path: path, options: given)) == 12)
        var chosen = ArrowBatchReader.Options()
        chosen.sample = 5
        chosen.columns = ["a"]
        #expect(try readAll(ArrowBatchReader(path: path, options: chosen)) == 12)
    }

    @Test("a query's columns of a sampled schema skip the other top-level fields, and keep the checks inside theirs")
    func prunedSampledSchema() throws {
        var documents = try (0..<20).map { index in
            Document(reference: try DocumentReference(path: "c/\(index)"), fields: ["m": ["x": .integer(Int64(index))], "n": .integer(Int64(index))])
        }
        documents.append(Document(reference: try DocumentReference(path: "c/late"), fields: ["m": ["x": 1, "y": "new"], "n": 20]))
        let path = try writeStream(documents, name: "pruned.fpks", in: folder)
        var options = ArrowBatchReader.Options()
        options.schemaIsSampled = true
        options.skipsFieldsOutsideSchema = true
        options.schema = ArrowDocumentSchema(columns: [ArrowColumn(name: "n", type: .int64)])
        #expect(try readAll(ArrowBatchReader(path: path, options: options)) == 21)
        options.schema = ArrowDocumentSchema(columns: [ArrowColumn(name: "m", type: .map([ArrowColumn(name: "x", type: .int64)]))])
        let error = try #require(throws: FirePackError.self) { try readAll(ArrowBatchReader(path: path, options: options)) }
        #expect(error.message.contains("record 20") && error.message.contains("\"y\" is not in the schema"), "\(error)")
        // Without the option, the field the schema leaves out is the sample's miss: an error too.
        options.skipsFieldsOutsideSchema = false
        options.schema = ArrowDocumentSchema(columns: [ArrowColumn(name: "n", type: .int64)])
        #expect(throws: FirePackError.self) { try readAll(ArrowBatchReader(path: path, options: options)) }
    }

    @Test("a schema naming a field twice is refused, at the top and in a struct, whichever way it comes")
    func duplicateNamesAreRefused() throws {
        let path = try writeStream(
            [Document(reference: try DocumentReference(path: "c/1"), fields: ["a": 1, "m": ["x": 1]])],
            name: "one.fpks", in: folder)
        var options = ArrowBatchReader.Options()
        options.schema = ArrowDocumentSchema(columns: [
            ArrowColumn(name: "__name__", type: .reference), ArrowColumn(name: "a", type: .int64),
            ArrowColumn(name: "a", type: .string),
        ])
        let top = try #require(throws: FirePackError.self) { try ArrowBatchReader(path: path, options: options) }
        #expect(top.code == .duplicateKey && top.message.contains("two columns are named \"a\""), "\(top)")
        options.schema = ArrowDocumentSchema(columns: [
            ArrowColumn(name: "m", type: .list(ArrowColumn(name: "item", type: .map([
                ArrowColumn(name: "x", type: .int64), ArrowColumn(name: "x", type: .int64),
            ])))),
        ])
        let nested = try #require(throws: FirePackError.self) { try ArrowBatchReader(path: path, options: options) }
        #expect(nested.code == .duplicateKey && nested.message.contains("two fields of the struct at $.m are named \"x\""), "\(nested)")
        #expect(nested.path == [.key("m"), .key("x")])

        // Through the C interface (a pyarrow schema, a writer's input) and from Spark's JSON alike.
        var exported = ArrowSchema()
        ArrowDocumentSchema(columns: [ArrowColumn(name: "a", type: .int64), ArrowColumn(name: "a", type: .int64)])
            .exportSchema(into: &exported, metadata: [], timestampUnit: .nanoseconds)
        defer { exported.release?(&exported) }
        #expect(throws: FirePackError.self) { try ArrowDocumentSchema(importing: &exported) }
        let spark = #"{"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{}},{"name":"a","type":"string","nullable":true,"metadata":{}}]}"#
        #expect(throws: FirePackError.self) { try ArrowDocumentSchema(sparkJSON: spark) }
    }

    @Test("large records close a batch near its byte limit, not at the 64th row")
    func largeRecordsCloseBatchesEarly() throws {
        let text = String(repeating: "x", count: 1 << 20)
        let documents = try (0..<40).map { index in
            Document(reference: try DocumentReference(path: "c/\(index)"), fields: ["text": .string(text)])
        }
        let path = try writeStream(documents, name: "large.fpks", in: folder)
        var options = ArrowBatchReader.Options()
        options.maxBatchBytes = 8 << 20
        let reader = try ArrowBatchReader(path: path, options: options)
        var sizes: [Int] = []
        var batch = ArrowArray()
        while try reader.nextBatch(into: &batch) {
            sizes.append(Int(batch.length))
            batch.release?(&batch)
        }
        #expect(sizes.reduce(0, +) == 40)
        // Summed after each megabyte of records (an eighth of the limit): 8 rows reach it.
        #expect(sizes.allSatisfy { $0 <= 9 } && sizes.count >= 5, "\(sizes)")
    }
}
