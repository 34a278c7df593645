import Foundation
import Testing
import FirePack
import FirePackInterop
import FirePackStreams

/// `DocumentConversion`, the loop `firepack convert` runs: the direct paths write what document by document writes,
/// and what a conversion notes on the way (repeated paths by line or record, Firestore's limits, server timestamps
/// given a time) is reported, counted and bounded.
@Suite("Document conversion reports")
struct DocumentConversionReportTests {
    let lines = [
        #"{"__name__":"books/a","n":1}"#,
        #"{"title":"new id"}"#,
        #"{"n":2,"__name__":"books/b"}"#,
        "",
        #"{"__name__":"books/a","n":3}"#,
        #"{"title":"another new id"}"#,
        #"{"__name__":"books/b","at":{"__serverTimestamp__":true}}"#,
    ]

    func source() -> JSONLinesReader {
        JSONLinesReader(
            MemorySource(Array(lines.joined(separator: "\n").utf8)),
            naming: DocumentNaming(collection: "books", idField: nil, deterministic: true))
    }

    @Test("JSON lines into a stream: the direct path's bytes are document by document's; repeats named by line")
    func linesIntoAStream() throws {
        let directSink = MemorySink()
        let conversion = DocumentConversion(from: source(), to: try DocumentStreamWriter(sink: directSink))
        var progress: [Int] = []
        #expect(try conversion.run { progress.append($0) } == 6)
        #expect(progress == [1, 2, 3, 4, 5, 6])
        // The new IDs are not checked; the two repeats are, by line (the blank line counts).
        #expect(conversion.repeatedPaths.total == 2)
        #expect(
            conversion.repeatedPaths.examples == [
                "line 5 repeats the path of line 1: books/a", "line 7 repeats the path of line 3: books/b",
            ])
        #expect(conversion.limitProblems.isEmpty && !conversion.checksFirestoreLimits)
        #expect(conversion.repeatedPathsNote == nil)

        let treeSink = MemorySink()
        let tree = try DocumentStreamWriter(sink: treeSink)
        let reader = source()
        while let document = try reader.next() { try tree.append(document) }
        try tree.close()
        #expect(directSink.bytes == treeSink.bytes)
    }

    @Test("into Firestore's formats: limits checked by default, server timestamps given the time asked, repeats by record")
    func intoFirestoreJSON() throws {
        let time = Timestamp(seconds: 1_700_000_000, nanoseconds: 0)
        var documents = try source().readAll()
        documents.append(
            Document(reference: try DocumentReference(path: "books/deep"), fields: ["x": .array([.array([1])])]))
        let streamSink = MemorySink()
        let stream = try DocumentStreamWriter(sink: streamSink)
        for document in documents { try stream.append(document) }
        try stream.close()

        let output = MemorySink()
        let conversion = DocumentConversion(
            from: StreamDocuments(try DocumentStreamReader(source: MemorySource(streamSink.bytes))),
            to: FirestoreJSONWriter(output), resolvingServerTimestamps: time)
        #expect(conversion.checksFirestoreLimits)
        #expect(try conversion.run() == 7)
        #expect(conversion.limitProblems.total == 1)
        #expect(conversion.limitProblems.examples.first?.hasPrefix("record 6 (books/deep): x[0]") == true)
        // Read from a stream, every record is checked, by record number (the new IDs are a stream's paths now).
        #expect(
            conversion.repeatedPaths.examples == [
                "record 3 repeats the path of record 0: books/a", "record 5 repeats the path of record 2: books/b",
            ])
        let back = try FirestoreJSONReader(MemorySource(output.bytes)).readAll()
        #expect(back.count == 7)
        #expect(back[5].fields["at"] == .timestamp(time))

        // Without a time, a pending server timestamp cannot be written in Firestore's REST JSON: an error, not a drop.
        let refusing = DocumentConversion(
            from: StreamDocuments(try DocumentStreamReader(source: MemorySource(streamSink.bytes))),
            to: FirestoreJSONWriter(MemorySink()))
        #expect(throws: FirePackError.self) { try refusing.run() }
    }

    @Test("write(from:) is the conversion without reports: a stream into JSON lines by its direct path")
    func streamIntoLines() throws {
        let streamSink = MemorySink()
        try DocumentStreamWriter(sink: streamSink).write(from: source())
        let naming = DocumentNaming(collection: "books", idField: nil)
        let direct = MemorySink()
        let count = try JSONLinesWriter(direct, naming: naming).write(
            from: StreamDocuments(try DocumentStreamReader(source: MemorySource(streamSink.bytes))))
        #expect(count == 6)
        let tree = MemorySink()
        let writer = JSONLinesWriter(tree, naming: naming)
        for document in try StreamDocuments(try DocumentStreamReader(source: MemorySource(streamSink.bytes))).readAll() {
            try writer.write(document)
        }
        try writer.finish()
        #expect(direct.bytes == tree.bytes)
        #expect(String(decoding: direct.bytes, as: UTF8.self).split(separator: "\n").count == 6)
    }
}

/// `DuplicatePaths` past its capacity: later paths are still checked against the kept ones, are not kept, and the
/// note says the check was partial.
@Suite("Repeated paths in bounded memory")
struct DuplicatePathsCapacityTests {
    @Test func pastCapacityPathsAreCheckedNotKept() {
        var paths = DuplicatePaths(capacity: 3)
        for (position, path) in ["c/a", "c/b", "c/c"].enumerated() { #expect(paths.check(fingerprint: DuplicatePaths.fingerprint(of: path), at: position) == nil) }
        #expect(paths.partialNote == nil && paths.kept == 3)
        // A fourth path is not kept; a repeat of a kept path is still found, with the place it was first seen.
        #expect(paths.check(fingerprint: DuplicatePaths.fingerprint(of: "c/d"), at: 3) == nil)
        #expect(paths.check(fingerprint: DuplicatePaths.fingerprint(of: "c/b"), at: 4) == 1)
        #expect(paths.check(fingerprint: DuplicatePaths.fingerprint(of: "c/d"), at: 5) == nil)
        #expect(paths.kept == 3 && paths.saturated)
        #expect(paths.partialNote == "paths were checked for repeats against the first 3 documents' paths only (later paths were checked, not kept, to bound memory)")
    }

    @Test func theTableGrowsWithoutLosingAPath() {
        var paths = DuplicatePaths()
        for index in 0..<5_000 { #expect(paths.check(fingerprint: DuplicatePaths.fingerprint(of: "c/\(index)"), at: index) == nil) }
        for index in stride(from: 0, to: 5_000, by: 7) { #expect(paths.check(fingerprint: DuplicatePaths.fingerprint(of: "c/\(index)"), at: 5_000 + index) == index) }
        #expect(paths.kept == 5_000 && !paths.saturated)
    }
}
