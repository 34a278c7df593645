import FirePackTestSupport
import Foundation
import Testing
import FirePack
import FirePackStreams

/// Firestore REST JSON as the REST API hands it out: pretty-printed documents, list responses and runQuery arrays,
/// besides one document per line — with errors at the file's line and column.
@Suite("firepack tool: Firestore REST JSON shapes", .serialized)
struct FirestoreJSONShapesTests {
    private let folder = TemporaryFolder("rest")
    var directory: URL { folder.url }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    static func document(_ id: String, _ n: Int) -> String {
        """
        {
          "name": "projects/p/databases/(default)/documents/books/\(id)",
          "fields": {
            "n": { "integerValue": "\(n)" },
            "tags": { "arrayValue": { "values": [ { "stringValue": "a" } ] } }
          },
          "createTime": "2024-01-01T00:00:00.000001Z",
          "updateTime": "2024-01-02T00:00:00Z"
        }
        """
    }

    /// The stream's document paths and `n` fields, after converting `text` (as .firestore.json) to .fpks.
    func convert(_ text: String) throws -> (status: Int32, stderr: String, documents: [(String, Value?)]) {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path("in.firestore.json")))
        let result = try Tool.run(["convert", path("in.firestore.json"), path("out.fpks"), "--quiet"])
        guard result.status == 0 else { return (result.status, result.stderr, []) }
        let reader = try DocumentStreamReader(source: FileSource(path: path("out.fpks")))
        var documents: [(String, Value?)] = []
        while let (_, _, document) = try reader.next() { documents.append((document.documentID, document.fields["n"])) }
        return (result.status, result.stderr, documents)
    }

    @Test func prettyPrintedDocumentsOneAfterAnother() throws {
        let result = try convert(Self.document("a", 1) + "\n" + Self.document("b", 2) + "\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.documents.map(\.0) == ["a", "b"] && result.documents.map(\.1) == [1, 2])
    }

    @Test func listResponses() throws {
        let page = #"{"documents": [\#(Self.document("a", 1)), \#(Self.document("b", 2))], "nextPageToken": "xyz"}"#
        let result = try convert(page + "\n" + #"{"documents": [\#(Self.document("c", 3))]}"#)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.documents.map(\.0) == ["a", "b", "c"])
        // The second page carries none: whatever the first promised is here. One page alone says more exist.
        #expect(!result.stderr.contains("nextPageToken"), "\(result.stderr)")
        let alone = try convert(page)
        #expect(alone.status == 0 && alone.documents.count == 2)
        #expect(alone.stderr.contains("warning: the last list response page has a nextPageToken"), "\(alone.stderr)")
    }

    @Test func runQueryArrays() throws {
        let text = "[" + #"{"readTime": "2024-01-03T00:00:00Z", "document": \#(Self.document("a", 1))},"#
            + #"{"document": \#(Self.document("b", 2)), "readTime": "2024-01-03T00:00:00Z"},"#
            + #"{"readTime": "2024-01-03T00:00:00Z", "done": true}]"#
        let result = try convert(text)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.documents.map(\.0) == ["a", "b"])
    }

    @Test func errorsSayWhereInTheFile() throws {
        // The fourth line of the second document (line 13 of the file): an unknown value kind.
        let broken = Self.document("b", 2).replacingOccurrences(of: "integerValue", with: "integerValu")
        let result = try convert(Self.document("a", 1) + "\n" + broken)
        #expect(result.status == 1 && result.stderr.contains("line 13, column"), "\(result.stderr)")
        let unknown = try convert(#"{"documents": [], "pageSize": 3}"#)
        #expect(unknown.status == 1 && unknown.stderr.contains("\"pageSize\""), "\(unknown.stderr)")
        let query = try convert(#"[{"document": \#(Self.document("a", 1)), "extra": 1}]"#)
        #expect(query.status == 1 && query.stderr.contains("\"extra\""), "\(query.stderr)")
    }
}
