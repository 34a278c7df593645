#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one `Decoder` object a decode call uses: it moves from value to value as containers descend, and keeps the
/// coding path as a stack that becomes `[CodingKey]` only when asked for (errors, or your own code).
final class DecoderImpl: Decoder {
    /// The bytes of this call; replaced only by `prepare`, between calls (see `FirePackDecoder.makeDecoder`).
    @exclusivity(unchecked) private(set) var input: ReaderInput
    /// The options of this call; replaced only by `prepare`, between calls.
    @exclusivity(unchecked) private(set) var options: DecoderOptions
    /// The mutable state, accessed without exclusivity checks (see `DecoderState`).
    @exclusivity(unchecked) var state: DecoderState

    init(input: ReaderInput, options: DecoderOptions, offset: Int, end: Int, depth: Int) {
        self.input = input
        self.options = options
        state = DecoderState(offset: offset, end: end, depth: depth, keyReferences: KeyReferenceMemo(for: input))
        state.convertsKeysFromSnakeCase = options.convertsKeysFromSnakeCase
    }

    deinit { state.packedBytes?.deallocate() }

    /// Makes a decoder that finished a top-level call ready for the next, as a new one would be, keeping the capacity
    /// of its stacks. Only its owner calls this, while no container of the previous call is alive.
    func prepare(input: ReaderInput, options: DecoderOptions, offset: Int, end: Int, depth: Int) {
        self.input = input
        self.options = options
        state.offset = offset
        state.end = end
        state.depth = depth
        // Emptied only when not empty: `removeAll(keepingCapacity:)` on an empty array still makes a new buffer.
        if !state.path.isEmpty { state.path.removeAll(keepingCapacity: true) }
        if !state.keyCursors.isEmpty { state.keyCursors.removeAll(keepingCapacity: true) }
        state.keyReferences.reset(for: input)
        state.mapEntries.removeAll()
        state.convertedKeys.removeAll()
        state.bypassKeyStrategy = false
        state.convertsKeysFromSnakeCase = options.convertsKeysFromSnakeCase
    }

    /// Whether keeping this decoder for the next call holds little memory: its stacks are as small as most calls
    /// need (a call that located the entries of a wide map may have grown them to the map's size).
    var isWorthKeeping: Bool {
        state.path.capacity <= 64 && state.keyCursors.capacity <= 64 && state.mapEntries.capacity <= 1_024
    }

    /// The value the decoder is positioned at.
    var offset: Int {
        get { state.offset }
        set { state.offset = newValue }
    }
    /// The end of the current value.
    var end: Int {
        get { state.end }
        set { state.end = newValue }
    }
    /// Containers enclosing the current value (bounded by the reader's depth limit).
    var depth: Int {
        get { state.depth }
        set { state.depth = newValue }
    }
    /// The coding path: one entry per level below the root.
    var path: [PathEntry] {
        get { state.path }
        _modify { yield &state.path }
    }
    /// Resume points of the keyed containers open at each depth (see `MapReader`).
    var keyCursors: [KeyCursor] {
        get { state.keyCursors }
        _modify { yield &state.keyCursors }
    }
    /// Set while decoding `[String: T]`, whose keys the key strategy must not touch.
    var bypassKeyStrategy: Bool {
        get { state.bypassKeyStrategy }
        set { state.bypassKeyStrategy = newValue }
    }

    var codingPath: [any CodingKey] { path.map(\.codingKey) }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let header = try containerHeader(expectingMap: true, for: [String: Any].self)
        return KeyedDecodingContainer(KeyedContainer<Key>(map: try MapReader(decoder: self, header: header)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let header = try containerHeader(expectingMap: false, for: [Any].self)
        return UnkeyedContainer(decoder: self, header: header, pathDepth: path.count)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self, offset: offset, end: end)
    }

    /// Decodes the root value.
    func decodeRoot<T: Decodable>(_ type: T.Type) throws -> T {
        try decode(type, at: offset, end: end, depth: depth)
    }

    /// Reads the header of the container at the current value, turning null and other types into DecodingErrors.
    func containerHeader(expectingMap: Bool, for type: Any.Type) throws -> ContainerHeader {
        try containerHeader(expectingMap: expectingMap, for: type, at: offset, end: end, depth: depth)
    }

    /// Reads the header of the container at `offset` (a value ending at `end`, inside `depth` containers).
    func containerHeader(expectingMap: Bool, for type: Any.Type, at offset: Int, end: Int, depth: Int) throws
        -> ContainerHeader
    {
        let tag = try wrap { () throws(FirePackError) in try input.tag(at: offset, limit: end) }
        if tag == Tag.null {
            throw DecodingError.valueNotFound(
                type, context("Expected \(expectingMap ? "a map" : "an array") but found null", at: offset))
        }
        let header = try wrap { () throws(FirePackError) in
            try input.getContainerHeader(at: offset, limit: end, depth: depth + 1)
        }
        guard header.isMap == expectingMap else {
            throw typeMismatch(type, expected: expectingMap ? "a map" : "an array", at: offset)
        }
        return header
    }

    /// Decodes a `T` from the value at `offset` (which ends at `end`, inside `depth` containers); the caller has
    /// pushed its path entry.
    ///
    /// Scalars and the types Firestore stores natively (`NativeType`) are read directly; anything else runs
    /// `T(from:)` with this decoder moved to the value.
    func decode<T: Decodable>(_ type: T.Type, at offset: Int, end: Int, depth: Int) throws -> T {
        // One uninitialized T on the stack, filled by the typed paths: no Optional<T> to look up at run time.
        try withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { buffer in
            let slot = buffer.baseAddress!
            let native = NativeType(T.self)
            if case .scalar(let scalar)? = native {
                try decodeScalar(scalar, at: offset, end: end, into: slot)
                return slot.move()
            }
            return try decodeNonScalar(type, native, at: offset, end: end, depth: depth, into: slot)
        }
    }

    private func decodeNonScalar<T: Decodable>(
        _ type: T.Type, _ native: NativeType?, at offset: Int, end: Int, depth: Int,
        into slot: UnsafeMutablePointer<T>
    ) throws -> T {
        try moved(to: offset, end: end, depth: depth) { try decodeNonScalar(type, native, into: slot) }
    }

    /// Runs `body` with the decoder moved to the value at `offset` (which ends at `end`, inside `depth` containers),
    /// and moves it back.
    @inline(__always)
    func moved<R>(to offset: Int, end: Int, depth: Int, _ body: () throws -> R) throws -> R {
        let savedOffset = self.offset, savedEnd = self.end, savedDepth = self.depth
        self.offset = offset
        self.end = end
        self.depth = depth
        defer {
            self.offset = savedOffset
            self.end = savedEnd
            self.depth = savedDepth
        }
        return try body()
    }

    /// Decodes a `T` that is not a scalar at the decoder's value.
    private func decodeNonScalar<T: Decodable>(
        _ type: T.Type, _ native: NativeType?, into slot: UnsafeMutablePointer<T>
    ) throws -> T {
        if case .special(let kind)? = native {
            try decodeSpecial(kind, into: slot)
            return slot.move()
        }
        // Only with a key strategy does it matter whether T is [String: …]; the default path makes no such check.
        if !options.usesDefaultKeys, T.self is StringKeyedDictionaryMarker.Type {
            bypassKeyStrategy = true
        } else if options.takesGeneratedPath,
            let generated = state.generatedTypes.conformance(of: T.self, { $0 as? any FirePackDecodable.Type })
        {
            // Generated coding (`@FirePackCodable`), at this same value; see `decodeGenerated`.
            try generated.decodeGenerated(
                into: UnsafeMutableRawPointer(slot), decoder: self, at: offset, end: end, depth: depth)
            return slot.move()
        }
        if let keyed = state.stringKeyedTypes.conformance(
            of: T.self, { $0 as? any StringKeyedDecodableDictionary.Type })
        {
            do { try keyed.decodeMap(from: self, into: UnsafeMutableRawPointer(slot)) } catch let error as DecodingError
            { throw locating(error) }
            return slot.move()
        }
        if let keyed = state.rawKeyedTypes.conformance(of: T.self, { $0 as? any RawKeyedDecodableDictionary.Type }) {
            do { return try keyed.init(decodingMapFrom: self) as! T } catch let error as DecodingError {
                throw locating(error)
            }
        }
        do { return try T(from: self) } catch let error as DecodingError {
            throw locating(error)
        }
    }

    /// An error a type's own `init(from:)` threw (`DecodingError.dataCorruptedError(…)` and the like), given the byte
    /// offset of the value it was decoding when it does not say where it is yet; the decoder's own errors already do.
    @inline(never)
    func locating(_ error: DecodingError) -> DecodingError {
        func located(_ context: DecodingError.Context) -> DecodingError.Context? {
            guard !context.debugDescription.contains("(at byte ") else { return nil }
            let description = context.debugDescription
            let suffix = self.context("", at: offset).debugDescription.dropFirst()  // " (at byte N …)."
            return DecodingError.Context(
                codingPath: context.codingPath, debugDescription: description + " " + suffix,
                underlyingError: context.underlyingError)
        }
        switch error {
        case .dataCorrupted(let context): return located(context).map { .dataCorrupted($0) } ?? error
        case .typeMismatch(let type, let context): return located(context).map { .typeMismatch(type, $0) } ?? error
        case .valueNotFound(let type, let context): return located(context).map { .valueNotFound(type, $0) } ?? error
        case .keyNotFound(let key, let context): return located(context).map { .keyNotFound(key, $0) } ?? error
        @unknown default: return error
        }
    }

    /// Runs a read, turning a `FirePackError` into `DecodingError.dataCorrupted` at the current path.
    @inline(__always)
    func wrap<R>(_ body: () throws(FirePackError) -> R) throws -> R {
        do { return try body() } catch { throw corrupted(error) }
    }

    func corrupted(_ error: FirePackError) -> DecodingError {
        if error.code == .typeMismatch {
            return .typeMismatch(Any.self, context(error.message, at: error.offset ?? offset, underlying: error))
        }
        return .dataCorrupted(context("Corrupt FirePack data: \(error)", at: error.offset ?? offset, underlying: error))
    }

    func context(_ message: String, at offset: Int, underlying: (any Error)? = nil) -> DecodingError.Context {
        var description = "\(message) (at byte \(reportedOffset(offset))"
        if let reference = options.reference { description += " in document \(reference.path)" }
        description += ")."
        return DecodingError.Context(codingPath: codingPath, debugDescription: description, underlyingError: underlying)
    }

    /// `Expected to decode Int but found string`, with offset and document.
    func typeMismatch(_ type: Any.Type, expected: String? = nil, at offset: Int, end: Int? = nil) -> DecodingError {
        let tag = (try? input.tag(at: offset, limit: end ?? self.end)) ?? 0
        if tag == Tag.null {
            return .valueNotFound(type, context("Expected \(type) value but found null instead", at: offset))
        }
        return .typeMismatch(
            type, context("Expected to decode \(expected ?? "\(type)") but found \(Tag.typeName(of: tag))", at: offset))
    }
}

/// The decoder's mutable state (see `DecoderImpl.state`).
///
/// The hot classes (the decoder, the encoder and `FirePackWriter`) keep their mutable state in stored properties
/// marked `@exclusivity(unchecked)`: each access to a class's stored `var` otherwise pays a dynamic exclusivity check,
/// several per value written or read, about a hundred per small document. Kept inline rather than behind a pointer,
/// the state costs no allocation of its own. The classes never let the state escape, and only one thread uses one at
/// a time (they are not `Sendable`). Guarded by every `FirePackDecoder Codable` and `FirePackEncoder Codable` row.
struct DecoderState: ~Copyable {
    var offset: Int
    var end: Int
    var depth: Int
    var path: [PathEntry] = []
    var keyCursors: [KeyCursor] = []
    var keyReferences: KeyReferenceMemo
    var mapEntries = MapEntryCache()
    /// The converted keys of the maps generated coding reads under `convertFromSnakeCase`.
    var convertedKeys = ConvertedKeyStack()
    var bypassKeyStrategy = false
    /// The options' `convertsKeysFromSnakeCase`, asked by generated coding for every map it reads.
    var convertsKeysFromSnakeCase = false
    /// For a decoder of one element or row of a packed array (`DecoderImpl+Packed.swift`): the bytes it reads, which
    /// it owns, and where they are in the document, for its errors: offset `o` of these bytes is
    /// `packedDocumentOffset + max(0, o − packedBodyStart)` there.
    var packedBytes: UnsafeMutableRawPointer? = nil
    var packedDocumentOffset: Int? = nil
    var packedBodyStart = 0
    /// Which types met so far have generated coding (kept across calls: a conformance does not change).
    var generatedTypes = GeneratedConformanceMemo<any FirePackDecodable.Type>()
    /// The last answers to "is this a dictionary keyed by raw values?" (RawKeyedDictionary.swift).
    var rawKeyedTypes = GeneratedConformanceMemo<any RawKeyedDecodableDictionary.Type>()
    /// The last answers to "is this a dictionary keyed by String?" (DecoderImpl+Dictionaries.swift).
    var stringKeyedTypes = GeneratedConformanceMemo<any StringKeyedDecodableDictionary.Type>()
}

/// One level of the coding path.
enum PathEntry {
    case key(any CodingKey)
    case index(Int)
    case superKey
    /// An entry of a `[String: V]` (`DictionaryCodingKey`), kept as its String: no existential box per entry.
    case dictionaryKey(String)

    var codingKey: any CodingKey {
        switch self {
        case .key(let key): key
        case .index(let index): AnyCodingKey(index: index)
        case .superKey: AnyCodingKey.superKey
        case .dictionaryKey(let key): DictionaryCodingKey(stringValue: key)
        }
    }
}

/// Where a keyed container resumes its search: the entry after the last key it found, in the map at `map`.
struct KeyCursor {
    var map: Int
    var offset: Int
    var index: Int
    /// Where an entry `allKeys` could not read starts, when its key type could not name the damaged-key marker (an
    /// enum of keys): a nested container of the map then throws that entry's error (`MapReader.nestedDecoder`).
    var damagedEntry = -1
}
