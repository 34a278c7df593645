import Foundation
import Testing
import FirePack
import FirePackInterop
import FirePackStreams

/// JSON lines in and out of `.fpks` through the library (`JSONLinesReader`, `JSONLinesWriter`): the direct paths a
/// library user gets write what the tree paths write, and errors name the line, the column and the input's byte.
@Suite("JSON lines")
struct JSONLinesTests {
    /// Lines of every kind the readers tell apart: the path member last (where FirePack writes it), first, absent
    /// (the ID field, or a generated ID); an escaped key and markers, which the direct path hands to the tree.
    let lines = [
        #"{"title":"Dune","pages":412,"price":9.99,"__name__":"books/dune"}"#,
        #"{"__name__":"books/emma","title":"Emma","tags":["a","b"],"meta":{"n":null,"ok":true}}"#,
        #"{"id":"ulysses","title":"Ulysses","at":{"__timestamp__":"2024-05-01T10:00:00.5Z"}}"#,
        "",
        #"{"id":7,"title":"caf\u00e9 \"quoted\"","k\u0065y":1}"#,
        #"{"title":"no id","where":{"__geopoint__":[1.5,2.5]}}"#,
    ]

    func naming() -> DocumentNaming {
        DocumentNaming(collection: "books", idField: "id", generatesMissingIDs: true, deterministic: true)
    }

    func input(_ lines: [String]) -> MemorySource { MemorySource(Array(lines.joined(separator: "\n").utf8)) }

    /// The stream the direct path writes, and the one written from each line's document (the tree path).
    func streams(_ lines: [String]) throws -> (direct: [UInt8], tree: [UInt8]) {
        let directSink = MemorySink()
        let direct = try DocumentStreamWriter(sink: directSink)
        let reader = JSONLinesReader(input(lines), naming: naming())
        var paths: [String] = []
        while try reader.appendNext(to: direct) { paths.append(reader.lastPath) }
        try direct.close()

        let treeSink = MemorySink()
        let tree = try DocumentStreamWriter(sink: treeSink)
        let documents = JSONLinesReader(input(lines), naming: naming())
        var treePaths: [String] = []
        while let document = try documents.next() {
            treePaths.append(document.reference.path)
            try tree.append(document)
        }
        try tree.close()
        #expect(paths == treePaths)
        #expect(paths.count == 5)
        return (directSink.bytes, treeSink.bytes)
    }

    @Test("JSON lines into a stream: the direct path writes the tree path's bytes, blank lines skipped")
    func linesIntoAStream() throws {
        let (direct, tree) = try streams(lines)
        #expect(direct == tree)
        let reader = try DocumentStreamReader(source: MemorySource(direct))
        var documents: [Document] = []
        while let (_, _, document) = try reader.next() { documents.append(document) }
        #expect(documents.map(\.reference.path).prefix(4) == ["books/dune", "books/emma", "books/ulysses", "books/7"])
        #expect(documents[0].fields["price"] == .double(9.99))
        #expect(documents[2].fields["at"] == .timestamp(Timestamp(seconds: 1_714_557_600, nanoseconds: 500_000_000)))
        #expect(documents[3].fields["key"] == .integer(1))
        #expect(documents[4].fields["where"] == .geoPoint(try GeoPoint(validatingLatitude: 1.5, longitude: 2.5)))
        #expect(documents[4].reference.path.hasPrefix("books/"))
    }

    /// The error each path throws reading `lines` to the end: the one pass into a stream, then the tree path.
    func errorsOnBothPaths(_ lines: [String]) throws -> [FirePackError] {
        var errors: [FirePackError] = []
        for direct in [true, false] {
            let reader = JSONLinesReader(input(lines), naming: naming())
            let stream = try DocumentStreamWriter(sink: MemorySink())
            do {
                if direct {
                    while try reader.appendNext(to: stream) {}
                } else {
                    while try reader.next() != nil {}
                }
                Issue.record("read \(lines.last ?? "")")
            } catch let error as FirePackError {
                errors.append(error)
            }
        }
        return errors
    }

    @Test("a malformed line is reported by line, column and the input's byte offset, on both paths")
    func errorsNameTheLine() throws {
        let broken = [lines[0], lines[1], #"{"title": "x", "n": 1.5.2}"#]
        let lineStart = (lines[0] + "\n" + lines[1] + "\n").utf8.count
        let column = #"{"title": "x", "n": 1.5"#.utf8.count + 1
        let errors = try errorsOnBothPaths(broken)
        #expect(errors.count == 2)
        for error in errors {
            #expect(error.message.hasPrefix("line 3, column \(column):"), "\(error.message)")
            #expect(error.offset == lineStart + column - 1)
        }
    }

    @Test("every kind of bad line: the one pass throws the tree path's error (line, column, byte, JSON path)")
    func everyErrorAgrees() throws {
        let bad = [
            #"{"a": [1, 2, tru]}"#,
            #"{"a": {"b": 1, "b": 2}}"#,
            #"{"__name__": "books/x", "t": 1, "__name__": "books/z"}"#,
            #"{"t": 1, "__name__": 5}"#,
            #"{"__name__": "books"}"#,
            #"{"id": {"x": 1}}"#,
            #"{"t": {"__timestamp__": "nope"}, "u": 1}"#,
            #"{"a": 1} x"#,
            #"{"a": "\q"}"#,
            #"{"a": 1"#,
            #"{"a": [{"b": [1, {"c": 1e999999}]}]}"#,
            #"{"a": 1, "a": [x]}"#,
            "{\"id\": \"x\", \"id\": \"y\u{1}\"}",
            #"{"id": "a", "__name__": "books/d", "id": tru}"#,
        ]
        for text in bad {
            let errors = try errorsOnBothPaths([lines[0], text])
            guard errors.count == 2 else { continue }
            #expect(errors[0].message.hasPrefix("line 2"), "\(errors[0])")
            #expect(errors[0].code == errors[1].code, "\(text)")
            #expect(errors[0].offset == errors[1].offset, "\(text)")
            #expect(errors[0].message == errors[1].message, "\(text)")
            #expect(errors[0].pathDescription == errors[1].pathDescription, "\(text)")
        }
    }

    @Test("a stream into JSON lines: the direct path writes the tree path's lines, and they read back")
    func streamIntoLines() throws {
        let (stream, _) = try streams(lines)
        let options = JSONOptions()
        let directSink = MemorySink()
        let direct = JSONLinesWriter(directSink, naming: naming(), options: options)
        let reader = try DocumentStreamReader(source: MemorySource(stream))
        var paths: [String] = []
        while try direct.appendNext(from: reader) { paths.append(direct.lastPath) }
        try direct.finish()

        let treeSink = MemorySink()
        let tree = JSONLinesWriter(treeSink, naming: naming(), options: options)
        let records = try DocumentStreamReader(source: MemorySource(stream))
        while let (_, _, document) = try records.next() { try tree.write(document) }
        try tree.finish()

        #expect(directSink.bytes == treeSink.bytes)
        #expect(paths.count == 5)
        // Read back: the same documents as the lines gave.
        let again = JSONLinesReader(MemorySource(directSink.bytes), naming: naming())
        let original = JSONLinesReader(input(lines), naming: naming())
        for _ in 0..<4 {
            let (a, b) = (try again.next(), try original.next())
            #expect(a == b)
        }
    }
}
