import Foundation
import Testing
import FirePack
import FirePackTestSupport

/// The SDK's reference and snapshot shapes: `CollectionReference`, `DocumentReference.parent` / `collection(_:)`,
/// `Document.documentID` / `get` / subscript / `data(as:with:)`.
@Suite("SDK parity: references and documents")
struct ReferenceAndDocumentTests {
    @Test func documentsAndCollectionsNavigateAsInTheSDK() throws {
        let review = try DocumentReference(path: "books/hitchhiker/reviews/r1")
        #expect(review.documentID == "r1")
        #expect(review.parent.collectionID == "reviews" && review.parent.path == "books/hitchhiker/reviews")
        #expect(review.parent.parent?.path == "books/hitchhiker")
        #expect(review.parent.parent?.parent.collectionID == "books")
        #expect(review.parent.parent?.parent.parent == nil)
        let books = try CollectionReference(path: "books")
        #expect(books.document("hitchhiker").collection("reviews").document("r1") == review)
        #expect(books.document("hitchhiker/reviews/r1") == review)
        #expect(books.document("hitchhiker").collection("reviews/r1/replies").collectionID == "replies")
        // The full form: a top-level collection has no parent there either.
        let full = try DocumentReference(path: "projects/p/databases/(default)/documents/books/hitchhiker")
        #expect(full.parent.path == "projects/p/databases/(default)/documents/books" && full.parent.parent == nil)
        #expect(full.collection("reviews").parent == full)
    }

    @Test func collectionPathsAreValidated() throws {
        for good in ["books", "books/b/reviews", "projects/p/databases/d/documents/books"] {
            #expect(throws: Never.self, "\(good)") { try CollectionReference(path: good) }
        }
        for bad in ["", "books/b", "books//reviews", "/books", "books/", "__x__", "books/./r"] {
            #expect(throws: FirePackError.self, "\(bad)") { try CollectionReference(path: bad) }
        }
        #expect(try CollectionReference(path: "a") < CollectionReference(path: "a/b/c"))
        #expect(try CollectionReference(path: "a/b/c") < CollectionReference(path: "aa"))
    }

    @Test func invalidPathsFromCodeTrapAsInTheSDK() async {
        await #expect(processExitsWith: .failure) { _ = try! CollectionReference(path: "books").document("a/b") }
        await #expect(processExitsWith: .failure) { _ = try! CollectionReference(path: "books").document("") }
        await #expect(processExitsWith: .failure) { _ = try! DocumentReference(path: "books/b").collection("r/x") }
    }

    @Test func generatedDocumentIDs() throws {
        let books = try CollectionReference(path: "books")
        let ids = (0..<200).map { _ in books.document().documentID }
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.count == 20 && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } })
        var first = SeededGenerator(seed: 7), second = SeededGenerator(seed: 7)
        #expect(books.document(using: &first) == books.document(using: &second))
    }

    static let updated = Timestamp(seconds: 1_700_000_000, nanoseconds: 5)
    static let document = Document(
        reference: try! DocumentReference(path: "books/hitchhiker"),
        fields: ["title": "Hitchhiker", "cover": ["small": "s.jpg", "sizes.px": 64], "addedAt": .serverTimestamp,
                 "history": [["at": .serverTimestamp]]],
        updateTime: updated)

    @Test func documentFieldsByPath() {
        let document = Self.document
        #expect(document.documentID == "hitchhiker")
        #expect(document.get("title") == "Hitchhiker")
        #expect(document["cover.small"] == "s.jpg")
        #expect(document.get("cover.`sizes.px`") == 64)
        #expect(document.get(FieldPath(["cover", "sizes.px"])) == 64)
        #expect(document.get("cover.missing") == nil && document.get("title.x") == nil)
        #expect(FieldPath(["cover", "sizes.px", "a`b"]).description == "cover.`sizes.px`.`a\\`b`")
    }

    @Test func pendingServerTimestampsFollowTheBehaviour() {
        let document = Self.document
        #expect(document.get("addedAt") == .null)
        #expect(document.get("addedAt", serverTimestampBehavior: .previous) == .null)
        #expect(document.get("addedAt", serverTimestampBehavior: .estimate) == .timestamp(Self.updated))
        #expect(document.get("history", serverTimestampBehavior: .estimate) == [["at": .timestamp(Self.updated)]])
        // Without an update time the estimate is the current time.
        var unsaved = document
        unsaved.updateTime = nil
        guard case .timestamp(let estimate)? = unsaved.get("addedAt", serverTimestampBehavior: .estimate) else {
            Issue.record("no estimate"); return
        }
        #expect(abs(estimate.dateValue().timeIntervalSinceNow) < 60)
    }

    struct Book: Codable {
        @DocumentID var id: String?
        var title: String
        @ServerTimestamp var addedAt: Timestamp?
    }

    @Test func dataAsWithBehaviour() throws {
        let document = Self.document
        let plain = try document.data(as: Book.self)
        #expect(plain.id == "hitchhiker" && plain.title == "Hitchhiker" && plain.addedAt == nil)
        #expect(try document.data(as: Book.self, with: .previous).addedAt == nil)
        #expect(try document.data(as: Book.self, with: .estimate).addedAt == Self.updated)
        // `.none` leaves the decoder's own estimate in force.
        let decoder = FirePackDecoder()
        decoder.serverTimestampEstimate = Timestamp(seconds: 5, nanoseconds: 0)
        #expect(try document.data(as: Book.self, decoder: decoder).addedAt == Timestamp(seconds: 5, nanoseconds: 0))
        #expect(try document.data(as: Book.self, with: .estimate, decoder: decoder).addedAt == Self.updated)
    }
}
