import FirePack
import Foundation  // DateFormatter, which FoundationEssentials does not have

extension DateTextFormat {
    /// The formatter's format, both ways.
    public init(_ formatter: DateFormatter) {
        self.init(string: { formatter.string(from: $0) }, date: { formatter.date(from: $0) })
    }
}

extension FirePackEncoder.DateEncodingStrategy {
    /// A string written by the formatter, as JSONEncoder's `.formatted`.
    public static func formatted(_ formatter: DateFormatter) -> Self { .formatted(DateTextFormat(formatter)) }
}

extension FirePackDecoder.DateDecodingStrategy {
    /// From a string read by the formatter, as JSONDecoder's `.formatted`.
    public static func formatted(_ formatter: DateFormatter) -> Self { .formatted(DateTextFormat(formatter)) }
}
