import Foundation
import FirePack

// The models of the Firestore guide "Map Cloud Firestore data with Swift Codable", used by the Codable tests.

struct Book: Codable, Equatable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
}

struct CoverImages: Codable, Equatable {
    var small: URL
    var medium: URL?
    var large: URL
}

struct BookWithCoverImages: Codable, Equatable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
    var cover: CoverImages?
}

/// The guide's custom single-value type: stored as a CSS hex string `#RRGGBBAA`.
struct Color: Codable, Equatable, Hashable {
    var red: Double, green: Double, blue: Double, alpha: Double

    init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        (self.red, self.green, self.blue, self.alpha) = (red, green, blue, alpha)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let hex = try container.decode(String.self)
        guard hex.count == 9, hex.first == "#", let value = UInt32(hex.dropFirst(), radix: 16) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(hex) is not a #RRGGBBAA color")
        }
        red = Double(value >> 24 & 0xFF) / 255
        green = Double(value >> 16 & 0xFF) / 255
        blue = Double(value >> 8 & 0xFF) / 255
        alpha = Double(value & 0xFF) / 255
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        let components = [red, green, blue, alpha].map { String(format: "%02X", Int(($0 * 255).rounded())) }
        try container.encode("#" + components.joined())
    }
}

struct Tag: Codable, Equatable, Hashable {
    var title: String
    var color: Color
}

struct BookWithTags: Codable, Equatable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
    var cover: CoverImages?
    var genres: [String]
    var tags: [Tag]
}

struct ProgrammingLanguage: Codable, Equatable {
    @DocumentID var id: String?
    var name: String
    var year: Date
    var reducedName: String = "not stored"

    enum CodingKeys: String, CodingKey {
        case id
        case name = "language_name"
        case year
    }
}

struct Office: Codable, Equatable {
    @DocumentID var id: String?
    var name: String
    var location: GeoPoint
}

enum Status: String, Codable {
    case draft
    case inReview = "in review"
    case published
}

/// Usable as a dictionary key: `[Genre: T]` encodes as a map.
enum Genre: String, Codable, CodingKeyRepresentable {
    case scienceFiction = "science fiction"
    case comedy
}

enum Priority: Int, Codable {
    case low = 1, high = 10
}

struct Article: Codable, Equatable {
    @DocumentID var id: String?
    var title: String
    var status: Status
    var author: DocumentReference
    @ServerTimestamp var createdAt: Timestamp?
    @ServerTimestamp var updatedAt: Date?
    @ExplicitNull var deletedAt: Date?
}

/// An enum with associated values (synthesized Codable).
enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rectangle(width: Double, height: Double)
    case point
}

func sampleBookWithTags(_ index: Int = 0) -> BookWithTags {
    BookWithTags(id: nil, title: "The Hitchhiker's Guide to the Galaxy \(index)", numberOfPages: 216 + index % 100, author: "Douglas Adams",
                 cover: CoverImages(small: URL(string: "https://covers.example/h-s.jpg")!, medium: nil,
                                    large: URL(string: "https://covers.example/h-l.jpg")!),
                 genres: ["science fiction", "comedy"],
                 tags: [Tag(title: "towel", color: Color(red: 1, green: 0.4, blue: 0)), Tag(title: "classic", color: Color(red: 0, green: 0, blue: 1, alpha: 0.8))])
}
