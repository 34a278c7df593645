// Code from the Firestore guide "Map Cloud Firestore data with Swift Codable", written as an SDK user writes it.
// Porting it took one change: `import FirebaseFirestore` became the two imports below. The file must compile
// unchanged against FirePack; FirePackSDKStyleTests runs it.
import FirePack
import FirePackInterop
import Foundation

// MARK: - Models, as in the guide

struct Book: Codable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
}

struct CoverImages: Codable {
    var small: URL
    var medium: URL
    var large: URL
}

struct BookWithCoverImages: Codable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
    var cover: CoverImages?
}

struct BookWithTags: Codable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
    var cover: CoverImages?
    var genres: [String]
    var tags: [String]
}

struct ProgrammingLanguage: Codable {
    @DocumentID var id: String?
    var name: String
    var year: Date
    var reducedName: String = "unknown"

    enum CodingKeys: String, CodingKey {
        case id
        case name = "language_name"
        case year
    }
}

struct Office: Codable {
    @DocumentID var id: String?
    var name: String
    var location: GeoPoint
}

struct Article: Codable {
    @DocumentID var id: String?
    var title: String
    @ServerTimestamp var createdAt: Timestamp?
    @ServerTimestamp var updatedAt: Date?
    @ExplicitNull var deletedAt: Date?
    var author: DocumentReference?
}

// MARK: - Calls, as an SDK user writes them

/// Shared coders: in Swift 6 mode this compiles only because they are Sendable, as Foundation's are.
enum Coders {
    static let encoder = Firestore.Encoder()
    static let decoder = Firestore.Decoder()
    static let binaryEncoder = FirePackEncoder()
    static let binaryDecoder = FirePackDecoder()
}

/// What the guide's snippets do, returned so that the test can check it.
struct GuideRun {
    var bookData: [String: Any]
    var decodedBook: Book
    var languageData: [String: Any]
    var officeRoundTrip: Office
    var articleFromSnapshot: Article
    var estimatedArticle: Article
    var reviewsPath: String
    var parentCollection: String
    var titleField: Any?
}

func runGuide() throws -> GuideRun {
    let db = try CollectionReference(path: "books")

    // Writing: setData(from:) goes through Firestore.Encoder.
    let book = Book(title: "The Hitchhiker's Guide to the Galaxy", numberOfPages: 816, author: "Douglas Adams")
    let encoder = Firestore.Encoder()
    encoder.dateEncodingStrategy = .timestamp
    encoder.dataEncodingStrategy = .blob
    encoder.keyEncodingStrategy = .useDefaultKeys
    let bookData = try encoder.encode(book)

    // Reading: data(as:) goes through Firestore.Decoder.
    let bookRef = db.document("hitchhiker")
    let decoder = Firestore.Decoder()
    decoder.dateDecodingStrategy = .timestamp
    let decodedBook = try decoder.decode(Book.self, from: bookData, in: bookRef)

    // Renamed keys and an excluded property (CodingKeys), Date as Timestamp.
    let swift = ProgrammingLanguage(name: "Swift", year: Timestamp(seconds: 1_401_667_200, nanoseconds: 0).dateValue())
    let languageData = try Coders.encoder.encode(swift)

    // GeoPoint without `try`, through the binary coders and a shared static decoder.
    let office = Office(name: "Zürich", location: GeoPoint(latitude: 47.3664, longitude: 8.5252))
    let officeBytes = try Coders.binaryEncoder.encode(office)
    let officeRoundTrip = try Coders.binaryDecoder.decode(Office.self, from: officeBytes, in: nil)

    // A document snapshot: documentID, fields by path, server timestamps resolved as the SDK resolves them.
    let articleRef = try CollectionReference(path: "articles").document("a1")
    let article = Article(title: "Codable and Firestore", author: db.document("hitchhiker"))
    let snapshot = try Document(reference: articleRef, from: article)
    precondition(snapshot.documentID == "a1")
    let articleFromSnapshot = try snapshot.data(as: Article.self)
    let estimatedArticle = try snapshot.data(as: Article.self, with: .estimate)
    let titleField = snapshot.data(with: .none)["title"]

    // References navigate as in the SDK.
    let reviews = bookRef.collection("reviews")
    let parentCollection = reviews.document("r1").parent.collectionID

    return GuideRun(bookData: bookData, decodedBook: decodedBook, languageData: languageData,
                    officeRoundTrip: officeRoundTrip, articleFromSnapshot: articleFromSnapshot,
                    estimatedArticle: estimatedArticle, reviewsPath: reviews.path, parentCollection: parentCollection,
                    titleField: titleField)
}
