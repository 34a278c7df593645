import FirePackTestSupport
import Foundation
import Testing
import FirePack
import FirePackStreams

/// `validate`, `inspect` and `stats` number records the same way and all report damage; a stream whose close record
/// gave way to a torn record is "not closed", as one cut at a record boundary is.
@Suite("firepack tool: reports agree", .serialized)
struct ReportsAgreeTests {
    private let folder = TemporaryFolder("reports")
    var directory: URL { folder.url }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Fixtures/books.fpks (hitchhiker, dune, emma, ulysses, kokoro) as a version-2 stream, a record per document.
    func versionTwoBooks() throws -> [UInt8] {
        let result = try Tool.run(["convert", "Fixtures/books.fpks", path("books-v2.fpks"), "--stream-version", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("books-v2.fpks"))))
    }

    /// The books as a version-2 stream with one byte of record 1's payload flipped.
    func damagedStream() throws -> String {
        var bytes = try versionTwoBooks()
        let second = 6 + 12 + (Int(bytes[10]) | Int(bytes[11]) << 8)   // record 0's marker at 6, its length at 10
        bytes[second + 12 + 20] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path("damaged.fpks")))
        return path("damaged.fpks")
    }

    @Test("\"at byte N\" is the input's N-th byte in JSON lines as in a JSON file; the column is the line's")
    func byteOffsetsMeanTheSameInEveryFormat() throws {
        let text = "{\"a\":1}\n\n{\"b\": [1, 2,, 3]}\n"
        let bytes = Array(text.utf8)
        let bad = (1..<bytes.count).first { bytes[$0] == UInt8(ascii: ",") && bytes[$0 - 1] == UInt8(ascii: ",") }!   // ",,"
        for (name, body) in [("bad.jsonl", text), ("bad.json", "[" + text.replacingOccurrences(of: "}\n\n", with: "},\n\n") + "]")] {
            try Data(body.utf8).write(to: URL(fileURLWithPath: path(name)))
            let result = try Tool.run(["convert", path(name), path(name + ".fpks"), "--collection", "c"])
            let offset = name == "bad.jsonl" ? bad : bad + 2   // "[" and the added ","
            #expect(result.status == 1 && result.stderr.contains("line 3, column 13") && result.stderr.contains("at byte \(offset),"),
                    "\(name): \(result.stderr)")
        }
    }

    /// `validate` of JSON lines reports every line that is not a document, each with its line, column and byte, and
    /// checks the lines after them: not only the first (which is all `convert`, all or nothing, needs).
    @Test func validateReportsEveryBadLine() throws {
        let lines = [#"{"__name__":"c/a","x":1}"#, #"{"__name__":"c/b","x":tru}"#, #"{"__name__":"c/c","x":1}"#,
                     #"{"__name__":"c/d","x":[1,}"#, #"{"__name__":"c/a","x":2}"#]
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path("bad-lines.jsonl")))
        let second = lines[0].utf8.count + 1 + 22, fourth = lines[..<3].reduce(0) { $0 + $1.utf8.count + 1 } + 25
        let validate = try Tool.run(["validate", path("bad-lines.jsonl")])
        #expect(validate.status == 1, "\(validate.stderr)")
        #expect(validate.stderr.contains("line 2, column 23: invalid literal") && validate.stderr.contains("at byte \(second),"),
                "\(validate.stderr)")
        #expect(validate.stderr.contains("line 4, column 26: unexpected character") && validate.stderr.contains("at byte \(fourth),"),
                "\(validate.stderr)")
        // Line 5 was checked too: it repeats line 1's path.
        #expect(validate.stderr.contains("3 problem(s)") && validate.stderr.contains("c/a"), "\(validate.stderr)")
    }

    /// `validate` of a JSON-type stream reports what `convert` would refuse: a document nested past the readers'
    /// depth limit, by line; `--max-depth` takes what readers take.
    @Test func validateRefusesWhatConvertRefuses() throws {
        let deep = #"{"__name__":"c/1","a":"# + String(repeating: #"{"x":"#, count: 99) + "1" + String(repeating: "}", count: 99) + "}"
        try Data((#"{"__name__":"c/0","a":1}"# + "\n" + deep + "\n").utf8).write(to: URL(fileURLWithPath: path("deep.jsonl")))
        let convert = try Tool.run(["convert", path("deep.jsonl"), path("deep.fpks")])
        #expect(convert.status == 1 && convert.stderr.contains("depthLimitExceeded"), "\(convert.stderr)")
        // Said in the document's terms, at its line, with no offset from the bytes being written (it pointed past the
        // end of the input file).
        #expect(convert.stderr.contains("line 2: record 1 not written") && convert.stderr.contains("may nest 99 deep"),
                "\(convert.stderr)")
        #expect(!convert.stderr.contains("at byte"), "\(convert.stderr)")
        let validate = try Tool.run(["validate", path("deep.jsonl")])
        #expect(validate.status == 1 && validate.stderr.contains("line 2 (c/1): depthLimitExceeded"), "\(validate.stderr)")
        // The same document as the element of a JSON array: one container deeper there, refused alike.
        try Data(("[" + deep + "]").utf8).write(to: URL(fileURLWithPath: path("deep.json")))
        #expect(try Tool.run(["convert", path("deep.json"), path("deep-array.fpks")]).status == 1)
        let array = try Tool.run(["validate", path("deep.json")])
        #expect(array.status == 1 && array.stderr.contains("element 0: depthLimitExceeded"), "\(array.stderr)")
        let deeper = try Tool.run(["validate", path("deep.jsonl"), "--max-depth", "120"])
        #expect(deeper.status == 0, "\(deeper.stderr)")
        for bad in ["0", "-1", "1001"] {
            #expect(try Tool.run(["validate", path("deep.jsonl"), "--max-depth", bad]).status == 2, "\(bad)")
        }
    }

    @Test func everyCommandNumbersAndReportsTheDamagedRecordAlike() throws {
        let stream = try damagedStream()
        let validate = try Tool.run(["validate", stream])
        #expect(validate.status == 1 && validate.stderr.contains("record 1 at byte"), "\(validate.stderr)")
        let inspect = try Tool.run(["inspect", stream])
        #expect(inspect.status == 1, "a listing that could not show every record fails, as stats and schema do")
        #expect(inspect.text.contains("record 1: damaged at byte"), "\(inspect.text)")
        #expect(inspect.text.contains("record 2: books/emma"), "\(inspect.text)")
        #expect(inspect.stderr.contains("1 damaged record(s)"), "\(inspect.stderr)")
        let one = try Tool.run(["inspect", stream, "--record", "2", "--path", "title"])
        #expect(one.status == 0 && one.text.contains("Emma"), "\(one.text) \(one.stderr)")
        let stats = try Tool.run(["stats", stream])
        #expect(stats.status == 1 && stats.text.contains("4 documents, 1 damaged record(s): 1 of 5 records not read, left out"), "\(stats.text)")
        #expect(stats.stderr.contains("1 damaged record(s)"), "\(stats.stderr)")
    }

    /// Records cut out whole (no damaged byte left) are reported as missing, not as damaged records, by every command.
    @Test func recordsCutOutAreCalledMissingNotDamaged() throws {
        var bytes = try versionTwoBooks()
        // Version-2 records: a marker, a 4-byte length at 4 after it, 12 header bytes, the payload. Cut record 2 out.
        func length(at record: Int, in bytes: [UInt8]) -> Int {
            (0..<4).reduce(0) { $0 | Int(bytes[record + 4 + $1]) << (8 * $1) }
        }
        let second = 6 + 12 + length(at: 6, in: bytes)
        let third = second + 12 + length(at: second, in: bytes)
        let fourth = third + 12 + length(at: third, in: bytes)
        bytes.removeSubrange(third..<fourth)
        try Data(bytes).write(to: URL(fileURLWithPath: path("cut.fpks")))
        let convert = try Tool.run(["convert", path("cut.fpks"), path("cut.jsonl")])
        #expect(convert.status == 1 && convert.stderr.contains("records missing in 1 place: 1 of 5 records not read;"),
                "\(convert.stderr)")
        #expect(!convert.stderr.contains("damaged record(s)"), "\(convert.stderr)")
        let inspect = try Tool.run(["inspect", path("cut.fpks")])
        #expect(inspect.status == 1 && inspect.stderr.contains("records missing in 1 place: 1 of 5 records not read;"), "\(inspect.stderr)")
        let stats = try Tool.run(["stats", path("cut.fpks")])
        #expect(stats.status == 1 && stats.text.contains("4 documents, records missing in 1 place: 1 of 5 records not read, left out"), "\(stats.text)")
        let schema = try Tool.run(["schema", path("cut.fpks")])
        #expect(schema.status == 1 && schema.stderr.contains("records missing in 1 place: 1 of 5 records not read, left out"), "\(schema.stderr)")
        let validate = try Tool.run(["validate", path("cut.fpks")])
        #expect(validate.status == 1 && validate.stderr.contains("records 4–4 are missing"), "\(validate.stderr)")
        #expect(validate.stderr.contains("invalid fpks: 1 problem(s), 4 of 5 document(s) intact"), "\(validate.stderr)")
        // A version-3 stream with a block cut out and another damaged: both are named.
        #expect(try Tool.run(["convert", "Fixtures/generated-books.fpks", path("blocks.fpks"), "--codec", "none",
                              "--block-size", "4096"]).status == 0)
        var blocks = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("blocks.fpks"))))
        // Blocks: a marker (the first one's, at 6), a 4-byte length at 4 after it, 12 header bytes, the body.
        var frames: [Range<Int>] = [], offset = 6
        let marker = Array(blocks[6..<10])
        while offset + 12 <= blocks.count, Array(blocks[offset..<offset + 4]) == marker {
            frames.append(offset..<(offset + 12 + length(at: offset, in: blocks)))
            offset = frames.last!.upperBound
        }
        #expect(frames.count >= 4, "\(frames.count) blocks")
        blocks[frames[3].lowerBound + 40] ^= 0x40
        blocks.removeSubrange(frames[1])
        try Data(blocks).write(to: URL(fileURLWithPath: path("both.fpks")))
        // And how many records of the close record's count were not read: a damaged block is one problem, whatever
        // it held.
        let read = try Tool.run(["stats", path("both.fpks")]).text.split(separator: " ").dropFirst(2).first.flatMap { Int($0) }
        let total = try Tool.run(["stats", "Fixtures/generated-books.fpks"]).text.split(separator: " ").dropFirst(2).first.flatMap { Int($0) }
        let (intact, all) = (try #require(read), try #require(total))
        #expect(all - intact > 2, "\(intact) of \(all)")
        let both = try Tool.run(["convert", path("both.fpks"), path("both.jsonl")])
        #expect(both.stderr.contains("1 damaged record(s) and records missing in 1 place: \(all - intact) of \(all) records not read;"),
                "\(both.stderr)")
    }

    @Test func pathWithoutRecordShowsThatFieldOfEveryRecord() throws {
        let result = try Tool.run(["inspect", "Fixtures/books.fpks", "--path", "title"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.text.split(separator: "\n")
        #expect(lines.count == 5 && lines[2].hasPrefix("record 2 (books/emma): ") && lines[2].contains("Emma"), "\(result.text)")
    }

    @Test func aCloseRecordReplacedByATornRecordIsNotClosed() throws {
        var bytes = try versionTwoBooks()
        bytes.removeLast(DocumentStreamFormat.closeRecordLength)
        bytes += DocumentStreamFormat.syncMarker + [0x40, 0]   // a record header cut short
        try Data(bytes).write(to: URL(fileURLWithPath: path("torn.fpks")))
        let result = try Tool.run(["validate", path("torn.fpks")])
        #expect(result.status == 1 && result.stderr.contains("not closed after record"), "\(result.stderr)")
        #expect(!result.stderr.contains("version-1"), "\(result.stderr)")
    }

    /// An index that lists other blocks than the stream holds (here one block of every record, at the last block's
    /// place) sends a reader seeking by record number astray: `validate` finds it, naming the first block it gets
    /// wrong, where it called the stream valid.
    @Test func anIndexThatListsOtherBlocksIsInvalid() throws {
        let made = try Tool.run(["convert", "Fixtures/generated-books.fpks", path("listed.fpks"), "--codec", "none",
                                 "--block-size", "4096"])
        #expect(made.status == 0, "\(made.stderr)")
        let blocks = try #require(try DocumentStreamReader.blockIndex(path: path("listed.fpks")))
        #expect(blocks.count > 2)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path("listed.fpks"))))
        // The close record: its marker, the record count and the index's offset (8 bytes each), its CRC-32.
        let close = Array(bytes.suffix(DocumentStreamFormat.blockCloseRecordLength))
        func load64(_ at: Int) -> Int { (0..<8).reduce(0) { $0 | Int(close[at + $1]) << (8 * $1) } }
        let (total, indexOffset) = (load64(4), load64(12))
        func le32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
        let body = varintBytes(1) + varintBytes(blocks.last!.offset) + varintBytes(total)
        let payload = close[4..<20]
        bytes = Array(bytes[..<indexOffset]) + DocumentStreamFormat.indexMarker + le32(UInt32(body.count))
            + le32(body.withUnsafeBytes { crc32($0) }) + body
            + DocumentStreamFormat.closeMarker + payload + le32(payload.withUnsafeBytes { crc32($0) })
        try Data(bytes).write(to: URL(fileURLWithPath: path("listed.fpks")))
        #expect(try DocumentStreamReader.blockIndex(path: path("listed.fpks"))?.count == 1)
        let validate = try Tool.run(["validate", path("listed.fpks")])
        #expect(validate.status == 1 && validate.stderr.contains("the index does not list the blocks the stream holds: "
                + "it lists a block of \(total) record(s) at byte \(blocks.last!.offset), where the stream has one of "
                + "\(blocks[0].recordCount) record(s) at byte \(blocks[0].offset)"), "\(validate.stderr)")
        // Written again by --repair, the index is the stream's own.
        let repaired = try Tool.run(["validate", path("listed.fpks"), "--repair", path("relisted.fpks")])
        #expect(repaired.status == 1, "\(repaired.stderr)")
        #expect(try Tool.run(["validate", path("relisted.fpks")]).status == 0)
    }

    /// A stream cut where a record ends (its close record gone) holds every record it has: each command reads them
    /// all, exits 0, and says the stream was not closed.
    @Test func everyReaderSaysAStreamWasNotClosed() throws {
        var bytes = try versionTwoBooks()
        bytes.removeLast(DocumentStreamFormat.closeRecordLength)
        try Data(bytes).write(to: URL(fileURLWithPath: path("open.fpks")))
        for (command, done) in [("stats", "measured"), ("schema", "profiled"), ("inspect", "listed")] {
            let result = try Tool.run([command, path("open.fpks")])
            #expect(result.status == 0 && result.stderr.contains("was not closed after record 5") && result.stderr.contains("\(done) what it holds"),
                    "\(command): \(result.stderr)")
        }
        let converted = try Tool.run(["convert", path("open.fpks"), "-", "--to", "jsonl"])
        #expect(converted.status == 0 && converted.stderr.contains("converted what it holds"), "\(converted.stderr)")
        // A sample of exactly the records it holds reaches its end too, and says so; a smaller one has not seen how
        // it ends, and says nothing of it.
        let all = try Tool.run(["schema", path("open.fpks"), "--sample", "5"])
        #expect(all.status == 0 && all.stderr.contains("was not closed after record 5"), "\(all.stderr)")
        let some = try Tool.run(["schema", path("open.fpks"), "--sample", "4"])
        #expect(some.status == 0 && some.stderr.isEmpty && some.text.contains(": 4 documents"), "\(some.stderr)")
        // Nor does a sample that stops short of damage report it: that is past what it read.
        var damaged = try versionTwoBooks()
        damaged[damaged.count - DocumentStreamFormat.closeRecordLength - 3] ^= 0xFF
        try Data(damaged).write(to: URL(fileURLWithPath: path("damaged-last.fpks")))
        let short = try Tool.run(["schema", path("damaged-last.fpks"), "--sample", "4", "--json"])
        #expect(short.status == 0 && short.stderr.isEmpty && short.text.contains("\"closed_records\":null"),
                "\(short.stderr)\n\(short.text)")
        #expect(try Tool.run(["schema", path("damaged-last.fpks")]).status == 1)
    }
}

extension ReportsAgreeTests {
    /// Converting to Firestore's own formats writes what Firestore would refuse, and says so, grouped by kind.
    @Test func firestoreFormatsWarnAboutFirestoresLimits() throws {
        let lines = (0..<50).map { #"{"__name__": "c/d\#($0)", "": 1, "ok": 2}"# }.joined(separator: "\n")
        try Data(lines.utf8).write(to: URL(fileURLWithPath: path("empty.jsonl")))
        let result = try Tool.run(["convert", path("empty.jsonl"), path("out.firestore.json"), "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: 50 problem(s) with Firestore's limits"), "\(result.stderr)")
        #expect(result.stderr.contains("50 × empty field name") && result.stderr.split(separator: "\n").count < 12, "\(result.stderr)")
        // Examples left out are counted, with no advice to use an option convert does not have.
        #expect(result.stderr.contains(" not shown)") && !result.stderr.contains("--max-problems"), "\(result.stderr)")
        let clean = try Tool.run(["convert", "Fixtures/books.fpks", path("books.firestore.json"), "--quiet"])
        #expect(clean.status == 0 && !clean.stderr.contains("warning"), "\(clean.stderr)")
    }
}
