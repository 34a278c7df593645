/// `[String: V]`, written by the encoder itself: the entries in the dictionary's order with their keys as they are
/// (no key strategy touches them), the bytes and errors `Dictionary.encode(to:)` gives, without a keyed container, a
/// coding key and a protocol call per entry (guarded by `Encode 5000 Order/FirePackEncoder Codable`, whose orders
/// carry a `[String: String]`). The decoding twin is `DecoderImpl+Dictionaries.swift`.
protocol StringKeyedEncodableDictionary {
    /// Writes `value` (of type `Self`) at `position` as a map of its entries.
    static func encodeEntries<T>(of value: T, to encoder: EncoderImpl, at position: EncoderImpl.Position) throws
}

extension Dictionary: StringKeyedEncodableDictionary where Key == String, Value: Encodable {
    static func encodeEntries<T>(of value: T, to encoder: EncoderImpl, at position: EncoderImpl.Position) throws {
        try withUnsafePointer(to: value) { pointer in
            let dictionary = UnsafeRawPointer(pointer).assumingMemoryBound(to: Self.self)
            try encoder.encodeNested(at: position) {
                let map = encoder.container(at: position, isMap: true)
                let pathDepth = encoder.path.count
                for (key, element) in dictionary.pointee {
                    let entry = try encoder.entry(key, of: map)
                    try encoder.encodeDictionaryValue(element, at: entry, pathDepth: pathDepth, key: key)
                }
            }
        }
    }
}

extension EncoderImpl {
    /// Writes the value of the entry `key` of a `[String: V]` whose map is at `pathDepth`, at `position`: as
    /// `encodeEntry`, with the key on the coding path as a `String` (`PathEntry.dictionaryKey`), no existential box.
    @inline(__always)
    func encodeDictionaryValue<T: Encodable>(_ value: T, at position: Position, pathDepth: Int, key: String) throws {
        guard writesInOrder else {
            return try encodeInTree(value, at: position, pathDepth: pathDepth, entry: .dictionaryKey(key))
        }
        cutPath(to: pathDepth)
        path.append(.dictionaryKey(key))
        defer { cutPath(to: pathDepth) }
        try encodeValue(value, at: position)
    }
}
