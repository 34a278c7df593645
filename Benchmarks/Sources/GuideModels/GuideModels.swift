import FirePack
import FirePackMacros
import Foundation

// The guide's models ("Map Cloud Firestore data with Swift Codable"), as the benchmarks use them.

/// The guide's Book.
@FirePackCodable
public struct Book: Codable, Equatable {
    /// A book.
    public init(id: String? = nil, title: String, numberOfPages: Int, author: String) {
        (self.id, self.title, self.numberOfPages, self.author) = (id, title, numberOfPages, author)
    }
    public var id: String?  // plain, not @DocumentID: JSONEncoder refuses @DocumentID, and both coders must encode the same value
    public var title: String
    public var numberOfPages: Int
    public var author: String
}

/// The guide's cover images.
@FirePackCodable
public struct CoverImages: Codable, Equatable {
    /// Cover images.
    public init(small: URL, medium: URL?, large: URL) { (self.small, self.medium, self.large) = (small, medium, large) }
    public var small: URL
    public var medium: URL?
    public var large: URL
}

/// Stored as a CSS hex string `#RRGGBBAA`.
///
/// Its own `init(from:)` / `encode(to:)`, which every path runs (generated coding cannot see into them). The hex
/// formatting is written as a user who cares about speed would write it, with bytes, not with an
/// `Array("0123456789ABCDEF")` and a `Character` append per digit, which outweighed the coder when encoding a
/// `BookWithTags`: a benchmark of coders should measure the coders.
public struct Color: Codable, Equatable {
    public var red: Double, green: Double, blue: Double, alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    /// The color as a CSS hex string `#RRGGBBAA`.
    public var hex: String {
        func digit(_ value: Int) -> UInt8 { UInt8(value < 10 ? 48 + value : 55 + value) }   // 0-9, A-F
        var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (35, 0, 0, 0, 0, 0, 0, 0, 0)  // "#"
        withUnsafeMutableBytes(of: &bytes) { text in
            for (index, component) in [red, green, blue, alpha].enumerated() {
                let byte = Int((component * 255).rounded())
                text[1 + 2 * index] = digit(byte >> 4 & 0xF)
                text[2 + 2 * index] = digit(byte & 0xF)
            }
        }
        return withUnsafeBytes(of: bytes) { String(decoding: $0, as: UTF8.self) }
    }

    /// A color from a CSS hex string `#RRGGBBAA` (components of a malformed string read as 0).
    public init(hex: String) {
        let value = UInt32(hex.dropFirst(), radix: 16) ?? 0
        red = Double(value >> 24 & 0xFF) / 255
        green = Double(value >> 16 & 0xFF) / 255
        blue = Double(value >> 8 & 0xFF) / 255
        alpha = Double(value & 0xFF) / 255
    }

    public init(from decoder: any Decoder) throws {
        self.init(hex: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}

/// A tag with a color.
@FirePackCodable
public struct Tag: Codable, Equatable {
    /// A tag.
    public init(title: String, color: Color) { (self.title, self.color) = (title, color) }
    public var title: String
    public var color: Color
}

/// The guide's book with cover images, genres and tags.
@FirePackCodable
public struct BookWithTags: Codable, Equatable {
    /// A tagged book.
    public init(id: String? = nil, title: String, numberOfPages: Int, author: String, cover: CoverImages?, genres: [String], tags: [Tag]) {
        (self.id, self.title, self.numberOfPages, self.author) = (id, title, numberOfPages, author)
        (self.cover, self.genres, self.tags) = (cover, genres, tags)
    }
    public var id: String?  // plain, not @DocumentID: JSONEncoder refuses @DocumentID, and both coders must encode the same value
    public var title: String
    public var numberOfPages: Int
    public var author: String
    public var cover: CoverImages?
    public var genres: [String]
    public var tags: [Tag]
}

/// The guide's programming language, with keys renamed by `CodingKeys` and one property left out.
@FirePackCodable
public struct ProgrammingLanguage: Codable, Equatable {
    public var name: String
    public var year: Date
    public var reducedName: String = "unknown"

    enum CodingKeys: String, CodingKey {
        case name = "language_name"
        case year
    }

    /// A language.
    public init(name: String, year: Date) { (self.name, self.year) = (name, year) }
}

/// The guide's office, with a geopoint.
@FirePackCodable
public struct Office: Codable, Equatable {
    public var name: String
    public var location: GeoPoint

    /// An office.
    public init(name: String, location: GeoPoint) { (self.name, self.location) = (name, location) }
}

/// The guide's article, with server timestamps, an explicit null and a reference.
@FirePackCodable
public struct Article: Codable, Equatable {
    public var title: String
    @ServerTimestamp public var createdAt: Timestamp?
    @ServerTimestamp public var updatedAt: Date?
    @ExplicitNull public var deletedAt: Date?
    public var author: DocumentReference?

    /// An article.
    public init(title: String, createdAt: Timestamp?, updatedAt: Date?, author: DocumentReference?) {
        (self.title, self.author) = (title, author)
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// The `index`th language of a benchmark collection.
public func makeLanguage(_ index: Int) -> ProgrammingLanguage {
    ProgrammingLanguage(name: "Language \(index)", year: Date(timeIntervalSince1970: Double(index) * 86_400))
}

/// The `index`th office of a benchmark collection.
public func makeOffice(_ index: Int) -> Office {
    Office(name: "Office \(index)", location: GeoPoint(latitude: Double(index % 180) - 90, longitude: Double(index % 360) - 180))
}

/// The `index`th article of a benchmark collection (every other one with pending server timestamps).
public func makeArticle(_ index: Int) -> Article {
    Article(title: "Article \(index)", createdAt: index % 2 == 0 ? nil : Timestamp(seconds: Int64(index), nanoseconds: 0),
            updatedAt: index % 2 == 0 ? nil : Date(timeIntervalSince1970: Double(index)),
            author: try? DocumentReference(path: "authors/a\(index % 10)"))
}

/// The `index`th book of a benchmark collection.
public func makeBook(_ index: Int) -> Book {
    Book(title: "The Hitchhiker's Guide to the Galaxy, volume \(index)", numberOfPages: 100 + index % 900, author: "Douglas Adams")
}

/// The `index`th tagged book of a benchmark collection.
public func makeBookWithTags(_ index: Int) -> BookWithTags {
    BookWithTags(title: "The Hitchhiker's Guide to the Galaxy, volume \(index)", numberOfPages: 216, author: "Douglas Adams",
                 cover: CoverImages(small: URL(string: "https://covers.example/h2g2-s.jpg")!, medium: nil,
                                    large: URL(string: "https://covers.example/h2g2-l.jpg")!),
                 genres: ["science fiction", "comedy"],
                 tags: [Tag(title: "towel", color: Color(red: 1, green: 0.4, blue: 0)), Tag(title: "classic", color: Color(red: 0, green: 0, blue: 1))])
}
