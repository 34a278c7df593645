/// The Codable form of Firestore's two-number types, as the Firestore SDK writes them: a keyed container of two
/// values (`{seconds, nanoseconds}`, `{latitude, longitude}`), checked by the type's validating initializer, whose
/// refusal is `dataCorrupted` at the key it names.
enum FieldPair<Key: CodingKey> {
    /// Decodes the two values under `first` and `second` and makes the value of them with `make`.
    static func decode<A: Decodable, B: Decodable, Result>(
        from decoder: any Decoder, _ first: Key, _ second: Key, refusedAt refused: Key,
        _ make: (A, B) throws(FirePackError) -> Result
    ) throws -> Result {
        let container = try decoder.container(keyedBy: Key.self)
        let a = try container.decode(A.self, forKey: first)
        let b = try container.decode(B.self, forKey: second)
        do {
            return try make(a, b)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: refused, in: container, debugDescription: error.message)
        }
    }

    /// Encodes `a` under `first` and `b` under `second`.
    static func encode(_ a: some Encodable, _ first: Key, _ b: some Encodable, _ second: Key, to encoder: any Encoder)
        throws
    {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(a, forKey: first)
        try container.encode(b, forKey: second)
    }
}
