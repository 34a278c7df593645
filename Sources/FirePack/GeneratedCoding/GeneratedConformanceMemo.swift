/// The last answers a coder had to "does this type have generated coding?" (`T.self as? any FirePackDecodable.Type`,
/// or `FirePackEncodable`): the type found without it and the type found with it, by metadata identity.
///
/// The Codable path asks for every value that is neither a scalar nor a native type: a `Color` with its own
/// `init(from:)` inside a generated `Tag`, or generated types inside a plain Codable one. The runtime answers from its
/// conformance cache, but that lookup, once per nested value (two `Color`s per `BookWithTags`), and its atomic reads
/// cost time; comparing two metadata pointers does not (guarded by `Decode 1000 BookWithTags/FirePackDecoder
/// Codable`). A conformance
/// cannot change while a coder runs, so a remembered answer stays right.
struct GeneratedConformanceMemo<Generated> {
    private var plain: ObjectIdentifier?
    private var generated: (type: ObjectIdentifier, conformance: Generated)?

    /// `T`'s conformance as `cast` finds it, remembered for the next call with the same `T`.
    @inline(__always)
    mutating func conformance<T>(of type: T.Type, _ cast: (T.Type) -> Generated?) -> Generated? {
        let identity = ObjectIdentifier(type)
        if identity == plain { return nil }
        if let generated, generated.type == identity { return generated.conformance }
        guard let conformance = cast(type) else {
            plain = identity
            return nil
        }
        generated = (identity, conformance)
        return conformance
    }
}

/// What the Codable encoder asks of each type that is neither a scalar nor a native one (`EncoderImpl.encodeValue`),
/// with its last answers.
///
/// The writer keeps them from one root value to the next (`WriterState.conformances`), so that a call encoding one
/// small document asks the runtime nothing it asked before: each question was a conformance lookup of the runtime
/// per call, three for a `Color` inside a generated `Tag` (ProfileCodable's `encodeOneTagged` counts them, and
/// `Encode 1 BookWithTags/FirePackEncoder @FirePackCodable` against hand-written code shows them). A writer is used by
/// one thread at a time, so its memory needs no lock.
struct EncoderConformances {
    /// Is it a `[String: V]`? (EncoderImpl+Dictionaries.swift)
    var stringKeyed = GeneratedConformanceMemo<any StringKeyedEncodableDictionary.Type>()
    /// Is it a dictionary keyed by raw values? (RawKeyedDictionary.swift)
    var rawKeyed = GeneratedConformanceMemo<any RawKeyedEncodableDictionary.Type>()
    /// Does it have generated coding?
    var generated = GeneratedConformanceMemo<any FirePackEncodable.Type>()
}
