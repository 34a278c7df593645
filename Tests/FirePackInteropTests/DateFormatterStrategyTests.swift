import Foundation
import Testing
import FirePack
import FirePackInterop

/// `.formatted(DateFormatter)` comes with FirePackInterop (FirePack itself has no DateFormatter: it uses only
/// FoundationEssentials) and works as JSONEncoder's and JSONDecoder's `.formatted` do.
@Suite("DateFormatter strategies")
struct DateFormatterStrategyTests {
    struct Event: Codable, Equatable {
        var when: Date
    }

    func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
        return formatter
    }

    @Test func writesAndReadsWhatJSONCodersWrite() throws {
        let event = Event(when: Date(timeIntervalSince1970: 1_412_262_083.5))
        let encoder = FirePackEncoder()
        encoder.dateEncodingStrategy = .formatted(formatter())
        let decoder = FirePackDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter())
        let bytes = try encoder.encodeToBytes(event)
        #expect(try Value(firePackBytes: bytes)["when"] == "2014-10-02 15:01:23.500")
        #expect(try decoder.decode(Event.self, from: bytes) == event)

        let json = JSONEncoder()
        json.dateEncodingStrategy = .formatted(formatter())
        let jsonText = String(decoding: try json.encode(event), as: UTF8.self)
        #expect(jsonText == #"{"when":"2014-10-02 15:01:23.500"}"#)
    }

    @Test func aStringTheFormatterRejectsIsDataCorruptedWithItsPath() throws {
        let decoder = FirePackDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter())
        let bytes = try FirePackEncoder().encodeToBytes(["when": "2014-10-02T15:01:23Z"] as Value)
        do {
            _ = try decoder.decode(Event.self, from: bytes)
            Issue.record("a string in another format decoded")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.codingPath.map(\.stringValue) == ["when"])
            #expect(context.debugDescription.contains("does not match the format"), "\(context.debugDescription)")
            #expect(context.debugDescription.contains("at byte "), "\(context.debugDescription)")
        }
    }
}
