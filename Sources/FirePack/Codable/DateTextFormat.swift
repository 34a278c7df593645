#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A date's text form, both ways: what the coders' `.formatted` date strategies write and read.
///
/// FirePack needs no more of Foundation than FoundationEssentials, which has no `DateFormatter` (that lives with ICU in
/// Foundation proper). `import FirePackInterop` adds `.formatted(_: DateFormatter)` to both strategies, as Foundation
/// adds `.formatted` to JSONDecoder's on Linux; any other format is a pair of functions.
public struct DateTextFormat: Sendable {
    /// Writes a date as text.
    public let string: @Sendable (Date) -> String
    /// Reads a date from text; nil when the text is not in this format (the decoder then throws `dataCorrupted` with
    /// the string's byte offset).
    public let date: @Sendable (String) -> Date?

    /// A format from its two directions.
    public init(string: @escaping @Sendable (Date) -> String, date: @escaping @Sendable (String) -> Date?) {
        self.string = string
        self.date = date
    }
}
