import Foundation
import Testing
@testable import FirePack

@Suite("Property wrappers")
struct PropertyWrapperTests {
    let reference = try! DocumentReference(path: "books/hitchhiker")

    @Test func documentIDIsNeverWrittenAndFilledFromTheReference() throws {
        let book = Book(id: "set-but-not-written", title: "H2G2", numberOfPages: 216, author: "Douglas Adams")
        let bytes = try FirePackEncoder().encodeToBytes(book)
        #expect(try Value(firePackBytes: bytes) == ["title": "H2G2", "numberOfPages": 216, "author": "Douglas Adams"])
        let decoded = try FirePackDecoder().decode(Book.self, from: bytes, in: reference)
        #expect(decoded.id == "hitchhiker")
        #expect(try FirePackDecoder().decode(Book.self, from: bytes).id == nil, "no reference: nil")
    }

    @Test func aStoredFieldNamedLikeTheDocumentIDIsIgnored() throws {
        let stored: Value = ["id": "stored", "title": "T", "numberOfPages": 1, "author": "A"]
        #expect(try FirePackDecoder().decode(Book.self, from: stored.firePackBytes(), in: reference).id == "hitchhiker")
        #expect(try FirePackDecoder().decode(Book.self, from: stored.firePackBytes()).id == nil)
    }

    struct ByReference: Codable, Equatable {
        @DocumentID var reference: DocumentReference?
        var name: String
    }

    @Test func documentIDCanHoldTheReference() throws {
        let bytes = try FirePackEncoder().encodeToBytes(ByReference(reference: nil, name: "n"))
        #expect(try FirePackDecoder().decode(ByReference.self, from: bytes, in: reference).reference == reference)
    }

    @Test func documentIDWithAForeignEncoderIsAClearError() throws {
        do {
            _ = try JSONEncoder().encode(Book(id: "x", title: "T", numberOfPages: 1, author: "A"))
            Issue.record("JSONEncoder encoded a @DocumentID")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.contains("@DocumentID"))
            #expect(context.codingPath.map(\.stringValue) == ["id"])
        }
        // Another decoder cannot know the document: nil, not an error.
        let json = Data(#"{"id": "x", "title": "T", "numberOfPages": 1, "author": "A"}"#.utf8)
        #expect(try JSONDecoder().decode(Book.self, from: json).id == nil)
    }

    @Test func serverTimestampWritesTheSentinelForNil() throws {
        let author = try DocumentReference(path: "users/peter")
        let pending = Article(id: nil, title: "T", status: .draft, author: author, createdAt: nil, updatedAt: nil, deletedAt: nil)
        let tree = try Value(firePackBytes: FirePackEncoder().encodeToBytes(pending))
        #expect(tree["createdAt"] == .serverTimestamp)
        #expect(tree["updatedAt"] == .serverTimestamp)
        #expect(tree["deletedAt"] == .null, "@ExplicitNull writes null")
        let decoded = try FirePackDecoder().decode(Article.self, from: tree.firePackBytes())
        #expect(decoded.createdAt == nil && decoded.updatedAt == nil && decoded.deletedAt == nil)

        let decoder = FirePackDecoder()
        let estimate = Timestamp(seconds: 1_700_000_000, nanoseconds: 5)
        decoder.serverTimestampEstimate = estimate
        let estimated = try decoder.decode(Article.self, from: tree.firePackBytes())
        #expect(estimated.createdAt == estimate)
        #expect(estimated.updatedAt == estimate.dateValue())
    }

    @Test func serverTimestampWithAValueWritesATimestamp() throws {
        let author = try DocumentReference(path: "users/peter")
        let time = Timestamp(seconds: 1_600_000_000, nanoseconds: 123_456_789)
        // A Date holds a Double: .25 s is exact in it, .123456789 s is not (near 2020 its step is about 119 ns).
        let dateTime = Timestamp(seconds: 1_600_000_000, nanoseconds: 250_000_000)
        let article = Article(id: nil, title: "T", status: .published, author: author, createdAt: time,
                              updatedAt: dateTime.dateValue(), deletedAt: dateTime.dateValue())
        let tree = try Value(firePackBytes: try assertRoundTrip(article))
        #expect(tree["createdAt"] == .timestamp(time), "a Timestamp keeps every nanosecond")
        #expect(tree["updatedAt"] == .timestamp(dateTime))
        #expect(tree["status"] == "published")
        #expect(tree["author"] == .reference(author))
    }

    @Test func missingKeysDecodeAsNil() throws {
        let minimal: Value = ["title": "T", "status": "draft", "author": .reference(try DocumentReference(path: "users/u"))]
        let article = try FirePackDecoder().decode(Article.self, from: minimal.firePackBytes())
        #expect(article.createdAt == nil && article.updatedAt == nil && article.deletedAt == nil && article.id == nil)
        // With JSONDecoder too.
        let json = Data(#"{"title": "T", "status": "draft", "author": "users/u"}"#.utf8)
        let viaJSON = try JSONDecoder().decode(Article.self, from: json)
        #expect(viaJSON.createdAt == nil && viaJSON.deletedAt == nil)
    }

    @Test func wrappersAreEquatableHashableAndSendable() {
        func sendable<T: Sendable>(_ value: T) -> T { value }
        #expect(sendable(DocumentID<String>(wrappedValue: "a")) == DocumentID(wrappedValue: "a"))
        #expect(Set([ServerTimestamp<Timestamp>(wrappedValue: nil), ServerTimestamp(wrappedValue: nil)]).count == 1)
        #expect(sendable(ExplicitNull<Int>(wrappedValue: 3)).hashValue == ExplicitNull(wrappedValue: 3).hashValue)
        #expect(ExplicitNull<Int>(wrappedValue: 3) != ExplicitNull(wrappedValue: nil))
    }

    @Test func wrappersOutsideKeyedContainers() throws {
        let pending = [ServerTimestamp<Timestamp>(wrappedValue: nil), ServerTimestamp(wrappedValue: Timestamp(seconds: 1, nanoseconds: 0))]
        let tree = try Value(firePackBytes: FirePackEncoder().encodeToBytes(pending))
        #expect(tree == [.serverTimestamp, .timestamp(Timestamp(seconds: 1, nanoseconds: 0))])
        #expect(try FirePackDecoder().decode([ServerTimestamp<Timestamp>].self, from: tree.firePackBytes()) == pending)
        #expect(try Value(firePackBytes: FirePackEncoder().encodeToBytes([ExplicitNull<Int>(wrappedValue: nil)])) == [nil])
    }
}

@Suite("Documents")
struct DocumentTests {
    @Test func documentFromAnEncodableAndBack() throws {
        let reference = try DocumentReference(path: "books/hitchhiker")
        let book = sampleBookWithTags()
        let document = try Document(reference: reference, from: book)
        #expect(document.fields["title"] == .string(book.title))
        var expected = book
        expected.id = "hitchhiker"
        #expect(try document.data(as: BookWithTags.self) == expected)
        #expect(throws: EncodingError.self) { try Document(reference: reference, from: [1, 2]) }
        #expect(throws: EncodingError.self) { try Document(reference: reference, from: "text") }
    }

    @Test func resolvingServerTimestamps() throws {
        let author = try DocumentReference(path: "users/peter")
        let document = try Document(reference: DocumentReference(path: "articles/a1"),
                                    from: Article(id: nil, title: "T", status: .draft, author: author, createdAt: nil, updatedAt: nil, deletedAt: nil))
        #expect(document.fields["createdAt"] == .serverTimestamp)
        let now = Timestamp(seconds: 1_700_000_000, nanoseconds: 0)
        let resolved = document.resolvingServerTimestamps(at: now)
        #expect(resolved.fields["createdAt"] == .timestamp(now) && resolved.fields["updatedAt"] == .timestamp(now))
        let article = try resolved.data(as: Article.self)
        #expect(article.createdAt == now && article.id == "a1")
    }

    @Test func documentsAreFirePackValuesThemselves() throws {
        let document = Document(reference: try DocumentReference(path: "a/b"), fields: ["x": 1, "nested": ["y": [true]]],
                                createTime: Timestamp(seconds: 1, nanoseconds: 2), updateTime: Timestamp(seconds: 3, nanoseconds: 0))
        let bytes = document.firePackBytes()
        #expect(try Document(firePackBytes: bytes) == document)
        #expect(try Value(firePackBytes: bytes)["name"] == .reference(try DocumentReference(path: "a/b")))
        #expect(try FirePackDecoder().decode(Document.self, from: try FirePackEncoder().encodeToBytes(document)) == document)
        let canonical = document.firePackBytes(deterministic: true)
        guard case .map(let map) = try Value(firePackBytes: canonical) else { Issue.record("not a map"); return }
        // A record keeps §9's order even in deterministic mode (a reader requires it); its fields are sorted.
        #expect(map.keys == ["name", "fields", "createTime", "updateTime"])
        #expect(try Document(firePackBytes: canonical).fields.keys == ["nested", "x"])
    }
}
