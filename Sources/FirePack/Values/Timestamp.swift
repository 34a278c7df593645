#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A point in time with nanosecond precision: seconds since 1970-01-01T00:00:00Z and nanoseconds within the second.
///
/// Exact for the whole `Int64` second range, which includes Firestore's 0001-01-01 … 9999-12-31.
public struct Timestamp: Hashable, Comparable, Sendable {
    /// Whole seconds since the Unix epoch (negative before 1970).
    public let seconds: Int64
    /// Nanoseconds past `seconds`, in 0 ..< 1,000,000,000.
    public let nanoseconds: Int32

    /// Creates a timestamp, as the Firestore SDK does.
    ///
    /// - Precondition: `nanoseconds` lies in 0 ..< 1,000,000,000 and `seconds` in Firestore's range (0001-01-01 …
    ///   9999-12-31), exactly what the SDK rejects as a programmer error. For values that come from outside the
    ///   program use `init(validatingSeconds:nanoseconds:)`, which throws instead and accepts every second the
    ///   format holds.
    public init(seconds: Int64, nanoseconds: Int32) {
        precondition(
            nanoseconds >= 0 && nanoseconds < 1_000_000_000,
            "Timestamp nanoseconds \(nanoseconds) outside 0 ..< 1000000000")
        precondition(
            seconds >= Self.firestoreRange.lowerBound.seconds && seconds <= Self.firestoreRange.upperBound.seconds,
            "Timestamp seconds \(seconds) outside Firestore's range (0001-01-01 ... 9999-12-31)")
        self.init(uncheckedSeconds: seconds, nanoseconds: nanoseconds)
    }

    /// Creates a timestamp from untrusted parts; throws `invalidTimestamp` when `nanoseconds` lies outside
    /// 0 ..< 1,000,000,000. Every `Int64` second is accepted, as the format holds them all; what the decoders use.
    public init(validatingSeconds seconds: Int64, nanoseconds: Int32) throws(FirePackError) {
        guard nanoseconds >= 0 && nanoseconds < 1_000_000_000 else {
            throw FirePackError(.invalidTimestamp, "nanoseconds \(nanoseconds) outside 0 ..< 1000000000")
        }
        self.init(uncheckedSeconds: seconds, nanoseconds: nanoseconds)
    }

    /// The current time, as the Firestore SDK's `Timestamp()`.
    public init() { self.init(date: Date()) }

    init(uncheckedSeconds seconds: Int64, nanoseconds: Int32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The timestamp nearest to `date`, to the nanosecond; dates beyond the Int64 second range are clamped.
    public init(date: Date) {
        // Work from the reference date (2001): Date stores that interval, so no precision is lost converting.
        let interval = date.timeIntervalSinceReferenceDate
        guard interval.isFinite else {
            self.init(uncheckedSeconds: interval.isNaN ? 0 : (interval < 0 ? .min : .max), nanoseconds: 0)
            return
        }
        let whole = interval.rounded(.down)
        var nanos = ((interval - whole) * 1e9).rounded()
        var wholeSeconds = whole
        if nanos >= 1e9 {
            nanos -= 1e9
            wholeSeconds += 1
        }
        let seconds = wholeSeconds + Double(Self.referenceDateOffset)
        guard seconds > -9.2e18 && seconds < 9.2e18 else {
            self.init(uncheckedSeconds: seconds < 0 ? .min : .max, nanoseconds: 0)
            return
        }
        self.init(uncheckedSeconds: Int64(seconds), nanoseconds: Int32(nanos))
    }

    /// The nearest `Date` (a Double of seconds since 2001, so sub-microsecond digits may round).
    public func dateValue() -> Date {
        // In Double: `seconds - referenceDateOffset` overflows Int64 for the lowest seconds.
        let sinceReference = (Double(seconds) - Double(Self.referenceDateOffset)) + Double(nanoseconds) / 1e9
        return Date(timeIntervalSinceReferenceDate: sinceReference)
    }

    /// Orders by seconds, then nanoseconds.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// Seconds from 1970-01-01 to 2001-01-01.
    static let referenceDateOffset: Int64 = 978_307_200

    /// Firestore's range: 0001-01-01T00:00:00Z ... 9999-12-31T23:59:59.999999999Z.
    public static let firestoreRange: ClosedRange<Timestamp> =
        Timestamp(
            uncheckedSeconds: -62_135_596_800, nanoseconds: 0)...Timestamp(
            uncheckedSeconds: 253_402_300_799, nanoseconds: 999_999_999)
}

extension Timestamp: CustomStringConvertible {
    /// RFC 3339 in UTC, with as many fractional digits as needed (`2014-10-02T15:01:23.045123456Z`).
    public var description: String { rfc3339String }
}

extension Timestamp: Codable {
    private enum CodingKeys: String, CodingKey { case seconds, nanoseconds }

    /// Decodes `{seconds, nanoseconds}`, as the Firestore SDK does.
    public init(from decoder: any Decoder) throws {
        self = try FieldPair.decode(from: decoder, CodingKeys.seconds, .nanoseconds, refusedAt: .nanoseconds) {
            (seconds: Int64, nanoseconds: Int32) throws(FirePackError) in
            try Timestamp(validatingSeconds: seconds, nanoseconds: nanoseconds)
        }
    }

    /// Encodes `{seconds, nanoseconds}`, as the Firestore SDK does.
    public func encode(to encoder: any Encoder) throws {
        try FieldPair.encode(seconds, CodingKeys.seconds, nanoseconds, .nanoseconds, to: encoder)
    }
}
