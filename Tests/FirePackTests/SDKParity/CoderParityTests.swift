import Foundation
import Testing
import FirePack
import FirePackTestSupport

/// Foundation's coder shape: nested strategies with Foundation's cases and behaviour, Sendable coders, one entry point
/// for every kind of bytes.
@Suite("SDK parity: coders")
struct CoderParityTests {
    struct Event: Codable, Equatable {
        var when: Date
        var payload: Data
        var ratio: Double
    }

    /// Shared across tasks, as `static let` is in Swift 6 mode: compiles only because the coders are Sendable.
    static let encoder = FirePackEncoder()
    static let decoder = FirePackDecoder()

    @Test func iso8601IsJSONEncodersFormatByteForByte() throws {
        let json = JSONEncoder()
        json.dateEncodingStrategy = .iso8601
        let encoder = FirePackEncoder()
        encoder.dateEncodingStrategy = .iso8601
        var rng = SeededGenerator(seed: 0x15_08_601)
        var dates: [Date] = [Date(timeIntervalSince1970: 1_412_262_083.25), Date(timeIntervalSince1970: -1.5),
                             Date(timeIntervalSince1970: 0.999_999_999_9), Date(timeIntervalSince1970: -62_135_596_800.5),
                             Date(timeIntervalSince1970: -12_219_292_800), Date(timeIntervalSince1970: 253_402_300_799.999)]
        for _ in 0..<2_000 { dates.append(Date(timeIntervalSince1970: Double.random(in: -62_135_596_800...253_402_300_799, using: &rng))) }
        for date in dates {
            let expected = try JSONDecoder().decode([String].self, from: json.encode([date]))[0]
            #expect(try Value(firePackBytes: encoder.encode(date)) == .string(expected), "\(date.timeIntervalSince1970)")
        }
    }

    /// A key chosen at run time, written and read through a keyed container.
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    struct OneKey: Codable {
        var key: String
        init(key: String) { self.key = key }
        init(from decoder: any Decoder) throws { key = try decoder.container(keyedBy: AnyKey.self).allKeys[0].stringValue }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(1, forKey: AnyKey(stringValue: key))
        }
    }

    @Test func snakeCaseKeysAreJSONCodersKeysForRandomKeys() throws {
        // Letters of every case class (ǅ and ᾈ are title case, ß lower case without an upper-case form, Ⅷ a number
        // that has case), modifier letters and symbols, digits, marks, format characters, punctuation and underscores.
        let alphabet = Array("aAbBzZéÉßΣσςǅᾈİıﬁⅧʰ09_-'’.:·^`\u{0301}\u{00AD} 日")
        var rng = SeededGenerator(seed: 0x5_7a_4e)
        var keys = ["myURLProperty", "myURL2Property", "dataID42x", "h1H2h3", "one_two_3four", "x_1y", "a_ßb", "__a_b__", "_", "A"]
        for _ in 0..<3_000 {
            keys.append(String((0..<Int.random(in: 1...9, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }))
        }
        let json = JSONEncoder(), fromJSON = JSONDecoder()
        json.keyEncodingStrategy = .convertToSnakeCase
        fromJSON.keyDecodingStrategy = .convertFromSnakeCase
        let encoder = FirePackEncoder(), decoder = FirePackDecoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        for key in keys {
            let jsonKey = try JSONDecoder().decode([String: Int].self, from: json.encode(OneKey(key: key))).keys.first!
            guard case .map(let map) = try Value(firePackBytes: encoder.encode(OneKey(key: key))) else { Issue.record("not a map"); return }
            #expect(map.keys.first == jsonKey, "snake case of \(key.debugDescription)")
            let jsonBack = try fromJSON.decode(OneKey.self, from: JSONEncoder().encode([key: 1])).key
            let back = try decoder.decode(OneKey.self, from: FirePackEncoder().encode([key: 1])).key
            #expect(back == jsonBack, "camel case of \(key.debugDescription)")
        }
    }

    @Test func deferredStrategiesWriteWhatTheTypesThemselvesWrite() throws {
        let event = Event(when: Date(timeIntervalSince1970: 1_000.25), payload: Data([1, 2, 250]), ratio: 0.5)
        let encoder = FirePackEncoder()
        encoder.dateEncodingStrategy = .deferredToDate
        encoder.dataEncodingStrategy = .deferredToData
        let value = try Value(firePackBytes: encoder.encode(event))
        #expect(value["when"] == .double(1_000.25 - 978_307_200))
        #expect(value["payload"] == [1, 2, 250])
        let decoder = FirePackDecoder()
        decoder.dateDecodingStrategy = .deferredToDate
        decoder.dataDecodingStrategy = .deferredToData
        #expect(try decoder.decode(Event.self, from: encoder.encode(event)) == event)
        // The defaults stay Firestore's: a timestamp and bytes (`.blob` is the SDK's name for `.bytes`).
        let defaults = try Value(firePackBytes: FirePackEncoder().encode(event))
        #expect(defaults["when"] == .timestamp(Timestamp(seconds: 1_000, nanoseconds: 250_000_000)))
        #expect(defaults["payload"] == .bytes(Data([1, 2, 250])))
        encoder.dataEncodingStrategy = .blob
        decoder.dataDecodingStrategy = .blob
        #expect(try Value(firePackBytes: encoder.encode(event))["payload"] == .bytes(Data([1, 2, 250])))
    }

    @Test func nonConformingFloats() throws {
        let values: [Double] = [.nan, .infinity, -.infinity, 1.5]
        // Default: stored bit for bit (the one deliberate difference from JSONEncoder).
        let stored = try FirePackEncoder().encode(values)
        let back = try FirePackDecoder().decode([Double].self, from: stored)
        #expect(back[0].isNaN && back[1] == .infinity && back[2] == -.infinity && back[3] == 1.5)

        let throwing = FirePackEncoder()
        throwing.nonConformingFloatEncodingStrategy = .throw
        #expect(throws: EncodingError.self) { try throwing.encode(values) }
        #expect(throws: EncodingError.self) { try throwing.encode([Float.infinity]) }

        let converting = FirePackEncoder()
        converting.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        let strings = try converting.encode(values)
        #expect(try Value(firePackBytes: strings) == ["nan", "+inf", "-inf", 1.5])
        #expect(try Value(firePackBytes: converting.encode([Float.nan])) == ["nan"])

        let strict = FirePackDecoder()
        strict.nonConformingFloatDecodingStrategy = .throw
        #expect(throws: DecodingError.self) { try strict.decode([Double].self, from: stored) }
        #expect(throws: DecodingError.self) { try strict.decode([Float].self, from: stored) }
        #expect(try strict.decode([Double].self, from: FirePackEncoder().encode([1.5, -0.0])) == [1.5, -0.0])

        let reading = FirePackDecoder()
        reading.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "+inf", negativeInfinity: "-inf", nan: "nan")
        let read = try reading.decode([Double].self, from: strings)
        #expect(read[0].isNaN && read[1] == .infinity && read[2] == -.infinity && read[3] == 1.5)
        #expect(try reading.decode([Float].self, from: strings)[1] == .infinity)
        // Other strings are still a type mismatch, naming the requested type.
        do {
            _ = try reading.decode([Float].self, from: FirePackEncoder().encode(["1.5"]))
            Issue.record("decoded a string as Float")
        } catch DecodingError.typeMismatch(let type, _) {
            #expect(type is Float.Type)
        }
    }

    @Test func sortedKeysIsTheCanonicalForm() throws {
        struct Unsorted: Codable { var zebra = 1, apple = 2, mango = [3] }
        let encoder = FirePackEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(encoder.deterministic)
        let bytes = try encoder.encodeToBytes(Unsorted())
        #expect(try FirePackReader.firstNonCanonicalOffset(in: bytes) == nil)
        guard case .map(let map) = try Value(firePackBytes: bytes) else { Issue.record("not a map"); return }
        #expect(map.keys == ["apple", "mango", "zebra"])
        encoder.deterministic = false
        #expect(encoder.outputFormatting.isEmpty)
    }

    @Test func everyEntryPointTakesEveryKindOfBytes() throws {
        struct Book: Codable, Equatable { @DocumentID var id: String?; var title: String }
        let data = try FirePackEncoder().encode(Book(title: "Dune"))
        let array = [UInt8](data)
        let reference = try DocumentReference(path: "books/dune")
        // Data, [UInt8], a slice and borrowed bytes; with a reference, without one, and with `in: nil`.
        #expect(try FirePackDecoder().decode(Book.self, from: data, in: nil).id == nil)
        #expect(try FirePackDecoder().decode(Book.self, from: data, in: reference).id == "dune")
        #expect(try FirePackDecoder().decode(Book.self, from: array, in: reference).id == "dune")
        #expect(try FirePackDecoder().decode(Book.self, from: array[...]).title == "Dune")
        #expect(try array.withUnsafeBytes { try FirePackDecoder().decode(Book.self, from: $0, in: reference) }.id == "dune")
        #expect(try Value(firePackBytes: data) == Value(firePackBytes: array))
        #expect(try array.withUnsafeBytes { try Value(firePackBytes: $0) } == ["title": "Dune"])
        #expect(try FirePackReader.withReader(data) { try $0.root["title"]?.string() } == "Dune")
        #expect(try FirePackReader.validate(data) == ["title": "Dune"])
        #expect(try FirePackReader.encodedLength(ofValueAt: data) == data.count)
        let document = Document(reference: reference, fields: ["title": "Dune"])
        #expect(try Document(firePackBytes: Data(document.firePackBytes())) == document)
    }

    @Test func coderOptionsAreReadOncePerCallAndSafeToShare() async throws {
        struct Item: Codable, Equatable { var when: Date; var n: Int }
        let items = (0..<50).map { Item(when: Date(timeIntervalSince1970: Double($0)), n: $0) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let bytes = try Self.encoder.encode(items)
                    if index == 0 { Self.decoder.userInfo = [CodingUserInfoKey(rawValue: "task")!: index] }
                    return try Self.decoder.decode([Item].self, from: bytes) == items
                }
            }
            for try await equal in group { #expect(equal) }
        }
    }
}
