extension Timestamp {
    /// The timestamp as RFC 3339 in UTC: `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, fraction trimmed of trailing zeros.
    ///
    /// Years outside 0000 … 9999 are written with a sign and as many digits as they need.
    public var rfc3339String: String {
        withRFC3339Bytes { String(decoding: $0, as: UTF8.self) }
    }

    /// The longest text `withRFC3339Bytes` writes: a sign, 12 year digits (Int64 seconds span ±292 billion years),
    /// `-MM-DDTHH:MM:SS`, nine fraction digits with their dot, and `Z`.
    static let rfc3339MaximumLength = 1 + 12 + 15 + 10 + 1

    /// Calls `body` with the timestamp's RFC 3339 text (`rfc3339String`'s) as UTF-8 bytes, written on the stack: the
    /// one renderer of both the string and the JSON writers, which copy the bytes straight into their output (a
    /// timestamp built as a `String` piece by piece was a tenth of converting a stream to JSON lines, perf).
    package func withRFC3339Bytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.rfc3339MaximumLength) { buffer in
            var count = 0
            @inline(__always) func put(_ byte: UInt8) {
                buffer[count] = byte
                count += 1
            }
            /// `value` (below 100) as two digits.
            @inline(__always) func twoDigits(_ value: UInt64) {
                put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10))
                put(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
            }
            /// `value` in decimal, zero-padded to `width` digits.
            @inline(__always) func digits(_ value: UInt64, _ width: Int) {
                var length = 1, rest = value / 10
                while rest > 0 {
                    length += 1
                    rest /= 10
                }
                length = max(length, width)
                var value = value
                for index in stride(from: count + length - 1, through: count, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                count += length
            }
            // Floor division without overflow: `days * 86_400` can lie below Int64.min for the lowest seconds.
            let (quotient, remainder) = seconds.quotientAndRemainder(dividingBy: 86_400)
            let days = remainder < 0 ? quotient - 1 : quotient
            let secondOfDay = UInt64(remainder < 0 ? remainder + 86_400 : remainder)
            let (year, month, day) = Self.civilDate(fromDaysSinceEpoch: days)
            if year < 0 || year > 9999 { put(year < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+")) }
            if year >= 0 && year <= 9999 {
                twoDigits(UInt64(year / 100))
                twoDigits(UInt64(year % 100))
            } else {
                digits(year.magnitude, 4)
            }
            put(UInt8(ascii: "-"))
            twoDigits(UInt64(month))
            put(UInt8(ascii: "-"))
            twoDigits(UInt64(day))
            put(UInt8(ascii: "T"))
            twoDigits(secondOfDay / 3600)
            put(UInt8(ascii: ":"))
            twoDigits(secondOfDay / 60 % 60)
            put(UInt8(ascii: ":"))
            twoDigits(secondOfDay % 60)
            if nanoseconds > 0 {
                put(UInt8(ascii: "."))
                digits(UInt64(nanoseconds), 9)
                while buffer[count - 1] == UInt8(ascii: "0") { count -= 1 }  // trailing zeros trimmed
            }
            put(UInt8(ascii: "Z"))
            return try body(UnsafeRawBufferPointer(start: buffer.baseAddress, count: count))
        }
    }

    /// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's `civil_from_days`).
    static func civilDate(fromDaysSinceEpoch days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
    static func daysSinceEpoch(year: Int64, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

extension Timestamp {
    /// Parses RFC 3339 (`2014-10-02T15:01:23.045123456Z`, `…+02:00`, `t`/`z` and a space separator accepted), with up
    /// to nine fractional digits; years may carry a sign and more than four digits, as `rfc3339String` writes them.
    public init(rfc3339 text: String) throws(FirePackError) {
        self = try text.withUTF8Bytes { bytes in
            Result { () throws(FirePackError) in try Timestamp(rfc3339: bytes) }
        }.get()
    }

    /// Parses RFC 3339 from UTF-8 bytes, as `init(rfc3339:)` does from a string, without copying them.
    package init(rfc3339 bytes: UnsafeRawBufferPointer) throws(FirePackError) {
        var text = RFC3339Cursor(bytes: bytes)
        var sign: Int64 = 1
        if text.next == UInt8(ascii: "-") || text.next == UInt8(ascii: "+") {
            sign = text.next == UInt8(ascii: "-") ? -1 : 1
            text.at &+= 1
        }
        var yearDigits = 0
        while text.at &+ yearDigits < bytes.count, bytes[text.at &+ yearDigits] != UInt8(ascii: "-") {
            yearDigits &+= 1
        }
        guard (4...12).contains(yearDigits) else { throw text.fail("bad year") }
        let year = sign * (try text.digits(yearDigits))
        try text.expect("-")
        let month = try text.digits(2)
        try text.expect("-")
        let day = try text.digits(2)
        try text.expect("Tt ")
        let hour = try text.digits(2)
        try text.expect(":")
        let minute = try text.digits(2)
        try text.expect(":")
        let second = try text.digits(2)
        guard (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: Int(month)),
            hour < 24, minute < 60, second < 60
        else { throw text.fail("field out of range") }
        var nanos: Int64 = 0
        if text.next == UInt8(ascii: ".") {
            text.at &+= 1
            var count = 0
            while let byte = text.next, byte >= 0x30 && byte <= 0x39 {
                guard count < 9 else { throw text.fail("more than nine fractional digits") }
                nanos = nanos * 10 + Int64(byte - 0x30)
                count += 1
                text.at &+= 1
            }
            guard count > 0 else { throw text.fail("empty fraction") }
            for _ in count..<9 { nanos *= 10 }
        }
        var offsetSeconds: Int64 = 0
        guard let zone = text.next else { throw text.fail("missing time zone") }
        if zone == UInt8(ascii: "Z") || zone == UInt8(ascii: "z") {
            text.at &+= 1
        } else {
            try text.expect("+-")
            let zoneSign: Int64 = zone == UInt8(ascii: "-") ? -1 : 1
            let zoneHours = try text.digits(2)
            try text.expect(":")
            let zoneMinutes = try text.digits(2)
            guard zoneHours < 24 && zoneMinutes < 60 else { throw text.fail("bad offset") }
            offsetSeconds = zoneSign * (zoneHours * 3600 + zoneMinutes * 60)
        }
        guard text.at == bytes.count else { throw text.fail("unexpected characters at the end") }
        // The first second of the lowest day lies below Int64.min although later seconds of that day fit: for days
        // before the epoch, start from the next day's first second and count back.
        let days = Self.daysSinceEpoch(year: year, month: Int(month), day: Int(day))
        let dayBase = days < 0 ? days + 1 : days
        let secondsIntoBase = hour * 3600 + minute * 60 + second - offsetSeconds - (days < 0 ? 86_400 : 0)
        let (daySeconds, overflow1) = dayBase.multipliedReportingOverflow(by: 86_400)
        let (total, overflow2) = daySeconds.addingReportingOverflow(secondsIntoBase)
        guard !overflow1 && !overflow2 else { throw text.fail("outside the Int64 second range") }
        self.init(uncheckedSeconds: total, nanoseconds: Int32(nanos))
    }

    static func daysInMonth(year: Int64, month: Int) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

/// A cursor over RFC 3339 text for `Timestamp(rfc3339:)`: index arithmetic with every load behind a check of the
/// end, and its refusals, which quote the whole text.
private struct RFC3339Cursor {
    let bytes: UnsafeRawBufferPointer
    /// Where the next byte is.
    var at = 0

    /// The next byte, or nil at the end.
    var next: UInt8? {
        @inline(__always) get { at < bytes.count ? bytes[at] : nil }
    }

    /// Reads `count` decimal digits (at most 12: the value fits an `Int64`).
    @inline(__always)
    mutating func digits(_ count: Int) throws(FirePackError) -> Int64 {
        guard bytes.count &- at >= count else { throw fail("too short") }
        var value: Int64 = 0
        for _ in 0..<count {
            let digit = bytes[at] &- 0x30
            guard digit < 10 else { throw fail("expected a digit") }
            value = value &* 10 &+ Int64(digit)
            at &+= 1
        }
        return value
    }

    /// Moves past the next byte when it is one of `characters`.
    @inline(__always)
    mutating func expect(_ characters: StaticString) throws(FirePackError) {
        if let byte = next {
            for index in 0..<characters.utf8CodeUnitCount where characters.utf8Start[index] == byte {
                at &+= 1
                return
            }
        }
        throw fail("expected \(characters)")
    }

    /// The error for text refused for `why`.
    @inline(never)
    func fail(_ why: String) -> FirePackError {
        FirePackError(
            .invalidTimestamp,
            "\(String(decoding: bytes, as: UTF8.self).debugDescription) is not an RFC 3339 timestamp: \(why)")
    }
}
