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
                    // The key on the coding path as a `String`, no existential box.
                    try encoder.encodeChild(element, at: entry, pathDepth: pathDepth, entry: .dictionaryKey(key))
                }
            }
        }
    }
}
