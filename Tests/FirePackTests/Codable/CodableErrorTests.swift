import Foundation
import Testing
import FirePackTestSupport
@testable import FirePack

@Suite("Codable errors")
struct CodableErrorTests {
    struct Library: Codable {
        var books: [BookWithTags]
    }

    func libraryValue(breaking: (inout MapValue) -> Void) throws -> Value {
        var book = try FirePackEncoder().encodeToValue(sampleBookWithTags())
        guard case .map(var map) = book else { fatalError() }
        breaking(&map)
        book = .map(map)
        let good = try FirePackEncoder().encodeToValue(sampleBookWithTags(1))
        return ["books": [good, book]]
    }

    @Test func typeMismatchNamesPathTypesOffsetAndDocument() throws {
        let value = try libraryValue { $0["numberOfPages"] = "many" }
        let reference = try DocumentReference(path: "libraries/main")
        guard case .typeMismatch(let type, let context)? = decodingError(Library.self, from: value, in: reference) else {
            Issue.record("expected typeMismatch"); return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(Int.self))
        #expect(context.codingPath.map(\.stringValue) == ["books", "Index 1", "numberOfPages"])
        #expect(context.codingPath[1].intValue == 1)
        let description = context.debugDescription
        #expect(description.contains("Int") && description.contains("string"), "\(description)")
        #expect(description.contains("at byte "), "\(description)")
        #expect(description.contains("libraries/main"), "\(description)")
    }

    @Test func keyNotFoundAndValueNotFound() throws {
        let missing = try libraryValue { $0["author"] = nil }
        guard case .keyNotFound(let key, let context)? = decodingError(Library.self, from: missing) else { Issue.record("keyNotFound"); return }
        #expect(key.stringValue == "author")
        #expect(context.codingPath.map(\.stringValue) == ["books", "Index 1"])

        let null = try libraryValue { $0["title"] = .null }
        guard case .valueNotFound(_, let nullContext)? = decodingError(Library.self, from: null) else { Issue.record("valueNotFound"); return }
        #expect(nullContext.codingPath.map(\.stringValue) == ["books", "Index 1", "title"])

        let deep = try libraryValue { $0["tags"] = [["title": "t"]] }
        guard case .keyNotFound(let colorKey, let deepContext)? = decodingError(Library.self, from: deep) else { Issue.record("deep"); return }
        #expect(colorKey.stringValue == "color")
        #expect(deepContext.codingPath.map(\.stringValue) == ["books", "Index 1", "tags", "Index 0"])
    }

    @Test func containerTypeMismatches() {
        guard case .typeMismatch? = decodingError(Book.self, from: [1, 2]) else { Issue.record("map expected"); return }
        guard case .typeMismatch? = decodingError([Int].self, from: ["a": 1]) else { Issue.record("array expected"); return }
        guard case .valueNotFound? = decodingError(Book.self, from: nil) else { Issue.record("null map"); return }
        guard case .valueNotFound? = decodingError([Int].self, from: [1, nil]) else { Issue.record("null element"); return }
    }

    @Test func corruptBytesAreDataCorruptedWrappingFirePackError() throws {
        var bytes = try FirePackEncoder().encodeToBytes(sampleBookWithTags())
        bytes.removeLast(5)
        do {
            _ = try FirePackDecoder().decode(BookWithTags.self, from: bytes)
            Issue.record("decoded truncated bytes")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.underlyingError is FirePackError, "\(String(describing: context.underlyingError))")
        }
        // Invalid UTF-8 inside a string field, found while decoding it: the path names the field.
        let broken = FirePackTests.bytes(hex: "B1 06 02 61 83 61 C3 28")
        struct A: Decodable { var a: String }
        do {
            _ = try FirePackDecoder().decode(A.self, from: broken)
            Issue.record("decoded invalid UTF-8")
        } catch DecodingError.dataCorrupted(let context) {
            #expect((context.underlyingError as? FirePackError)?.code == .invalidUTF8)
            #expect(context.codingPath.map(\.stringValue) == ["a"])
        }
    }

    @Test("mutated encodings of the guide's models decode or throw DecodingError, never crash")
    func mutatedModels() throws {
        var rng = SeededGenerator(seed: 4242)
        let author = try DocumentReference(path: "users/peter")
        let samples: [[UInt8]] = [
            try FirePackEncoder().encodeToBytes((0..<5).map(sampleBookWithTags)),
            try FirePackEncoder().encodeToBytes(Article(id: nil, title: "T", status: .inReview, author: author, createdAt: nil,
                                                        updatedAt: Date(timeIntervalSince1970: 5), deletedAt: nil)),
        ]
        var failures = 0
        for _ in 0..<20_000 {
            let bytes = ByteMutation.mutated(samples[Int.random(in: 0..<samples.count, using: &rng)], using: &rng)
            do {
                _ = try FirePackDecoder().decode([BookWithTags].self, from: bytes)
            } catch is DecodingError {
                failures += 1
            } catch {
                Issue.record("not a DecodingError: \(error)")
            }
            _ = try? FirePackDecoder().decode(Article.self, from: bytes)
        }
        #expect(failures > 1_000)
    }

    @Test func encodingErrorsCarryTheCodingPath() throws {
        struct Holder: Encodable { var values: [String: [Double]] }
        let encoder = FirePackEncoder()
        encoder.nonConformingFloatEncodingStrategy = .throw
        do {
            _ = try encoder.encodeToBytes(Holder(values: ["a": [1, .nan]]))
            Issue.record("NaN encoded with .throw")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["values", "a", "Index 1"])
        }
        #expect(try Value(firePackBytes: FirePackEncoder().encodeToBytes([Double.nan, .infinity])) == [.double(.nan), .double(.infinity)])
    }
}
