#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the encoders do with a value before falling back to its `encode(to:)`.
enum EncodingSpecial {
    /// Handled: write this value.
    case value(Value)
    /// Handled: write nothing (a `@DocumentID` in a keyed container).
    case skip
    /// A custom Date or Data strategy: run it with the encoder.
    case custom((any Encoder) throws -> Void)
}

extension EncoderOptions {
    /// What to write for a value of a non-scalar native type (`NativeSpecial`), by this encoder's strategies.
    func special<T>(_ kind: NativeSpecial, _ value: T) throws -> EncodingSpecial {
        switch kind {
        case .date: return try date(unsafeBitCast(value, to: Date.self))
        case .timestamp: return .value(.timestamp(unsafeBitCast(value, to: Timestamp.self)))
        case .data:
            let data = unsafeBitCast(value, to: Data.self)
            switch self.dataStrategy {
            case .bytes: return .value(.bytes(data))
            case .deferredToData: return .custom { try data.encode(to: $0) }
            case .base64: return .value(.string(data.base64EncodedString()))
            case .custom(let encode): return .custom { try encode(data, $0) }
            }
        case .geoPoint: return .value(.geoPoint(unsafeBitCast(value, to: GeoPoint.self)))
        case .reference: return .value(.reference(unsafeBitCast(value, to: DocumentReference.self)))
        case .vector: return .value(.vector(unsafeBitCast(value, to: VectorValue.self)))
        case .value: return .value(unsafeBitCast(value, to: Value.self))
        case .serverTimestamp: return .value(.serverTimestamp)
        case .documentID: return .skip
        case .url: return .value(.string(unsafeBitCast(value, to: URL.self).absoluteString))
        case .uuid: return .value(.string(unsafeBitCast(value, to: UUID.self).uuidString))
        case .decimal: return .value(.double(Double(unsafeBitCast(value, to: Decimal.self).description) ?? .nan))
        case .serverTimestampProbe:
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "The server-timestamp probe is decode-only"))
        }
    }

    func date(_ date: Date) throws -> EncodingSpecial {
        switch self.dateStrategy {
        case .timestamp: return .value(.timestamp(Timestamp(date: date)))
        case .deferredToDate: return .custom { try date.encode(to: $0) }
        case .secondsSince1970: return .value(.double(date.timeIntervalSince1970))
        case .millisecondsSince1970: return .value(.double(date.timeIntervalSince1970 * 1000))
        // Foundation's own ISO 8601 style, as JSONEncoder uses it: whole seconds, and its calendar for early dates.
        case .iso8601: return .value(.string(date.formatted(.iso8601)))
        case .formatted(let format): return .value(.string(format.string(date)))
        case .custom(let encode): return .custom { try encode(date, $0) }
        }
    }

    /// What to write for NaN or ±∞ under the non-conforming float strategy: nil for the double itself, a string for
    /// `.convertToString`; throws for `.throw`. Callers test `isFinite` first, so finite numbers cost one compare.
    func nonConforming(_ double: Double, codingPath: @autoclosure () -> [any CodingKey]) throws -> String? {
        switch self.floatStrategy {
        case .allow: return nil
        case .throw:
            throw EncodingError.invalidValue(
                double,
                .init(
                    codingPath: codingPath(),
                    debugDescription:
                        "\(double) is not a finite number and the encoder's nonConformingFloatEncodingStrategy is .throw"
                ))
        case .convertToString(let positiveInfinity, let negativeInfinity, let nan):
            return double.isNaN ? nan : (double > 0 ? positiveInfinity : negativeInfinity)
        }
    }

    /// An unsigned integer as Int64, or an error above Int64.max (Firestore integers are signed 64-bit).
    @inline(__always)
    func int64<U: FixedWidthInteger & UnsignedInteger>(_ value: U, codingPath: @autoclosure () -> [any CodingKey])
        throws -> Int64
    {
        guard let signed = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: codingPath(),
                    debugDescription:
                        "\(U.self) \(value) is above Int64.max, the largest integer FirePack (like Firestore) stores"))
        }
        return signed
    }

    /// The map key for a coding key under the key strategy.
    func mapKey(_ key: any CodingKey, codingPath: @autoclosure () -> [any CodingKey]) -> String {
        switch self.keyStrategy {
        case .useDefaultKeys: key.stringValue
        case .convertToSnakeCase: KeyConversion.snakeCase(key.stringValue)
        case .custom(let convert): convert(codingPath() + [key]).stringValue
        }
    }
}
