import FirePackTestSupport
import Foundation
import Testing
import FirePack
import FirePackStreams

/// `firepack schema`: the columns a stream becomes in Arrow, with what was seen per field (Docs/ARROW.md).
@Suite("firepack schema")
struct SchemaCommandTests {
    private let folder = TemporaryFolder("schema")
    var directory: URL { folder.url }

    @Test("per field path: the column, the types seen with counts, absences, and why a field is kept as JSON text")
    func report() throws {
        let path = directory.appendingPathComponent("mixed.fpks").path
        let writer = try DocumentStreamWriter.creatingAtomically(atPath: path)
        for (index, value) in [Value.integer(1), .double(2.5), .string("three")].enumerated() {
            var fields: MapValue = ["v": value, "when": .timestamp(Timestamp(seconds: Int64(index), nanoseconds: 7))]
            if index == 0 { fields["only"] = .boolean(true) }
            try writer.append(Document(reference: try DocumentReference(path: "c/\(index)"), fields: fields))
        }
        try writer.close()
        let text = try Tool.run(["schema", path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.text.contains(": 3 documents"))
        #expect(text.text.contains("when  timestamp[ns, UTC] — timestamp 3"))
        #expect(text.text.contains("only  bool — boolean 1, absent 2"))
        #expect(text.text.contains("v     JSON text (string) — double 1, integer 1, string 1"))
        #expect(text.text.contains("↳ values of several types"))
        let json = try Tool.run(["schema", path, "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(json.stdout)) as! [String: Any]
        #expect(report["documents"] as? Int == 3)
        let fields = report["fields"] as! [[String: Any]]
        #expect(fields.map { $0["path"] as! String } == ["v", "when", "only"])
        #expect((fields[2]["absent"] as? Int) == 2)
    }

    @Test("a damaged record is left out of the profile and fails the command; a file that is not a stream is an error")
    func damage() throws {
        // A version-2 copy, a record per document, so that one flipped byte costs one document.
        let copy = directory.appendingPathComponent("books-v2.fpks")
        #expect(try Tool.run(["convert", "Fixtures/books.fpks", copy.path, "--stream-version", "2"]).status == 0)
        var bytes = try [UInt8](Data(contentsOf: copy))
        bytes[bytes.count / 2] ^= 0xFF
        let damaged = directory.appendingPathComponent("damaged.fpks")
        try Data(bytes).write(to: damaged)
        let result = try Tool.run(["schema", damaged.path])
        #expect(result.status == 1)
        #expect(result.text.contains(": 4 documents"))
        #expect(result.stderr.contains("1 damaged record(s): 1 of 5 records not read, left out"))
        // Among several files, the message names the one with the damage.
        let several = try Tool.run(["schema", "Fixtures/books.fpks", damaged.path])
        #expect(several.status == 1 && several.text.contains(": 9 documents"), "\(several.stderr)")
        #expect(several.stderr.hasPrefix("firepack: \(damaged.path): 1 damaged record(s)"), "\(several.stderr)")
        // A `.fpk` cut inside its header, or of another version, is an error at its offset, as for every reader.
        for (bytes, expected) in [([0x89, 0x46, 0x50, 0x4B] as [UInt8], "truncated"), ([0x89, 0x46, 0x50, 0x4B, 9, 0], "version 9")] {
            let cut = directory.appendingPathComponent("cut.fpk")
            try Data(bytes).write(to: cut)
            let result = try Tool.run(["schema", cut.path])
            #expect(result.status == 1 && result.stderr.contains(expected) && result.stderr.contains("cut.fpk"),
                    "\(result.status): \(result.stderr)")
            // Named once, and among several files the one at fault alone.
            #expect(result.stderr.components(separatedBy: "cut.fpk").count == 2, "\(result.stderr)")
            let two = try Tool.run(["schema", "Fixtures/books.fpks", cut.path])
            #expect(two.status == 1 && two.stderr.hasPrefix("firepack: \(cut.path): "), "\(two.stderr)")
            #expect(!two.stderr.contains("books.fpks") && two.stderr.components(separatedBy: "cut.fpk").count == 2)
        }
        let notStream = try Tool.run(["schema", "Fixtures/books.json"])
        #expect(notStream.status == 1 && notStream.stderr.contains("books.json"))
        #expect(try Tool.run(["schema"]).status == 2)   // a usage error, as for every subcommand
    }

    /// A `.fpk` the tool wrote from documents (an array of plain objects named by `__name__`, format version 3 or 1)
    /// reads as the stream it came from; one document as a record reads as one; unnamed values are an error that
    /// says how to name them.
    @Test func fpkFilesTheToolWritesRead() throws {
        let stream = try Tool.run(["schema", "Fixtures/books.fpks"])
        #expect(stream.status == 0 && stream.text.contains(": 5 documents"), "\(stream.stderr)")
        let body = { (text: String) in text.split(separator: "\n").dropFirst().joined(separator: "\n") }
        for version in ["3", "1"] {
            let file = directory.appendingPathComponent("books-\(version).fpk").path
            #expect(try Tool.run(["convert", "Fixtures/books.fpks", file, "--fpk-version", version]).status == 0)
            let result = try Tool.run(["schema", file])
            #expect(result.status == 0 && result.text.contains(": 5 documents"), "\(version): \(result.stderr)")
            #expect(body(result.text) == body(stream.text), "version \(version)")
        }
        let document = Document(reference: try DocumentReference(path: "c/one"), fields: ["n": 1])
        let single = directory.appendingPathComponent("one.fpk")
        let writer = FirePackWriter()
        writer.writeFileHeader()
        document.write(to: writer)
        try Data(writer.takeBytes()).write(to: single)
        let one = try Tool.run(["schema", single.path])
        #expect(one.status == 0 && one.text.contains(": 1 documents") && one.text.contains("n  int64"), "\(one.text)")
        let unnamed = try Tool.run(["schema", "Fixtures/books.fpk"])
        #expect(unnamed.status == 1 && unnamed.stderr.contains("element 0 is not a document named by __name__"),
                "\(unnamed.stderr)")
    }
}
