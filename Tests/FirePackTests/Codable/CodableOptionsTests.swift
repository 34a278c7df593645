import Foundation
import Testing
@testable import FirePack

@Suite("Codable options")
struct CodableOptionsTests {
    struct Event: Codable, Equatable {
        var when: Date
        var payload: Data
    }

    let date = Date(timeIntervalSince1970: 1_412_262_083.5)

    @Test func dateStrategies() throws {
        func encoded(_ strategy: FirePackEncoder.DateEncodingStrategy, _ decoding: FirePackDecoder.DateDecodingStrategy,
                     date: Date = date) throws -> Value {
            let encoder = FirePackEncoder()
            encoder.dateEncodingStrategy = strategy
            let decoder = FirePackDecoder()
            decoder.dateDecodingStrategy = decoding
            let bytes = try encoder.encodeToBytes(Event(when: date, payload: Data()))
            #expect(try decoder.decode(Event.self, from: bytes).when == date)
            return try Value(firePackBytes: bytes)["when"]!
        }
        #expect(try encoded(.timestamp, .timestamp) == .timestamp(Timestamp(seconds: 1_412_262_083, nanoseconds: 500_000_000)))
        #expect(try encoded(.secondsSince1970, .secondsSince1970) == .double(1_412_262_083.5))
        #expect(try encoded(.millisecondsSince1970, .millisecondsSince1970) == .double(1_412_262_083_500))
        #expect(try encoded(.iso8601, .iso8601, date: date.addingTimeInterval(-0.5)) == "2014-10-02T15:01:23Z")
        // A text format of whole milliseconds since 1970 ("ms:1412262083500").
        let format = DateTextFormat(string: { "ms:\(Int64(($0.timeIntervalSince1970 * 1000).rounded()))" },
                                    date: { text in
                                        guard text.hasPrefix("ms:"), let ms = Int64(text.dropFirst(3)) else { return nil }
                                        return Date(timeIntervalSince1970: Double(ms) / 1000)
                                    })
        #expect(try encoded(.formatted(format), .formatted(format)) == "ms:1412262083500")
        let custom = try encoded(.custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Int(date.timeIntervalSince1970 * 2))
        }, .custom { decoder in Date(timeIntervalSince1970: Double(try decoder.singleValueContainer().decode(Int.self)) / 2) })
        #expect(custom == 2_824_524_167)
    }

    @Test func formattedDateThatDoesNotParseNamesItsOffsetAndPath() throws {
        let decoder = FirePackDecoder()
        decoder.dateDecodingStrategy = .formatted(DateTextFormat(string: { _ in "" }, date: { _ in nil }))
        struct Stored: Codable { var when: String; var payload: Data }
        let bytes = try FirePackEncoder().encodeToBytes(Stored(when: "soon", payload: Data()))
        // The string starts where the reader is after the map's header and its first key.
        let offset = try FirePackReader.withReader(bytes) { reader in
            _ = try reader.enterMap()
            _ = try reader.readKey()
            return reader.readerIndex
        }
        #expect(throws: DecodingError.self) { try decoder.decode(Event.self, from: bytes) }
        do {
            _ = try decoder.decode(Event.self, from: bytes)
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["when"])
            #expect(context.debugDescription.contains("Date string \"soon\" does not match the format"))
            #expect(context.debugDescription.contains("at byte \(offset)"))
        }
    }

    @Test func dataStrategies() throws {
        let event = Event(when: date, payload: Data([1, 2, 250]))
        let encoder = FirePackEncoder()
        let decoder = FirePackDecoder()
        #expect(try Value(firePackBytes: encoder.encodeToBytes(event))["payload"] == .bytes(Data([1, 2, 250])))
        encoder.dataEncodingStrategy = .base64
        decoder.dataDecodingStrategy = .base64
        let base64 = try encoder.encodeToBytes(event)
        #expect(try Value(firePackBytes: base64)["payload"] == "AQL6")
        #expect(try decoder.decode(Event.self, from: base64) == event)
        encoder.dataEncodingStrategy = .custom { data, encoder in
            var container = encoder.unkeyedContainer()
            for byte in data { try container.encode(Int(byte)) }
        }
        decoder.dataDecodingStrategy = .custom { decoder in Data(try decoder.singleValueContainer().decode([UInt8].self)) }
        let custom = try encoder.encodeToBytes(event)
        #expect(try Value(firePackBytes: custom)["payload"] == [1, 2, 250])
        #expect(try decoder.decode(Event.self, from: custom) == event)
    }

    struct Profile: Codable, Equatable {
        var firstName: String
        var homeURL: String
        var scoresByGame: [String: Int]
        var nestedValue: Inner
        struct Inner: Codable, Equatable { var innerCount: Int }
    }

    @Test func snakeCaseKeysButNotDictionaryKeys() throws {
        let profile = Profile(firstName: "Ada", homeURL: "https://a.example", scoresByGame: ["bestGame": 3, "other_game": 4],
                              nestedValue: .init(innerCount: 2))
        let encoder = FirePackEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let bytes = try encoder.encodeToBytes(profile)
        let tree = try Value(firePackBytes: bytes)
        #expect(tree["first_name"] == "Ada" && tree["home_url"] == "https://a.example")
        #expect(Value.firestoreCompare(tree["scores_by_game"]!, ["bestGame": 3, "other_game": 4]) == 0, "[String: T] keys are exempt")
        #expect(tree["nested_value"] == ["inner_count": 2])
        let decoder = FirePackDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // As with Foundation's coders, acronyms do not survive the round trip: home_url reads back as homeUrl.
        guard case .keyNotFound(let key, _)? = decodingError(Profile.self, from: tree, decoder: decoder) else {
            Issue.record("expected keyNotFound for homeURL"); return
        }
        #expect(key.stringValue == "homeURL")
        struct SnakeProfile: Codable { var firstName: String; var homeUrl: String; var scoresByGame: [String: Int]; var nestedValue: Profile.Inner }
        let decoded = try decoder.decode(SnakeProfile.self, from: bytes)
        #expect(decoded.firstName == "Ada" && decoded.homeUrl == "https://a.example")
        #expect(decoded.scoresByGame == profile.scoresByGame && decoded.nestedValue == profile.nestedValue)
        #expect(try encoder.encodeToValue(profile) == tree)
    }

    @Test func customKeyStrategies() throws {
        struct Upper: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        let encoder = FirePackEncoder()
        encoder.keyEncodingStrategy = .custom { path in Upper(stringValue: path.last!.stringValue.uppercased()) }
        let bytes = try encoder.encodeToBytes(Book(id: nil, title: "T", numberOfPages: 1, author: "A"))
        #expect(try Value(firePackBytes: bytes) == ["TITLE": "T", "NUMBEROFPAGES": 1, "AUTHOR": "A"])
        let decoder = FirePackDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            let upper = path.last!.stringValue
            let names = ["TITLE": "title", "NUMBEROFPAGES": "numberOfPages", "AUTHOR": "author"]
            return Upper(stringValue: names[upper] ?? upper)
        }
        #expect(try decoder.decode(Book.self, from: bytes).numberOfPages == 1)
    }

    @Test func deterministicOutputIgnoresInsertionOrder() throws {
        let encoder = FirePackEncoder()
        encoder.deterministic = true
        let first = try encoder.encodeToBytes(["b": 1, "a": 2, "c": ["z": 1, "y": 2]] as Value)
        let second = try encoder.encodeToBytes(["c": ["y": 2, "z": 1], "a": 2, "b": 1] as Value)
        #expect(first == second)
        guard case .map(let map) = try Value(firePackBytes: first) else { Issue.record("map"); return }
        #expect(map.keys == ["a", "b", "c"])
        let book = sampleBookWithTags()
        #expect(try FirePackDecoder().decode(BookWithTags.self, from: encoder.encodeToBytes(book)) == book)
    }

    struct ReadsUserInfo: Codable {
        static let key = CodingUserInfoKey(rawValue: "scale")!
        var value: Int
        init(value: Int) { self.value = value }
        init(from decoder: any Decoder) throws {
            value = try decoder.singleValueContainer().decode(Int.self) * (decoder.userInfo[Self.key] as? Int ?? 1)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value * (encoder.userInfo[Self.key] as? Int ?? 1))
        }
    }

    @Test func userInfoReachesTheTypes() throws {
        let encoder = FirePackEncoder()
        encoder.userInfo[ReadsUserInfo.key] = 10
        let decoder = FirePackDecoder()
        decoder.userInfo[ReadsUserInfo.key] = 3
        let bytes = try encoder.encodeToBytes([ReadsUserInfo(value: 2)])
        #expect(try Value(firePackBytes: bytes) == [20])
        #expect(try decoder.decode([ReadsUserInfo].self, from: bytes)[0].value == 60)
    }

    @Test func readerLimitsApply() throws {
        let decoder = FirePackDecoder()
        decoder.limits = ReaderLimits(maxDepth: 2)
        let deep: Value = [[[1]]]
        #expect(throws: DecodingError.self) { try decoder.decode([[[Int]]].self, from: deep.firePackBytes()) }
        #expect(try FirePackDecoder().decode([[[Int]]].self, from: deep.firePackBytes()) == [[[1]]])
    }

    @Test func decodingFromAReaderCursor() throws {
        let books = (0..<3).map(sampleBookWithTags)
        let bytes = try FirePackEncoder().encodeToBytes(["count": 3, "books": try FirePackEncoder().encodeToValue(books)] as [String: Value])
        try FirePackReader.withReader(bytes) { reader in
            let map = try reader.enterMap()
            var decoded: [BookWithTags] = []
            for _ in 0..<map.count {
                if try reader.readKey() == "books" {
                    let array = try reader.enterArray()
                    for _ in 0..<array.count { decoded.append(try FirePackDecoder().decode(BookWithTags.self, from: &reader)) }
                    try reader.exitArray(array)
                } else {
                    try reader.skipValue()
                }
            }
            try reader.exitMap(map)
            #expect(decoded == books)
        }
    }
}
