import FirePack
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackArrow

/// A key that holds a dot is one key, not a path: `m.a.b` (the key `b` of `a`) and the key `a.b` of `m` are two
/// fields. Spelled alike, Spark's marks of one were given to the other (a string read back as a reference), and the
/// schema report showed two fields under one name.
@Suite("Arrow: field paths with dots, brackets and backquotes in keys")
struct FieldPathTextTests {
    private let folder = TemporaryFolder("field-paths")

    @Test func keysThatHoldPathCharactersAreQuoted() {
        #expect(FieldPathText.member("a", of: "") == "a")
        #expect(FieldPathText.member("b", of: "a") == "a.b")
        #expect(FieldPathText.member("a.b", of: "m") == "m.`a.b`")
        #expect(FieldPathText.member("tags[]", of: "") == "`tags[]`")
        #expect(FieldPathText.member("x`y\\z", of: "m") == "m.`x\\`y\\\\z`")
        #expect(FieldPathText.member("", of: "m") == "m.``")
        #expect(FieldPathText.member("ref", of: "", withDot: true) == ".ref")
        #expect(FieldPathText.elements(of: "m.`a.b`") == "m.`a.b`[]")
        #expect(FieldPathText.member("é e", of: "") == "é e")
    }

    /// `m` holds the key `a.b` (a reference) and the map `a` whose `b` is a string that looks like a path.
    static let schema = ArrowDocumentSchema(columns: [
        ArrowColumn(name: "m", type: .map([
            ArrowColumn(name: "a.b", type: .reference),
            ArrowColumn(name: "a", type: .map([ArrowColumn(name: "b", type: .string)])),
            ArrowColumn(name: "t[]", type: .list(ArrowColumn(name: "item", type: .reference))),
            ArrowColumn(name: "t", type: .list(ArrowColumn(name: "item", type: .string))),
        ]))
    ])

    @Test func sparkMarksTellTheKeyWithADotFromTheNestedField() throws {
        let json = Self.schema.sparkJSON
        #expect(try ArrowDocumentSchema(sparkJSON: json) == Self.schema)
        let fields = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])["fields"] as? [[String: Any]]
        let marks = (fields?.first?["metadata"] as? [String: Any])?["firepack"] as? [String: [String: String]]
        #expect(marks == [".`a.b`": ["firepack.type": "reference"], ".`t[]`[]": ["firepack.type": "reference"]])
    }

    /// Marks written before keys were quoted (`.a.b` for the key `a.b`) are read as the one field they name; a mark
    /// that names no field, or is no FirePack mark, is an error rather than a reference written back as a string.
    @Test func sparkMarksOfEveryVintageAreReadOrRefused() throws {
        func schema(_ marks: String) -> String {
            #"{"type":"struct","fields":[{"name":"m","type":{"type":"struct","fields":["#
                + #"{"name":"a.b","type":"string","nullable":true,"metadata":{}},"#
                + #"{"name":"c","type":"long","nullable":true,"metadata":{}}]},"nullable":true,"#
                + #""metadata":{"firepack":{"# + marks + "}}}]}"
        }
        let old = try ArrowDocumentSchema(sparkJSON: schema(#"".a.b":{"firepack.type":"reference"}"#))
        #expect(old.columns.first?.type == .map([ArrowColumn(name: "a.b", type: .reference), ArrowColumn(name: "c", type: .int64)]))
        for (marks, said) in [
            (#"".x":{"firepack.type":"reference"}"#, "names no field"),
            (#"".`a.b`":{"firepack.type":"referense"}"#, "no FirePack type mark"),
            (#"".`a.b`":{"firepack.null":"values"}"#, "firepack.null"),
        ] {
            let error = #expect(throws: FirePackError.self, "\(marks)") { try ArrowDocumentSchema(sparkJSON: schema(marks)) }
            #expect(error?.message.contains(said) == true, "\(String(describing: error))")
        }
    }

    @Test func theReportShowsEachKeyAsItsOwnPath() throws {
        let path = folder.url.appendingPathComponent("dots.fpks").path
        let writer = try DocumentStreamWriter.creatingAtomically(atPath: path)
        let fields: MapValue = [
            "m": .map(["a.b": .string("x"), "a": .map(["b": .integer(1)])]),
            "a.b": .boolean(true),
        ]
        try writer.append(Document(reference: try DocumentReference(path: "c/d"), fields: fields))
        try writer.close()
        let report = try DocumentProfile.of(paths: [path], sample: nil).report()
        let columns = Dictionary(report.map { ($0.path, $0.column) }, uniquingKeysWith: { first, _ in first })
        #expect(report.count == columns.count, "\(report.map(\.path))")
        #expect(columns["m.`a.b`"] == "string" && columns["m.a.b"] == "int64" && columns["`a.b`"] == "bool")
    }
}
