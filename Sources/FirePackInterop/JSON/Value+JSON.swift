#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack

extension Value {
    /// Parses JSON text (RFC 8259; a leading UTF-8 byte order mark is skipped) from `Data`, `[UInt8]` or borrowed
    /// bytes into a value: numbers without fraction or exponent become integers — an error outside Int64 unless
    /// `options.largeIntegers` is `.asDoubles` — others doubles; reversible markers become Firestore types. Errors
    /// name the byte offset and the JSON path.
    public init(json bytes: some ContiguousBytes, options: JSONOptions = JSONOptions()) throws(FirePackError) {
        self = try bytes.withBorrowedBytes { bytes throws(FirePackError) in
            guard let base = bytes.baseAddress else { throw FirePackError(.truncated, offset: 0, "empty input") }
            var parser = JSONParser(
                base: base, count: bytes.count, maxDepth: options.maxDepth, readsMarkers: options.readsMarkers,
                largeIntegers: options.largeIntegers)
            return try parser.parseDocument()
        }
    }

    /// Parses JSON text from a string.
    public init(json text: String, options: JSONOptions = JSONOptions()) throws(FirePackError) {
        try self.init(json: Array(text.utf8), options: options)
    }
}

extension Value {
    /// The value as UTF-8 JSON text; with the reversible form (default), `Value(json:)` reads it back exactly.
    public func jsonBytes(options: JSONOptions = JSONOptions()) -> [UInt8] {
        JSONTextWriter.text(options: options) { $0.write(self) }
    }

    /// The value as UTF-8 JSON text of at most `maxLength` bytes (for one document:
    /// `JSONTextLimits.document`, what FirePack's JSON readers take); throws `limitExceeded`, naming the
    /// value as `what`, for a longer one, without writing much more than the limit (keys past it are not written).
    package func jsonBytes(options: JSONOptions, maxLength: Int, what: @autoclosure () -> String) throws(FirePackError)
        -> [UInt8]
    {
        var past: FirePackError?
        let text = JSONTextWriter.text(options: options) { writer in
            writer.limitingText(to: maxLength)
            writer.write(self)
            if writer.isPastLimit { past = writer.limitError(what()) }
        }
        if let past { throw past }
        return text
    }

    /// The value as JSON text.
    public func jsonString(options: JSONOptions = JSONOptions()) -> String {
        String(decoding: jsonBytes(options: options), as: UTF8.self)
    }
}

/// The longest JSON texts FirePack writes: what its own JSON readers take back.
package enum JSONTextLimits {
    /// One document: a line, or an element of an array (`JSONLinesReader`, `JSONArrayReader` and the REST JSON
    /// readers refuse 256 MiB).
    package static let document = (256 << 20) - 1
    /// One whole value that the tool reads back (`readAll` takes 2 GiB), with its newline.
    package static let value = (1 << 31) - 1

    /// The error for JSON text of `what` longer than `limit` bytes.
    package static func tooLong(_ what: String, limit: Int) -> FirePackError {
        FirePackError(
            .limitExceeded,
            "\(what) would be more than \(limit) bytes of JSON text, the most FirePack's JSON readers take")
    }
}
