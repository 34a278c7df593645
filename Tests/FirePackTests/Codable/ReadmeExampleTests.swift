import Foundation
import Testing
import FirePack

/// The README's Codable tour, run as written.
@Suite("README example")
struct ReadmeExampleTests {
    struct Book: Codable {
        @DocumentID var id: String?
        var title: String
        var numberOfPages: Int
        var author: String
        @ServerTimestamp var addedAt: Timestamp?
    }

    struct Shelf: Codable { var books: [Book] }

    @Test func bookEndToEnd() throws {
        let book = Book(title: "The Hitchhiker's Guide to the Galaxy", numberOfPages: 216, author: "Douglas Adams")
        let data = try FirePackEncoder().encode(book)
        #expect(try Value(firePackBytes: data) == ["title": "The Hitchhiker's Guide to the Galaxy", "numberOfPages": 216,
                                                  "author": "Douglas Adams", "addedAt": .serverTimestamp])
        let reference = try DocumentReference(path: "books/hitchhiker")
        let decoded = try FirePackDecoder().decode(Book.self, from: data, in: reference)
        #expect(decoded.id == "hitchhiker")

        let shelf: Value = ["books": [["title": "Dune", "numberOfPages": "many", "author": "Frank Herbert"]]]
        do {
            _ = try FirePackDecoder().decode(Shelf.self, from: shelf.firePackBytes(), in: reference)
            Issue.record("decoded a string as Int")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["books", "Index 0", "numberOfPages"])
            #expect(context.debugDescription == "Expected to decode Int but found string (at byte 37 in document books/hitchhiker).")
        }

        let document = try Document(reference: reference, from: book).resolvingServerTimestamps(at: Timestamp())
        let same = try document.data(as: Book.self)
        #expect(same.id == "hitchhiker" && same.addedAt != nil)
    }
}
