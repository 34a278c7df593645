#if FirePackHummingbird
import FirePackMacros

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The guide's book with cover images, genres and tags: what the service lists, fetches and creates.
@FirePackCodable
public struct BookWithTags: Codable, Equatable, Sendable {
    public var id: String?
    public var title: String
    public var numberOfPages: Int
    public var author: String
    public var cover: CoverImages?
    public var genres: [String]
    public var tags: [Tag]

    /// A tagged book.
    public init(id: String? = nil, title: String, numberOfPages: Int, author: String, cover: CoverImages?,
                genres: [String], tags: [Tag]) {
        (self.id, self.title, self.numberOfPages, self.author) = (id, title, numberOfPages, author)
        (self.cover, self.genres, self.tags) = (cover, genres, tags)
    }

    /// The `index`th book of the service's catalog (deterministic, so that runs compare).
    public static func sample(_ index: Int) -> BookWithTags {
        BookWithTags(id: bookID(index), title: "The Hitchhiker's Guide to the Galaxy, volume \(index)",
                     numberOfPages: 100 + index % 900, author: "Douglas Adams",
                     cover: CoverImages(small: URL(string: "https://covers.example/\(index)-s.jpg")!,
                                        medium: index % 3 == 0 ? nil : URL(string: "https://covers.example/\(index)-m.jpg")!,
                                        large: URL(string: "https://covers.example/\(index)-l.jpg")!),
                     genres: ["science fiction", "comedy"],
                     tags: [Tag(title: "towel", color: Color(red: 1, green: 0.4, blue: 0)),
                            Tag(title: "classic", color: Color(red: 0, green: 0, blue: 1))])
    }
}

/// The catalog id of the `index`th book: `book-0042`.
public func bookID(_ index: Int) -> String {
    let digits = String(index)
    return "book-" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

/// The guide's cover images.
@FirePackCodable
public struct CoverImages: Codable, Equatable, Sendable {
    public var small: URL
    public var medium: URL?
    public var large: URL

    /// Cover images.
    public init(small: URL, medium: URL?, large: URL) { (self.small, self.medium, self.large) = (small, medium, large) }
}

/// A tag with a color.
@FirePackCodable
public struct Tag: Codable, Equatable, Sendable {
    public var title: String
    public var color: Color

    /// A tag.
    public init(title: String, color: Color) { (self.title, self.color) = (title, color) }
}

/// A color stored as a CSS hex string `#RRGGBBAA` (a custom Codable type inside generated ones).
public struct Color: Codable, Equatable, Sendable {
    public var red: Double, green: Double, blue: Double, alpha: Double

    /// A color from components in 0...1.
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

    /// Decodes `#RRGGBBAA`; anything else is a `dataCorrupted` error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard text.utf8.count == 9, text.hasPrefix("#"), let value = UInt32(text.dropFirst(), radix: 16) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a color #RRGGBBAA, found \"\(text)\"")
        }
        (red, green, blue) = (Double(value >> 24 & 0xFF) / 255, Double(value >> 16 & 0xFF) / 255, Double(value >> 8 & 0xFF) / 255)
        alpha = Double(value & 0xFF) / 255
    }

    /// Encodes `#RRGGBBAA`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }
}
#endif
