#if FirePackHummingbird
import FirePack
@testable import FirePackHummingbird
import Foundation
import Hummingbird
import Testing

@Suite("Content negotiation")
struct ContentNegotiationTests {
    @Test("Accept picks the format with the higher quality, then the more specific match, then the one listed first", arguments: [
        ([], BodyFormat.json),
        (["application/vnd.firepack"], .firePack),
        (["application/json"], .json),
        (["*/*"], .json),
        (["application/*"], .json),
        (["application/vnd.firepack, application/json"], .firePack),
        (["application/json, application/vnd.firepack"], .json),
        (["application/json", "application/vnd.firepack"], .json),
        (["*/*, application/vnd.firepack"], .firePack),
        (["application/vnd.firepack;q=0.5, application/json"], .json),
        (["application/vnd.firepack, application/json;q=0.9"], .firePack),
        (["application/vnd.firepack;q=0.9, */*;q=0.1"], .firePack),
        (["application/vnd.firepack;q=0.1, */*"], .json),
        (["application/vnd.firepack;q=0"], .json),
        (["text/html"], .json),
        (["text/html", "application/vnd.firepack"], .firePack),
        (["Application/VND.FirePack ; q=1.0"], .firePack),
        (["application/vnd.firepack;q=2"], .json),
        (["application/vnd.firepack;q=abc, application/json"], .json),
        (["garbage, application/vnd.firepack"], .firePack),
        (["application/vnd.firepack;charset=x;q=0.8, application/json;q=0.7"], .firePack),
        // A quoted parameter value may hold commas and semicolons (RFC 9110 §5.6.4), and escaped quotes.
        ([#"application/json;profile="a,b";q=0.1, application/vnd.firepack;q=0.5"#], .firePack),
        ([#"application/json;profile="x;q=1";q=0.2, application/vnd.firepack;q=0.3"#], .firePack),
        ([#"application/json;p="say \"hi\", ok";q=0.1, application/vnd.firepack;q=0.2"#], .firePack),
    ] as [([String], BodyFormat)])
    func accept(values: [String], expected: BodyFormat) {
        #expect(BodyFormat.negotiate(accept: values) == expected)
    }

    @Test("Content-Type names FirePack, JSON or neither", arguments: [
        ("application/vnd.firepack", BodyFormat?.some(.firePack)),
        ("application/json", .json),
        ("application/json; charset=utf-8", .json),
        ("APPLICATION/JSON", .json),
        (" application/vnd.firepack ", .firePack),
        ("application/*", nil),
        ("*/*", nil),
        ("text/plain", nil),
        ("application/octet-stream", nil),
        ("", nil),
        ("application", nil),
    ] as [(String, BodyFormat?)])
    func contentType(header: String, expected: BodyFormat?) {
        #expect(BodyFormat(contentType: header) == expected)
    }

    @Test("No Content-Type names no format")
    func missingContentType() {
        #expect(BodyFormat(contentType: nil) == nil)
    }

    @Test("The media type is registered as application/vnd.firepack")
    func mediaType() {
        #expect(FirePackMediaType.name == "application/vnd.firepack")
        #expect(MediaType.applicationFirePack.description == "application/vnd.firepack")
        #expect(BodyFormat.firePack.contentType == FirePackMediaType.name)
    }

    @Test("A bad body's message names the byte offset and the coding path")
    func badBodyMessage() throws {
        struct Book: Codable { var title: String; var tags: [String] }
        let bytes = [UInt8](try FirePackEncoder().encode(Book(title: "t", tags: ["a", "b"]))).dropLast(2)
        let error = #expect(throws: DecodingError.self) { _ = try FirePackDecoder().decode(Book.self, from: bytes) }
        let message = BodyCoding.badBodyMessage(try #require(error), format: .firePack, type: Book.self)
        #expect(message.hasPrefix("The FirePack body is not a valid Book: "))
        #expect(message.contains("at byte "), "\(message)")
        #expect(message.hasSuffix("coding path: (the top level)"), "\(message)")
    }

    @Test("A type mismatch's message names the path of the value")
    func typeMismatchMessage() throws {
        struct Book: Codable { var title: String; var tags: [Int] }
        let bytes = try FirePackEncoder().encode(["title": "t", "tags": ["not a number"]] as [String: Value])
        let error = #expect(throws: DecodingError.self) { _ = try FirePackDecoder().decode(Book.self, from: bytes) }
        let message = BodyCoding.badBodyMessage(try #require(error), format: .firePack, type: Book.self)
        #expect(message.contains("coding path: tags[0]"), "\(message)")
        #expect(message.contains("at byte "), "\(message)")
    }
}
#endif

#if FirePackHummingbird
@Suite("FORMAT.md")
struct MediaTypeDocumentationTests {
    @Test("FORMAT.md §10 registers the media type the module sends")
    func formatDocumentsMediaType() throws {
        let format = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Docs/FORMAT.md")
        let text = try String(contentsOf: format, encoding: .utf8)
        #expect(text.contains("## 10. HTTP bodies: `application/vnd.firepack`"))
        #expect(text.contains("| media type | `\(FirePackMediaType.name)` |"))
    }
}
#endif
