#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// What generated coding of an enum without a raw type calls (`@FirePackCodable`): the shape synthesized `Codable`
// gives such enums (SE-0295), `{"case": {"label": value, "_1": value}}`, an empty map for a case without values, and
// the synthesized `init(from:)`'s error for a map holding other than one case key.

extension FirePackValueReader {
    /// Where a case's values are: the value under the case key.
    public struct CaseValues {
        let offset: Int
        let end: Int
    }

    /// Which of `cases` (the enum's case keys) the map names, and where the case's values are; the map's other keys
    /// are ignored. Throws `typeMismatch` for `type` when the map holds none or several case keys, as the synthesized
    /// `init(from:)` does ("Invalid number of keys found, expected one.").
    public func decodeCase<T>(of type: T.Type, in fields: Fields, cases: [StaticString]) throws -> (Int, CaseValues) {
        let input = decoder.input, header = fields.header
        let converted = try convertedKeysIfAny(of: fields)
        var found: (Int, CaseValues)?
        var matches = 0
        var position = header.bodyStart
        for entry in 0..<header.count {
            let (start, count, afterKey, valueEnd) = try decoder.wrap { () throws(FirePackError) in
                let (start, count, afterKey) = try decoder.state.keyReferences.getKey(
                    at: position, limit: header.end, in: input)
                return (start, count, afterKey, try input.valueEnd(at: afterKey, limit: header.end))
            }
            if let index = cases.firstIndex(where: {
                self.entry(entry, keyAt: start, count: count, converted: converted, isNamedBy: $0)
            }) {
                matches += 1
                if found == nil { found = (index, CaseValues(offset: afterKey, end: valueEnd)) }
            }
            position = valueEnd
        }
        guard matches == 1, let found else {
            throw DecodingError.typeMismatch(
                T.self,
                .init(
                    codingPath: [],
                    debugDescription:
                        located("Invalid number of keys found, expected one.", at: fields.mapOffset)))
        }
        return found
    }

    /// Decodes a case's values with `body`, given a reader at their map; errors get the case key on their path.
    public func decodeCase<T>(_ key: StaticString, at values: CaseValues, _ body: (FirePackValueReader) throws -> T)
        throws -> T
    {
        try under(key) { try body(nested(at: (values.offset, values.end))) }
    }

    /// Checks that a case without values holds a map, as the synthesized `init(from:)` asks for one.
    public func decodeEmptyCase(_ key: StaticString, at values: CaseValues) throws {
        try under(key) { _ = try nested(at: (values.offset, values.end)).readFields() }
    }
}

extension FirePackValueWriter {
    /// Writes `key` and, in a map under it, what `body` writes (a case's values).
    public mutating func encodeCase(_ key: StaticString, _ body: (inout FirePackValueWriter) throws -> Void) throws {
        try writeKey(key)
        writer.beginMap()
        do { try body(&self) } catch { throw codingError(error, under: key) }
        writer.endMap()
    }

    /// Writes `key` and an empty map (a case without values).
    public func encodeEmptyCase(_ key: StaticString) throws {
        try writeKey(key)
        writer.beginMap()
        writer.endMap()
    }
}
