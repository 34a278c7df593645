import FirePackTestSupport
import Foundation
import Testing
import FirePack
import FirePackInterop
import FirePackStreams

/// Runs the `firepack` binary built next to this test bundle.
struct Tool {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let binary: URL = {
        var directory = Bundle.main.bundleURL
        if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("firepack")
    }()

    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var text: String { String(decoding: stdout, as: UTF8.self) }
    }

    @discardableResult
    static func run(_ arguments: [String], stdin: [UInt8]? = nil, executable: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable.map { URL(fileURLWithPath: $0) } ?? binary
        process.arguments = arguments
        process.currentDirectoryURL = repository
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        // Standard input is written and standard error read on threads of their own: a tool that fills one pipe
        // while the test waits on another would otherwise wait forever (a failing test must fail, not hang).
        let writing = stdin.map { bytes in
            Background { () throws in
                input.fileHandleForWriting.write(Data(bytes))
                try input.fileHandleForWriting.close()
                return Data()
            }
        }
        let stderr = Background { errors.fileHandleForReading.readDataToEndOfFile() }
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        _ = try writing?.result()
        return Result(
            status: process.terminationStatus, stdout: [UInt8](stdout),
            stderr: String(decoding: try stderr.result(), as: UTF8.self))
    }

    /// Work done on a thread of its own, its result waited for.
    final class Background: @unchecked Sendable {
        private let done = DispatchSemaphore(value: 0)
        private var outcome: Swift.Result<Data, any Error> = .success(Data())

        init(_ work: @escaping @Sendable () throws -> Data) {
            Thread.detachNewThread { [self] in
                outcome = Swift.Result { try work() }
                done.signal()
            }
        }

        /// The work's result, once it has finished.
        func result() throws -> Data {
            done.wait()
            return try outcome.get()
        }
    }
}

@Suite("firepack tool", .serialized)
struct ToolTests {
    private let folder = TemporaryFolder("tool")
    var directory: URL { folder.url }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The books fixture as documents, to compare conversions against.
    func expectedBooks() throws -> [Document] {
        let value = try Value(json: Data(contentsOf: Tool.repository.appendingPathComponent("Fixtures/books.json")))
        guard case .array(let elements) = value else { return [] }
        return try elements.map { element in
            guard case .map(var fields) = element, case .string(let id)? = fields["id"] else { throw FirePackError(.invalidValue, "fixture") }
            fields["id"] = nil
            return Document(reference: try DocumentReference(path: "books/\(id)"), fields: fields)
        }
    }

    /// Reads any document file back through the tool (as firestore-json lines) into documents.
    func documents(in file: String) throws -> [Document] {
        let naming = file.contains(".jsonl") ? ["--collection", "books", "--id-field", "id"] : []
        let result = try Tool.run(["convert", file, "-", "--to", "firestore-json"] + naming)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.text.split(separator: "\n").map { try Document(firestoreJSON: Array($0.utf8)) }
    }

    static let extensions = ["fpks", "jsonl", "firestore.json", "pb", "fpks.gz", "jsonl.gz", "firestore.json.gz", "pb.gz"]

    @Test("every stream format pair, with and without gzip, keeps every document", arguments: extensions)
    func formatPairs(from source: String) throws {
        let books = try expectedBooks()
        let first = path("books-source.\(source)")
        let made = try Tool.run(["convert", "Fixtures/books.json", first, "--collection", "books", "--id-field", "id", "--quiet"])
        #expect(made.status == 0, "\(made.stderr)")
        for target in Self.extensions {
            let second = path("books-\(source.replacingOccurrences(of: ".", with: "-")).\(target)")
            // Plain JSON lines carry the ID in "id"; reading them back needs the collection and the field.
            let naming = source.hasPrefix("jsonl") ? ["--collection", "books", "--id-field", "id"] : []
            let converted = try Tool.run(["convert", first, second, "--quiet"] + naming)
            #expect(converted.status == 0, "\(source) → \(target): \(converted.stderr)")
            #expect(try documents(in: second) == books, "\(source) → \(target)")
        }
    }

    /// An output option the output does not use is refused, not dropped without a word.
    @Test func outputOptionsThatDoNotApplyAreRefused() throws {
        for (arguments, message) in [
            (["--to", "jsonl", "--codec", "none"], "--codec applies to fpks output, not jsonl"),
            (["--to", "json", "--block-size", "4096"], "--block-size applies to fpks output, not json"),
            (["--to", "fpks", "--fpk-version", "1"], "--fpk-version applies to fpk output, not fpks"),
            (["--to", "fpk", "--stream-version", "2"], "--stream-version applies to fpks output, not fpk"),
            (["--to", "fpks", "--stream-version", "2", "--block-size", "100"], "apply to version-3 streams"),
        ] {
            let result = try Tool.run(["convert", "Fixtures/books.fpks", "-"] + arguments)
            #expect(result.status == 2 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        for arguments in [["--to", "fpks", "--codec", "none", "--block-size", "4096"], ["--to", "fpk", "--fpk-version", "1"],
                          ["--to", "fpks", "--stream-version", "2"]] {
            let result = try Tool.run(["convert", "Fixtures/books.fpks", "-"] + arguments)
            #expect(result.status == 0 && !result.stdout.isEmpty, "\(arguments): \(result.stderr)")
        }
    }

    /// JSON lines into a stream take the direct path (no tree); `--resolve-server-timestamps` forces the tree path,
    /// which must write the same bytes when no line holds a server timestamp, and report the same errors.
    @Test func jsonLinesToAStreamWriteWhatTheTreePathWrites() throws {
        var lines = [
            #"{"title":"Dune","pages":412,"published":{"__timestamp__":"1965-08-01T00:00:00Z"},"__name__":"books/dune"}"#,
            #"{"__name__":"books/first","tags":[{"t":"a"},{"t":"b"}],"id":"not the id"}"#,
            #"{"k\n":"escaped key","__name__":"books/escaped"}"#,
            #"{"__name__":{"__reference__":"books/by-reference"},"x":[1,2.5,-0.0,null,true]}"#,
            #"{"m":{"__map__":{"__bytes__":"AAE="}},"g":{"__geopoint__":[1.5,-2]},"d":{"__double__":"NaN"},"__name__":"books/markers"}"#,
            #"  {"id":"spaced","nested":{"__name__":"not the document's","deep":{"a":{"b":{"c":1}}}}, "__name__" : "books/spaced" }  "#,
            "",
        ]
        for index in 0..<300 { lines.append(#"{"title":"Book \#(index)","n":\#(index),"t":{"__timestamp__":"2020-01-01T00:00:0\#(index % 10)Z"},"__name__":"books/b\#(index)"}"#) }
        let input = path("mixed.jsonl")
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: input))
        for extra in [[String](), ["--id-field", "id", "--generate-missing-ids", "--collection", "c"]] {
            let direct = try Tool.run(["convert", input, path("direct.fpks"), "--quiet"] + extra)
            let tree = try Tool.run(["convert", input, path("tree.fpks"), "--quiet", "--resolve-server-timestamps", "now"] + extra)
            #expect(direct.status == 0 && tree.status == 0, "\(direct.stderr) \(tree.stderr)")
            if extra.isEmpty {
                #expect(try Data(contentsOf: URL(fileURLWithPath: path("direct.fpks"))) == Data(contentsOf: URL(fileURLWithPath: path("tree.fpks"))))
                // And back: a stream into JSON lines is written from the records' bytes, the same text as through
                // trees (a `.fpk` file's documents are read as trees).
                let single = try Tool.run(["convert", path("direct.fpks"), "-", "--to", "fpk"])
                #expect(single.status == 0, "\(single.stderr)")
                for form in [[String](), ["--plain"], ["--id-field", "id"]] {
                    let back = try Tool.run(["convert", path("direct.fpks"), "-", "--to", "jsonl"] + form)
                    let backTree = try Tool.run(["convert", "-", "-", "--from", "fpk", "--to", "jsonl"] + form, stdin: single.stdout)
                    if form.contains("--id-field") {
                        // books/first holds a field "id" of its own, which the ID would write over: refused on both.
                        #expect(back.status == 1 && backTree.status == 1)
                        // The same refusal, of the stream's record or of the file's element.
                        for refused in [back.stderr, backTree.stderr] {
                            #expect(refused.contains(#"document books/first has a field "id""#), "\(refused)")
                        }
                        continue
                    }
                    #expect(back.status == 0 && back.stdout == backTree.stdout && back.stdout.count > 10_000, "\(back.stderr)")
                }
            } else {
                // Generated IDs differ run to run: compare the documents with the spaced line's (given) ID.
                let read = { (file: String) throws -> [Document] in try DocumentStreamReader(source: FileSource(path: self.path(file))).documents.map { $0 } }
                let (directDocuments, treeDocuments) = (try read("direct.fpks"), try read("tree.fpks"))
                #expect(directDocuments.count == treeDocuments.count && directDocuments.count == lines.count - 1)
                #expect(zip(directDocuments, treeDocuments).allSatisfy { $0.fields == $1.fields })
            }
        }
        // A bad line: the same message on both paths, and no output file.
        try Data((lines.prefix(3) + [#"{"a":1,"a":2,"__name__":"books/dup"}"#]).joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: input))
        let direct = try Tool.run(["convert", input, path("bad-direct.fpks"), "--quiet"])
        let tree = try Tool.run(["convert", input, path("bad-tree.fpks"), "--quiet", "--resolve-server-timestamps", "now"])
        #expect(direct.status != 0 && direct.stderr == tree.stderr.replacingOccurrences(of: "bad-tree", with: "bad-direct"))
        #expect(direct.stderr.contains("line 4") && direct.stderr.contains("appears twice"))
        #expect(!FileManager.default.fileExists(atPath: path("bad-direct.fpks")))
    }

    @Test func singleValueFormatsAndBack() throws {
        let fixture = try Value(json: Data(contentsOf: Tool.repository.appendingPathComponent("Fixtures/books.json")))
        for (a, b) in [("fpk", "json"), ("json", "fpk"), ("fpk.gz", "json.gz"), ("fpk", "fpks"), ("fpks", "json")] {
            let first = path("single.\(a)"), second = path("single2.\(b)")
            #expect(try Tool.run(["convert", "Fixtures/books.json", first, "--collection", "books"]).status == 0)
            #expect(try Tool.run(["convert", first, second, "--collection", "books"]).status == 0)
            let back = try Tool.run(["convert", second, "-", "--to", "json", "--collection", "books"])
            #expect(back.status == 0, "\(back.stderr)")
            let value = try Value(json: back.stdout)
            if a == "fpks" || b == "fpks" {
                // Through a stream, each object becomes a document whose path is kept in __name__.
                guard case .array(let elements) = value else { Issue.record("not an array"); continue }
                #expect(elements.count == 5)
                #expect(elements.allSatisfy { $0["__name__"] != nil })
            } else {
                #expect(value == fixture, "\(a) → \(b)")
            }
        }
    }

    @Test func standardInputAndOutput() throws {
        let fpk = try Tool.run(["convert", "-", "-", "--from", "json", "--to", "fpk"], stdin: Array(#"{"a": [1, 2.5, "x"]}"#.utf8))
        #expect(fpk.status == 0 && fpk.stdout.prefix(5) == [0x89, 0x46, 0x50, 0x4B, 0x03])
        // Version 1 for readers that predate version 3: 2.5 in binary32 (C7) rather than decimal (D5 01 19).
        let fpk1 = try Tool.run(
            ["convert", "-", "-", "--from", "json", "--to", "fpk", "--fpk-version", "1"], stdin: Array(#"{"a": [2.5]}"#.utf8))
        #expect(fpk1.status == 0 && fpk1.stdout.map { String(format: "%02X", $0) }.joined(separator: " ") == "89 46 50 4B 01 B1 09 02 61 A1 05 C7 00 00 20 40")
        let fpk3 = try Tool.run(["convert", "-", "-", "--from", "json", "--to", "fpk"], stdin: Array(#"{"a": [2.5]}"#.utf8))
        #expect(fpk3.stdout.map { String(format: "%02X", $0) }.joined(separator: " ") == "89 46 50 4B 03 B1 07 02 61 A1 03 D5 01 19")
        #expect(try Tool.run(["convert", "-", "-", "--from", "json", "--to", "fpk", "--fpk-version", "2"], stdin: []).status != 0)
        let json = try Tool.run(["convert", "-", "-", "--from", "fpk", "--to", "json"], stdin: fpk.stdout)
        #expect(try Value(json: json.stdout) == ["a": [1, 2.5, "x"]])
        let lines = try Tool.run(["convert", "-", "-", "--from", "jsonl", "--to", "fpks", "--collection", "c", "--id-field", "k"],
                                 stdin: Array("{\"k\": \"one\", \"v\": 1}\n{\"k\": \"two\", \"v\": 2}\n".utf8))
        let back = try Tool.run(["convert", "-", "-", "--from", "fpks", "--to", "firestore-json"], stdin: lines.stdout)
        #expect(back.text.contains(#""name":"c/one""#) && back.text.contains(#""name":"c/two""#))
    }

    @Test("a progress bar on a terminal for inputs over a few MB; none with --quiet or in a pipe")
    func progressBar() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            print("/usr/bin/script is absent: the progress-bar test needs it for a pseudo-terminal; skipped")
            return
        }
        let lines = (0..<60_000).map { #"{"id": "b\#($0)", "title": "A book with a title long enough", "pages": \#($0)}"# }
        let input = path("big.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
        func onTerminal(_ extra: String, columns: Int = 120, input: String = input) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qec", "stty cols \(columns); \(Tool.binary.path) convert \(input) \(path("big.fpks")) --collection b --id-field id \(extra)", "/dev/null"]
            let output = Pipe()
            process.standardOutput = output
            process.standardInput = FileHandle.nullDevice
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text
        }
        let shown = try onTerminal("")
        #expect(shown.contains("100%") && shown.contains("60000 records") && shown.contains("MB/s"), "\(shown)")
        // A finished conversion ends with one summary line: records, bytes in and out, time, rate.
        #expect(shown.contains("60000 record(s): ") && shown.contains("MB out to"), "\(shown)")
        // On a narrow terminal every redraw fits on one line.
        let narrow = try onTerminal("", columns: 40)
        let redraws = narrow.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\r").map { $0.replacingOccurrences(of: "\u{1B}[K", with: "") }
            .filter { $0.hasPrefix("[") }
        #expect(!redraws.isEmpty && redraws.allSatisfy { ($0.split(separator: "\n").first ?? "").count < 40 }, "\(redraws)")
        // Compressed input is labelled as such.
        #expect(try Tool.run(["convert", input, path("big.jsonl.gz"), "--collection", "b", "--id-field", "id", "--quiet"]).status == 0)
        let compressed = try onTerminal("", input: path("big.jsonl.gz"))
        #expect(compressed.contains("60000 record(s): ") && compressed.contains("MB compressed in"), "\(compressed)")
        #expect(try onTerminal("--quiet").isEmpty)
        let piped = try Tool.run(["convert", input, path("big2.fpks"), "--collection", "b", "--id-field", "id"])
        #expect(piped.status == 0 && piped.stderr.isEmpty)
    }

    @Test func oneDocumentIsOneProtobufMessage() throws {
        let single = try Tool.run(["convert", "-", "-", "--from", "json", "--to", "firestore-proto", "--collection", "c", "--id-field", "id"],
                                  stdin: Array(#"{"id": "x", "n": 1}"#.utf8))
        let document = try Document(firestoreProto: single.stdout)
        #expect(document.reference.path == "c/x" && document.fields == ["n": 1])
        let back = try Tool.run(["convert", "-", "-", "--from", "firestore-proto", "--to", "firestore-json"], stdin: single.stdout)
        #expect(back.text == #"{"name":"c/x","fields":{"n":{"integerValue":"1"}}}"# + "\n")
    }

    @Test func generatedIDsAndServerTimestamps() throws {
        let result = try Tool.run(["convert", "Fixtures/articles.json", "-", "--to", "firestore-json", "--collection", "posts",
                                   "--resolve-server-timestamps", "2024-05-06T07:08:09Z"])
        #expect(result.status == 0, "\(result.stderr)")
        let documents = try result.text.split(separator: "\n").map { try Document(firestoreJSON: Array($0.utf8)) }
        #expect(documents.count == 4)
        #expect(documents.allSatisfy { $0.reference.parent.path == "posts" && $0.reference.documentID.count == 20 })
        #expect(documents[1].fields["createdAt"] == .timestamp(try Timestamp(rfc3339: "2024-05-06T07:08:09Z")))
        #expect(try Tool.run(["convert", "Fixtures/articles.json", "-", "--to", "json", "--resolve-server-timestamps", "yesterday"]).status == 2)
    }

    @Test func aDamagedRecordInTheMiddleCostsOnlyItself() throws {
        let stream = path("generated.fpks")
        // Version 2, a record per document: one flipped byte costs one document (version 3: BlockStreamToolTests).
        #expect(try Tool.run(["convert", "Fixtures/generated-books.json", stream, "--collection", "books", "--id-field", "id", "--quiet",
                              "--stream-version", "2"]).status == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: stream)))
        bytes[bytes.count / 2] ^= 0x5A
        let damaged = path("damaged.fpks")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        // All or nothing: the damaged record is reported and no output file is written.
        let converted = try Tool.run(["convert", damaged, path("recovered.jsonl"), "--quiet"])
        #expect(converted.status == 1)
        #expect(converted.stderr.contains("record ") && converted.stderr.contains("at byte ") && converted.stderr.contains("not written"),
                "\(converted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("recovered.jsonl")))
        // Standard output has had the intact records as they came, the last ones (held in its buffer) included,
        // in every output format.
        for (format, count) in [("jsonl", 2_999), ("firestore-json", 2_999)] {
            let piped = try Tool.run(["convert", damaged, "-", "--to", format])
            #expect(piped.status == 1 && piped.stderr.contains("2999 intact record(s) converted"), "\(piped.stderr)")
            #expect(piped.text.split(separator: "\n").count == count, "\(format)")
        }
        let streamed = try Tool.run(["convert", damaged, "-", "--to", "fpks"])
        #expect(streamed.status == 1)
        let piped = try DocumentStreamReader(source: MemorySource(streamed.stdout))
        var pipedCount = 0
        while try piped.next() != nil { pipedCount += 1 }
        // Every intact record, and no close record: its readers see the conversion did not finish.
        #expect(pipedCount == 2_999)
        if case .notClosed = piped.completion {} else { Issue.record("\(String(describing: piped.completion))") }
        let validate = try Tool.run(["validate", damaged])
        #expect(validate.status == 1)
        // --repair keeps every intact record (2,999 of 3,000) in a closed stream, which then converts.
        let repaired = path("repaired.fpks")
        #expect(try Tool.run(["validate", damaged, "--repair", repaired]).status == 1)
        let check = try Tool.run(["validate", repaired])
        #expect(check.status == 0 && check.text.contains("2999 document(s), closed"), "\(check.text)")
        #expect(try Tool.run(["convert", repaired, path("recovered.jsonl"), "--quiet"]).status == 0)
        let lines = try String(contentsOfFile: path("recovered.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2_999)
        // A torn last record (a crash mid-append) is found and cut off by --repair.
        try Data(bytes.dropLast(DocumentStreamFormat.closeRecordLength + 3)).write(to: URL(fileURLWithPath: damaged))
        let torn = try Tool.run(["validate", damaged])
        #expect(torn.status == 1 && torn.stderr.contains("a torn last record"), "\(torn.stderr)")
    }

    /// A stream into a `.fpk`: each record copied from its bytes into the open array, with its naming member; the bytes
    /// of the documents' plain values written as one array (what the tool wrote from a tree of every document).
    @Test func aStreamIntoAnFpkIsItsDocumentsPlainValues() throws {
        let timed = path("timed.fpks")
        let writer = try DocumentStreamWriter(sink: FileSink(path: timed))
        try writer.write(Document(reference: try DocumentReference(path: "books/t"), fields: ["id": "t", "n": 1],
                                  createTime: Timestamp(seconds: 5, nanoseconds: 0)))
        try writer.write(Document(reference: try DocumentReference(path: "books/u"), fields: ["id": "u", "v": [[1.5]]]))
        // Both times after the fields; a field named like a time member the document does not have (the tree's).
        try writer.write(Document(reference: try DocumentReference(path: "books/w"), fields: ["id": "w"],
                                  createTime: Timestamp(seconds: 5, nanoseconds: 1), updateTime: Timestamp(seconds: 6, nanoseconds: 0)))
        try writer.write(Document(reference: try DocumentReference(path: "books/x"), fields: ["id": "x", "__update_time__": 7]))
        try writer.close()
        // Pending server timestamps given a time (through the document, resolved).
        let pending = path("pending.fpks")
        let pendingWriter = try DocumentStreamWriter(sink: FileSink(path: pending))
        try pendingWriter.write(Document(reference: try DocumentReference(path: "books/p"),
                                         fields: ["at": .serverTimestamp, "list": [1, .serverTimestamp]], createTime: Timestamp(seconds: 5, nanoseconds: 0)))
        try pendingWriter.write(Document(reference: try DocumentReference(path: "books/q"), fields: ["n": 1]))
        try pendingWriter.close()
        let time = "2026-01-02T03:04:05.123456789Z"
        for (input, options) in [("Fixtures/generated-books.fpks", []), ("Fixtures/books.fpks", ["--id-field", "id"]),
                                 (timed, []), (timed, ["--id-field", "id", "--keep-id-field"]), (timed, ["--fpk-version", "1"]),
                                 (pending, ["--resolve-server-timestamps", time]), (pending, [])] {
            let output = path("out.fpk")
            let converted = try Tool.run(["convert", input, output, "--quiet"] + options)
            #expect(converted.status == 0, "\(input) \(options): \(converted.stderr)")
            let naming = DocumentNaming(collection: "", idField: options.contains("id") ? "id" : nil,
                                        keepsIDField: options.contains("--keep-id-field"), collectionIsGiven: false)
            var documents = try StreamDocuments(DocumentStreamReader(source: FileSource(path: input))).readAll()
            if options.contains(time) { documents = documents.map { $0.resolvingServerTimestamps(at: try! Timestamp(rfc3339: time)) } }
            let expected = FirePackWriter(options: .init(formatVersion: options.contains("1") ? 1 : 3))
            expected.writeFileHeader()
            expected.write(.array(try documents.map { try naming.value(of: $0) }))
            #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: output))) == expected.takeBytes(), "\(input) \(options)")
        }
    }

    @Test func corruptAndTruncatedInputsGiveOneClearLine() throws {
        let fpk = path("books.fpk")
        #expect(try Tool.run(["convert", "Fixtures/books.json", fpk]).status == 0)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fpk)))
        bytes.removeLast(40)
        try Data(bytes).write(to: URL(fileURLWithPath: fpk))
        for arguments in [["validate", fpk], ["convert", fpk, path("x.json")], ["inspect", fpk], ["stats", fpk]] {
            let result = try Tool.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("at byte") && lines[0].hasPrefix("firepack: "), "\(arguments): \(result.stderr)")
        }
        try Data("{\"a\": [1, }".utf8).write(to: URL(fileURLWithPath: path("bad.json")))
        let json = try Tool.run(["validate", path("bad.json")])
        #expect(json.status == 1 && json.stderr.contains("at byte 10"), "\(json.stderr)")
        let gz = path("bad.json.gz")
        try Data([0x1F, 0x8B, 0x08, 0x00, 1, 2, 3]).write(to: URL(fileURLWithPath: gz))
        #expect(try Tool.run(["validate", gz]).status == 1)
        #expect(try Tool.run(["validate", path("missing.fpk")]).status == 1)
    }

    @Test func usageErrorsExitWithTwo() throws {
        #expect(try Tool.run(["convert", "README.md", path("b.fpk")]).status == 2)   // neither the name nor the bytes tell
        #expect(try Tool.run(["nonsense"]).status == 2)
        #expect(try Tool.run(["validate", "Fixtures/books.json", "--repair", "x.fpks"]).status == 2)
        #expect(try Tool.run(["inspect", "Fixtures/books.fpk", "--record", "1"]).status == 2)
    }

    @Test func inspectValidateAndStats() throws {
        let tree = try Tool.run(["inspect", "Fixtures/offices.fpk"])
        #expect(tree.status == 0 && tree.text.contains("location: geopoint (37.422, -122.084)"))
        let field = try Tool.run(["inspect", "Fixtures/books.fpk", "--path", "[1].cover.small"])
        #expect(field.text == "string \"https://covers.example/dune-s.jpg\"\n")
        // Control characters from the data (a line break, an escape sequence in a key) are shown escaped in the
        // tool's messages: no input forges a line of the report or drives the terminal.
        try Data(#"{"__name__": "c/d", "__a\nfirepack: forged\u001b[2J__": 1}"#.utf8).write(to: URL(fileURLWithPath: path("forged.jsonl")))
        let forged = try Tool.run(["validate", path("forged.jsonl"), "--firestore-limits"])
        #expect(forged.status == 1 && forged.stderr.contains(#"__a\u{A}firepack: forged\u{1B}[2J__"#), "\(forged.stderr)")
        #expect(!forged.stderr.contains("\u{1B}") && !forged.stderr.split(separator: "\n").contains { $0.hasPrefix("firepack: forged") },
                "\(forged.stderr)")
        // A path that does not parse is a usage error (2), before any reading.
        let malformed = try Tool.run(["inspect", "Fixtures/books.fpk", "--path", "[1"])
        #expect(malformed.status == 2 && malformed.stderr.contains("--path: ") && malformed.stderr.contains("'[' without ']'"),
                "\(malformed.stderr)")
        let offsets = try Tool.run(["inspect", "Fixtures/offices.fpk", "--offsets"])
        #expect(offsets.text.contains("@5 [A5] array (5)"))
        // Elements and rows of packed arrays have no tag in the bytes: shown as packed, not as a tag they lack.
        try Data(#"{"r":[300,400,500,600],"rows":[[1],[2],[3]]}"#.utf8).write(to: URL(fileURLWithPath: path("packed.json")))
        #expect(try Tool.run(["convert", path("packed.json"), path("packed.fpk")]).status == 0)
        let packed = try Tool.run(["inspect", path("packed.fpk"), "--offsets"])
        #expect(packed.status == 0 && packed.text.contains("@12 (packed) [0]: integer 300") && packed.text.contains("(packed row) [0]: array (1)")
                && !packed.text.contains("[C6]"), "\(packed.text)")
        let limits = try Tool.run(["validate", "Fixtures/articles.json", "--firestore-limits"])
        #expect(limits.status == 0 && limits.text.contains("within Firestore's limits"))
        try Data(#"[{"__reserved__": 1, "nested": [[1]]}]"#.utf8).write(to: URL(fileURLWithPath: path("limits.json")))
        let broken = try Tool.run(["validate", path("limits.json"), "--firestore-limits"])
        #expect(broken.status == 1 && broken.stderr.contains("reserved") && broken.stderr.contains("array directly inside an array"))
        let stats = try Tool.run(["stats", "Fixtures/generated-books.json"])
        #expect(stats.status == 0 && stats.text.contains("FirePack + gzip") && stats.text.contains("minified JSON"))
        // Keys are told apart by their bytes, as FirePack's maps tell them apart ("é" and "e" + U+0301 are two), and
        // a key repeated by reference is counted once.
        try Data("[{\"\u{E9}\": 1, \"e\u{301}\": 2}, {\"\u{E9}\": 3}]".utf8).write(to: URL(fileURLWithPath: path("keys.json")))
        #expect(try Tool.run(["convert", path("keys.json"), path("keys.fpk")]).status == 0)
        for file in ["keys.json", "keys.fpk"] {
            let keys = try Tool.run(["stats", path(file)])
            #expect(keys.status == 0 && keys.text.contains("keys: 3 written, 2 distinct"), "\(file): \(keys.text)")
        }
        // A `.fpk` is measured from its bytes, a JSON file from its tree: the same data, the same figures.
        for name in ["books", "offices", "generated-books"] {
            let fromTree = try Tool.run(["stats", "Fixtures/\(name).json"])
            let fromBytes = try Tool.run(["stats", "Fixtures/\(name).fpk"])
            #expect(fromBytes.status == 0, "\(fromBytes.stderr)")
            #expect(fromTree.text.split(separator: "\n").dropFirst() == fromBytes.text.split(separator: "\n").dropFirst(), "\(name)")
        }
    }

    @Test func validateChecksEveryKeyTableEntryAndCanonicalBytes() throws {
        let canonical = try Tool.run(["validate", "Fixtures/books.fpk", "--canonical"])
        #expect(canonical.status == 0 && canonical.text.contains("canonical"), "\(canonical.stderr)")
        // 5 as int8 (C3 05) instead of the tag-embedded 05: valid, not canonical.
        try Data([0x89, 0x46, 0x50, 0x4B, 0x01, 0xC3, 0x05]).write(to: URL(fileURLWithPath: path("long.fpk")))
        #expect(try Tool.run(["validate", path("long.fpk")]).status == 0)
        let long = try Tool.run(["validate", path("long.fpk"), "--canonical"])
        #expect(long.status == 1 && long.stderr.contains("not canonical from byte 5"), "\(long.stderr)")
        // A key-table entry pointing into a string's bytes: decodes, but whole-file validation rejects it.
        let intoString: [UInt8] = [0x89, 0x46, 0x50, 0x4B, 0x01, 0xA2, 0x10, 0xB1, 0x04, 0x04, 0x69, 0x64, 0x01, 0xB2, 0x08, 0x01, 0x02,
                                   0x02, 0x78, 0x83, 0x04, 0x61, 0x62, 0xD3, 0x02, 0x01, 0x04, 0x0F]
        try Data(intoString).write(to: URL(fileURLWithPath: path("table.fpk")))
        let table = try Tool.run(["validate", path("table.fpk")])
        #expect(table.status == 1 && table.stderr.contains("badKeyTable") && table.stderr.contains("27"), "\(table.stderr)")
        #expect(try Tool.run(["validate", "Fixtures/books.json", "--canonical"]).status == 2)
        let stream = try Tool.run(["validate", "Fixtures/books.fpks", "--canonical"])
        #expect(stream.status == 0 && stream.text.contains("canonical"), "\(stream.stderr)")

        // A version-3 stream's documents have no key references (Docs/FORMAT.md §8); a version-2 stream's records
        // keep §3's. Each is canonical as the tool writes it.
        let repeats = #"{"id": "a", "tags": [{"key": 1, "value": "x"}, {"key": 2, "value": "y"}]}"# + "\n"
        try Data(repeats.utf8).write(to: URL(fileURLWithPath: path("repeats.jsonl")))
        for version in [3, 2] {
            let output = path("repeats-\(version).fpks")
            let converted = try Tool.run([
                "convert", path("repeats.jsonl"), output, "--collection", "c", "--id-field", "id",
                "--stream-version", "\(version)", "--quiet",
            ])
            #expect(converted.status == 0, "\(converted.stderr)")
            let checked = try Tool.run(["validate", output, "--canonical"])
            #expect(checked.status == 0 && checked.text.contains("canonical"), "\(checked.stderr)")
            let reader = try DocumentStreamReader(
                source: MemorySource(Array(try Data(contentsOf: URL(fileURLWithPath: output)))))
            let record = try #require(try reader.nextRecord())
            #expect(record.payload.contains(0xD3) == (version == 2), "a key table in version \(version)")
        }
        // The same document with a key reference in a version-3 stream: read, valid, not canonical.
        let document = try #require(try DocumentStreamReader(source: MemorySource(
            Array(try Data(contentsOf: URL(fileURLWithPath: path("repeats-3.fpks")))))).next()?.document)
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink)
        try document.firePackBytes().withUnsafeBytes { try writer.append(encodedDocument: $0) }
        try writer.close()
        try Data(sink.bytes).write(to: URL(fileURLWithPath: path("referenced.fpks")))
        #expect(try Tool.run(["validate", path("referenced.fpks")]).status == 0)
        let referenced = try Tool.run(["validate", path("referenced.fpks"), "--canonical"])
        #expect(
            referenced.status == 1 && referenced.stderr.contains("not canonical from byte")
                && referenced.stderr.contains("key reference"), "\(referenced.stderr)")
    }

    static let fixtureNames: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: Tool.repository.appendingPathComponent("Fixtures").path)) ?? []
        return files.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".firestore.json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    @Test("committed .fpks and .firestore.json fixtures match what scripts/generate/generate-fixtures.sh makes", arguments: fixtureNames)
    func fixturesInSync(name: String) throws {
        let stream = path("\(name).fpks")
        #expect(try Tool.run(["convert", "Fixtures/\(name).json", stream, "--collection", name, "--id-field", "id", "--quiet"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: stream)) == Data(contentsOf: Tool.repository.appendingPathComponent("Fixtures/\(name).fpks")),
                "Fixtures/\(name).fpks is out of date: run scripts/generate/generate-fixtures.sh")
        let committedREST = Tool.repository.appendingPathComponent("Fixtures/\(name).firestore.json")
        guard FileManager.default.fileExists(atPath: committedREST.path) else { return }
        let rest = path("\(name).firestore.json")
        #expect(try Tool.run(["convert", "Fixtures/\(name).json", rest, "--collection", name, "--id-field", "id",
                              "--resolve-server-timestamps", "2024-01-01T00:00:00Z"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: rest)) == Data(contentsOf: committedREST),
                "Fixtures/\(name).firestore.json is out of date: run scripts/generate/generate-fixtures.sh")
    }

    @Test func benchPrintsATableAndAChart() throws {
        let chart = path("bench.svg")
        let result = try Tool.run(["bench", "Fixtures/offices.json", "Fixtures/colors.json", "--runs", "3", "--svg", chart])
        #expect(result.status == 0, "\(result.stderr)")
        for path in ["FirePack", "JSON", "JSONSerialization", "dictionary"] { #expect(result.text.contains(path)) }
        #expect(result.text.contains("offices.json") && result.text.contains("×FirePack") && result.text.contains("gzip"))
        let svg = try String(contentsOfFile: chart, encoding: .utf8)
        #expect(svg.hasPrefix("<svg") && svg.contains("MB/s") && svg.components(separatedBy: "<rect").count == 1 + 2 * 2 * 4)
        #expect(try Tool.run(["bench", "--runs", "0"]).status == 2)
    }

    @Test("every subcommand has help with examples", arguments: ["convert", "inspect", "validate", "stats", "schema", "bench"])
    func help(subcommand: String) throws {
        let result = try Tool.run([subcommand, "--help"])
        #expect(result.status == 0 && result.text.contains("Examples:"))
        let topic = try Tool.run(["help", subcommand])
        #expect(topic.status == 0 && topic.text == result.text)
    }

    @Test("shell completion scripts (README) know every subcommand and its options", arguments: ["bash", "zsh", "fish"])
    func completion(shell: String) throws {
        let result = try Tool.run(["--generate-completion-script", shell])
        #expect(result.status == 0)
        for word in ["convert", "inspect", "validate", "stats", "schema", "bench", "max-problems", "firestore-limits"] {
            #expect(result.text.contains(word), "\(shell) completion lacks \(word)")
        }
    }
}
