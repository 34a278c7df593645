import Foundation
import Testing
import FirePack

/// Runs the SDK-style guide code (GuideCode.swift) and checks what it produced.
@Suite("SDK-style code")
struct GuideCodeTests {
    @Test func guideCodeRunsWithTheSDKsMeaning() throws {
        let run = try runGuide()
        #expect(run.bookData["title"] as? String == "The Hitchhiker's Guide to the Galaxy")
        #expect(run.bookData["numberOfPages"] as? Int64 == 816)
        #expect(run.bookData["id"] == nil)
        #expect(run.decodedBook.id == "hitchhiker" && run.decodedBook.author == "Douglas Adams")
        #expect(run.languageData["language_name"] as? String == "Swift")
        #expect(run.languageData["reducedName"] == nil)
        #expect(run.languageData["year"] as? Timestamp == Timestamp(seconds: 1_401_667_200, nanoseconds: 0))
        #expect(run.officeRoundTrip.location == GeoPoint(latitude: 47.3664, longitude: 8.5252))
        #expect(run.articleFromSnapshot.id == "a1")
        #expect(run.articleFromSnapshot.createdAt == nil && run.articleFromSnapshot.updatedAt == nil)
        #expect(run.estimatedArticle.createdAt != nil && run.estimatedArticle.updatedAt != nil)
        #expect(run.articleFromSnapshot.author?.path == "books/hitchhiker")
        #expect(run.reviewsPath == "books/hitchhiker/reviews" && run.parentCollection == "reviews")
        #expect(run.titleField as? String == "Codable and Firestore")
    }
}
