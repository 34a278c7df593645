import FirePack
import Foundation

// The guide's models ("Map Cloud Firestore data with Swift Codable"), as the benchmarks use them.

/// The guide's Book.
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
public struct CoverImages: Codable, Equatable {
    /// Cover images.
    public init(small: URL, medium: URL?, large: URL) { (self.small, self.medium, self.large) = (small, medium, large) }
    public var small: URL
    public var medium: URL?
    public var large: URL
}

/// Stored as a CSS hex string `#RRGGBBAA`.
public struct Color: Codable, Equatable {
    public var red: Double, green: Double, blue: Double, alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    /// The color as a CSS hex string `#RRGGBBAA`.
    public var hex: String {
        let digits = Array("0123456789ABCDEF")
        var text = "#"
        for component in [red, green, blue, alpha] {
            let byte = Int((component * 255).rounded())
            text.append(digits[byte >> 4])
            text.append(digits[byte & 0xF])
        }
        return text
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
public struct Tag: Codable, Equatable {
    /// A tag.
    public init(title: String, color: Color) { (self.title, self.color) = (title, color) }
    public var title: String
    public var color: Color
}

/// The guide's book with cover images, genres and tags.
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
