import CArrowABI
import FirePack
@testable import FirePackArrow
import FirePackTestSupport
import Foundation
import Testing

@Suite("Spark schemas and microsecond timestamps (the Spark connector's half of the core)")
struct SparkSchemaTests {
    let folder = TemporaryFolder("arrow")
    static let schema = ArrowDocumentSchema(columns: [
        ArrowColumn(name: "__name__", type: .reference),
        ArrowColumn(name: "n", type: .int64),
        ArrowColumn(name: "x", type: .float64, nullMeaning: .value),
        ArrowColumn(name: "ok", type: .boolean),
        ArrowColumn(name: "at", type: .timestamp),
        ArrowColumn(name: "s", type: .string),
        ArrowColumn(name: "b", type: .binary),
        ArrowColumn(name: "nothing", type: .null, nullMeaning: .value),
        ArrowColumn(name: "where", type: .geoPoint),
        ArrowColumn(name: "mixed", type: .exact),
        ArrowColumn(name: "owner", type: .map([
            ArrowColumn(name: "ref", type: .reference),
            ArrowColumn(name: "tags", type: .list(ArrowColumn(name: "item", type: .string, nullMeaning: .value))),
        ])),
        ArrowColumn(name: "embedding", type: .vector(dimension: nil)),
        ArrowColumn(name: "points", type: .list(ArrowColumn(name: "item", type: .geoPoint))),
    ])

    @Test("a schema goes to Spark's JSON and back unchanged, every mark in the field metadata")
    func roundTrip() throws {
        let json = Self.schema.sparkJSON
        #expect(try ArrowDocumentSchema(sparkJSON: json) == Self.schema)
        // The marks, by path below each top-level field, as the Python package's spark_schema writes them.
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])["fields"] as? [[String: Any]]
        func marks(_ name: String) -> [String: [String: String]]? {
            let field = fields?.first { $0["name"] as? String == name }
            return (field?["metadata"] as? [String: Any])?["firepack"] as? [String: [String: String]]
        }
        #expect(marks("__name__") == ["": ["firepack.type": "reference"]])
        #expect(marks("x") == ["": ["firepack.null": "value"]])
        #expect(marks("owner") == [".ref": ["firepack.type": "reference"], ".tags[]": ["firepack.null": "value"]])
        #expect(marks("embedding") == ["": ["firepack.type": "vector"], "[]": ["firepack.null": "value"]])
        #expect(marks("points") == ["[]": ["firepack.type": "geopoint"]])
        #expect(marks("n") == nil)
        let types = Dictionary(uniqueKeysWithValues: (fields ?? []).map { ($0["name"] as! String, $0["type"]) })
        #expect(types["n"] as? String == "long" && types["at"] as? String == "timestamp" && types["nothing"] as? String == "void")
        #expect(types["mixed"] as? String == "string" && types["b"] as? String == "binary")
    }

    @Test("a vector's fixed dimension reads back as a vector of any dimension (Spark has no fixed-size list)")
    func vectorDimension() throws {
        let fixed = ArrowDocumentSchema(columns: [ArrowColumn(name: "v", type: .vector(dimension: 3))])
        #expect(try ArrowDocumentSchema(sparkJSON: fixed.sparkJSON).columns == [ArrowColumn(name: "v", type: .vector(dimension: nil))])
    }

    @Test("Spark types without a FirePack type, and text that is not a schema, are errors naming the field")
    func refusals() {
        let integer = #"{"type":"struct","fields":[{"name":"count","type":"integer","nullable":true,"metadata":{}}]}"#
        #expect { try ArrowDocumentSchema(sparkJSON: integer) } throws: { error in
            let error = error as? FirePackError
            return error?.message.contains("field \"count\": Spark type integer has no FirePack type") == true && error?.path == [.key("count")]
        }
        let decimal = #"{"type":"struct","fields":[{"name":"a","type":{"type":"array","elementType":"decimal(10,2)","containsNull":true},"nullable":true,"metadata":{}}]}"#
        #expect { try ArrowDocumentSchema(sparkJSON: decimal) } throws: { ($0 as? FirePackError)?.message.contains("decimal(10,2)") == true }
        let geopoint = #"{"type":"struct","fields":[{"name":"g","type":{"type":"struct","fields":[{"name":"lat","type":"double","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{"firepack":{"":{"firepack.type":"geopoint"}}}}]}"#
        #expect { try ArrowDocumentSchema(sparkJSON: geopoint) } throws: { ($0 as? FirePackError)?.message.contains("marked geopoint") == true }
        #expect(throws: FirePackError.self) { try ArrowDocumentSchema(sparkJSON: "[1, 2]") }
        #expect(throws: FirePackError.self) { try ArrowDocumentSchema(sparkJSON: "{\"type\":\"struct\"") }
    }

    func timestamps(_ times: [Timestamp], unit: ArrowTimestampUnit) throws -> (values: [Int64], format: String) {
        let documents = try times.enumerated().map { index, time in
            Document(reference: try DocumentReference(path: "t/\(index)"), fields: ["at": .timestamp(time)])
        }
        var options = ArrowBatchReader.Options()
        options.timestampUnit = unit
        let reader = try ArrowBatchReader(path: try writeStream(documents, name: "times.fpks", in: folder), options: options)
        var schema = ArrowSchema()
        reader.exportSchema(into: &schema)
        defer { schema.release?(&schema) }
        let format = String(cString: schema.children[1]!.pointee.format)
        var batch = ArrowArray()
        guard try reader.nextBatch(into: &batch) else { return ([], format) }
        defer { batch.release?(&batch) }
        let column = batch.children[1]!.pointee
        let values = column.buffers[1]!.assumingMemoryBound(to: Int64.self)
        return ((0..<Int(column.length)).map { values[$0] }, format)
    }

    @Test("microseconds: exact values kept, nanoseconds an error naming record, byte and field unless truncation is asked for")
    func microseconds() throws {
        let exact = [Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_000), Timestamp(seconds: -2, nanoseconds: 999_999_000)]
        let (values, format) = try timestamps(exact, unit: .microseconds)
        #expect(values == [1_700_000_000_123_456, -1_000_001] && format == "tsu:UTC")
        #expect(try timestamps(exact, unit: .nanoseconds).format == "tsn:UTC")
        let fine = exact + [Timestamp(seconds: -1, nanoseconds: 1)]
        #expect { try timestamps(fine, unit: .microseconds) } throws: { error in
            let error = error as? FirePackError
            return error?.message.contains("record 2 at byte") == true && error?.message.contains("has nanoseconds") == true
                && error?.message.contains("timestampPrecision") == true && error?.path == [.key("at")]
        }
        // Truncation is towards the past, as the RFC 3339 text of the time would be: -0.999999999 s → -1,000,000 µs.
        #expect(try timestamps(fine, unit: .truncatingToMicroseconds).values == [1_700_000_000_123_456, -1_000_001, -1_000_000])
    }
}
