#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Marks `[String: T]`, whose keys no key strategy may change.
protocol StringKeyedDictionaryMarker {}
extension Dictionary: StringKeyedDictionaryMarker where Key == String {}

extension DecoderImpl {
    /// The keyed container: a thin, key-typed front for `MapReader`.
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let map: MapReader

        var codingPath: [any CodingKey] { map.codingPath }
        var allKeys: [Key] {
            let names = map.keyNames()
            // A damaged entry ends the names with a marker; a key type that cannot hold it (an enum) leaves it out, so
            // the map's nested containers throw its error instead (`MapReader.noteDamagedEntry`).
            if let last = names.last, last.hasPrefix(MapReader.damagedKeyMarker), Key(stringValue: last) == nil {
                map.noteDamagedEntry(last)
            }
            return names.compactMap { Key(stringValue: $0) }
        }

        func contains(_ key: Key) -> Bool { (try? map.find(named: key.stringValue)) != nil }

        @inline(__always)
        func locate(_ key: Key) throws -> (offset: Int, end: Int) {
            guard let location = try map.find(named: key.stringValue) else { throw map.keyNotFound(key) }
            return location
        }

        /// What a missing `key` of type `T` gives: the missing-key strategy's default, or `keyNotFound`.
        @inline(never)
        func missing<T>(_ key: Key, _ type: T.Type) throws -> T {
            if let value = decoder.defaultForMissingKey(T.self) { return value }
            throw map.keyNotFound(key)
        }

        func decodeNil(forKey key: Key) throws -> Bool { map.isNull(at: try locate(key)) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            // A bag for unknown fields is filled from the map's other keys, never from its own (UnknownFields.swift).
            if T.self == FirePackUnknownFields.self { return try unknownFields(key) as! T }
            guard let location = try map.find(named: key.stringValue) else { return try missing(key, T.self) }
            return try map.decode(type, at: location, entry: .key(key))
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            if T.self == DocumentIDMarker.self {
                return unsafeBitCast(DocumentIDMarker(reference: map.decoder.options.reference), to: T.self)
            }
            if T.self == FirePackUnknownFields.self { return try unknownFields(key) as? T }
            guard let location = try map.find(named: key.stringValue), !map.isNull(at: location) else { return nil }
            return try map.decode(type, at: location, entry: .key(key))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try map.nestedDecoder(named: key.stringValue, entry: .key(key), requireKey: key).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            try map.nestedDecoder(named: key.stringValue, entry: .key(key), requireKey: key).unkeyedContainer()
        }

        func superDecoder() throws -> any Decoder {
            try map.nestedDecoder(named: AnyCodingKey.superKey.stringValue, entry: .superKey, requireKey: nil)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            try map.nestedDecoder(named: key.stringValue, entry: .key(key), requireKey: nil)
        }

        func decode(_ type: String.Type, forKey key: Key) throws -> String {
            try scalar(key, read: decoder.decodeString)
        }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key, read: decoder.decodeBool) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
            try scalar(key) { try decoder.decodeDouble(at: $0, end: $1) }
        }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(key, read: decoder.decodeFloat) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

        // The scalar `decodeIfPresent` overloads: the protocol's default versions ask `contains(_:)`, which cannot
        // throw, so damaged bytes would read as a missing key; these find the key once and throw what they find.
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
            try scalarIfPresent(key, read: decoder.decodeString)
        }
        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
            try scalarIfPresent(key, read: decoder.decodeBool)
        }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
            try scalarIfPresent(key) { try decoder.decodeDouble(at: $0, end: $1) }
        }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
            try scalarIfPresent(key, read: decoder.decodeFloat)
        }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try integerIfPresent(type, key) }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try integerIfPresent(type, key) }

        private var decoder: DecoderImpl { map.decoder }

        @inline(never)
        private func unknownFields(_ key: Key) throws -> FirePackUnknownFields {
            try map.unknownFields(keyedBy: Key.self, bagKey: key)
        }

        /// Reads a scalar at `location` with `key` on the coding path of any error.
        @inline(__always)
        private func scalar<T>(_ key: Key, at location: (offset: Int, end: Int), read: (Int, Int) throws -> T) throws
            -> T
        {
            try map.withEntry(.key(key)) { try read(location.offset, location.end) }
        }

        /// Reads the scalar for `key`; a missing key is `missing(_:_:)`'s.
        @inline(__always)
        private func scalar<T>(_ key: Key, read: (Int, Int) throws -> T) throws -> T {
            guard let location = try map.find(named: key.stringValue) else { return try missing(key, T.self) }
            return try scalar(key, at: location, read: read)
        }

        /// nil when the map lacks `key` or holds null there; otherwise the scalar.
        @inline(__always)
        private func scalarIfPresent<T>(_ key: Key, read: (Int, Int) throws -> T) throws -> T? {
            guard let location = try map.find(named: key.stringValue), !map.isNull(at: location) else { return nil }
            return try scalar(key, at: location, read: read)
        }

        @inline(__always)
        private func integer<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I {
            try scalar(key) { try decoder.decodeInteger(type, at: $0, end: $1) }
        }

        @inline(__always)
        private func integerIfPresent<I: FixedWidthInteger>(_ type: I.Type, _ key: Key) throws -> I? {
            try scalarIfPresent(key) { try decoder.decodeInteger(type, at: $0, end: $1) }
        }
    }
}
