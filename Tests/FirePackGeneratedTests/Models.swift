import FirePack
import FirePackMacros
import Foundation

// Models with generated coding: the guide's models and models that cover every supported shape. Each is coded by
// both paths in the tests (FirePackEncoder/Decoder with usesGeneratedCoding on and off).

@FirePackCodable
struct Book: Codable, Equatable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
    @ServerTimestamp var addedAt: Timestamp?
}

@FirePackCodable
struct CoverImages: Codable, Equatable {
    var small: URL
    var medium: URL?
    var large: URL
}

/// Plain Codable with its own coding (a CSS hex string): reached from generated code through the Codable path.
struct Color: Codable, Equatable {
    var rgba: UInt32

    init(rgba: UInt32) { self.rgba = rgba }

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard text.hasPrefix("#"), let value = UInt32(text.dropFirst(), radix: 16) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a color: \(text)"))
        }
        rgba = value
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode("#" + String(rgba, radix: 16))
    }
}

/// Numbers in arrays, which the writer packs (`D8`, `D9`) when that is shorter.
@FirePackCodable
struct Measurements: Codable, Equatable {
    var ring: [[Double]]
    var series: [Double]
    var floats: [Float]
    var counts: [Int]
    var small: [Int16]
    var samples: [[Int]]
    var optionals: [Double?]
    var values: [Value]
}

@FirePackCodable
struct Tag: Codable, Equatable {
    var title: String
    var color: Color
}

@FirePackCodable
struct BookWithTags: Codable, Equatable {
    @DocumentID var id: String?
    var title: String
    var numberOfPages: Int
    var author: String
    var cover: CoverImages?
    var genres: [String]
    var tags: [Tag]
}

@FirePackCodable
struct ProgrammingLanguage: Codable, Equatable {
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

@FirePackCodable
struct Office: Codable, Equatable {
    @DocumentID var id: String?
    var name: String
    var location: GeoPoint
}

@FirePackCodable
struct Article: Codable, Equatable {
    @DocumentID var id: String?
    var title: String
    @ServerTimestamp var createdAt: Timestamp?
    @ServerTimestamp var updatedAt: Date?
    @ExplicitNull var deletedAt: Date?
    var author: DocumentReference?
}

@FirePackCodable
enum Genre: String, Codable, Equatable, CaseIterable {
    case fiction, poetry, drama
    case scienceFiction = "science fiction"
}

@FirePackCodable
enum Priority: Int, Codable, Equatable, CaseIterable {
    case low = 1, normal = 5, high = 9
}

/// A class with generated coding, holding generated and plain values.
@FirePackCodable
final class Shelf: Codable, Equatable {
    var name: String
    var books: [Book]
    var featured: Book?
    var genres: [Genre]

    init(name: String, books: [Book], featured: Book?, genres: [Genre]) {
        (self.name, self.books, self.featured, self.genres) = (name, books, featured, genres)
    }

    static func == (lhs: Shelf, rhs: Shelf) -> Bool {
        lhs.name == rhs.name && lhs.books == rhs.books && lhs.featured == rhs.featured && lhs.genres == rhs.genres
    }
}

/// Every native type, every integer width, optionals, nested arrays and maps, raw-value enums and plain Codable
/// values, with keys out of UTF-8 order (so deterministic output must sort them).
@FirePackCodable
struct Everything: Codable, Equatable {
    var zeta: String
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var float: Float
    var double: Double
    var bool: Bool
    var data: Data
    var date: Date
    var url: URL
    var uuid: UUID
    var timestamp: Timestamp
    var geoPoint: GeoPoint
    var reference: DocumentReference
    var vector: VectorValue
    var value: Value
    var optionalString: String?
    var optionalInt: Int?
    var optionalBook: Book?
    var optionalDoubles: [Double?]
    var matrix: [[Int]]
    var counts: [String: Int]
    var booksByID: [String: Book]
    var labels: [String: String]
    var aliases: [String: String]?
    var genre: Genre
    var priorities: [Priority]
    var color: Color
    var colors: [Color]?
    var Ä: Bool
    var a: Int64
    var explicit: ExplicitNull<String>

    enum CodingKeys: String, CodingKey {
        case zeta, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float, double, bool, data, date,
             url, uuid, timestamp, geoPoint, reference, vector, value, optionalString, optionalInt, optionalBook,
             optionalDoubles, matrix, counts, booksByID, labels, aliases, genre, priorities, color, colors, Ä, a, explicit
    }
}

/// Plain Codable (no macro) holding generated types: they are coded through their generated code all the same.
struct PlainHolder: Codable, Equatable {
    var label: String
    var book: Book
    var articles: [Article]
    var everything: Everything?
}

/// A chain of nested models, as deep as one likes.
@FirePackCodable
struct Chain: Codable, Equatable {
    var name: String
    var next: [Chain]

    static func nested(_ depth: Int) -> Chain {
        (1..<depth).reduce(Chain(name: "leaf", next: [])) { inner, level in Chain(name: "level \(level)", next: [inner]) }
    }
}
