extension Timestamp {
    /// The timestamp as RFC 3339 in UTC: `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, fraction trimmed of trailing zeros.
    ///
    /// Years outside 0000 … 9999 are written with a sign and as many digits as they need.
    public var rfc3339String: String {
        let days = seconds >= 0 ? seconds / 86_400 : -((-(seconds + 1)) / 86_400) - 1
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civilDate(fromDaysSinceEpoch: days)
        var text = ""
        if year < 0 || year > 9999 { text += year < 0 ? "-" : "+" }
        text += Self.padded(year.magnitude, 4) + "-" + Self.padded(UInt64(month), 2) + "-" + Self.padded(UInt64(day), 2)
        text += "T" + Self.padded(UInt64(secondOfDay / 3600), 2) + ":" + Self.padded(UInt64(secondOfDay / 60 % 60), 2)
        text += ":" + Self.padded(UInt64(secondOfDay % 60), 2)
        if nanoseconds > 0 {
            var fraction = Self.padded(UInt64(nanoseconds), 9)
            while fraction.last == "0" { fraction.removeLast() }
            text += "." + fraction
        }
        return text + "Z"
    }

    private static func padded(_ value: UInt64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
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
