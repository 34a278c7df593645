import FirePack
import FirePackTestSupport
import Foundation

/// Seeded random instances of the test models, with the edge values the issue names: optionals absent and present,
/// nested arrays and maps, every native type, wrappers, NaN payloads, -0.0, Int64.min/max.
struct ModelGenerator {
    var rng: SeededGenerator

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
    mutating func count(_ range: ClosedRange<Int> = 0...4) -> Int { Int.random(in: range, using: &rng) }

    mutating func string() -> String {
        let pieces = ["", "a", "Book", "é", "🔥", "line\nbreak", "quote\"", "The Hitchhiker's Guide", "日本", "\u{0}"]
        return (0..<count(0...3)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &rng)] }.joined()
    }

    mutating func int64() -> Int64 {
        let edges: [Int64] = [0, 1, -1, 127, 128, -32, -33, .max, .min, Int64(Int32.max) + 1]
        return chance(40) ? edges[count(0...(edges.count - 1))] : Int64.random(in: .min ... .max, using: &rng)
    }

    mutating func double() -> Double {
        let edges: [Double] = [0, -0.0, 1.5, -2.25, .infinity, -.infinity, .nan, .greatestFiniteMagnitude,
                               .leastNonzeroMagnitude, Double(bitPattern: 0x7FF8_0000_0000_0123)]  // a NaN payload
        return chance(40) ? edges[count(0...(edges.count - 1))] : Double(bitPattern: UInt64.random(in: 0 ... .max, using: &rng))
    }

    mutating func timestamp() -> Timestamp {
        Timestamp(seconds: Int64.random(in: -62_135_596_800...253_402_300_799, using: &rng),
                  nanoseconds: Int32.random(in: 0...999_999_999, using: &rng))
    }

    mutating func date() -> Date { Date(timeIntervalSince1970: Double(Int.random(in: -2_000_000_000...4_000_000_000, using: &rng)) / 8) }

    mutating func url() -> URL { URL(string: "https://example.com/books/\(count(0...999))?q=\(count(0...9))")! }

    mutating func reference() -> DocumentReference { try! DocumentReference(path: "books/b\(count(0...99))") }

    mutating func book() -> Book {
        var book = Book(title: string(), numberOfPages: Int(truncatingIfNeeded: int64()), author: string())
        if chance(50) { book.addedAt = timestamp() }
        return book
    }

    mutating func cover() -> CoverImages { CoverImages(small: url(), medium: chance(50) ? url() : nil, large: url()) }

    mutating func bookWithTags() -> BookWithTags {
        BookWithTags(title: string(), numberOfPages: count(0...2_000), author: string(), cover: chance(60) ? cover() : nil,
                     genres: (0..<count()).map { _ in string() },
                     tags: (0..<count()).map { _ in Tag(title: string(), color: Color(rgba: UInt32.random(in: 0 ... .max, using: &rng))) })
    }

    mutating func language() -> ProgrammingLanguage {
        ProgrammingLanguage(name: string(), year: date(), reducedName: string())
    }

    mutating func office() -> Office {
        Office(name: string(), location: GeoPoint(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng)))
    }

    mutating func article() -> Article {
        var article = Article(title: string(), author: chance(50) ? reference() : nil)
        if chance(50) { article.createdAt = timestamp() }
        if chance(50) { article.updatedAt = date() }
        if chance(50) { article.deletedAt = date() }
        return article
    }

    mutating func shelf() -> Shelf {
        Shelf(name: string(), books: (0..<count()).map { _ in book() }, featured: chance(50) ? book() : nil,
              genres: (0..<count()).map { _ in Genre.allCases[count(0...3)] })
    }

    mutating func value(depth: Int = 0) -> Value {
        switch count(0...(depth > 2 ? 5 : 7)) {
        case 0: return .null
        case 1: return .boolean(chance(50))
        case 2: return .integer(int64())
        case 3: return .double(double())
        case 4: return .string(string())
        case 5: return .timestamp(timestamp())
        case 6: return .array((0..<count(0...3)).map { _ in value(depth: depth + 1) })
        default:
            var map = MapValue()
            for _ in 0..<count(0...3) { map[string()] = value(depth: depth + 1) }
            return .map(map)
        }
    }

    mutating func everything() -> Everything {
        Everything(
            zeta: string(), int: Int(truncatingIfNeeded: int64()), int8: .random(in: .min ... .max, using: &rng),
            int16: .random(in: .min ... .max, using: &rng), int32: .random(in: .min ... .max, using: &rng), int64: int64(),
            uint: UInt.random(in: 0 ... UInt(Int64.max), using: &rng), uint8: .random(in: 0 ... .max, using: &rng),
            uint16: .random(in: 0 ... .max, using: &rng), uint32: .random(in: 0 ... .max, using: &rng),
            // Above Int64.max now and then: both paths must refuse it the same way.
            uint64: chance(5) ? UInt64(Int64.max) + 1 : UInt64.random(in: 0 ... UInt64(Int64.max), using: &rng),
            float: Float(bitPattern: UInt32.random(in: 0 ... .max, using: &rng)), double: double(), bool: chance(50),
            data: Data((0..<count(0...6)).map { _ in UInt8.random(in: 0 ... .max, using: &rng) }), date: date(), url: url(),
            uuid: UUID(uuid: (UInt8(count(0...255)), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, UInt8(count(0...255)))),
            timestamp: timestamp(), geoPoint: GeoPoint(latitude: 45, longitude: Double(count(-180...180))), reference: reference(),
            vector: VectorValue((0..<count()).map { _ in double() }), value: value(),
            optionalString: chance(50) ? string() : nil, optionalInt: chance(50) ? count(0...99) : nil,
            optionalBook: chance(50) ? book() : nil, optionalDoubles: (0..<count()).map { _ in chance(30) ? nil : double() },
            matrix: (0..<count()).map { _ in (0..<count()).map { _ in count(-5...5) } },
            counts: Dictionary((0..<count()).map { ("k\($0)", count(0...9)) }, uniquingKeysWith: { a, _ in a }),
            booksByID: Dictionary((0..<count(0...2)).map { ("b\($0)", book()) }, uniquingKeysWith: { a, _ in a }),
            labels: Dictionary((0..<count()).map { _ in (string(), string()) }, uniquingKeysWith: { a, _ in a }),
            aliases: chance(50) ? Dictionary((0..<count()).map { ("a\($0)", string()) }, uniquingKeysWith: { a, _ in a }) : nil,
            genre: Genre.allCases[count(0...3)], priorities: (0..<count()).map { _ in Priority.allCases[count(0...2)] },
            color: Color(rgba: UInt32.random(in: 0 ... .max, using: &rng)),
            colors: chance(50) ? (0..<count()).map { _ in Color(rgba: UInt32(count(0...0xFFFF))) } : nil,
            Ä: chance(50), a: int64(), explicit: ExplicitNull(wrappedValue: chance(50) ? string() : nil))
    }

    mutating func measurements() -> Measurements {
        let decimals = chance(70)
        let columns = count(1...3)
        func number(_ generator: inout ModelGenerator) -> Double {
            decimals ? Double(generator.count(-99_999...99_999)) / 1000 : generator.double()
        }
        return Measurements(
            ring: (0..<count(0...6)).map { _ in (0..<columns).map { _ in number(&self) } },
            series: (0..<count(0...8)).map { _ in number(&self) },
            floats: (0..<count(0...5)).map { _ in Float(count(-500...500)) / 4 },
            counts: (0..<count(0...6)).map { _ in chance(50) ? count(-100_000...100_000) : Int(truncatingIfNeeded: int64()) },
            small: (0..<count(0...6)).map { _ in Int16(count(-2_000...2_000)) },
            samples: (0..<count(0...4)).map { _ in (0..<columns).map { _ in count(-1_000...100_000) } },
            optionals: (0..<count()).map { _ in chance(20) ? nil : number(&self) },
            values: (0..<count(0...5)).map { _ in .double(number(&self)) })
    }

    mutating func holder() -> PlainHolder {
        PlainHolder(label: string(), book: book(), articles: (0..<count(0...2)).map { _ in article() },
                    everything: chance(30) ? everything() : nil)
    }
}
