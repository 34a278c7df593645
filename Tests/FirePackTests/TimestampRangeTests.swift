import Foundation
import Testing
@testable import FirePack

/// Timestamps over the whole Int64 second range: read, shown as text and parsed back without a trap.
@Suite("Timestamp range")
struct TimestampRangeTests {
    /// The seconds at both ends of the range and around the places where day arithmetic used to overflow.
    static let edgeSeconds: [Int64] = [
        .min, .min + 1, .min + 55_807, .min + 55_808, .min + 86_399, .min + 86_400,
        -62_135_596_801, -62_135_596_800, -1, 0, 253_402_300_799, 253_402_300_800, .max - 86_400, .max,
    ]

    @Test(arguments: edgeSeconds)
    func textRoundTrips(seconds: Int64) throws {
        for nanoseconds: Int32 in [0, 1, 999_999_999] {
            let timestamp = try Timestamp(validatingSeconds: seconds, nanoseconds: nanoseconds)
            let text = timestamp.rfc3339String
            #expect(try Timestamp(rfc3339: text) == timestamp, "\(text)")
        }
    }

    @Test func theLowestSecondsReadAndShow() throws {
        // 89 46 50 4B 01 | C9 + Int64.min: a valid file whose text form used to trap.
        let bytes: [UInt8] = [0x89, 0x46, 0x50, 0x4B, 0x01, 0xC9, 0, 0, 0, 0, 0, 0, 0, 0x80]
        let value = try bytes.withUnsafeBytes { raw in
            var reader = try FirePackReader(fileBytes: raw)
            return try reader.readValue()
        }
        #expect(value == .timestamp(try Timestamp(validatingSeconds: .min, nanoseconds: 0)))
        #expect(value.description.contains("-292277022657-01-27T08:29:52Z"))
        #expect(try Timestamp(validatingSeconds: .min, nanoseconds: 0).dateValue().timeIntervalSince1970 == -9.223372036854775808e18)
    }

    @Test func everyYearFormIsTheOneWritten() throws {
        #expect(Timestamp(seconds: -62_135_596_800, nanoseconds: 0).rfc3339String == "0001-01-01T00:00:00Z")
        #expect(Timestamp(seconds: 253_402_300_799, nanoseconds: 0).rfc3339String == "9999-12-31T23:59:59Z")
        #expect(try Timestamp(validatingSeconds: 253_402_300_800, nanoseconds: 0).rfc3339String == "+10000-01-01T00:00:00Z")
        #expect(try Timestamp(validatingSeconds: -62_167_219_200, nanoseconds: 0).rfc3339String == "0000-01-01T00:00:00Z")
        #expect(try Timestamp(validatingSeconds: -62_167_219_201, nanoseconds: 0).rfc3339String == "-0001-12-31T23:59:59Z")
    }
}
