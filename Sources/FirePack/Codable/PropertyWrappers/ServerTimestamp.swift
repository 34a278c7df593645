#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type `@ServerTimestamp` can hold: `Timestamp` or `Date`.
public protocol ServerTimestampWrappable {
    /// The value for a timestamp.
    static func wrap(_ timestamp: Timestamp) -> Self
    /// The value as a timestamp.
    var timestampValue: Timestamp { get }
}

extension Timestamp: ServerTimestampWrappable {
    /// The timestamp itself.
    public static func wrap(_ timestamp: Timestamp) -> Timestamp { timestamp }
    /// The timestamp itself.
    public var timestampValue: Timestamp { self }
}

extension Date: ServerTimestampWrappable {
    /// The timestamp's date.
    public static func wrap(_ timestamp: Timestamp) -> Date { timestamp.dateValue() }
    /// The date as a timestamp.
    public var timestampValue: Timestamp { Timestamp(date: self) }
}

/// A time the server sets: nil is written as the server-timestamp sentinel, a value as a timestamp.
///
/// Decoding the sentinel gives nil, or the decoder's `serverTimestampEstimate` when one is set; a missing key
/// decodes as nil.
@propertyWrapper
public struct ServerTimestamp<Value: ServerTimestampWrappable & Codable>: Codable {
    /// The time, or nil while the server has not set it.
    public var wrappedValue: Value?

    /// Wraps a time (nil asks the server to set it).
    public init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    /// Decodes a timestamp, or nil for null or the pending sentinel (the estimate, when the decoder has one).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            wrappedValue = nil
            return
        }
        let probe = try container.decode(ServerTimestampProbe.self)
        if probe.isPending {
            wrappedValue = probe.estimate.map(Value.wrap)
        } else {
            wrappedValue = try container.decode(Value.self)
        }
    }

    /// Encodes the time, or the sentinel when nil (other encoders write null).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(wrappedValue)
        } else {
            try container.encode(ServerTimestampMarker())
        }
    }
}

extension ServerTimestamp: Equatable where Value: Equatable {}
extension ServerTimestamp: Hashable where Value: Hashable {}
extension ServerTimestamp: Sendable where Value: Sendable {}

/// The sentinel as FirePack's encoders recognise it; other encoders write null.
struct ServerTimestampMarker: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}

/// Asks FirePack's decoder whether the value is the sentinel (other decoders: never).
struct ServerTimestampProbe: Decodable {
    var isPending: Bool
    var estimate: Timestamp?

    init(isPending: Bool, estimate: Timestamp?) {
        self.isPending = isPending
        self.estimate = estimate
    }

    init(from decoder: any Decoder) throws {
        isPending = false
        estimate = nil
    }
}

extension KeyedEncodingContainer {
    /// Writes the time, or the server-timestamp sentinel for nil.
    public mutating func encode<T>(_ value: ServerTimestamp<T>, forKey key: Key) throws {
        if let time = value.wrappedValue {
            try encode(time, forKey: key)
        } else {
            try encode(ServerTimestampMarker(), forKey: key)
        }
    }
}

extension KeyedDecodingContainer {
    /// Reads the time; a missing key, null or the sentinel give nil (or the decoder's estimate for the sentinel).
    public func decode<T>(_ type: ServerTimestamp<T>.Type, forKey key: Key) throws -> ServerTimestamp<T> {
        try decodeIfPresent(type, forKey: key) ?? ServerTimestamp(wrappedValue: nil)
    }
}
