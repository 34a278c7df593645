import Testing
@testable import FirePack

/// What `Timestamp(rfc3339:)` accepts and refuses, and why; seconds worked out apart from the parser
/// (`calendar.timegm` for the dates).
@Suite("Timestamp RFC 3339 text")
struct TimestampRFC3339Tests {
    /// 2014-10-02T15:01:23Z.
    static let seconds: Int64 = 1_412_262_083

    @Test(arguments: [
        ("2014-10-02T15:01:23Z", seconds, Int32(0)),
        ("2014-10-02T15:01:23.045123456Z", seconds, 45_123_456),
        ("2014-10-02T15:01:23.5Z", seconds, 500_000_000),
        ("2014-10-02t15:01:23z", seconds, 0),
        ("2014-10-02 15:01:23Z", seconds, 0),
        ("2014-10-02T17:31:23+02:30", seconds, 0),
        ("2014-10-02T14:01:23.000000001-01:00", seconds, 1),
        ("2016-02-29T00:00:00Z", 1_456_704_000, 0),
        ("1969-12-31T23:59:59.999999999Z", -1, 999_999_999),
        ("+2014-10-02T15:01:23Z", seconds, 0),
        ("02014-10-02T15:01:23Z", seconds, 0),
    ])
    func accepted(text: String, seconds: Int64, nanoseconds: Int32) throws {
        let timestamp = try Timestamp(rfc3339: text)
        #expect(timestamp.seconds == seconds && timestamp.nanoseconds == nanoseconds, "\(text)")
        let fromBytes = try Array(text.utf8).withUnsafeBytes { try Timestamp(rfc3339: $0) }
        #expect(fromBytes == timestamp)
    }

    @Test(arguments: [
        ("2014-10-02T15:01:23", "missing time zone"),
        ("2014-10-02T15:01:23.Z", "empty fraction"),
        ("2014-10-02T15:01:23.0123456789Z", "more than nine fractional digits"),
        ("2014-02-30T00:00:00Z", "field out of range"),
        ("2100-02-29T00:00:00Z", "field out of range"),
        ("2014-13-02T15:01:23Z", "field out of range"),
        ("2014-10-02T24:00:00Z", "field out of range"),
        ("2014-10-02T15:60:23Z", "field out of range"),
        ("2014-10-02X15:01:23Z", "expected Tt "),
        ("2014-10-02T15-01:23Z", "expected :"),
        ("2014-10-02T15:01:23+24:00", "bad offset"),
        ("2014-10-02T15:01:23+02:60", "bad offset"),
        ("2014-10-02T15:01:23*02:00", "expected +-"),
        ("2014-10-02T15:01:23Zx", "unexpected characters at the end"),
        ("14-10-02T15:01:23Z", "bad year"),
        ("2014102T15:01:23Z", "bad year"),
        ("2014-1a-02T15:01:23Z", "expected a digit"),
        ("2014-10-0", "too short"),
        ("", "bad year"),
    ])
    func refused(text: String, why: String) {
        #expect {
            try Timestamp(rfc3339: text)
        } throws: { error in
            guard let error = error as? FirePackError else { return false }
            return error.code == .invalidTimestamp && error.message.hasSuffix(": \(why)")
                && error.message.hasPrefix(text.debugDescription)
        }
    }

    /// Every proper prefix of a timestamp that uses each part is refused (no read past the end), and each
    /// prefix followed by a byte that belongs nowhere in it as well.
    @Test func everyPrefixIsRefused() throws {
        let text = Array("-2014-10-02T15:01:23.5+02:00".utf8)
        #expect(try text.withUnsafeBytes { try Timestamp(rfc3339: $0) }.nanoseconds == 500_000_000)
        for length in 0..<text.count {
            for suffix: [UInt8] in [[], [0x00], [0xFF]] {
                let bytes = Array(text[..<length]) + suffix
                #expect(throws: FirePackError.self, "\(length) bytes and \(suffix)") {
                    try bytes.withUnsafeBytes { try Timestamp(rfc3339: $0) }
                }
            }
        }
    }
}
