import FirePackTestSupport
import Foundation
import Testing
import FirePack
import FirePackInterop
import FirePackStreams
#if canImport(Glibc)
import Glibc
#endif

/// The tool never damages what was there and never reports as complete what is not: each case runs the built binary.
@Suite("firepack tool: nothing lost", .serialized)
struct NothingLostTests {
    private let folder = TemporaryFolder("safe")
    var directory: URL { folder.url }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }
    func write(_ text: String, to name: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path(name))) }
    func copyFixture(_ fixture: String, to name: String) throws {
        try FileManager.default.copyItem(atPath: Tool.repository.appendingPathComponent(fixture).path, toPath: path(name))
    }
    /// Files in the test folder, temporary ones included.
    func files() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: directory.path)) }

    func documentCount(_ stream: String) throws -> Int {
        let reader = try DocumentStreamReader(source: FileSource(path: path(stream)))
        var count = 0
        while try reader.next() != nil { count += 1 }
        return count
    }

    @Test func writingOverTheInputIsRefused() throws {
        try copyFixture("Fixtures/books.fpks", to: "same.fpks")
        let original = try bytes("same.fpks")
        try Tool.run(["convert", path("same.fpks"), path("same.jsonl"), "--collection", "books", "--id-field", "id"])
        for arguments in [["convert", path("same.jsonl"), path("same.jsonl"), "--collection", "books", "--id-field", "id"],
                          ["convert", path("same.fpks"), path("same.fpks")],
                          ["convert", path("same.fpks"), directory.path + "/./sub/../same.fpks"],
                          ["validate", path("same.fpks"), "--repair", path("same.fpks")]] {
            let result = try Tool.run(arguments)
            #expect(result.status == 2 && result.stderr.contains("is the input file"), "\(arguments): \(result.stderr)")
        }
        // The same file under another name (a hard link) is found by device and inode.
        try FileManager.default.linkItem(atPath: path("same.fpks"), toPath: path("link.fpks"))
        #expect(try Tool.run(["convert", path("same.fpks"), path("link.fpks")]).status == 2)
        #expect(try bytes("same.fpks") == original)
        #expect(try files() == ["same.fpks", "same.jsonl", "link.fpks"])
        // Standard input open on the output file (`- < same.fpks`) is the same file too.
        for arguments in [["validate", "-", "--repair", path("same.fpks")], ["convert", "-", path("same.fpks"), "--from", "fpks"]] {
            let result = try Tool.run(["-c", "exec \"$0\" \"$@\" < '\(path("same.fpks"))'", Tool.binary.path] + arguments,
                                      executable: "/bin/bash")
            #expect(result.status == 2 && result.stderr.contains("is the file standard input reads"), "\(arguments): \(result.stderr)")
        }
        #expect(try bytes("same.fpks") == original)
        // --in-place replaces the input once the new contents are complete: nothing is lost.
        let inPlace = try Tool.run(["convert", path("same.fpks"), path("same.fpks"), "--in-place", "--quiet"])
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        #expect(try documentCount("same.fpks") == 5)
        let repaired = try Tool.run(["validate", path("same.jsonl"), "--from", "jsonl", "--repair", path("same.jsonl")])
        #expect(repaired.status == 2)   // --repair is for streams: still a usage error, the file untouched
        #expect(try Tool.run(["validate", path("same.fpks"), "--repair", path("same.fpks"), "--in-place"]).status == 0)
        #expect(try documentCount("same.fpks") == 5)
        // A repaired copy is a stream: a name that says another format is refused, not written as a stream.
        let misnamed = try Tool.run(["validate", path("same.fpks"), "--repair", path("repaired.jsonl")])
        #expect(misnamed.status == 2 && misnamed.stderr.contains("names jsonl"), "\(misnamed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("repaired.jsonl")))
    }

    /// A big JSON-lines input that takes a debug build a few seconds to convert.
    func bigInput() throws -> String {
        let name = "big.jsonl"
        if FileManager.default.fileExists(atPath: path(name)) { return path(name) }
        var text = ""
        text.reserveCapacity(40 << 20)
        for index in 0..<400_000 { text += #"{"id": "b\#(index)", "title": "A book with a title long enough", "pages": \#(index)}"# + "\n" }
        try write(text, to: name)
        return path(name)
    }

    @Test("SIGINT, SIGTERM, SIGHUP and SIGQUIT mid-conversion leave the old destination and no temporary file",
          arguments: [("out.fpks", SIGINT, Int32(130)), ("out.jsonl.gz", SIGINT, 130), ("out.json", SIGTERM, 143),
                      ("out.fpks", SIGHUP, 129), ("out.jsonl", SIGQUIT, 131)])
    func interruptedConversions(destination: String, signal: Int32, status: Int32) throws {
        let input = try bigInput()
        try copyFixture("Fixtures/books.fpks", to: "old")
        try FileManager.default.moveItem(atPath: path("old"), toPath: path(destination))
        let old = try bytes(destination)
        let before = try files()
        let process = Process()
        process.executableURL = Tool.binary
        process.arguments = ["convert", input, path(destination), "--collection", "b", "--id-field", "id"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait until the conversion is under way (its temporary file exists), then interrupt it.
        let deadline = Date().addingTimeInterval(20)
        while try files().count == before.count && Date() < deadline { usleep(20_000) }
        usleep(300_000)
        kill(process.processIdentifier, signal)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == status, "\(stderr)")
        #expect(stderr.contains("interrupted by SIG") && stderr.contains(" record(s)") && stderr.split(separator: "\n").count == 1, "\(stderr)")
        #expect(try bytes(destination) == old)
        #expect(try files() == before)
    }

    /// The reader of standard output goes away (`firepack convert … - | head`): the command ends as SIGPIPE ends one
    /// (status 141, no message), leaving nothing behind.
    @Test func aClosedPipeEndsTheCommandQuietly() throws {
        let input = try bigInput()
        let before = try files()
        let process = Process()
        process.executableURL = Tool.binary
        process.arguments = ["convert", input, "-", "--to", "jsonl", "--collection", "b", "--id-field", "id"]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        _ = output.fileHandleForReading.readData(ofLength: 100)
        try output.fileHandleForReading.close()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 141, "\(stderr)")
        #expect(!stderr.contains("write failed"), "\(stderr)")
        #expect(try files() == before)
    }

    /// A file-size limit (`ulimit -f`) makes a write fail (EFBIG) rather than end the tool by SIGXFSZ without a word
    /// and with its temporary file left; and a destination that a sticky folder keeps its owner alone from replacing
    /// is refused before any work (as a user other than the file's and the folder's owner).
    @Test func aFileSizeLimitAndAStickyFolderAreReportedAndLeaveNothing() throws {
        let lines = (0..<50_000).map { #"{"id": "b\#($0)", "text": "\#(String(repeating: "x", count: 40))"}"# }
        try write(lines.joined(separator: "\n"), to: "big.jsonl")
        let limited = try Tool.run(["-c", "ulimit -f 256; exec \"$0\" \"$@\"", Tool.binary.path, "convert", path("big.jsonl"),
                                    path("limited.jsonl"), "--collection", "c", "--id-field", "id", "--quiet"],
                                   executable: "/bin/bash")
        #expect(limited.status == 1 && limited.stderr.contains("limited.jsonl"), "\(limited.status): \(limited.stderr)")
        // How far it came, and that the file was not written.
        let done = limited.stderr.firstMatch(of: /File too large, with (\d+) record\(s\) converted; (.*) not written/)
        #expect(done.map { Int($0.1)! > 0 && Int($0.1)! < 50_000 && $0.2 == path("limited.jsonl") } == true, "\(limited.stderr)")
        let left = try files()
        #expect(left.filter { $0.contains("limited") }.isEmpty, "\(left)")
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return }
        // A sticky folder of root's, a file of root's anyone may write: another user may write it but not replace it.
        let sticky = path("sticky")
        try FileManager.default.createDirectory(atPath: sticky, withIntermediateDirectories: false)
        #expect(chmod(sticky, 0o1777) == 0 && chmod(directory.path, 0o755) == 0)
        let target = sticky + "/out.jsonl"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: target))
        #expect(chmod(target, 0o666) == 0 && chmod(path("big.jsonl"), 0o644) == 0)
        let refused = try Tool.run(["--reuid=65534", "--regid=65534", "--clear-groups", Tool.binary.path, "convert",
                                    path("big.jsonl"), target, "--collection", "c", "--id-field", "id"],
                                   executable: "/usr/bin/setpriv")
        #expect(refused.status == 1 && refused.stderr.contains("the folder is sticky"), "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: target)) == Data("old\n".utf8))
    }

    @Test func aFailedConversionLeavesNothing() throws {
        // A syntax error on line 3000 of JSON lines: line and column in the message, no output at all.
        var lines = (0..<5_000).map { #"{"id": "b\#($0)", "n": \#($0)}"# }
        lines[2_999] = #"{"id": "b2999", "n": 2999,}"#
        try write(lines.joined(separator: "\n"), to: "broken.jsonl")
        try copyFixture("Fixtures/books.fpks", to: "keep.fpks")
        let kept = try bytes("keep.fpks")
        for output in ["new.fpks", "keep.fpks", "new.firestore.json", "new.pb", "new.json", "new.jsonl.gz"] {
            let before = try files()
            let result = try Tool.run(["convert", path("broken.jsonl"), path(output), "--collection", "c", "--id-field", "id", "--quiet"])
            #expect(result.status == 1 && result.stderr.contains("line 3000, column 27"), "\(output): \(result.stderr)")
            #expect(try files() == before, "\(output)")
        }
        #expect(try bytes("keep.fpks") == kept)
        // To standard output, the 2,999 records before the bad line all arrive (the last ones were left in the
        // output's buffer), each whole, in every format; a stream gets no close record.
        for format in ["jsonl", "firestore-json", "jsonl.gz", "fpks", "firestore-proto"] {
            let result = try Tool.run(["convert", path("broken.jsonl"), "-", "--to", format, "--collection", "c", "--id-field", "id"])
            #expect(result.status == 1 && result.stderr.contains("line 3000, column 27"), "\(format): \(result.stderr)")
            #expect(result.stderr.contains("2999 record(s) before the error were written to standard output"), "\(format): \(result.stderr)")
            let back = try Tool.run(["convert", "-", "-", "--from", format, "--to", "jsonl"], stdin: result.stdout)
            #expect(back.text.split(separator: "\n").count == 2_999, "\(format): \(back.stderr)")
            #expect(back.text.split(separator: "\n").last?.contains(#""n":2998"#) == true, "\(format)")
            if format == "fpks" { #expect(back.stderr.contains("not closed"), "\(back.stderr)") }
        }
        // A pending server timestamp cannot be written as REST JSON or protobuf: the message names the tool's flag.
        for output in ["articles.firestore.json", "articles.pb"] {
            let result = try Tool.run(["convert", "Fixtures/articles.json", path(output), "--collection", "a", "--id-field", "id"])
            #expect(result.status == 1 && result.stderr.contains("--resolve-server-timestamps"), "\(result.stderr)")
            // And which document: its record and path, and the field.
            #expect(result.stderr.contains("record ") && result.stderr.contains("(a/") && result.stderr.contains("(path $."),
                    "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path(output)))
        }
    }

    @Test func aStreamCutAtARecordBoundaryIsNotClosed() throws {
        // In version 3 in blocks of 4 KiB (a few records each), cut where the first block after record 100 starts.
        #expect(try Tool.run(["convert", "Fixtures/generated-books.fpks", path("small-blocks.fpks"), "--block-size", "4096"]).status == 0)
        let stream = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path("small-blocks.fpks"))))
        let complete = try Tool.run(["validate", path("small-blocks.fpks")])
        #expect(complete.status == 0 && complete.text.contains("3000 document(s), closed"), "\(complete.text)")
        // Cut at a block boundary: a crash between blocks, or a partial copy.
        let reader = try DocumentStreamReader(source: MemorySource(stream))
        var offsets: [Int] = []
        while let record = try reader.nextRecord() { offsets.append(record.offset) }
        let boundary = try #require((100..<3000).first { offsets[$0] != offsets[$0 - 1] })
        try Data(stream[..<offsets[boundary]]).write(to: URL(fileURLWithPath: path("cut.fpks")))
        let cut = try Tool.run(["validate", path("cut.fpks")])
        #expect(cut.status == 1 && cut.stderr.contains("not closed after record \(boundary)"), "\(cut.stderr)")
        let allowed = try Tool.run(["validate", path("cut.fpks"), "--allow-unclosed"])
        #expect(allowed.status == 0 && allowed.stderr.contains("warning") && allowed.text.contains("\(boundary) document(s)"))
        // --repair keeps every intact record and closes the stream.
        let repair = try Tool.run(["validate", path("cut.fpks"), "--repair", path("fixed.fpks")])
        #expect(repair.status == 1 && repair.text.contains("\(boundary) intact record(s) written, stream closed"))
        let fixed = try Tool.run(["validate", path("fixed.fpks")])
        #expect(fixed.status == 0 && fixed.text.contains("\(boundary) document(s), closed"), "\(fixed.text)")
        // Converting a stream that was not closed says so.
        let converted = try Tool.run(["convert", path("cut.fpks"), path("cut.jsonl"), "--quiet"])
        #expect(converted.status == 0 && converted.stderr.contains("not closed after record \(boundary)"))
    }

    @Test func documentIDs() throws {
        try write(#"{"id": "a", "n": 1}"# + "\n" + #"{"n": 2}"# + "\n" + #"{"id": "c", "n": 3}"# + "\n", to: "ids.jsonl")
        let missing = try Tool.run(["convert", path("ids.jsonl"), path("ids.fpks"), "--collection", "c", "--id-field", "id"])
        #expect(missing.status == 1 && missing.stderr.contains("line 2") && missing.stderr.contains("--generate-missing-ids"))
        #expect(!FileManager.default.fileExists(atPath: path("ids.fpks")))
        func run(_ extra: [String]) throws -> [Document] {
            let result = try Tool.run(["convert", path("ids.jsonl"), "-", "--to", "firestore-json", "--collection", "c", "--id-field", "id"] + extra)
            #expect(result.status == 0, "\(result.stderr)")
            return try result.text.split(separator: "\n").map { try Document(firestoreJSON: Array($0.utf8)) }
        }
        let generated = try run(["--generate-missing-ids"])
        #expect(generated.map(\.reference.documentID)[0] == "a" && generated[1].reference.documentID.count == 20)
        #expect(generated[0].fields["id"] == nil)
        let first = try run(["--generate-missing-ids", "--deterministic"]), second = try run(["--generate-missing-ids", "--deterministic"])
        #expect(first == second)
        #expect(try run(["--generate-missing-ids"])[1].reference != generated[1].reference)
        let kept = try run(["--keep-id-field", "--generate-missing-ids"])
        #expect(kept[0].fields["id"] == "a" && kept[2].fields["id"] == "c")
        #expect(try Tool.run(["convert", path("ids.jsonl"), "-", "--to", "jsonl", "--generate-missing-ids"]).status == 2)
        // Deterministic streams are reproducible byte for byte and read back (the record keeps §9's key order).
        let once = try Tool.run(["convert", path("ids.jsonl"), "-", "--to", "fpks", "--collection", "c", "--id-field", "id",
                                 "--generate-missing-ids", "--deterministic"])
        let twice = try Tool.run(["convert", path("ids.jsonl"), "-", "--to", "fpks", "--collection", "c", "--id-field", "id",
                                  "--generate-missing-ids", "--deterministic"])
        #expect(once.status == 0 && once.stdout == twice.stdout)
        let check = try Tool.run(["validate", "-", "--from", "fpks"], stdin: once.stdout)
        #expect(check.status == 0 && check.text.contains("3 document(s), closed"), "\(check.stderr)")
        // An integer ID names the document by its digits; taken out of the fields, it would come back a string: said.
        try write(#"{"id": 7, "n": 1}"# + "\n" + #"{"id": "b", "n": 2}"# + "\n", to: "numbers.jsonl")
        let numbered = try Tool.run(["convert", path("numbers.jsonl"), path("numbers.fpks"), "--collection", "c", "--id-field", "id"])
        #expect(numbered.status == 0 && numbered.stderr.contains("1 document(s) in") && numbered.stderr.contains("--keep-id-field"),
                "\(numbered.stderr)")
        let keeping = try Tool.run(["convert", path("numbers.jsonl"), path("kept.fpks"), "--collection", "c", "--id-field", "id",
                                    "--keep-id-field"])
        #expect(keeping.status == 0 && !keeping.stderr.contains("named by an integer"), "\(keeping.stderr)")
    }

    /// Under an ID field only IDs are written, so documents of another collection than the one they are read back
    /// into would become documents they are not: refused, naming the document, on one thread or several. An ID that
    /// holds a '/' is refused on input rather than read as a path in another collection.
    @Test func theIDFieldNeverMovesADocumentToAnotherCollection() throws {
        try write(#"{"__name__":"books/1","t":"book"}"# + "\n" + #"{"__name__":"authors/1","t":"author"}"# + "\n",
                  to: "mixed.jsonl")
        #expect(try Tool.run(["convert", path("mixed.jsonl"), path("mixed.fpks"), "--quiet"]).status == 0)
        for threads in ["1", "2"] {
            let given = try Tool.run(["convert", path("mixed.fpks"), "-", "--to", "jsonl", "--id-field", "id",
                                      "--collection", "books", "--threads", threads])
            #expect(given.status == 1 && given.stderr.contains(#"document authors/1 is not in collection "books""#),
                    "\(given.stderr)")
            let first = try Tool.run(["convert", path("mixed.fpks"), "-", "--to", "json", "--id-field", "id",
                                      "--threads", threads])
            #expect(first.status == 1 && first.stderr.contains("only IDs are written"), "\(first.stderr)")
            #expect(!first.text.contains("author"), "\(first.text)")
        }
        // One collection, a sub-collection included, is written by ID and read back where it was.
        try write(#"{"__name__":"a/b/c/d","x":1}"# + "\n" + #"{"__name__":"a/b/c/e","x":2}"# + "\n", to: "sub.jsonl")
        #expect(try Tool.run(["convert", path("sub.jsonl"), path("sub.fpks"), "--quiet"]).status == 0)
        let byID = try Tool.run(["convert", path("sub.fpks"), path("sub-ids.jsonl"), "--id-field", "id", "--quiet"])
        #expect(byID.status == 0, "\(byID.stderr)")
        #expect(try bytes("sub-ids.jsonl") == Array((#"{"x":1,"id":"d"}"# + "\n" + #"{"x":2,"id":"e"}"# + "\n").utf8))
        // The collection is not in the output: said, with the option that reads it back where it was (not said when
        // the file's name is the collection, or the collection was given).
        #expect(byID.stderr.contains(#"only IDs are written, not their collection "a/b/c": read "#)
                && byID.stderr.contains("back with --collection a/b/c"), "\(byID.stderr)")
        let given = try Tool.run(["convert", path("sub.fpks"), "-", "--to", "jsonl", "--id-field", "id", "--collection", "a/b/c"])
        #expect(given.status == 0 && !given.stderr.contains("warning"), "\(given.stderr)")
        let named = try Tool.run(["convert", path("sub-ids.jsonl"), "-", "--to", "firestore-json", "--id-field", "id",
                                  "--collection", "a/b/c"])
        #expect(named.text.contains(#""name":"a/b/c/d""#) && named.text.contains(#""name":"a/b/c/e""#), "\(named.text)")
        // A full name and a short one of the same collection read back alike: both written by ID.
        try write(#"{"__name__":"projects/p/databases/(default)/documents/books/1"}"# + "\n" + #"{"__name__":"books/2"}"#
                  + "\n", to: "forms.jsonl")
        #expect(try Tool.run(["convert", path("forms.jsonl"), path("forms.fpks"), "--quiet"]).status == 0)
        for extra in [[], ["--collection", "books"]] {
            let forms = try Tool.run(["convert", path("forms.fpks"), "-", "--to", "jsonl", "--id-field", "id"] + extra)
            #expect(forms.status == 0 && forms.text == #"{"id":"1"}"# + "\n" + #"{"id":"2"}"# + "\n", "\(forms.stderr)")
            // The project and database of the full name are not written: said.
            #expect(forms.stderr.contains("the documents' projects/p/databases/(default)/documents/ prefix is not written"),
                    "\(forms.stderr)")
        }
        // On input: an ID with a slash is not a path.
        try write(#"{"id":"u1/sub/u1","x":1}"# + "\n", to: "slash.jsonl")
        let slash = try Tool.run(["convert", path("slash.jsonl"), "-", "--to", "jsonl", "--collection", "users",
                                  "--id-field", "id"])
        #expect(slash.status == 1 && slash.stderr.contains("line 1") && slash.stderr.contains("not a document ID"),
                "\(slash.stderr)")
    }

    /// `validate --repair -` writes the repaired stream to standard output: the report goes to standard error, so
    /// that what is read from the pipe is the stream, whole and closed.
    @Test func aRepairToStandardOutputIsTheStreamAlone() throws {
        try copyFixture("Fixtures/books.fpks", to: "whole.fpks")
        let whole = try bytes("whole.fpks")
        try Data(whole.prefix(whole.count - 40)).write(to: URL(fileURLWithPath: path("cut.fpks")))
        for target in ["-", "/dev/stdout"] {
            let repaired = try Tool.run(["validate", path("cut.fpks"), "--repair", target])
            #expect(repaired.stderr.contains("intact record(s) written, stream closed"), "\(repaired.stderr)")
            let check = try Tool.run(["validate", "-", "--from", "fpks"], stdin: repaired.stdout)
            #expect(check.status == 0 && check.text.contains("closed"), "\(target): \(check.stderr)")
        }
    }

    /// A field named like the member that names a document in plain JSON (`__name__`, or the ID field) is never
    /// written over: a value that reads back as the same name is kept; any other stops the conversion, naming the
    /// document, on the direct path and the tree path, one thread or several.
    @Test func aFieldNamedLikeTheDocumentsNameIsNeverWrittenOver() throws {
        try write(#"{"name":"c/1","fields":{"__name__":{"stringValue":"mine"},"x":{"integerValue":"1"}}}"# + "\n",
                  to: "named.firestore.json")
        #expect(try Tool.run(["convert", path("named.firestore.json"), path("named.fpks"), "--quiet"]).status == 0)
        for threads in ["1", "2"] {
            for form in [["--to", "jsonl"], ["--to", "json"], ["--to", "jsonl", "--deterministic"], ["--to", "json", "--pretty"]] {
                let lost = try Tool.run(["convert", path("named.fpks"), "-", "--threads", threads] + form)
                #expect(lost.status == 1 && lost.stderr.contains("document c/1 has a field \"__name__\""),
                        "\(form), \(threads) threads: \(lost.stderr)")
                #expect(!lost.text.contains("mine") || !lost.text.contains("c/1"), "\(lost.text)")
            }
        }
        // Under an ID field: a different value stops it; the ID itself, or the integer that reads as it, is kept
        // with --keep-id-field (read back so, it stays a field) and stops it without.
        try write(#"{"__name__":"c/doc1","id":5,"x":1}"# + "\n" + #"{"__name__":"c/7","id":7}"# + "\n"
                  + #"{"__name__":"c/s","id":"s"}"# + "\n", to: "ids.jsonl")
        #expect(try Tool.run(["convert", path("ids.jsonl"), path("ids.fpks"), "--quiet"]).status == 0)
        let clash = try Tool.run(["convert", path("ids.fpks"), "-", "--to", "jsonl", "--id-field", "id"])
        #expect(clash.status == 1 && clash.stderr.contains("document c/doc1 has a field \"id\""), "\(clash.stderr)")
        try write(#"{"__name__":"c/7","id":7}"# + "\n" + #"{"__name__":"c/s","id":"s","n":1}"# + "\n", to: "same.jsonl")
        #expect(try Tool.run(["convert", path("same.jsonl"), path("same.fpks"), "--quiet"]).status == 0)
        let unkept = try Tool.run(["convert", path("same.fpks"), "-", "--to", "jsonl", "--id-field", "id"])
        #expect(unkept.status == 1 && unkept.stderr.contains("add --keep-id-field"), "\(unkept.stderr)")
        let kept = try Tool.run(["convert", path("same.fpks"), "-", "--to", "jsonl", "--id-field", "id", "--keep-id-field"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(kept.text == #"{"id":7}"# + "\n" + #"{"id":"s","n":1}"# + "\n", "\(kept.text)")
        // With --keep-id-field, a document without the field would read back with one: refused, on both paths.
        try write(#"{"__name__":"c/b","id":"b","v":2}"# + "\n" + #"{"__name__":"c/7","v":2}"# + "\n", to: "without.jsonl")
        #expect(try Tool.run(["convert", path("without.jsonl"), path("without.fpks"), "--quiet"]).status == 0)
        for threads in ["1", "2"] {
            let gained = try Tool.run(["convert", path("without.fpks"), path("gained.jsonl"), "--id-field", "id",
                                       "--keep-id-field", "--threads", threads])
            #expect(gained.status == 1 && gained.stderr.contains(#"document c/7 has no field "id""#), "\(gained.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path("gained.jsonl")))
        }
        // Generating IDs, the ID field is where a generated one is written (read back, it is the document's ID).
        try write(#"{"id":"a","x":1}"# + "\n" + #"{"x":2}"# + "\n", to: "generated.jsonl")
        let generated = try Tool.run(["convert", path("generated.jsonl"), "-", "--to", "jsonl", "--id-field", "id",
                                      "--keep-id-field", "--generate-missing-ids", "--collection", "c"])
        #expect(generated.status == 0 && generated.text.split(separator: "\n").count == 2, "\(generated.stderr)")
        // A field named __name__ under an ID field: read back, it would name the document; refused on both paths.
        try write(#"{"name":"c/d","fields":{"__name__":{"stringValue":"other/doc"},"v":{"integerValue":"1"}}}"# + "\n",
                  to: "other.firestore.json")
        #expect(try Tool.run(["convert", path("other.firestore.json"), path("other.fpks"), "--quiet"]).status == 0)
        for threads in ["1", "2"] {
            let renamed = try Tool.run(["convert", path("other.fpks"), "-", "--to", "jsonl", "--id-field", "id",
                                        "--collection", "c", "--threads", threads])
            #expect(renamed.status == 1 && renamed.stderr.contains(#"has a field "__name__""#), "\(renamed.stderr)")
        }
        // --keep-id-field: the integer stays an integer.
        try write(#"{"id":1,"x":2}"# + "\n", to: "keep.jsonl")
        let integer = try Tool.run(["convert", path("keep.jsonl"), "-", "--to", "jsonl", "--id-field", "id",
                                    "--collection", "c", "--keep-id-field"])
        #expect(integer.status == 0 && integer.text == #"{"id":1,"x":2}"# + "\n", "\(integer.text) \(integer.stderr)")
        // An ID field named like a member plain JSON reads as the document's own (its path or a time) is a usage
        // error: `--id-field __create_time__` wrote the ID where a time belongs, `--id-field __name__` dropped the
        // collection from the output.
        for member in ["__name__", "__create_time__", "__update_time__"] {
            let refused = try Tool.run(["convert", path("keep.jsonl"), "-", "--to", "jsonl", "--id-field", member])
            #expect(refused.status == 2 && refused.stderr.contains("--id-field: \(member) holds a document's"),
                    "\(member): \(refused.status) \(refused.stderr)")
            #expect(refused.text.isEmpty)
        }
    }

    /// A JSON array element that is no document is refused at its place in the file: line, column, byte and index.
    @Test func anElementThatIsNoDocumentIsNamedByItsPlace() throws {
        try write("[\n {\"__name__\": \"c/a\"},\n 7\n]", to: "seven.json")
        let refused = try Tool.run(["convert", path("seven.json"), "-", "--to", "jsonl"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("line 3, column 2: record 1: a document must be a JSON object, not integer (at byte 25, path $[1])"),
                "\(refused.stderr)")
        try write("[{\"x\": 1}]", to: "noid.json")
        let missing = try Tool.run(["convert", path("noid.json"), "-", "--to", "jsonl", "--id-field", "id"])
        #expect(missing.status == 1 && missing.stderr.contains("line 1, column 2: record 0: the document has no \"id\" field"),
                "\(missing.stderr)")
    }

    /// A document's create and update times survive plain JSON (`__create_time__`, `__update_time__`): every plain
    /// output writes them, every plain input reads them back, one thread or several; a field that would be taken for
    /// one is an error naming the document.
    @Test func createAndUpdateTimesSurvivePlainJSON() throws {
        var lines = [#"{"name":"c/1","fields":{"x":{"integerValue":"1"}},"createTime":"2020-01-01T00:00:00.123456789Z","updateTime":"2021-01-01T00:00:00Z"}"#,
                     #"{"name":"c/2","fields":{},"updateTime":"2022-02-02T00:00:00.5Z"}"#]
        for index in 3..<300 { lines.append(#"{"name":"c/\#(index)","fields":{"n":{"integerValue":"\#(index)"}}}"#) }
        try write(lines.joined(separator: "\n") + "\n", to: "times.firestore.json")
        #expect(try Tool.run(["convert", path("times.firestore.json"), path("times.fpks"), "--quiet"]).status == 0)
        let original = try Tool.run(["convert", path("times.fpks"), "-", "--to", "firestore-json"])
        #expect(original.status == 0 && original.text.contains(#""createTime":"2020-01-01T00:00:00.123456789Z""#))
        for threads in ["1", "2"] {
            for format in ["jsonl", "json", "fpk"] {
                let plain = path("times-\(threads).\(format)"), back = path("times-\(threads)-\(format).fpks")
                let out = try Tool.run(["convert", path("times.fpks"), plain, "--threads", threads, "--quiet"])
                #expect(out.status == 0, "\(format): \(out.stderr)")
                if format == "jsonl" {
                    let first = try String(contentsOfFile: plain, encoding: .utf8).split(separator: "\n").first ?? ""
                    #expect(first.contains(#""__create_time__":{"__timestamp__":"2020-01-01T00:00:00.123456789Z"}"#),
                            "\(first)")
                }
                let read = try Tool.run(["convert", plain, back, "--threads", threads, "--quiet"])
                #expect(read.status == 0, "\(format): \(read.stderr)")
                let again = try Tool.run(["convert", back, "-", "--to", "firestore-json"])
                #expect(again.text == original.text, "\(format), \(threads) threads")
            }
        }
        // A field that plain JSON would read back as a time, or that a time would take the place of.
        try write(#"{"name":"c/1","fields":{"__create_time__":{"timestampValue":"2020-01-01T00:00:00Z"}}}"# + "\n"
                  + #"{"name":"c/2","fields":{"__update_time__":{"stringValue":"s"}},"updateTime":"2021-01-01T00:00:00Z"}"#
                  + "\n", to: "clash.firestore.json")
        #expect(try Tool.run(["convert", path("clash.firestore.json"), path("clash.fpks"), "--quiet"]).status == 0)
        let clash = try Tool.run(["convert", path("clash.fpks"), "-", "--to", "jsonl"])
        #expect(clash.status == 1 && clash.stderr.contains(#"document c/1 has a field "__create_time__""#), "\(clash.stderr)")
        // A field of that name holding something else, in a document without that time, is a field.
        try write(#"{"name":"c/3","fields":{"__update_time__":{"stringValue":"s"}}}"# + "\n", to: "field.firestore.json")
        #expect(try Tool.run(["convert", path("field.firestore.json"), path("field.fpks"), "--quiet"]).status == 0)
        let field = try Tool.run(["convert", path("field.fpks"), "-", "--to", "jsonl"])
        #expect(field.status == 0 && field.text == #"{"__update_time__":"s","__name__":"c/3"}"# + "\n", "\(field.text)")
    }

    @Test func inputsAUserActuallyHas() throws {
        // One object is not silently a one-document stream.
        try write(#"{"title": "Dune"}"#, to: "one.json")
        let object = try Tool.run(["convert", path("one.json"), path("one.fpks")])
        #expect(object.status == 1 && object.stderr.contains("wrap it in [ ]"), "\(object.stderr)")
        // A UTF-8 byte order mark is accepted.
        try Data([0xEF, 0xBB, 0xBF] + Array(#"[{"id": "x"}]"#.utf8)).write(to: URL(fileURLWithPath: path("bom.json")))
        #expect(try Tool.run(["convert", path("bom.json"), path("bom.fpks"), "--id-field", "id"]).status == 0)
        // Integers outside Int64: an error naming the path, unless doubles are asked for.
        try write(#"{"big": 18446744073709551615}"#, to: "big.json")
        let big = try Tool.run(["convert", path("big.json"), path("big.fpk")])
        #expect(big.status == 1 && big.stderr.contains("$.big") && big.stderr.contains("outside Int64"), "\(big.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("big.fpk")))
        #expect(try Tool.run(["convert", path("big.json"), path("big.fpk"), "--large-integers-as-doubles"]).status == 0)
        // Operating-system errors in words.
        let absent = try Tool.run(["convert", path("absent.json"), path("x.fpk")])
        #expect(absent.status == 1 && absent.stderr.contains("No such file or directory"), "\(absent.stderr)")
        let folder = try Tool.run(["convert", directory.path, path("x.fpk"), "--from", "json"])
        #expect(folder.status == 1 && folder.stderr.contains("Is a directory"), "\(folder.stderr)")
        #expect(!folder.stderr.contains("errno"))
        // A destination that cannot be written is found before the work (here: before any measurement).
        let svg = try Tool.run(["bench", "Fixtures/books.json", "--svg", "/nonexistent/chart.svg", "--runs", "1"])
        #expect(svg.status == 1 && svg.stderr.contains("No such file or directory") && svg.text.isEmpty, "\(svg.stderr)")
        #expect(try Tool.run(["--version"]).text.hasPrefix("firepack "))
    }

    /// `--version` says which versions the tool reads and writes: what it writes by default, and with the flag it
    /// names for older readers, is what it says, and validates.
    @Test func versionNamesWhatTheToolWritesAndReads() throws {
        let text = try Tool.run(["--version"]).text
        #expect(text.contains("format versions 1 and 3;") && text.contains("(.fpks) versions 1, 2 and 3"), "\(text)")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("version-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let value = directory.appendingPathComponent("v.fpk").path, stream = directory.appendingPathComponent("s.fpks").path
        #expect(try Tool.run(["convert", "Fixtures/books.json", value]).status == 0)
        #expect(try Tool.run(["convert", "Fixtures/books.fpks", stream]).status == 0)
        let written = (try Data(contentsOf: URL(fileURLWithPath: value))[4], try Data(contentsOf: URL(fileURLWithPath: stream))[4])
        #expect(text.contains("writes: FirePack values format version \(written.0) "), "\(text)")
        #expect(text.contains("document streams version \(written.1) "), "\(text)")
        for (option, older) in [("--fpk-version", value), ("--stream-version", stream)] {
            let version = try #require(text.components(separatedBy: "\(option) ").dropFirst().first?.split(separator: " ").first)
            let path = older + ".older" + (option == "--fpk-version" ? ".fpk" : ".fpks")
            let source = option == "--fpk-version" ? "Fixtures/books.json" : "Fixtures/books.fpks"
            #expect(try Tool.run(["convert", source, path, option, String(version)]).status == 0)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path))[4] == UInt8(version), "\(option) \(version)")
            #expect(try Tool.run(["validate", path]).status == 0, "\(option) \(version)")
        }
    }

    @Test func standardInputByMagicBytesAndGzipThroughPipes() throws {
        let stream = try [UInt8](Data(contentsOf: Tool.repository.appendingPathComponent("Fixtures/books.fpks")))
        let plain = try Tool.run(["convert", "-", "-", "--to", "firestore-json"], stdin: stream)
        #expect(plain.status == 0 && plain.text.split(separator: "\n").count == 5, "\(plain.stderr)")
        let gzipped = try Tool.run(["convert", "-", "-", "--to", "fpks.gz"], stdin: stream)
        #expect(gzipped.status == 0 && gzipped.stdout.starts(with: [0x1F, 0x8B]))
        let back = try Tool.run(["convert", "-", "-", "--to", "firestore-json"], stdin: gzipped.stdout)
        #expect(back.status == 0 && back.text == plain.text, "\(back.stderr)")
        let fpk = try Tool.run(["convert", "-", "-", "--to", "json"],
                               stdin: [UInt8](try Data(contentsOf: Tool.repository.appendingPathComponent("Fixtures/books.fpk"))))
        #expect(fpk.status == 0 && fpk.text.hasPrefix("["))
        let unknown = try Tool.run(["convert", "-", "-", "--to", "json"], stdin: Array("{}".utf8))
        #expect(unknown.status == 2 && unknown.stderr.contains("--from"))
    }

    /// Every command that reads one input tells a pipe's format from its first bytes and then reads those bytes
    /// too: the pipe is read once (validate, inspect and stats read it again past them; schema opened it twice).
    @Test func everyReaderTakesAPipeByItsFirstBytes() throws {
        let stream = try [UInt8](Data(contentsOf: Tool.repository.appendingPathComponent("Fixtures/books.fpks")))
        let gzipped = try Tool.run(["convert", "-", "-", "--to", "fpks.gz"], stdin: stream).stdout
        for (input, name) in [(stream, "fpks"), (gzipped, "fpks.gz")] {
            let validate = try Tool.run(["validate", "-"], stdin: input)
            #expect(validate.status == 0 && validate.text.contains("5 document(s), closed"), "\(name): \(validate.stderr)")
            let inspect = try Tool.run(["inspect", "-"], stdin: input)
            #expect(inspect.status == 0 && inspect.text.split(separator: "\n").count == 5, "\(name): \(inspect.stderr)")
            let record = try Tool.run(["inspect", "-", "--record", "3", "--path", "title"], stdin: input)
            #expect(record.status == 0 && !record.text.isEmpty, "\(name): \(record.stderr)")
            let stats = try Tool.run(["stats", "-"], stdin: input)
            #expect(stats.status == 0 && stats.text.contains("5 documents"), "\(name): \(stats.stderr)")
            let schema = try Tool.run(["schema", "-"], stdin: input)
            #expect(schema.status == 0 && schema.text.contains(": 5 documents"), "\(name): \(schema.stderr)")
        }
    }
}
