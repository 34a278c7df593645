import Foundation
import Testing
import FirePack
import FirePackInterop

/// Fixtures/*.fpk are generated from Fixtures/*.json by scripts/generate/generate-fixtures.sh; this fails when they drift.
@Suite("Fixtures")
struct FixtureTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")

    static let names: [String] = {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".firestore.json") }.map { String($0.dropLast(5)) }.sorted()
    }()

    @Test("the guide's collections are all there")
    func collectionsPresent() {
        #expect(Set(Self.names).isSuperset(of: ["books", "languages", "offices", "colors", "articles", "generated-books"]))
    }

    @Test("each .fpk is byte for byte the encoding of its .json", arguments: names)
    func inSync(name: String) throws {
        let json = try Data(contentsOf: Self.directory.appendingPathComponent("\(name).json"))
        let packed = try [UInt8](Data(contentsOf: Self.directory.appendingPathComponent("\(name).fpk")))
        let value = try Value(json: json)
        let writer = FirePackWriter()
        writer.writeFileHeader()
        writer.write(value)
        #expect(writer.takeBytes() == packed, "Fixtures/\(name).fpk is out of date: run scripts/generate/generate-fixtures.sh")
        let decoded = try packed.withUnsafeBytes { raw in
            Result { () throws(FirePackError) in
                var reader = try FirePackReader(fileBytes: raw)
                return try reader.readValue()
            }
        }.get()
        #expect(decoded == value)
    }

    @Test("articles carry references, server timestamps and explicit nulls")
    func articleTypes() throws {
        let articles = try Value(json: Data(contentsOf: Self.directory.appendingPathComponent("articles.json")))
        #expect(articles[1]?["createdAt"] == .serverTimestamp)
        #expect(articles[0]?["deletedAt"] == .null)
        #expect(articles[0]?["author"] == .reference(try DocumentReference(path: "users/peter")))
        #expect(articles[1]?["status"] == "in review")
    }
}
