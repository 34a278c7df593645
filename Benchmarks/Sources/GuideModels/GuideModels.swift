import FirePack
import Foundation

// The guide's models ("Map Cloud Firestore data with Swift Codable"), as the benchmarks use them.

/// The guide's Book.
public struct Book: Codable {
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
public struct CoverImages: Codable {
    /// Cover images.
    public init(small: URL, medium: URL?, large: URL) { (self.small, self.medium, self.large) = (small, medium, large) }
    public var small: URL
    public var medium: URL?
    public var large: URL
}

/// Stored as a CSS hex string `#RRGGBBAA`.
public struct Color: Codable {
    public var red: Double, green: Double, blue: Double, alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    public init(from decoder: any Decoder) throws {
        let hex = try decoder.singleValueContainer().decode(String.self)
        let value = UInt32(hex.dropFirst(), radix: 16) ?? 0
        red = Double(value >> 24 & 0xFF) / 255
        green = Double(value >> 16 & 0xFF) / 255
        blue = Double(value >> 8 & 0xFF) / 255
        alpha = Double(value & 0xFF) / 255
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        let digits = Array("0123456789ABCDEF")
        var text = "#"
        for component in [red, green, blue, alpha] {
            let byte = Int((component * 255).rounded())
            text.append(digits[byte >> 4])
            text.append(digits[byte & 0xF])
        }
        try container.encode(text)
    }
}

/// A tag with a color.
public struct Tag: Codable {
    /// A tag.
    public init(title: String, color: Color) { (self.title, self.color) = (title, color) }
    public var title: String
    public var color: Color
}

/// The guide's book with cover images, genres and tags.
public struct BookWithTags: Codable {
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
