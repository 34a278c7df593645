#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields of a map that a model does not declare, kept so that writing the model back loses none of them.
///
/// Declare one stored property of this type in a model (`var unknownFields = FirePackUnknownFields()`). Decoding
/// fills it with every entry of the map whose key is not one of the model's coding keys (nor, with
/// `@FirePackCodable`, one of their aliases), in the order the map holds them, with their exact types; encoding writes
/// those entries back as fields of the same map, at the property's place among the others. A model written by
/// last month's code therefore reads a document written by this month's, changes a field, and writes it back with the
/// new fields intact — what swift-protobuf's unknown fields do for protobuf messages.
///
/// Both of FirePack's paths do this (the Codable path through synthesized `Codable`, and `@FirePackCodable`), and so
/// do `Document.data(as:)` and `Document(reference:from:)`, and with them the REST JSON and protobuf converters.
/// A field the model declares wins over an entry of the same key in the bag. Other coders (JSONEncoder, …) see the bag
/// as an ordinary property: a map of the entries under the property's own key (Docs/EVOLUTION.md).
public struct FirePackUnknownFields: Sendable, Hashable {
    /// The entries, in the order they were read (or added).
    public var fields: MapValue

    /// An empty bag.
    public init() { fields = MapValue() }

    /// A bag holding `fields`.
    public init(_ fields: MapValue) { self.fields = fields }

    /// Whether the bag holds no entry.
    public var isEmpty: Bool { fields.isEmpty }

    /// The keys held, in order.
    public var keys: [String] { fields.keys }

    /// The value held for `key`, or nil; setting nil removes the entry.
    public subscript(key: String) -> Value? {
        get { fields[key] }
        set { fields[key] = newValue }
    }
}

extension FirePackUnknownFields: Codable {
    /// Through other coders: the entries as one map value (`MapValue`'s form).
    public func encode(to encoder: any Encoder) throws { try fields.encode(to: encoder) }

    /// Through other coders: a map value.
    public init(from decoder: any Decoder) throws { fields = try MapValue(from: decoder) }
}

// MARK: - Decoding

extension DecoderImpl {
    /// The entries of the map `header` (inside `depth` containers, at coding path `path`) that `isKnown` does not
    /// claim, as values, in map order. `isKnown` is asked with each entry's index and offset and where its stored key's
    /// bytes are in the input (UTF-8 not yet checked); only the entries it refuses are materialized (keys checked as
    /// UTF-8, a long referenced key made once for the whole call, `KeyReferenceMemo.keyString`). A
    /// damaged entry throws `dataCorrupted` with its byte offset, and its key on the path when the key could be read.
    func unknownFields(
        in header: ContainerHeader, depth: Int, path: [any CodingKey],
        isKnown: (_ index: Int, _ entry: Int, _ keyStart: Int, _ keyCount: Int) throws -> Bool
    ) throws -> FirePackUnknownFields {
        func damaged(_ error: FirePackError, under key: String?) -> DecodingError {
            let context = contextAtPath(
                path + (key.map { [AnyCodingKey(stringValue: $0)] } ?? []),
                "Corrupt FirePack data: \(error)", at: error.offset ?? header.bodyStart)
            return .dataCorrupted(
                .init(
                    codingPath: context.codingPath, debugDescription: context.debugDescription, underlyingError: error))
        }
        var bag = MapValue()
        let input = self.input
        // One for the bag's values; keys are read through the call's memo (no table the size of the key table per
        // bag), long ones shared with it.
        var materializer = Materializer(input: input, sharing: state.keyReferences.sharedKeys())
        var position = header.bodyStart
        for index in 0..<header.count {
            let entry = position
            let start: Int, count: Int, afterKey: Int, valueEnd: Int
            do {
                (start, count, afterKey) = try state.keyReferences.getKey(at: entry, limit: header.end, in: input)
                valueEnd = try input.valueEnd(at: afterKey, limit: header.end)
            } catch {
                throw damaged(error, under: nil)
            }
            if try !isKnown(index, entry, start, count) {
                let key: String
                do { (key, _) = try state.keyReferences.keyString(at: entry, limit: header.end, in: input) } catch {
                    throw damaged(error, under: nil)
                }
                do {
                    let (value, _) = try materializer.value(at: afterKey, limit: valueEnd, depth: depth + 1)
                    _ = bag.appendIfAbsent(key: key, value: value)
                } catch {
                    throw damaged(error, under: key)
                }
            }
            position = valueEnd
        }
        return FirePackUnknownFields(bag)
    }
}

extension MapReader {
    /// The bag for a property `bagKey` of a model whose keys are `Key`: `Key(stringValue:)` (given each key as the key
    /// strategy converts it) tells the model's keys apart, as `allKeys` does. The bag's own key is none of them, so an
    /// entry under it is kept too.
    func unknownFields<Key: CodingKey>(keyedBy type: Key.Type, bagKey: Key) throws -> FirePackUnknownFields {
        let bagName = bagKey.stringValue, input = decoder.input
        return try decoder.unknownFields(in: header, depth: depth, path: codingPath) { index, entry, start, _ in
            let name: String
            if let convertedKeys {
                name = convertedKeys[index].key
            } else {
                do throws(FirePackError) {
                    (name, _) = try decoder.state.keyReferences.keyString(at: entry, limit: header.end, in: input)
                } catch {
                    throw DecodingError.dataCorrupted(
                        decoder.contextAtPath(codingPath, "Corrupt FirePack data: \(error)", at: error.offset ?? start))
                }
            }
            // Known means read by the model, compared as the model's keys are looked up: as converted strings under
            // a key strategy, else by their bytes (`String` equality would take "cafe\u{301}" for "café", and the
            // entry would be neither read nor kept).
            guard convertedKeys == nil else { return name != bagName && Key(stringValue: name) != nil }
            guard !name.utf8.elementsEqual(bagName.utf8), let key = Key(stringValue: name) else { return false }
            return key.stringValue.utf8.elementsEqual(name.utf8)
        }
    }
}

extension FirePackValueReader {
    /// The entries of the map that are none of `known` (the model's keys and aliases, the bag's own excluded): what
    /// `@FirePackCodable` puts in a `FirePackUnknownFields` property. Keys are compared as bytes.
    public func unknownFields(in fields: Fields, known: [StaticString]) throws -> FirePackUnknownFields {
        // Every entry found by a key of the model (the bag declared last): nothing to look at.
        if fields.everyEntryFound { return FirePackUnknownFields() }
        // Under a key strategy, the entry's converted key is what the model's keys were compared with; the bag keeps
        // the stored one.
        let converted = try convertedKeysIfAny(of: fields)
        return try decoder.unknownFields(in: fields.header, depth: depth, path: []) { index, _, start, count in
            known.contains { entry(index, keyAt: start, count: count, converted: converted, isNamedBy: $0) }
        }
    }
}

// MARK: - Encoding

extension FirePackWriter {
    /// Writes the bag's entries as entries of the open map; false, having written nothing more, at the first key the
    /// map already holds (the caller takes the tree path, where the model's own field wins).
    func writeUnknownFields(_ bag: FirePackUnknownFields, sortingKeys: Bool) -> Bool {
        for (key, value) in bag.fields {
            guard writeKey(key) else { return false }
            write(value, sortingKeys: sortingKeys)
        }
        return true
    }
}

extension FirePackValueWriter {
    /// Writes the entries of a `FirePackUnknownFields` property as fields of the value's map (what
    /// `@FirePackCodable` generates for a bag with entries, at the property's place), except those under a key in
    /// `declared` (the keys the model writes in this call, nil for an optional left out: the model's field wins).
    /// Deterministic output, which must merge the entries into key order, takes the tree path
    /// (`FirePackEncodable.generatedTree`).
    public func encodeUnknownFields(_ bag: FirePackUnknownFields, declared: [StaticString?] = []) throws {
        if bag.isEmpty { return }
        if sortsKeys { throw EncoderImpl.OutOfOrder() }
        // Compared as written: converted first under a key strategy.
        let written = convertsKeys ? declared.map { $0.map(SnakeCaseKeys.converted) } : nil
        for (key, value) in bag.fields {
            let isDeclared =
                if let written {
                    written.contains { $0 == key }
                } else {
                    declared.contains { $0.map { key.utf8.elementsEqual($0.utf8Bytes) } ?? false }
                }
            if isDeclared { continue }
            guard writer.writeKey(key) else { throw EncoderImpl.OutOfOrder() }
            writer.write(value, sortingKeys: false)
        }
    }
}

extension StaticString {
    /// The string's UTF-8 bytes, in place.
    var utf8Bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: utf8Start, count: utf8CodeUnitCount) }

    /// Whether the string's UTF-8 bytes are the `count` bytes at `bytes`: how generated code's keys are matched
    /// against a map's keys (unknown fields, refused keys, enum cases).
    @inline(__always)
    func hasBytes(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
        utf8CodeUnitCount == count && (count == 0 || ByteComparison.equal(utf8Start, bytes, count: count))
    }
}
