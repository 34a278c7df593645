#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The FirePack value a generated `init(firePack:)` decodes (`FirePackDecodable`), read straight from the bytes.
///
/// Generated code calls `readFields()` once, then `decode(forKey:in:)` or `decodeIfPresent(forKey:in:)` per stored
/// property, in declaration order. Keys are matched as raw bytes, starting after the previous match, so keys read in
/// the order they were written cost one comparison each. Values of generated types, arrays and optionals of them and
/// Swift's scalars are read here directly; everything else through the Codable path at the same position.
///
/// Reading follows `FirePackDecoder` exactly: the same keys are found, the same bytes read, and the same
/// `DecodingError`s thrown, with the same coding path (built only when an error propagates), byte offset and document.
///
/// The generic entry points (a generated type's fields, arrays and optionals of it) are `@inlinable`, so that they are
/// specialized for the generated type in the module that decodes it: unspecialized, each call looked up the metadata
/// of `[Element]` and its conformances at run time, and grew an unspecialized array (guarded by `Decode 1 Book/
/// FirePackDecoder @FirePackCodable`).
public struct FirePackValueReader {
    /// The Codable path's decoder for this call: its options, input, and the primitives both paths share (a `var`
    /// only so that the top-level call can hand it back to `FirePackDecoder.recycle`).
    var decoder: DecoderImpl
    /// The value being decoded: where it starts and ends, and how many containers enclose it.
    var offset: Int
    var end: Int
    var depth: Int

    init(decoder: DecoderImpl, offset: Int, end: Int, depth: Int) {
        self.decoder = decoder
        self.offset = offset
        self.end = end
        self.depth = depth
    }

    /// A map being read field by field: where it is, and where the next key search starts.
    public struct Fields {
        let mapOffset: Int
        let header: ContainerHeader
        var position: Int
        var index = 0
        /// The map's region in the decoder's `MapEntryCache`, or -1 (a small map).
        var region = -1
        /// A bit for each entry a key asked for has found, by its index modulo 64 (`find`). In a map of at most 64
        /// entries, all bits set means no unknown fields (`unknownFields(in:known:)`); bits, not a count, since code
        /// that asks for a key twice finds its entry twice, and a count would then reach the map's with an entry
        /// never found.
        var foundEntries: UInt64 = 0
        /// Under `convertFromSnakeCase`, the map's entry in the decoder's `ConvertedKeyStack` (its stored keys, their
        /// conversions and where each value is, in map order: what keys asked for are compared with); -1 with default
        /// keys. An index, not the array itself, so that `Fields` holds no reference: copied and dropped in every
        /// generated field read, it was retained and released there (guarded by `Decode 1000 Book/FirePackDecoder
        /// @FirePackCodable`).
        var convertedRegion = -1

        /// Whether every entry has been found by a key asked for (always false past 64 entries, where bits repeat).
        var everyEntryFound: Bool {
            header.count <= 64 && foundEntries.nonzeroBitCount == header.count
        }
    }

    /// A map entry's key under `convertFromSnakeCase`.
    @usableFromInline
    struct ConvertedKey {
        /// The key as stored.
        let stored: String
        /// The key as the strategy converts it (`my_url` → `myUrl`).
        let converted: String
        /// Where the entry's value is.
        let value: (offset: Int, end: Int)

        /// Whether a model key (a property's name, or a `@FirePackKey` name or alias) names this entry: its
        /// converted key is the model key, as on the Codable path, or its stored key is, so that a name given in
        /// snake case (`@FirePackKey("page_count")`) reads the same under either strategy.
        func matches(_ key: StaticString) -> Bool {
            converted.utf8.elementsEqual(key.utf8Bytes) || stored.utf8.elementsEqual(key.utf8Bytes)
        }
    }

    /// The user info the decoder was given.
    public var userInfo: [CodingUserInfoKey: Any] { decoder.userInfo }

    /// Starts reading the map at the reader's value; throws `typeMismatch` or `valueNotFound` (for null) as a keyed
    /// container would.
    public func readFields() throws -> Fields {
        let header = try decoder.containerHeader(
            expectingMap: true, for: [String: Any].self, at: offset, end: end, depth: depth)
        var fields = Fields(mapOffset: offset, header: header, position: header.bodyStart)
        if decoder.state.convertsKeysFromSnakeCase {
            fields.convertedRegion = decoder.state.convertedKeys.open(
                mapOffset: offset, depth: depth, keys: try convertedKeys(of: header))
        } else if header.count > MapEntryCache.threshold {
            fields.region = decoder.state.mapEntries.open(mapOffset: offset, depth: depth, count: header.count)
        }
        return fields
    }

    /// Where the value for `key` is, or nil when the map lacks it.
    @usableFromInline
    func find(_ key: StaticString, in fields: inout Fields) throws -> (offset: Int, end: Int)? {
        if fields.convertedRegion >= 0 { return try find(key, in: &fields, converted: try convertedKeys(of: fields)) }
        let wanted = UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
        let input = decoder.input
        let location: (offset: Int, end: Int)?
        do {
            if fields.region >= 0,
                let region = decoder.state.mapEntries.region(
                    fields.region, mapOffset: fields.mapOffset, count: fields.header.count)
            {
                location = try MapReader.search(
                    for: wanted, in: input, header: fields.header, position: &fields.position, index: &fields.index,
                    cache: region.entries, progress: &region.progress.pointee, keys: &decoder.state.keyReferences)
            } else {
                var progress = MapEntryCache.Progress()
                location = try MapReader.search(
                    for: wanted, in: input, header: fields.header, position: &fields.position, index: &fields.index,
                    progress: &progress, keys: &decoder.state.keyReferences)
            }
        } catch {
            throw decoder.corrupted(error)
        }
        if location != nil { fields.foundEntries |= 1 &<< UInt64(truncatingIfNeeded: (fields.index &- 1) & 63) }
        return location
    }

    /// Where the value for `key` is among keys converted by the key strategy: the first entry whose converted key is
    /// `key` (as on the Codable path), else the first whose stored key is (`ConvertedKey.matches`); or nil.
    private func find(_ key: StaticString, in fields: inout Fields, converted: [ConvertedKey]) throws -> (
        offset: Int, end: Int
    )? {
        guard
            let index = converted.firstIndex(where: { $0.converted.utf8.elementsEqual(key.utf8Bytes) })
                ?? converted.firstIndex(where: { $0.stored.utf8.elementsEqual(key.utf8Bytes) })
        else { return nil }
        fields.foundEntries |= 1 &<< UInt64(truncatingIfNeeded: index & 63)
        return converted[index].value
    }

    /// Whether the entry numbered `index` of a map, whose stored key is the `count` bytes at `start` of the input,
    /// is named by the model key `key`: by its bytes, or under a key strategy as `ConvertedKey.matches` says. How
    /// unknown fields, refused keys and enum cases tell the model's keys apart.
    /// `converted` is `convertedKeysIfAny(of: fields)`, asked once for the whole walk.
    @inline(__always)
    func entry(_ index: Int, keyAt start: Int, count: Int, converted: [ConvertedKey]?, isNamedBy key: StaticString)
        -> Bool
    {
        if let converted { return converted[index].matches(key) }
        return key.hasBytes(decoder.input.base + start, count: count)
    }

    /// The converted keys of the map `fields` reads under a key strategy, or nil with default keys.
    func convertedKeysIfAny(of fields: Fields) throws -> [ConvertedKey]? {
        fields.convertedRegion >= 0 ? try convertedKeys(of: fields) : nil
    }

    /// The converted keys of the map `fields` reads under `convertFromSnakeCase`: those kept when its fields were read,
    /// or, when another map at its depth has taken their place (code that reads two maps at once), made again and
    /// kept in its place.
    private func convertedKeys(of fields: Fields) throws -> [ConvertedKey] {
        if let kept = decoder.state.convertedKeys.keys(fields.convertedRegion, mapOffset: fields.mapOffset) {
            return kept
        }
        let keys = try convertedKeys(of: fields.header)
        _ = decoder.state.convertedKeys.open(mapOffset: fields.mapOffset, depth: depth, keys: keys)
        return keys
    }

    /// The stored keys of the map `header` and their conversions from snake case; a damaged entry throws
    /// `dataCorrupted` with its offset.
    private func convertedKeys(of header: ContainerHeader) throws -> [ConvertedKey] {
        var keys: [ConvertedKey] = []
        keys.reserveCapacity(header.count)
        try decoder.forEachEntry(of: header) { stored, _, value in
            keys.append(ConvertedKey(stored: stored, converted: KeyConversion.camelCase(stored), value: value))
        }
        return keys
    }

    /// Where the value for `key` is; throws `keyNotFound` when the map lacks it.
    @usableFromInline
    func locate(_ key: StaticString, in fields: inout Fields) throws -> (offset: Int, end: Int) {
        guard let location = try find(key, in: &fields) else {
            let name = key.description
            throw DecodingError.keyNotFound(
                AnyCodingKey(stringValue: name),
                decoder.contextAtPath([], "No value for key \(name.debugDescription) in the map", at: fields.mapOffset))
        }
        return location
    }

    @usableFromInline
    func isNull(at location: (offset: Int, end: Int)) -> Bool {
        (try? decoder.input.tag(at: location.offset, limit: location.end)) == Tag.null
    }

    /// Runs `body`, putting `key` in front of the coding path of a `DecodingError` it throws.
    @inlinable @inline(__always)
    func under<R>(_ key: StaticString, _ body: () throws -> R) throws -> R {
        do { return try body() } catch { throw codingError(error, under: key) }
    }

    /// Decodes a generated type (or a native one) at `location`, one container deeper than the map.
    @inlinable @inline(__always)
    func decodeValue<T: FirePackDecodable>(_ type: T.Type, at location: (offset: Int, end: Int)) throws -> T {
        var reader = nested(at: location)
        return try T(firePack: &reader)
    }

    /// A reader at `location`, one container deeper.
    @usableFromInline
    func nested(at location: (offset: Int, end: Int)) -> FirePackValueReader {
        FirePackValueReader(decoder: decoder, offset: location.offset, end: location.end, depth: depth + 1)
    }

    /// Whether the reader's value is null.
    @usableFromInline
    var isNull: Bool { isNull(at: (offset, end)) }

    /// Decodes any other `Decodable` at `location` through the Codable path.
    @usableFromInline
    func decodeCodable<T: Decodable>(_ type: T.Type, at location: (offset: Int, end: Int)) throws -> T {
        try decoder.decode(type, at: location.offset, end: location.end, depth: depth + 1)
    }
}

// MARK: - Fields

extension FirePackValueReader {
    /// Decodes the value for `key` of a type with generated (or native) coding; throws `keyNotFound` when absent.
    @inlinable
    public func decode<T: FirePackDecodable>(_ type: T.Type, forKey key: StaticString, in fields: inout Fields) throws
        -> T
    {
        guard let location = try find(key, in: &fields) else { return try missingKey(key, in: fields) }
        return try under(key) { try decodeValue(T.self, at: location) }
    }

    /// Decodes the value for `key` of a type with generated (or native) coding; nil when absent or null.
    @inlinable
    public func decodeIfPresent<T: FirePackDecodable>(_ type: T.Type, forKey key: StaticString, in fields: inout Fields)
        throws -> T?
    {
        guard let location = try find(key, in: &fields), !isNull(at: location) else { return nil }
        return try under(key) { try decodeValue(T.self, at: location) }
    }

    /// Decodes the value for `key` of any other `Decodable` type, through its `init(from:)`.
    public func decode<T: Decodable>(_ type: T.Type, forKey key: StaticString, in fields: inout Fields) throws -> T {
        guard let location = try find(key, in: &fields) else { return try missingKey(key, in: fields) }
        return try under(key) { try decodeCodable(T.self, at: location) }
    }

    /// Decodes the value for `key` of any other `Decodable` type; nil when absent or null.
    public func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: StaticString, in fields: inout Fields) throws
        -> T?
    {
        guard let location = try find(key, in: &fields), !isNull(at: location) else { return nil }
        return try under(key) { try decodeCodable(T.self, at: location) }
    }

    /// Decodes a string for `key`.
    public func decode(_ type: String.Type, forKey key: StaticString, in fields: inout Fields) throws -> String {
        guard let location = try find(key, in: &fields) else { return try missingKey(key, in: fields) }
        return try under(key) { try decoder.decodeString(at: location.offset, end: location.end) }
    }

    /// Decodes a string map for `key` (labels, attributes: Firestore's commonest map) by concrete code; the generic
    /// `Decodable` route tests the type at run time (guarded by `Decode 5000 Order/FirePackDecoder @FirePackCodable`).
    public func decode(_ type: [String: String].Type, forKey key: StaticString, in fields: inout Fields) throws
        -> [String: String]
    {
        guard let location = try find(key, in: &fields) else { return try missingKey(key, in: fields) }
        return try under(key) { try decoder.decodeStringMap(at: location.offset, end: location.end, depth: depth + 1) }
    }

    /// Decodes an optional string map for `key`; nil when absent or null.
    public func decodeIfPresent(_ type: [String: String].Type, forKey key: StaticString, in fields: inout Fields)
        throws -> [String: String]?
    {
        guard let location = try find(key, in: &fields), !isNull(at: location) else { return nil }
        return try under(key) { try decoder.decodeStringMap(at: location.offset, end: location.end, depth: depth + 1) }
    }

    /// Decodes an integer for `key`.
    public func decode(_ type: Int.Type, forKey key: StaticString, in fields: inout Fields) throws -> Int {
        guard let location = try find(key, in: &fields) else { return try missingKey(key, in: fields) }
        return try under(key) { try decoder.decodeInteger(Int.self, at: location.offset, end: location.end) }
    }

    /// Decodes a 64-bit integer for `key`.
    public func decode(_ type: Int64.Type, forKey key: StaticString, in fields: inout Fields) throws -> Int64 {
        guard let location = try find(key, in: &fields) else { return try missingKey(key, in: fields) }
        return try under(key) { try decoder.decodeInteger(Int64.self, at: location.offset, end: location.end) }
    }

    /// Decodes a double for `key`.
    public func decode(_ type: Double.Type, forKey key: StaticString, in fields: inout Fields) throws -> Double {
        guard let location = try find(key, in: &fields) else { return try missingKey(key, in: fields) }
        return try under(key) { try decoder.decodeDouble(at: location.offset, end: location.end) }
    }

    /// Decodes a boolean for `key`.
    public func decode(_ type: Bool.Type, forKey key: StaticString, in fields: inout Fields) throws -> Bool {
        guard let location = try find(key, in: &fields) else { return try missingKey(key, in: fields) }
        return try under(key) { try decoder.decodeBool(at: location.offset, end: location.end) }
    }

    /// Decodes an optional string for `key`; nil when absent or null.
    public func decodeIfPresent(_ type: String.Type, forKey key: StaticString, in fields: inout Fields) throws
        -> String?
    {
        guard let location = try find(key, in: &fields), !isNull(at: location) else { return nil }
        return try under(key) { try decoder.decodeString(at: location.offset, end: location.end) }
    }

    /// Decodes an optional integer for `key`; nil when absent or null.
    public func decodeIfPresent(_ type: Int.Type, forKey key: StaticString, in fields: inout Fields) throws -> Int? {
        guard let location = try find(key, in: &fields), !isNull(at: location) else { return nil }
        return try under(key) { try decoder.decodeInteger(Int.self, at: location.offset, end: location.end) }
    }

    /// Decodes a property whose type is not written in the declaration (`var count = 0`), by its type at run time.
    public func decodeInferred<T: Decodable>(forKey key: StaticString, in fields: inout Fields) throws -> T {
        guard let location = try find(key, in: &fields) else { return try missingKey(key, in: fields) }
        return try under(key) { try decodeCodable(T.self, at: location) }
    }

    /// Decodes a property-wrapped property (its backing storage): FirePack's wrappers by their own rules, any other
    /// wrapper through its `init(from:)`.
    public func decodeWrapped<W: Decodable>(forKey key: StaticString, in fields: inout Fields) throws -> W {
        if let wrapper = W.self as? any FieldWrapper.Type {
            return try wrapper.decodeField(from: self, forKey: key, in: &fields) as! W
        }
        return try decode(W.self, forKey: key, in: &fields)
    }
}

// MARK: - Property wrappers

extension FirePackValueReader {
    /// Decodes a `@DocumentID` property (its backing storage) as the keyed container does: filled from the document's
    /// reference, ignoring any stored field; nil without a reference.
    @inlinable
    public func decode<T>(_ type: DocumentID<T>.Type, forKey key: StaticString, in fields: inout Fields) throws
        -> DocumentID<T>
    {
        guard let reference = documentReference else { return DocumentID(wrappedValue: nil) }
        return DocumentID(wrappedValue: try T.wrap(reference))
    }

    /// Decodes a `@ServerTimestamp` property (its backing storage) as the keyed container does: nil for a missing key,
    /// null, or the pending sentinel (the decoder's estimate, when it has one).
    @inlinable
    public func decode<T>(_ type: ServerTimestamp<T>.Type, forKey key: StaticString, in fields: inout Fields) throws
        -> ServerTimestamp<T>
    {
        // Specialized for T, the type tests are decided at compile time: no runtime cast, no generic metadata per field
        // (guarded by `Decode 1000 Article/FirePackDecoder @FirePackCodable`).
        switch try serverTimestampField(
            forKey: key, in: &fields, inPlace: T.self == Timestamp.self, dateInPlace: T.self == Date.self)
        {
        case .absent: return ServerTimestamp(wrappedValue: nil)
        case .time(let timestamp): return ServerTimestamp(wrappedValue: timestamp.map(T.wrap))
        case .codable(let offset, let end):
            return ServerTimestamp(wrappedValue: try under(key) { try decodeCodable(T.self, at: (offset, end)) })
        }
    }

    /// Decodes an `@ExplicitNull` property (its backing storage) as the keyed container does: a missing key or null
    /// give nil.
    @inlinable
    public func decode<T: Decodable>(_ type: ExplicitNull<T>.Type, forKey key: StaticString, in fields: inout Fields)
        throws -> ExplicitNull<T>
    {
        ExplicitNull(wrappedValue: try decodeIfPresent(T.self, forKey: key, in: &fields))
    }

    /// Decodes an `@ExplicitNull` property of a type with generated (or native) coding.
    @inlinable
    public func decode<T: FirePackDecodable>(
        _ type: ExplicitNull<T>.Type, forKey key: StaticString, in fields: inout Fields
    ) throws -> ExplicitNull<T> {
        ExplicitNull(wrappedValue: try decodeIfPresent(T.self, forKey: key, in: &fields))
    }

    /// The reference of the document being decoded, if any.
    @usableFromInline
    var documentReference: DocumentReference? { decoder.options.reference }

    /// What a `@ServerTimestamp` field holds, as far as it can be told without knowing the wrapped type.
    @usableFromInline
    enum ServerTimestampField {
        /// A missing key or null.
        case absent
        /// A time read in place, or the pending sentinel (the decoder's estimate, if any).
        case time(Timestamp?)
        /// A value for the Codable path to read (which also reports what is wrong with it).
        case codable(offset: Int, end: Int)
    }

    /// Finds a `@ServerTimestamp` field: a timestamp is read in place for a `Timestamp` (`inPlace`), or for a `Date`
    /// (`dateInPlace`) when the date strategy reads timestamps, as the Codable path reads them.
    @usableFromInline
    func serverTimestampField(forKey key: StaticString, in fields: inout Fields, inPlace: Bool, dateInPlace: Bool)
        throws -> ServerTimestampField
    {
        guard let location = try find(key, in: &fields), !isNull(at: location) else { return .absent }
        let tag = try? decoder.input.tag(at: location.offset, limit: location.end)
        if tag == Tag.serverTimestamp { return .time(decoder.options.serverTimestampEstimate) }
        // Both timestamp forms: a whole second (`C9`, what most stored times are) took the Codable path, an
        // unspecialized generic call per field (guarded by `Decode 1000 Article/FirePackDecoder @FirePackCodable`).
        if tag == Tag.timestamp || tag == Tag.timestampSeconds,
            inPlace || (dateInPlace && decoder.options.dateStrategyIsTimestamp),
            let (timestamp, next) = try? decoder.input.getTimestamp(at: location.offset, limit: location.end),
            next == location.end
        {
            return .time(timestamp)
        }
        return .codable(offset: location.offset, end: location.end)
    }
}

/// FirePack's property wrappers, for `decodeWrapped` (a wrapper whose backing type the macro could not write out).
protocol FieldWrapper {
    static func decodeField(
        from reader: FirePackValueReader, forKey key: StaticString, in fields: inout FirePackValueReader.Fields
    ) throws -> Self
}

extension DocumentID: FieldWrapper {
    static func decodeField(
        from reader: FirePackValueReader, forKey key: StaticString, in fields: inout FirePackValueReader.Fields
    ) throws -> Self {
        try reader.decode(Self.self, forKey: key, in: &fields)
    }
}

extension ServerTimestamp: FieldWrapper {
    static func decodeField(
        from reader: FirePackValueReader, forKey key: StaticString, in fields: inout FirePackValueReader.Fields
    ) throws -> Self {
        try reader.decode(Self.self, forKey: key, in: &fields)
    }
}

extension ExplicitNull: FieldWrapper where Value: Decodable {
    static func decodeField(
        from reader: FirePackValueReader, forKey key: StaticString, in fields: inout FirePackValueReader.Fields
    ) throws -> Self {
        try reader.decode(Self.self, forKey: key, in: &fields)
    }
}

// MARK: - Whole values

extension FirePackValueReader {
    /// Decodes an array of a generated (or native) element type, element by element, as an unkeyed container would.
    @inlinable
    public func decodeArray<Element: FirePackDecodable>(of type: Element.Type) throws -> [Element] {
        // Arrays of the commonest scalars are read by concrete code (canada.json's coordinates are two-double arrays);
        // specialized, these comparisons are decided at compile time.
        if Element.self == Double.self { return unsafeBitCast(try decodeDoubles(), to: [Element].self) }
        if Element.self == String.self { return unsafeBitCast(try decodeStrings(), to: [Element].self) }
        if Element.self == Int.self { return unsafeBitCast(try decodeInts(), to: [Element].self) }
        if Element.self == [Double].self { return unsafeBitCast(try decodeDoubleRows(), to: [Element].self) }
        return try decodeElements { try Element(firePack: &$0) }
    }

    @usableFromInline
    func decodeDoubles() throws -> [Double] {
        let header = try arrayHeader()
        if let form = header.packed, let doubles = decoder.bulkDoubles(header, form) { return doubles }
        return try decodeElements(header) { try $0.decoder.decodeDouble(at: $0.offset, end: $0.end) }
    }

    /// `[[Double]]`: an array of packed rows of doubles (`D9`, GeoJSON rings), integers boxed among them or not, row
    /// by row in bulk, anything else array by array.
    @usableFromInline
    func decodeDoubleRows() throws -> [[Double]] {
        let header = try arrayHeader()
        if let (form, _) = header.packedRows, form.holdsDoubles || form == .mixed {
            var rows: [[Double]] = []
            rows.reserveCapacity(header.count)
            for index in 0..<header.count {
                guard let row = decoder.bulkDoubles(header.row(index), form) else { break }
                rows.append(row)
            }
            // Short only for a non-finite element under `.throw`: the element-by-element path throws its error.
            if rows.count == header.count { return rows }
        }
        return try decodeElements(header) { try $0.decodeDoubles() }
    }

    @usableFromInline
    func decodeStrings() throws -> [String] {
        try decodeElements { try $0.decoder.decodeString(at: $0.offset, end: $0.end) }
    }

    @usableFromInline
    func decodeInts() throws -> [Int] {
        let header = try arrayHeader()
        if case .integers(let width)? = header.packed { return decoder.bulkInts(header, width: width) }
        return try decodeElements(header) { try $0.decoder.decodeInteger(Int.self, at: $0.offset, end: $0.end) }
    }

    /// Reads the array at the reader's value, each element with `read` given a reader at the element, putting the
    /// element's index in front of the coding path of a `DecodingError` it throws.
    @inlinable @inline(__always)
    func decodeElements<Element>(_ read: (inout FirePackValueReader) throws -> Element) throws -> [Element] {
        try decodeElements(try arrayHeader(), read)
    }

    /// `decodeElements(_:)` for the array whose header has been read. The elements of a packed array are read
    /// through one decoder of their own (`DecoderImpl+Packed.swift`), loaded with each element in turn.
    @inlinable @inline(__always)
    func decodeElements<Element>(
        _ header: ContainerHeader, _ read: (inout FirePackValueReader) throws -> Element
    ) throws -> [Element] {
        var elements: [Element] = []
        if header.count == 0 { return elements }
        // Reserved for the count, up to 16 bytes per byte of the array's encoding: an element takes a byte at least
        // (a null), so a count backed by its bytes could otherwise ask for its count × the element's size — 16 GB
        // for 16 MB of nulls read as a model of a kilobyte — before the first element is read. Past that, appending
        // grows the array as the elements prove to be there.
        let backed = (header.end &- header.bodyStart) &* 16 / Swift.max(1, MemoryLayout<Element>.stride)
        elements.reserveCapacity(Swift.min(header.count, Swift.max(16, backed)))
        if header.isPacked {
            let reader = packedElementReader(for: header)
            for index in 0..<header.count {
                do {
                    var element = loading(reader, element: index, of: header)
                    elements.append(try read(&element))
                } catch {
                    throw codingError(error, at: index)
                }
            }
            return elements
        }
        // One reader for every element, moved from one to the next: a reader made per element retained and released
        // the decoder each time (guarded by `Decode 1000 Book/FirePackDecoder @FirePackCodable`).
        var position = header.bodyStart
        var element = self
        for index in 0..<header.count {
            let elementEnd = try valueEnd(at: position, limit: header.end)
            element.move(to: position, end: elementEnd, inside: self)
            do {
                elements.append(try read(&element))
            } catch {
                throw codingError(error, at: index)
            }
            position = elementEnd
        }
        return elements
    }

    /// Moves this reader to the value at `offset` (which ends at `end`), one container deeper than `parent`'s value.
    /// Everything a reader holds is set again, whatever a type's `init(firePack:)` did with it before.
    @usableFromInline
    mutating func move(to offset: Int, end: Int, inside parent: FirePackValueReader) {
        if decoder !== parent.decoder { decoder = parent.decoder }
        self.offset = offset
        self.end = end
        depth = parent.depth + 1
    }

    /// A reader over a decoder for the elements (numbers or rows) of the packed array `header` (one container
    /// deeper than this reader's value).
    @usableFromInline
    func packedElementReader(for header: ContainerHeader) -> FirePackValueReader {
        let child =
            if let (form, columns) = header.packedRows {
                decoder.packedRowDecoder(form: form, columns: columns, depth: depth + 1, path: [])
            } else {
                decoder.packedElementDecoder(depth: depth + 1, path: [])
            }
        return FirePackValueReader(decoder: child, offset: 0, end: child.input.count, depth: depth + 1)
    }

    /// `reader` (from `packedElementReader(for:)`) loaded with element `index` of the packed array `header`.
    @usableFromInline
    func loading(_ reader: FirePackValueReader, element index: Int, of header: ContainerHeader) -> FirePackValueReader {
        if header.packedRows != nil {
            let row = header.row(index)
            reader.decoder.loadRow(row, of: decoder, index: index, reportedAt: decoder.reportedOffset(row.bodyStart))
            return reader
        }
        let form = header.packed!
        let position = header.bodyStart + index * form.width
        let value = form.element(at: 0, in: decoder.input.bytes(from: position, count: form.width))
        reader.decoder.load(value, index: index, reportedAt: decoder.reportedOffset(position))
        return reader
    }

    /// The header of the array at the reader's value; throws `typeMismatch`, or `valueNotFound` for null.
    @usableFromInline
    func arrayHeader() throws -> ContainerHeader {
        try decoder.containerHeader(expectingMap: false, for: [Any].self, at: offset, end: end, depth: depth)
    }

    /// The end of the value at `position`, inside a container ending at `limit`.
    @usableFromInline
    func valueEnd(at position: Int, limit: Int) throws -> Int {
        try decoder.wrap { () throws(FirePackError) in try decoder.input.valueEnd(at: position, limit: limit) }
    }

    /// Decodes an optional of a generated (or native) type: nil for null.
    @inlinable
    public mutating func decodeOptional<Wrapped: FirePackDecodable>(of type: Wrapped.Type) throws -> Wrapped? {
        if isNull { return nil }
        return try Wrapped(firePack: &self)
    }

    /// Decodes an enum from its raw value, with the error `RawRepresentable`'s `init(from:)` gives for an unknown one.
    @inlinable
    public mutating func decodeRawValue<T: RawRepresentable>(_ type: T.Type) throws -> T
    where T.RawValue: FirePackDecodable {
        let start = valueOffset
        let raw = try T.RawValue(firePack: &self)
        guard let value = T(rawValue: raw) else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [],
                    debugDescription: located(
                        "Cannot initialize \(T.self) from invalid \(T.RawValue.self) value \(raw)", at: start)))
        }
        return value
    }

    /// Where the value about to be read starts.
    @usableFromInline
    var valueOffset: Int { offset }

    /// `message (at byte N in document D).`, as the decoder's own errors say where (`DecoderImpl.locating`).
    @usableFromInline
    func located(_ message: String, at offset: Int) -> String {
        decoder.context(message, at: offset).debugDescription
    }

    /// Decodes a native type (Firestore's types and Foundation's mapped ones) as `FirePackDecoder` does.
    func decodeNative<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decode(type, at: offset, end: end, depth: depth)
    }
}
