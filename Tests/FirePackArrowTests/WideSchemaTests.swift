import CArrowABI
import FirePack
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackArrow

/// Every row of an Arrow batch holds every column, present or not, so a stream whose documents use different keys
/// costs rows × keys: 20,000 documents of one distinct key each (90 KB) read into 3.2 GB of columns in 13 s. A map
/// keyed by IDs (`members: {uid: role}`, common in Firestore) is kept as JSON text past
/// `ArrowDocumentSchema.maxInferredMapKeys` keys, and a reader refuses a schema of more than
/// `ArrowDocumentSchema.maxReadFields` fields, saying how to read the stream (Docs/ARROW.md, "Wide and sparse maps").
@Suite("Arrow: wide and sparse schemas")
struct WideSchemaTests {
    private let folder = TemporaryFolder("arrow-wide")

    /// `count` documents, each with `n` and a map `members` of one key of its own.
    func idKeyedStream(_ count: Int) throws -> (path: String, documents: [Document]) {
        let documents = try (0..<count).map { index in
            Document(
                reference: try DocumentReference(path: "teams/t\(index)"),
                fields: ["n": .integer(Int64(index)), "members": .map(["uid\(index)": .string("owner")])])
        }
        return (try writeStream(documents, name: "members-\(count).fpks", in: folder), documents)
    }

    /// About the bytes of a batch's buffers, its children's included: a validity bitmap and 8 bytes of offsets or
    /// values per row and array (string data aside).
    func bufferBytes(_ array: ArrowArray) -> Int {
        var bytes = (Int(array.length) + 7) / 8 + Int(array.length) * 8
        for index in 0..<Int(array.n_children) { bytes += bufferBytes(array.children[index]!.pointee) }
        return bytes
    }

    @Test("a map keyed by IDs becomes JSON text, read back exactly, at a cost in proportion to the stream")
    func idKeyedMapsAreJSONText() throws {
        let (path, documents) = try idKeyedStream(3_000)
        let (schema, reasons) = try DocumentProfile.of(paths: [path], sample: nil).schema()
        #expect(schema.columns.map(\.name) == ["__name__", "n", "members"])
        #expect(schema.columns.last?.type == .exact)
        #expect(reasons["members"]?.contains("3000 distinct keys") == true, "\(reasons)")
        // The batches hold each row's own key: a few columns, not 3,000.
        let reader = try ArrowBatchReader(path: path)
        var batch = ArrowArray()
        var rows = 0, bytes = 0
        while try reader.nextBatch(into: &batch) {
            rows += Int(batch.length)
            bytes += bufferBytes(batch)
            #expect(batch.n_children == 3)
            batch.release?(&batch)
        }
        #expect(rows == 3_000)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(bytes < 64 * size, "\(bytes) bytes of columns from \(size) bytes")
        // Nothing is lost: through Arrow and back, the same documents.
        #expect(try readDocuments(try arrowCopy(of: path)) == documents)
    }

    @Test("a map of up to 1,000 keys in all is a struct; one more is JSON text", arguments: [1_000, 1_001])
    func theLimitIsTheKeysOfTheField(keys: Int) throws {
        let documents = try (0..<keys).map { index in
            Document(reference: try DocumentReference(path: "c/d\(index)"), fields: ["m": .map(["k\(index)": 1])])
        }
        let path = try writeStream(documents, name: "keys-\(keys).fpks", in: folder)
        let column = try DocumentProfile.of(paths: [path], sample: nil).schema().schema.columns.last!
        if keys <= ArrowDocumentSchema.maxInferredMapKeys {
            guard case .map(let fields) = column.type else { Issue.record("\(column)"); return }
            #expect(fields.count == keys)
        } else {
            #expect(column.type == .exact)
        }
    }

    @Test("more top-level fields than a reader fills is an error that says what to do; a projection reads")
    func tooManyColumnsIsAnErrorWithARemedy() throws {
        let count = ArrowDocumentSchema.maxReadFields
        let documents = try (0..<count).map { index in
            Document(reference: try DocumentReference(path: "c/d\(index)"), fields: ["f\(index)": .integer(1)])
        }
        let path = try writeStream(documents, name: "top-\(count).fpks", in: folder)
        // The schema can still be inferred and reported (`firepack schema` shows what is there) …
        let (schema, _) = try DocumentProfile.of(paths: [path], sample: nil).schema()
        #expect(schema.fieldCount == count + 1)
        // … but reading it all would fill count × rows cells.
        do {
            _ = try ArrowBatchReader(path: path)
            Issue.record("a schema of \(count + 1) fields was read")
        } catch let error as FirePackError {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("\(count + 1) Arrow fields") && error.message.contains("columns"))
        }
        // A schema given is the caller's choice (dense documents of many fields, an engine's own projection).
        var given = ArrowBatchReader.Options()
        given.schema = schema
        #expect(try ArrowBatchReader(path: path, options: given).schema.fieldCount == count + 1)
        #expect(throws: FirePackError.self) { try schema.checkInferredWidth() }
        var options = ArrowBatchReader.Options()
        options.columns = ["__name__", "f7"]
        let reader = try ArrowBatchReader(path: path, options: options)
        var batch = ArrowArray()
        #expect(try reader.nextBatch(into: &batch))
        #expect(batch.length == Int64(count) && batch.n_children == 2)
        batch.release?(&batch)
        // A field count counts nested fields: a geopoint is three, a list two.
        let nested = ArrowDocumentSchema(columns: [
            ArrowColumn(name: "g", type: .geoPoint), ArrowColumn(name: "l", type: .list(ArrowColumn(name: "item", type: .int64))),
        ])
        #expect(nested.fieldCount == 5)
    }
}
