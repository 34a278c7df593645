import Foundation
import Testing
import FirePack
import FirePackStreams
import FirePackInterop
import FirePackTestSupport

/// Small hostile inputs cost the tool bounded memory and linear time, and what it writes it reads back: each case runs
/// the built binary as a child and checks its peak memory (`wait4`) against a ceiling, and its messages.
/// `scripts/measure/stress-hostile.py` runs the same cases at full size against a release build.
@Suite("firepack tool: bounded resources", .serialized)
struct BoundedResourceTests {
    private let folder = TemporaryFolder("bounded")
    var directory: URL { folder.url }

    /// Well above the tool's own footprint (a debug build idles at about 30 MB), far below what the attacks took.
    static let ceiling = 128 << 20

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Writes `chunks()` gzipped (or plain) to `name`, a chunk at a time.
    func write(_ name: String, gzip: Bool, chunks: (ByteSink) throws -> Void) throws -> String {
        let file = try FileSink(path: path(name))
        let sink: ByteSink = gzip ? try GzipSink(file) : file
        try chunks(sink)
        try sink.finish()
        return path(name)
    }

    func run(_ arguments: [String]) throws -> CostMeasurement.ChildResult {
        try CostMeasurement.runChild(Tool.binary.path, arguments)
    }

    /// A `.fpk` whose elements each repeat one 100 KB key by reference (110 KB) is 100 MB of JSON: what its
    /// references stand for is past the readers' limit (`ReaderLimits.maxKeyExpansion`), and `convert` and `stats`
    /// refuse it, in bounded memory, with the limit named. Told a higher limit (`--max-key-expansion`), `convert`
    /// writes it element by element, the same bytes as the whole text, in memory for one element (it held the whole
    /// text twice), and `stats` counts that text without holding it.
    @Test func aTopLevelArrayIsWrittenAsJSONOneElementAtATime() throws {
        let long = String(repeating: "k", count: 100_000)
        let value = Value.array((0..<1_000).map { .map([long: .integer(Int64($0)), "n": .array([1, 2.5, "x"])]) })
        let fpk = path("keys.fpk")
        let writer = FirePackWriter(options: .init(limits: ReaderLimits(maxKeyExpansion: .max)))
        writer.writeFileHeader()
        writer.write(value)
        try Data(writer.takeBytes()).write(to: URL(fileURLWithPath: fpk))
        for command in [["convert", fpk, path("refused.json"), "--quiet"], ["stats", fpk]] {
            let refused = try run(command)
            #expect(refused.status != 0 && refused.stderr.contains("maxKeyExpansion"), "\(command): \(refused.stderr)")
            #expect(refused.peakMemoryBytes < Self.ceiling, "\(command): \(refused.peakMemoryBytes) bytes")
        }
        #expect(!FileManager.default.fileExists(atPath: path("refused.json")))
        let result = try run(["convert", fpk, path("keys.json"), "--quiet", "--max-key-expansion", "10000"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.peakMemoryBytes < Self.ceiling, "\(result.peakMemoryBytes) bytes")
        let written = try Data(contentsOf: URL(fileURLWithPath: path("keys.json")))
        #expect(written.count > 100_000_000 && Array(written) == value.jsonBytes() + [0x0A])
        // `stats` counts that text without holding it (it held it whole, and its buffer's growth).
        try expectStats(of: fpk, integers: 2_000, jsonBytes: written.count - 1, flags: ["--max-key-expansion", "10000"])
        // The option where it does not apply: refused, not dropped.
        try Data("{\"a\": 1}\n".utf8).write(to: URL(fileURLWithPath: path("x.jsonl")))
        let misplaced = try run(["convert", path("x.jsonl"), path("x.json"), "--max-key-expansion", "100"])
        #expect(misplaced.status != 0 && misplaced.stderr.contains("--max-key-expansion applies to fpk and fpks"), "\(misplaced.stderr)")
        // `schema` reads with the option too: refused as past the limit without it, read past it with it (to find
        // that the file's elements are not documents, which `schema` needs).
        let schema = try run(["schema", fpk])
        #expect(schema.status != 0 && schema.stderr.contains("maxKeyExpansion"), "\(schema.stderr)")
        let raised = try run(["schema", fpk, "--max-key-expansion", "10000"])
        #expect(raised.status != 0 && raised.stderr.contains("is not a document named by __name__"), "\(raised.stderr)")
        #expect(!raised.stderr.contains("maxKeyExpansion"), "\(raised.stderr)")
        // Every form is the whole text's bytes: pretty, plain, sorted; and an empty array.
        let small = Value.array([.map(["b": 1, "a": .array([.null, .map(["c": "d"])])]), 2.5, .array([])])
        for (options, flags) in [(JSONOptions(pretty: true), ["--pretty"]), (JSONOptions(form: .plain), ["--plain"]),
                                 (JSONOptions(sortedKeys: true), ["--deterministic"]), (JSONOptions(), [])] {
            for element in [small, Value.array([])] {
                let bytes = try Tool.run(["convert", "-", "-", "--from", "json", "--to", "fpk"], stdin: element.jsonBytes()).stdout
                let json = try Tool.run(["convert", "-", "-", "--from", "fpk", "--to", "json"] + flags, stdin: bytes)
                #expect(json.status == 0 && json.stdout == element.jsonBytes(options: options) + [0x0A], "\(flags): \(json.text)")
            }
        }
    }

    @Test func aLargeJSONArrayIsReadOneElementAtATime() throws {
        // 8 MiB of `[0,0,…]`: a tree of four million values before.
        let input = try write("zeros.json.gz", gzip: true) { sink in
            let chunk = [UInt8](repeating: 0, count: 1 << 20).enumerated().map { $0.offset % 2 == 0 ? UInt8(ascii: "0") : UInt8(ascii: ",") }
            try [UInt8(ascii: "[")].withUnsafeBytes { try sink.write($0) }
            for _ in 0..<8 { try chunk.withUnsafeBytes { try sink.write($0) } }
            try Array("0]".utf8).withUnsafeBytes { try sink.write($0) }
        }
        let result = try run(["validate", input])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.peakMemoryBytes < Self.ceiling, "\(result.peakMemoryBytes) bytes")
        // As documents, the same file is refused at its first element, with its place.
        let converted = try run(["convert", input, path("zeros.fpks"), "--collection", "c"])
        #expect(converted.status == 1 && converted.stderr.contains("a document must be a JSON object"), "\(converted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("zeros.fpks")))
    }

    /// A `.fpk` file of documents is converted element by element from its bytes: 400 documents of 25,000 numbers
    /// each (a 10 MB file) were a tree of every document at once, over 200 MB. Checked whole first: a defect in its
    /// last document stops the conversion before anything is written.
    @Test func aFirePackFileOfDocumentsIsConvertedOneElementAtATime() throws {
        let numbers = Value.array((0..<25_000).map { .integer(Int64($0 % 100)) })
        let writer = FirePackWriter()
        writer.writeFileHeader()
        writer.beginArray()
        for index in 0..<400 { writer.write(.map(["__name__": .string("c/\(index)"), "n": numbers])) }
        writer.endArray()
        var bytes = writer.takeBytes()
        let fpk = path("documents.fpk")
        try Data(bytes).write(to: URL(fileURLWithPath: fpk))
        for (output, count) in [("documents.fpks", 400), ("documents.jsonl", 400)] {
            let result = try run(["convert", fpk, path(output), "--quiet"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.peakMemoryBytes < Self.ceiling, "\(output): \(result.peakMemoryBytes) bytes")
            let back = try Tool.run(["convert", path(output), "-", "--to", "jsonl", "--quiet"])
            let lines = back.stdout.split(separator: UInt8(ascii: "\n"))
            #expect(lines.count == count && back.text.contains("\"__name__\":\"c/399\""), "\(output)")
        }
        // The file's last byte changed (0xCD, a string's tag): refused there, before anything is written.
        bytes[bytes.count - 1] = 0xCD
        let damaged = path("damaged.fpk")
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let refused = try run(["convert", damaged, path("damaged.fpks"), "--quiet"])
        #expect(refused.status != 0 && refused.stderr.contains("byte \(bytes.count - 1)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("damaged.fpks")))
    }

    @Test func aHugeLineThatIsNotAnObjectIsRefusedWithoutItsTree() throws {
        let input = try write("line.jsonl.gz", gzip: true) { sink in
            let chunk = (0..<(1 << 20)).map { $0 % 2 == 0 ? UInt8(ascii: "0") : UInt8(ascii: ",") }
            try Array(#"{"a":1}"#.utf8 + [0x0A, UInt8(ascii: "[")]).withUnsafeBytes { try sink.write($0) }
            for _ in 0..<8 { try chunk.withUnsafeBytes { try sink.write($0) } }
            try Array("0]\n".utf8).withUnsafeBytes { try sink.write($0) }
        }
        let result = try run(["validate", input])
        #expect(result.status == 1 && result.stderr.contains("line 2: a document must be a JSON object, not array"), "\(result.stderr)")
        #expect(result.peakMemoryBytes < Self.ceiling, "\(result.peakMemoryBytes) bytes")
    }

    @Test func aMillionDamagedRecordsAreSummedUpNotListed() throws {
        let damaged = 200_000
        let input = try write("damaged.fpks.gz", gzip: true) { sink in
            try DocumentStreamFormat.header.withUnsafeBytes { try sink.write($0) }
            let record = DocumentStreamFormat.syncMarker + [0, 0, 0, 0, 1, 0, 0, 0]
            let block = Array([[UInt8]](repeating: record, count: 10_000).joined())
            for _ in 0..<(damaged / 10_000) { try block.withUnsafeBytes { try sink.write($0) } }
        }
        let result = try run(["validate", input, "--max-problems", "5"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(damaged) × damaged record (badChecksum)"), "\(result.stderr.prefix(2_000))")
        #expect(result.stderr.split(separator: "\n").count < 20)
        #expect(result.peakMemoryBytes < Self.ceiling, "\(result.peakMemoryBytes) bytes")
    }

    @Test func aKeyTableThatClaimsMoreThanTheValueIsRefusedAtOnce() throws {
        // `{"a": 0}` followed by a key table of 3,000,000 one-byte entries.
        let input = try write("table.fpk.gz", gzip: true) { sink in
            let head: [UInt8] = [0x89, 0x46, 0x50, 0x4B, 0x01, 0xB1, 0x03, 0x02, 0x61, 0x00, 0xD3] + varintBytes(3_000_000) + [1]
            try head.withUnsafeBytes { try sink.write($0) }
            let zeros = [UInt8](repeating: 0, count: 1_000_000)
            for _ in 0..<3 { try zeros.withUnsafeBytes { try sink.write($0) } }
        }
        let result = try run(["validate", input])
        #expect(result.status == 1 && result.stderr.contains("badKeyTable"), "\(result.stderr)")
        #expect(result.peakMemoryBytes < Self.ceiling, "\(result.peakMemoryBytes) bytes")
    }

    @Test func aProtobufFileThatIsNoMessageIsReadOnlyToTheLimit() throws {
        // 65 MiB of zeros: not delimited messages, and more than one message may be.
        let input = try write("zeros.pb.gz", gzip: true) { sink in
            let zeros = [UInt8](repeating: 0, count: 1 << 20)
            for _ in 0..<65 { try zeros.withUnsafeBytes { try sink.write($0) } }
        }
        let result = try run(["validate", input])
        #expect(result.status == 1 && result.stderr.contains("more than \(DocumentStreamFormat.defaultMaxRecordLength) bytes"), "\(result.stderr)")
        #expect(result.peakMemoryBytes < 3 * DocumentStreamFormat.defaultMaxRecordLength, "\(result.peakMemoryBytes) bytes")
    }

    @Test func whatTheToolWritesItReadsBack() throws {
        // A document of 65 MiB is over the record limit readers enforce: refused before a byte is written, naming the line.
        let input = try write("big.jsonl", gzip: false) { sink in
            try Array(#"{"a": 1}"#.utf8 + [0x0A] + #"{"s": ""#.utf8).withUnsafeBytes { try sink.write($0) }
            let text = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
            for _ in 0..<65 { try text.withUnsafeBytes { try sink.write($0) } }
            try Array("\"}\n".utf8).withUnsafeBytes { try sink.write($0) }
        }
        let result = try run(["convert", input, path("big.fpks"), "--collection", "c", "--quiet"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("line 2") && result.stderr.contains("record limit"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("big.fpks")))
    }

    @Test func repeatedProblemsAreGroupedByKind() throws {
        let lines = (0..<3_000).map { #"{"__name__": "c/d\#($0)", "": 1}"# }.joined(separator: "\n")
        try Data(lines.utf8).write(to: URL(fileURLWithPath: path("empty-keys.jsonl")))
        let result = try run(["validate", path("empty-keys.jsonl"), "--firestore-limits", "--max-problems", "3"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("line 1 (c/d0): (top level): empty field name"), "\(result.stderr)")
        #expect(result.stderr.contains("3000 × empty field name") && result.stderr.contains("2997 not shown"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count < 10)
    }
}

extension BoundedResourceTests {
    /// Delimited protobuf read in constant memory moves its unread bytes to the front now and then; every message
    /// survives the move (a stress run found positions that did not follow it).
    @Test func delimitedProtobufReadsEveryMessage() throws {
        let count = 300
        let lines = (0..<count).map { #"{"__name__": "c/d\#($0)", "blob": {"__bytes__": "\#(String(repeating: "QUFB", count: 4_000))"}}"# }
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: path("blobs.jsonl")))
        let toProto = try run(["convert", path("blobs.jsonl"), path("blobs.pb"), "--quiet"])
        #expect(toProto.status == 0, "\(toProto.stderr)")
        let back = try run(["convert", path("blobs.pb"), path("back.fpks"), "--quiet"])
        #expect(back.status == 0, "\(back.stderr)")
        let reader = try DocumentStreamReader(source: FileSource(path: path("back.fpks")))
        var names: [String] = []
        while let (_, _, document) = try reader.next() { names.append(document.reference.path) }
        #expect(names == (0..<count).map { "c/d\($0)" })
    }
}

extension BoundedResourceTests {
    /// A 200 MB top-level JSON array becomes a stream in flat memory: one element at a time, and a bounded table of
    /// the paths seen (under 64 MB at this size, where the array once took 1.42 GB).
    ///
    /// About a minute of one core in a debug build: `scripts/test.sh` runs it on its own after the other tests
    /// (`FIREPACK_LARGE_TESTS=1`), so that it does not starve the timing-sensitive service tests running beside it.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["FIREPACK_LARGE_TESTS"] == "1",
                   "a 200 MB conversion: scripts/test.sh runs it alone with FIREPACK_LARGE_TESTS=1"))
    func aTwoHundredMegabyteJSONArrayConvertsUnder64MB() throws {
        var rng = SystemRandomNumberGenerator()
        let words = ["push", "pull", "fork", "watch", "issue", "comment", "release", "merge"]
        let input = path("events-200mb.json")
        let file = try FileSink(path: input)
        var written = 0, count = 0
        var chunk: [UInt8] = [UInt8(ascii: "[")]
        // Commit messages of about 2.4 KB, made once (the test's own work stays small beside the tool's).
        let bodies = (0..<16).map { _ in (0..<400).map { _ in words.randomElement(using: &rng)! }.joined(separator: " ") }
        while written < 200_000_000 {
            let body = bodies[count % bodies.count]
            let element = #"{"__name__":"events/e\#(count)","type":"\#(words[count % 8])Event","actor":{"login":"user\#(count % 977)","id":\#(count)},"#
                + #""created":{"__timestamp__":"2026-11-25T10:00:00.123456Z"},"where":{"__geopoint__":[51.5,-0.12]},"#
                + #""payload":{"size":\#(count % 13),"commits":[{"message":"\#(body)","distinct":true}]}}"#
            if count > 0 { chunk.append(UInt8(ascii: ",")) }
            chunk += element.utf8
            count += 1
            if chunk.count > 1 << 20 {
                written += chunk.count
                try chunk.withUnsafeBytes { try file.write($0) }
                chunk.removeAll(keepingCapacity: true)
            }
        }
        chunk.append(UInt8(ascii: "]"))
        try chunk.withUnsafeBytes { try file.write($0) }
        try file.finish()
        defer { unlink(input) }
        let result = try run(["convert", input, path("events-200mb.fpks"), "--quiet"])
        defer { unlink(path("events-200mb.fpks")) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.peakMemoryBytes < 64 << 20, "\(result.peakMemoryBytes) bytes")
        let reader = try DocumentStreamReader(source: FileSource(path: path("events-200mb.fpks")))
        var records = 0
        while try reader.nextRecord() != nil { records += 1 }
        #expect(records == count)
        #expect(reader.completion == .closed(recordCount: count))
    }
}

extension BoundedResourceTests {
    /// A 2 KB stream holding a record of 2,000,000 packed one-number rows (a byte each, one zstd block within the
    /// block-expansion limit): as a tree, about 110 bytes a row. `validate` (with `--firestore-limits` and `--repair`),
    /// `stats` and `inspect` read it from its bytes.
    @Test func aRecordOfPackedRowsIsCheckedAndMeasuredWithoutItsTree() throws {
        let rows = 2_000_000
        let name = path("rows.fpks")
        let sink = try FileSink(path: name)
        let writer = try DocumentStreamWriter(sink: sink, codec: .zstd)
        try writer.append(writtenBy: { record in
            try record.writeDocumentRecord(path: "c/rows") { fields in
                fields.writeKey("rows")
                fields.beginArray()
                for _ in 0..<rows {
                    fields.beginArray()
                    fields.writeInteger(1)
                    fields.endArray()
                }
                fields.endArray()
            }
        })
        try writer.close()
        let size = try #require(try FileManager.default.attributesOfItem(atPath: name)[.size] as? Int)
        #expect(size < 64 << 10, "\(size) bytes")
        let validated = try run(["validate", name])
        #expect(validated.status == 0 && validated.stderr.isEmpty, "\(validated.stderr)")
        #expect(validated.peakMemoryBytes < Self.ceiling, "\(validated.peakMemoryBytes) bytes")
        // `{"rows":[[1],[1],…]}`: the text the tree path measured.
        try expectStats(of: name, integers: rows, jsonBytes: 4 * rows + 10)
        // `inspect` finds a field of the record in its bytes, and `--repair` copies them (each took a tree: 905 MB to
        // repair this stream). The copy is the same bytes.
        let shown = path("rows.inspect")
        let inspected = try CostMeasurement.runChild(
            Tool.binary.path, ["inspect", name, "--record", "0", "--path", "rows[\(rows - 1)]"], standardOutput: shown)
        #expect(inspected.status == 0 && inspected.peakMemoryBytes < Self.ceiling,
                "\(inspected.stderr) \(inspected.peakMemoryBytes) bytes")
        #expect(try String(contentsOfFile: shown, encoding: .utf8) == "array (1)\n  [0]: integer 1\n")
        let listing = path("rows.listing")  // appended to, not replaced
        let listed = try CostMeasurement.runChild(
            Tool.binary.path, ["inspect", name, "--path", "rows[7]"], standardOutput: listing)
        #expect(listed.status == 0 && listed.peakMemoryBytes < Self.ceiling, "\(listed.stderr)")
        let line = try String(contentsOfFile: listing, encoding: .utf8)
        #expect(line == "record 0 (c/rows): array (1)\n  [0]: integer 1\n", "\(line)")
        // Firestore's limits are checked on the bytes too: each row is an array inside an array, counted, not listed.
        let limited = try run(["validate", name, "--firestore-limits"])
        #expect(limited.status == 1 && limited.stderr.contains("\(rows) × array directly inside an array")
                && limited.peakMemoryBytes < Self.ceiling, "\(limited.stderr.suffix(600)) \(limited.peakMemoryBytes) bytes")
        let repaired = try run(["validate", name, "--repair", path("rows-repaired.fpks")])
        #expect(repaired.status == 0 && repaired.peakMemoryBytes < Self.ceiling,
                "\(repaired.stderr) \(repaired.peakMemoryBytes) bytes")
        // `convert` into a stream copies it too (the tree took 1.04 GB for 8,000,000 rows).
        let converted = try run(["convert", name, path("rows-converted.fpks"), "--codec", "deflate"])
        #expect(converted.status == 0 && converted.peakMemoryBytes < Self.ceiling,
                "\(converted.stderr) \(converted.peakMemoryBytes) bytes")
        // And into a JSON array, each record written as text from its bytes: `{"rows":[[1],…],"__name__":…}`.
        let json = try run(["convert", name, path("rows.json"), "--quiet"])
        #expect(json.status == 0 && json.peakMemoryBytes < Self.ceiling, "\(json.stderr) \(json.peakMemoryBytes) bytes")
        let text = try Data(contentsOf: URL(fileURLWithPath: path("rows.json")))
        let end = Data(#"[1]],"__name__":"c/rows"}]"#.utf8 + [0x0A])
        #expect(text.count == 4 * rows + 33 && text.prefix(13) == Data(#"[{"rows":[[1]"#.utf8) && text.suffix(end.count) == end,
                "\(text.count) \(String(decoding: text.suffix(40), as: UTF8.self))")
        // And into JSON lines with pending server timestamps given a time, from the bytes too (through a tree before).
        let resolved = try run(["convert", name, path("rows.jsonl"), "--quiet", "--resolve-server-timestamps", "2024-01-01T00:00:00Z"])
        #expect(resolved.status == 0 && resolved.peakMemoryBytes < Self.ceiling, "\(resolved.stderr) \(resolved.peakMemoryBytes) bytes")
        let resolvedText = try Data(contentsOf: URL(fileURLWithPath: path("rows.jsonl")))
        #expect(resolvedText.count == 4 * rows + 31, "\(resolvedText.count)")  // the array's text without [ and ]
        // And into Firestore's formats, each record written from its bytes with its limits checked on them (REST JSON
        // through a tree took 2.3 GB for 8,000,000 rows). A row is `{"arrayValue":{"values":[{"integerValue":"1"}]}}`
        // and a comma in REST JSON; in protobuf a `values` element holding Value{array_value{values{integer_value 1}}}.
        // A line is held whole until it is complete (a document that fails leaves nothing of it): memory for the
        // line's text (at most 256 MiB, what the readers take) and its buffer's growth, not for a tree.
        let rest = try run(["convert", name, path("rows.firestore.jsonl"), "--quiet"])
        let restText = try Data(contentsOf: URL(fileURLWithPath: path("rows.firestore.jsonl")))
        #expect(rest.status == 0 && rest.peakMemoryBytes < Self.ceiling + restText.count,
                "\(rest.stderr) \(rest.peakMemoryBytes) bytes")
        let restRow = #"{"arrayValue":{"values":[{"integerValue":"1"}]}}"#
        let restStart = Data((#"{"name":"c/rows","fields":{"rows":{"arrayValue":{"values":["# + restRow + ",").utf8)
        let restEnd = Data(("," + restRow + "]}}}}\n").utf8)
        #expect(restText.count == restStart.count + (restRow.utf8.count + 1) * (rows - 2) - 1 + restEnd.count
                && restText.prefix(restStart.count) == restStart && restText.suffix(restEnd.count) == restEnd,
                "\(restText.count) \(String(decoding: restText.suffix(80), as: UTF8.self))")
        let proto = try run(["convert", name, path("rows.pb"), "--quiet"])
        #expect(proto.status == 0 && proto.peakMemoryBytes < Self.ceiling, "\(proto.stderr) \(proto.peakMemoryBytes) bytes")
        let message = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path("rows.pb"))))
        let protoRow: [UInt8] = [0x0A, 0x06, 0x4A, 0x04, 0x0A, 0x02, 0x10, 0x01]
        // The length prefix, name (field 1) and fields entry (field 2: key "rows", value) before the rows; nothing after.
        #expect(message.count > protoRow.count * rows && message.count < protoRow.count * rows + 64
                && Array(message.suffix(protoRow.count * 2)) == protoRow + protoRow, "\(message.count) bytes")
        // And into a `.fpk`, the record copied into the file's one array: its packed rows packed again, its bytes
        // about the record's (its documents had been kept as trees until the end).
        let single = try run(["convert", name, path("rows.fpk"), "--quiet"])
        #expect(single.status == 0 && single.peakMemoryBytes < Self.ceiling, "\(single.stderr) \(single.peakMemoryBytes) bytes")
        let fpkSize = try #require(try FileManager.default.attributesOfItem(atPath: path("rows.fpk"))[.size] as? Int)
        #expect(fpkSize < 4 * rows, "\(fpkSize) bytes")
        let lastRow = try CostMeasurement.runChild(
            Tool.binary.path, ["inspect", path("rows.fpk"), "--path", "[0].rows[\(rows - 1)]"], standardOutput: path("rows.fpk.txt"))
        let lastRowText = try String(contentsOfFile: path("rows.fpk.txt"), encoding: .utf8)
        #expect(lastRow.status == 0 && lastRowText == "array (1)\n  [0]: integer 1\n", "\(lastRow.stderr) \(lastRowText)")
        func records(_ file: String) throws -> [[UInt8]] {
            let reader = try DocumentStreamReader(source: FileSource(path: file))
            var payloads: [[UInt8]] = []
            while let record = try reader.nextRecord() { payloads.append(Array(record.payload)) }
            #expect(reader.completion == .closed(recordCount: 1))
            return payloads
        }
        #expect(try records(path("rows-repaired.fpks")) == records(name))
        #expect(try records(path("rows-converted.fpks")) == records(name))
    }

    /// Runs `stats` on `file` in a child whose peak memory is measured: it counts `integers` integers and `jsonBytes`
    /// bytes of minified JSON, under the ceiling.
    func expectStats(of file: String, integers: Int, jsonBytes: Int, flags: [String] = [],
                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        let statsOutput = file + ".stats"
        let measured = try CostMeasurement.runChild(Tool.binary.path, ["stats", file] + flags, standardOutput: statsOutput)
        let report = try String(contentsOfFile: statsOutput, encoding: .utf8)
        let integerRow = report.split(separator: "\n").first { $0.hasPrefix("integer ") }?.split(separator: " ")
        #expect(measured.status == 0 && integerRow?.dropFirst().first == "\(integers)", "\(measured.stderr)\n\(report)",
                sourceLocation: sourceLocation)
        #expect(report.contains(" \(jsonBytes) bytes  (FirePack is"), "\(report)", sourceLocation: sourceLocation)
        #expect(measured.peakMemoryBytes < Self.ceiling, "\(measured.peakMemoryBytes) bytes", sourceLocation: sourceLocation)
    }

    /// A 1.5 MB `.fpk` of 1,500,000 packed one-byte rows (`D9`): `validate` and `stats` read it from its bytes (a tree
    /// took 112 bytes per byte), and `inspect` writes its listing as it renders it (it held the text whole: about 4 bytes
    /// per byte of output).
    @Test func aFileOfPackedRowsIsCheckedAndListedWithoutItsTreeOrItsText() throws {
        let rows = 1_500_000
        let fpk = path("rows.fpk")
        try Data([0x89, 0x46, 0x50, 0x4B, 0x03, 0xD9, 0xC3] + varintBytes(rows) + [1] + [UInt8](repeating: 7, count: rows))
            .write(to: URL(fileURLWithPath: fpk))
        let validated = try run(["validate", fpk])
        #expect(validated.status == 0, "\(validated.stderr)")
        #expect(validated.peakMemoryBytes < Self.ceiling, "\(validated.peakMemoryBytes) bytes")
        let listed = try run(["inspect", fpk])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.peakMemoryBytes < Self.ceiling, "\(listed.peakMemoryBytes) bytes")
        // `stats` measures it from its bytes too (its tree took 179 MB), as it measures a stream's record.
        try expectStats(of: fpk, integers: rows, jsonBytes: 4 * rows + 1)
        // Written in pieces, the listing is the whole text still: 20,000 rows are about 700 KB of it.
        let few = 20_000
        let small = path("few.fpk")
        try Data([0x89, 0x46, 0x50, 0x4B, 0x03, 0xD9, 0xC3] + varintBytes(few) + [1] + (0..<few).map { UInt8($0 % 100) })
            .write(to: URL(fileURLWithPath: small))
        let text = try Tool.run(["inspect", small])
        let expected = "array (\(few))\n" + (0..<few).map { "  [\($0)]: array (1)\n    [0]: integer \($0 % 100)\n" }.joined()
        #expect(text.status == 0 && text.text == expected, "\(text.stderr)")
    }

    /// `inspect` reads a `.fpk` lazily, so it checks every byte first, as `validate` does: a key given twice was
    /// listed twice (exit 0), and a later defect was reported instead of the first.
    @Test func inspectReportsAFilesFirstDefectAsValidateDoes() throws {
        for (name, bytes) in [("twice.fpk", [0xB2, 0x06, 0x02, 0x61, 0x01, 0x02, 0x61, 0x02]),
                              ("then.fpk", [0xB3, 0x09, 0x02, 0x61, 0x01, 0x02, 0x61, 0x02, 0x02, 0x62, 0xDA])] as [(String, [UInt8])] {
            let file = path(name)
            try Data([0x89, 0x46, 0x50, 0x4B, 0x03] + bytes).write(to: URL(fileURLWithPath: file))
            for command in ["inspect", "validate"] {
                let result = try Tool.run([command, file])
                #expect(result.status == 1 && result.stderr.contains("duplicateKey: key \"a\" appears twice in one map (at byte 10)"),
                        "\(command) \(name): \(result.stderr)")
                #expect(result.stdout.isEmpty, "\(command) \(name): \(result.text)")
            }
        }
    }
}
