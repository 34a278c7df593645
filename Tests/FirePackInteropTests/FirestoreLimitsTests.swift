import Foundation
import Testing
import FirePack
import FirePackStreams
@testable import FirePackInterop
import FirePackTestSupport

/// Firestore's documented limits, checked on a record's bytes (`forEachViolation(inRecord:)`, what `validate
/// --firestore-limits` reads a stream with; `violations(in:)` checks a tree's encoding with it): every rule found at
/// its path, in the order met, and the size formula from the bytes the tree's (`storageSize(of: Value)`).
@Suite struct FirestoreLimitsTests {
    func recordViolations(_ document: Document) throws -> [String] {
        var found: [String] = []
        try document.firePackBytes().withUnsafeBytes { raw in
            try FirestoreLimits.forEachViolation(inRecord: raw, limits: .default) { found.append("\($0) | \($1())") }
        }
        return found
    }

    @Test func everyRuleIsFoundInTheBytesAsInTheTree() throws {
        var deep: Value = 1
        for _ in 0..<22 { deep = .map(["d": deep]) }
        let fields: MapValue = [
            "rows": [[1], .array([2, 3])],
            "__x__": 1,
            "": "empty",
            String(repeating: "k", count: 1_501): 2,
            "vector": ["__type__": "__vector__", "value": [1.0, 2.0]],
            "tag": ["__type__": "x"],
            "old": .timestamp(try Timestamp(validatingSeconds: -62_135_596_801, nanoseconds: 0)),
            "deep": deep,
            "big": .string(String(repeating: "b", count: 1_048_576)),
        ]
        let document = Document(reference: try DocumentReference(path: "c/d"), fields: fields)
        let found = try recordViolations(document)
        #expect(found == FirestoreLimits.violations(in: document).map { "\($0.kind) | \($0.text)" })
        let expected = [
            "document larger than 1048576 bytes | document is \(FirestoreLimits.storageSize(of: document)) bytes; Firestore allows 1048576",
            "array directly inside an array | rows[0]: Firestore does not allow an array directly inside an array",
            "array directly inside an array | rows[1]: Firestore does not allow an array directly inside an array",
            "reserved field name (__x__) | __x__: field names like __x__ are reserved",
            "empty field name | (top level): empty field name",
            "field name longer than 1500 bytes | \(String(repeating: "k", count: 32))…(1501 bytes): field name longer than 1500 bytes",
            "reserved field name (__x__) | tag.__type__: field names like __x__ are reserved",
            "timestamp outside 0001-01-01 … 9999-12-31 | old: timestamp outside 0001-01-01 … 9999-12-31",
            "nested deeper than 20 levels | deep" + String(repeating: ".d", count: 20) + ": nested deeper than 20 levels",
        ]
        #expect(found == expected, "\(found.map { String($0.prefix(120)) })")
    }

    /// Random documents: the size from the bytes is the tree's, and a tree's findings are its record's.
    @Test func randomDocumentsAgree() throws {
        var random = RandomValues(seed: 0xF1)
        for index in 0..<400 {
            let document = Document(reference: try DocumentReference(path: "c/d\(index)"), fields: random.map(depth: 0))
            let bytes = document.firePackBytes()
            let viewSize = try bytes.withUnsafeBytes { raw in
                let root = try FirePackReader(bytes: raw).root
                return try FirestoreLimits.storageSize(of: #require(try root["fields"]))
            }
            let treeSize = document.fields.reduce(0) { $0 + $1.key.utf8.count + 1 + FirestoreLimits.storageSize(of: $1.value) }
            #expect(viewSize == treeSize)
            #expect(try recordViolations(document) == FirestoreLimits.violations(in: document).map { "\($0.kind) | \($0.text)" })
        }
    }

    /// A long key over many elements costs no more than a short one: paths are made only for the texts a report
    /// keeps (each element's path, made whole, was the key again: a megabyte key over 100,000 rows, 1.1 KB of stream,
    /// took 6.9 s to check).
    @Test func aLongKeyOverManyElementsCostsWhatAShortOneDoes() throws {
        func record(key: String) throws -> [UInt8] {
            let rows = Value.array(Array(repeating: [0], count: 50_000))
            let entries = MapValue((0..<50_000).map { ("e\($0)", Value.integer(0)) })
            let fields: MapValue = [key: rows, key + "m": .map(entries)]
            return Document(reference: try DocumentReference(path: "c/d"), fields: fields).firePackBytes()
        }
        func check(_ bytes: [UInt8]) throws -> Int {
            var count = 0
            try bytes.withUnsafeBytes { raw in
                try FirestoreLimits.forEachViolation(inRecord: raw, limits: .default) { _, _ in count += 1 }
            }
            return count
        }
        let long = try record(key: String(repeating: "k", count: 256 << 10)), short = try record(key: "k")
        // Each row an array inside an array (and the document's size); the long names besides.
        let shortCount = try check(short)
        #expect(try shortCount == 50_001 && check(long) == shortCount + 2)
        let measured = try CostMeasurement.ratio(hostile: { _ = try check(long) }, benign: { _ = try check(short) })
        #expect(measured.ratio < 3, "\(measured)")
    }

    /// A report's path shows a long key by its start and length, never cutting a character in two.
    @Test func aLongKeyIsShownByItsStartAndLength() throws {
        let key = String(repeating: "é", count: 1_000)
        let document = Document(reference: try DocumentReference(path: "c/d"), fields: [key: ["x": [[1]]]])
        let found = try recordViolations(document)
        let shown = String(repeating: "é", count: 16) + "…(2000 bytes)"
        #expect(found == ["field name longer than 1500 bytes | \(shown): field name longer than 1500 bytes",
                          "array directly inside an array | \(shown).x[0]: Firestore does not allow an array directly inside an array"],
                "\(found)")
        #expect(ValuePlace.shown(String(repeating: "k", count: 64)) == String(repeating: "k", count: 64))
    }
}
