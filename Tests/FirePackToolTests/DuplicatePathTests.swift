import FirePackTestSupport
import Foundation
import Testing
import FirePack
import FirePackStreams

/// Two documents at one path are one document to Firestore, which keeps the later write: `convert` writes both and
/// warns, naming both places; `validate` counts it as a problem. Generated IDs are never compared.
@Suite("firepack tool: repeated document paths")
struct DuplicatePathTests {
    private let folder = TemporaryFolder("repeats")
    var directory: URL { folder.url }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func write(_ name: String, _ lines: [String]) throws -> String {
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    let lines = [
        #"{"__name__": "books/a", "n": 1}"#,
        #"{"__name__": "books/b", "n": 2}"#,
        "",
        #"{"__name__": "books/a", "n": 3}"#,
        #"{"__name__": "books/c", "n": 4}"#,
        #"{"__name__": "books/b", "n": 5}"#,
    ]

    @Test func convertWritesEveryDocumentAndNamesTheRepeats() throws {
        let input = try write("repeats.jsonl", lines)
        let result = try Tool.run(["convert", input, path("repeats.fpks"), "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: 2 document(s) in \(input) repeat the path of an earlier one"), "\(result.stderr)")
        #expect(result.stderr.contains("line 4 repeats the path of line 1: books/a"), "\(result.stderr)")
        #expect(result.stderr.contains("line 6 repeats the path of line 2: books/b"), "\(result.stderr)")
        // Nothing dropped: all five documents are in the stream, in order.
        let reader = try DocumentStreamReader(source: FileSource(path: path("repeats.fpks")))
        var values: [Value] = []
        while let (_, _, document) = try reader.next() { values.append(document.fields["n"]!) }
        #expect(values == [1, 2, 3, 4, 5])

        // A stream into JSON lines (the direct record path) and into REST JSON (the document path) say the same,
        // by record number.
        for output in ["repeats.jsonl.out", "repeats.firestore.json"] {
            let again = try Tool.run(["convert", path("repeats.fpks"), path(output), "--to", output.hasSuffix("out") ? "jsonl" : "firestore-json", "--quiet"])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("record 2 repeats the path of record 0: books/a"), "\(output): \(again.stderr)")
            #expect(again.stderr.contains("record 4 repeats the path of record 1: books/b"), "\(output): \(again.stderr)")
        }
    }

    @Test func validateCountsRepeatsAsProblems() throws {
        let input = try write("repeats-v.jsonl", lines)
        let result = try Tool.run(["validate", input])
        #expect(result.status == 1)
        #expect(result.stderr.contains("line 4 repeats the path of line 1: books/a"), "\(result.stderr)")
        #expect(result.stderr.contains("invalid jsonl: 2 problem(s), 5 document(s) intact"), "\(result.stderr)")
        let stream = try Tool.run(["convert", input, path("repeats-v.fpks"), "--quiet"])
        #expect(stream.status == 0)
        let streamResult = try Tool.run(["validate", path("repeats-v.fpks")])
        #expect(streamResult.status == 1)
        #expect(streamResult.stderr.contains("record 4 repeats the path of record 1: books/b"), "\(streamResult.stderr)")
        // Distinct paths pass, also paths that differ only in Unicode normalization (two documents to Firestore).
        let distinct = try write("distinct.jsonl", [lines[0], lines[1], lines[4],
                                                    #"{"__name__": "books/\#u{E9}"}"#, #"{"__name__": "books/e\#u{301}"}"#])
        #expect(try Tool.run(["validate", distinct]).status == 0)
    }

    @Test func generatedIDsAreNotCompared() throws {
        let input = try write("unnamed.jsonl", Array(repeating: #"{"n": 1}"#, count: 50))
        let result = try Tool.run(["convert", input, path("unnamed.fpks"), "--quiet", "--deterministic"])
        #expect(result.status == 0 && !result.stderr.contains("repeat"), "\(result.stderr)")
        #expect(try Tool.run(["validate", input]).status == 0)
    }
}
