import FirePack
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

/// `firepack` with version-3 streams: the codecs, the version-2 flag, seeking by the index, a damaged block.
@Suite("firepack tool: block streams", .serialized)
struct BlockStreamToolTests {
    private let folder = TemporaryFolder("blocks")
    var directory: URL { folder.url }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    @Test func everyCodecAndVersionConvertsBackToTheSameLines() throws {
        let source = "Fixtures/generated-books.fpks"
        #expect(try Tool.run(["convert", source, path("books.jsonl"), "--quiet"]).status == 0)
        let expected = try bytes("books.jsonl")
        var sizes: [String: Int] = [:]
        for options in [["--codec", "zstd"], ["--codec", "deflate"], ["--codec", "none"], ["--stream-version", "2"], []] {
            let name = (options.last ?? "default") + ".fpks"
            let converted = try Tool.run(["convert", path("books.jsonl"), path(name), "--quiet"] + options)
            #expect(converted.status == 0, "\(options): \(converted.stderr)")
            let stream = try bytes(name)
            #expect(stream[4] == (options.contains("2") ? 2 : 3), "\(options)")
            sizes[options.last ?? "default"] = stream.count
            #expect(try Tool.run(["convert", path(name), path(name + ".jsonl"), "--quiet"]).status == 0)
            #expect(try bytes(name + ".jsonl") == expected, "\(options)")
            let validated = try Tool.run(["validate", path(name)])
            #expect(validated.status == 0 && validated.text.contains("3000 document(s), closed"), "\(validated.text)")
        }
        // zstd is the default; compressed blocks are smaller than stored ones.
        #expect(sizes["default"] == sizes["zstd"])
        #expect(sizes["zstd"]! < sizes["none"]! / 2 && sizes["deflate"]! < sizes["none"]! / 2)
        for wrong in [["--codec", "gzip"], ["--stream-version", "1"], ["--stream-version", "2", "--codec", "none"],
                      ["--block-size", "0"]] {
            #expect(try Tool.run(["convert", path("books.jsonl"), path("x.fpks")] + wrong).status == 2, "\(wrong)")
        }
    }

    /// `inspect --record` goes through the index to the record's block: a damaged first block is not even read,
    /// while a full read reports it, and `validate --repair` keeps every other block.
    @Test func inspectSeeksAndADamagedBlockCostsOnlyItsRecords() throws {
        #expect(try Tool.run(["convert", "Fixtures/generated-books.fpks", path("small.fpks"), "--block-size", "8192"]).status == 0)
        var stream = try bytes("small.fpks")
        let reader = try DocumentStreamReader(source: MemorySource(stream))
        var firstOfBlock: [Int: Int] = [:], offsets: [Int] = []
        while let record = try reader.nextRecord() {
            if firstOfBlock[record.offset] == nil {
                firstOfBlock[record.offset] = record.number
                offsets.append(record.offset)
            }
        }
        #expect(offsets.count > 10)
        stream[offsets[0] + 40] ^= 0x55
        try Data(stream).write(to: URL(fileURLWithPath: path("damaged.fpks")))
        let seek = try Tool.run(["inspect", path("damaged.fpks"), "--record", "2999", "--path", "title"])
        #expect(seek.status == 0 && !seek.stderr.contains("damaged"), "\(seek.stderr)")
        let lost = firstOfBlock[offsets[1]]!
        let inBlock = try Tool.run(["inspect", path("damaged.fpks"), "--record", "1"])
        #expect(inBlock.status == 1 && inBlock.stderr.contains("record 1 is in a damaged part of the stream"),
                "\(inBlock.stderr)")
        let listing = try Tool.run(["inspect", path("damaged.fpks")])
        #expect(listing.status == 1 && listing.stderr.contains("firepack validate says why"), "\(listing.stderr)")
        #expect(listing.text.contains("record 0: damaged at byte \(offsets[0]): CRC-32 mismatch (the block is damaged)"),
                "\(listing.text.prefix(500))")
        #expect(listing.text.contains("record \(lost): generated-books/"), "the next block's records keep their numbers")
        #expect(!listing.text.contains("record 1: generated-books/"))
        let repaired = try Tool.run(["validate", path("damaged.fpks"), "--repair", path("repaired.fpks")])
        #expect(repaired.status == 1 && repaired.text.contains("\(3000 - lost) intact record(s) written"), "\(repaired.text)")
        #expect(try bytes("repaired.fpks")[4] == 3)
        // No record past the end; a negative one is a usage error.
        let missing = try Tool.run(["inspect", path("small.fpks"), "--record", "3000"])
        #expect(missing.status == 1 && missing.stderr.contains("no record 3000"), "\(missing.stderr)")
        #expect(try Tool.run(["inspect", path("small.fpks"), "--record=-1"]).status == 2)
    }

    /// A version byte damaged from 3 to 2 or 1 makes each block read as a record holding more than a document: the
    /// first one's problem says what it reads as, and what to look at.
    @Test func aDamagedVersionByteIsNamed() throws {
        var stream = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "Fixtures/books.fpks")))
        #expect(stream[4] == 3)
        for version: UInt8 in [2, 1] {
            stream[4] = version
            try Data(stream).write(to: URL(fileURLWithPath: path("v\(version).fpks")))
            let validated = try Tool.run(["validate", path("v\(version).fpks")])
            #expect(validated.status == 1 && validated.stderr.contains(
                "(it reads as a version-3 block: the stream's header says version \(version); is that byte damaged?)"),
                    "\(validated.stderr)")
        }
        // An intact version-2 stream's invalid first document is not taken for one.
        let lines = Array(#"{"__name__": "c/a", "n": 1}"#.utf8) + [0x0A]
        let v2 = try Tool.run(["convert", "-", "-", "--from", "jsonl", "--to", "fpks", "--stream-version", "2"], stdin: lines)
        #expect(v2.status == 0, "\(v2.stderr)")
        var damaged = v2.stdout
        damaged[6 + 12] = 0x00  // the document's first byte, past the header and the record's marker, length and CRC
        let crcStart = 6 + 8, payload = Array(damaged[(6 + 12)..<(damaged.count - 16)])
        let crc = payload.withUnsafeBytes { crc32($0) }
        for index in 0..<4 { damaged[crcStart + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
        try Data(damaged).write(to: URL(fileURLWithPath: path("invalid.fpks")))
        let invalid = try Tool.run(["validate", path("invalid.fpks")])
        #expect(invalid.status == 1 && invalid.stderr.contains("not a valid document")
                && !invalid.stderr.contains("version-3 block"), "\(invalid.stderr)")
    }

    /// A damaged index or close record costs no record: `convert` writes every record and warns, `stats` counts them
    /// all, `validate` names the damage (exit 1) without counting a record as lost.
    @Test func aDamagedIndexOrCloseRecordLosesNoRecord() throws {
        #expect(try Tool.run(["convert", "Fixtures/generated-books.fpks", path("closed.fpks"), "--block-size", "8192"]).status == 0)
        let stream = try bytes("closed.fpks")
        let indexOffset = stream.suffix(24).dropFirst(12).prefix(8).reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(try Tool.run(["convert", path("closed.fpks"), path("expected.jsonl"), "--quiet"]).status == 0)
        for (name, at) in [("index", indexOffset + 14), ("close", stream.count - 24 + 6)] {
            var damaged = stream
            damaged[at] ^= 0x10
            let file = path("\(name).fpks")
            try Data(damaged).write(to: URL(fileURLWithPath: file))
            let converted = try Tool.run(["convert", file, path("\(name).jsonl"), "--quiet"])
            #expect(converted.status == 0 && converted.stderr.contains("no record is lost"), "\(name): \(converted.stderr)")
            #expect(try bytes("\(name).jsonl") == bytes("expected.jsonl"), "\(name)")
            let stats = try Tool.run(["stats", file])
            #expect(stats.status == 0 && stats.text.contains("3000 documents"), "\(name): \(stats.stderr)")
            let validated = try Tool.run(["validate", file])
            #expect(validated.status == 1 && validated.stderr.contains("no record is lost"),
                    "\(name): \(validated.stderr)")
            #expect(!validated.stderr.contains("damaged record") && validated.stderr.contains("3000 document(s) intact"),
                    "\(name): \(validated.stderr)")
            // A record lost to damage is said to be lost once the numbers pass it, without reading on to the end.
            let seek = try Tool.run(["inspect", file, "--record", "2999", "--path", "title"])
            #expect(seek.status == 0, "\(name): \(seek.stderr)")
        }
    }
}
