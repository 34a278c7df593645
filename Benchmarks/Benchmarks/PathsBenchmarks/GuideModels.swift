import FirePack
import Foundation

// The guide's models ("Map Cloud Firestore data with Swift Codable"), as the benchmarks use them.

struct Book: Codable {
    var id: String?  // plain, not @DocumentID: JSONEncoder refuses @DocumentID, and both coders must encode the same value
    var title: String
    var numberOfPages: Int
    var author: String
}

struct CoverImages: Codable {
    var small: URL
    var medium: URL?
    var large: URL
}

/// Stored as a CSS hex string `#RRGGBBAA`.
struct Color: Codable {
    var red: Double, green: Double, blue: Double, alpha: Double

    init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    init(from decoder: any Decoder) throws {
        let hex = try decoder.singleValueContainer().decode(String.self)
        let value = UInt32(hex.dropFirst(), radix: 16) ?? 0
        red = Double(value >> 24 & 0xFF) / 255
        green = Double(value >> 16 & 0xFF) / 255
        blue = Double(value >> 8 & 0xFF) / 255
        alpha = Double(value & 0xFF) / 255
    }

    func encode(to encoder: any Encoder) throws {
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

struct Tag: Codable {
    var title: String
    var color: Color
}

struct BookWithTags: Codable {
    var id: String?  // plain, not @DocumentID: JSONEncoder refuses @DocumentID, and both coders must encode the same value
    var title: String
    var numberOfPages: Int
    var author: String
    var cover: CoverImages?
    var genres: [String]
    var tags: [Tag]
}

func makeBook(_ index: Int) -> Book {
    Book(title: "The Hitchhiker's Guide to the Galaxy, volume \(index)", numberOfPages: 100 + index % 900, author: "Douglas Adams")
}

func makeBookWithTags(_ index: Int) -> BookWithTags {
    BookWithTags(title: "The Hitchhiker's Guide to the Galaxy, volume \(index)", numberOfPages: 216, author: "Douglas Adams",
                 cover: CoverImages(small: URL(string: "https://covers.example/h2g2-s.jpg")!, medium: nil,
                                    large: URL(string: "https://covers.example/h2g2-l.jpg")!),
                 genres: ["science fiction", "comedy"],
                 tags: [Tag(title: "towel", color: Color(red: 1, green: 0.4, blue: 0)), Tag(title: "classic", color: Color(red: 0, green: 0, blue: 1))])
}
