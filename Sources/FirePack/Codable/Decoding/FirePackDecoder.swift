#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Decodes `Decodable` types from FirePack bytes with the mapping semantics of the Firestore SDK's Codable support.
///
/// Reads straight from the bytes: no `Value` tree and no per-object key dictionary. Keys are matched by comparing
/// their raw bytes, starting where the previous key was found, so types that ask for their keys in the order they
/// were written (every synthesized `init(from:)`) find each key at the first try.
///
/// Only what the type asks for is read; bytes it does not touch are not validated (check untrusted input with
/// `FirePackReader` first if every byte must be checked). Whatever the bytes, nothing traps: malformed input
/// surfaces as `DecodingError.dataCorrupted` wrapping the `FirePackError`.
///
/// Like JSONDecoder it is `Sendable`: one decoder can be shared by every thread; its options are read once per
/// top-level call under a lock. It keeps the decoding context of a finished call for the next one, so a decoder kept
/// and reused (one per service, say) decodes small documents faster than one made per call.
public final class FirePackDecoder: Sendable {
    private let state = Mutex(DecoderOptions())
    /// A decoding context that finished a call, kept for the next one (`makeDecoder` / `recycle`): an owned
    /// `DecoderImpl` as the bits of its opaque pointer (a pointer is not `Sendable`, its bits are), or 0. Creating and
    /// destroying the context is a large share of decoding one small document (guarded by `Decode 1 Book`); taking
    /// and returning it is one atomic exchange each. Two threads decoding at once simply find it taken, and one of them
    /// makes a new one.
    private let spare = Atomic<UInt>(0)

    /// How `Date` is read; `.timestamp` by default.
    public var dateDecodingStrategy: DateDecodingStrategy {
        get { state.withLock { $0.dateStrategy } }
        set { state.withLock { $0.dateStrategy = newValue } }
    }
    /// How `Data` is read; `.bytes` by default.
    public var dataDecodingStrategy: DataDecodingStrategy {
        get { state.withLock { $0.dataStrategy } }
        set { state.withLock { $0.dataStrategy = newValue } }
    }
    /// How map keys become coding keys; keys of `[String: T]` are never converted.
    public var keyDecodingStrategy: KeyDecodingStrategy {
        get { state.withLock { $0.keyStrategy } }
        set { state.withLock { $0.keyStrategy = newValue } }
    }
    /// What stored NaN and ±∞ decode to: themselves by default.
    public var nonConformingFloatDecodingStrategy: NonConformingFloatDecodingStrategy {
        get { state.withLock { $0.floatStrategy } }
        set { state.withLock { $0.floatStrategy = newValue } }
    }
    /// What `@ServerTimestamp` properties read from a pending server timestamp in bytes that are not a `Document`;
    /// nil (the default) gives nil. For documents, `Document.data(as:with:decoder:)` takes the SDK's
    /// `ServerTimestampBehavior` instead.
    public var serverTimestampEstimate: Timestamp? {
        get { state.withLock { $0.serverTimestampEstimate } }
        set { state.withLock { $0.serverTimestampEstimate = newValue } }
    }
    /// Whether types with generated coding (`@FirePackCodable`) are read through it; true by default. False reads every
    /// type through its `Decodable` conformance (to compare the two): the same values and errors, except for what the
    /// evolution attributes change (defaults, `@FirePackKey` names and aliases, `unknownKeys: .reject`), which
    /// synthesized `Codable` does not know — as with a `.custom` `keyDecodingStrategy`, under which generated coding is
    /// not used (snake case is; Docs/EVOLUTION.md).
    public var usesGeneratedCoding: Bool {
        get { state.withLock { $0.usesGeneratedCoding } }
        set { state.withLock { $0.usesGeneratedCoding = newValue } }
    }
    /// What a map without the key of a property gives: `.throw` (`keyNotFound`, as JSONDecoder) by default;
    /// `.useDefaultValues` gives the type's `FirePackDefaultValue.firePackDefault` where it has one (Docs/EVOLUTION.md).
    public var missingKeyDecodingStrategy: MissingKeyDecodingStrategy {
        get { state.withLock { $0.missingKeyStrategy } }
        set { state.withLock { $0.missingKeyStrategy = newValue } }
    }
    /// Values for your types' `init(from:)` to read from `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        get { state.withLock { $0.userInfo } }
        set { state.withLock { $0.userInfo = newValue } }
    }
    /// Bounds on nesting, container size and input size.
    public var limits: ReaderLimits {
        get { state.withLock { $0.limits } }
        set { state.withLock { $0.limits = newValue } }
    }

    /// How much of the input a decode checks.
    public enum InputValidation: Sendable, Hashable {
        /// `.complete` where bytes come from a network (FirePackNIO's `readFirePack`/`getFirePack`, the Hummingbird
        /// request decoders), `.lazy` elsewhere. The default.
        case automatic
        /// Only what the decoded type reads is checked; skipped fields and ignored keys are passed over in O(1)
        /// without a look inside. For bytes you trust (written by FirePack, read from your own storage): fastest.
        case lazy
        /// The whole input is checked first, as `firepack validate` and `FirePackReader.validate` check it (every
        /// string's and key's UTF-8, lengths, references, duplicate keys, the key table), skipped subtrees included,
        /// in one pass that builds nothing (`FirePackReader.verify`): every door accepts and refuses the same bytes.
        case complete
    }

    /// How much of the input a decode checks: `.automatic` by default (the whole input at network doors, what is
    /// read elsewhere). BENCHMARKS.md shows the cost of `.complete` beside the lazy path.
    public var inputValidation: InputValidation {
        get { state.withLock { $0.inputValidation } }
        set { state.withLock { $0.inputValidation = newValue } }
    }

    /// Decodes bytes that came from a network: the whole input is checked unless `inputValidation` is `.lazy`.
    package func decode<T: Decodable>(_ type: T.Type, fromUntrusted bytes: UnsafeRawBufferPointer) throws -> T {
        var options = options(reference: nil)
        options.verifiesWholeInput = options.settings.value.inputValidation != .lazy
        return try decode(type, from: bytes, options: options)
    }

    /// Creates a decoder with Firestore's defaults.
    public init() {}

    deinit { _ = takeSpare() }

    /// Decodes a value from a bare FirePack encoding in `Data`, `[UInt8]` or borrowed bytes (any `ContiguousBytes`).
    ///
    /// Given a `reference`, the bytes are a document's fields: `@DocumentID` properties are filled from it, and
    /// errors name it.
    public func decode<T: Decodable>(
        _ type: T.Type, from bytes: some ContiguousBytes, in reference: DocumentReference? = nil
    ) throws -> T {
        try bytes.withUnsafeBytes { try decode(type, from: $0, options: options(reference: reference)) }
    }

    /// Decodes a value from a `Value` tree, written to scratch bytes once and read by the one decoder.
    ///
    /// The tree is written without key references (`Value.withScratchFirePackBytes`), cheaper than an encoding meant
    /// to be kept: a write per call, against a second implementation of every mapping rule, strategy and error that a
    /// decoder of trees would be (guarded by `Decode 1 BookWithTags/DictionaryDecoder`, which decodes from a tree).
    public func decode<T: Decodable>(_ type: T.Type, from value: Value, in reference: DocumentReference? = nil) throws
        -> T
    {
        let options = options(reference: reference)
        return try value.withScratchFirePackBytes { try decode(type, from: $0, options: options) }
    }

    /// Decodes the value at a reader's cursor (for example inside a larger structure) and moves past it.
    public func decode<T: Decodable>(
        _ type: T.Type, from reader: inout FirePackReader,
        in reference: DocumentReference? = nil
    ) throws -> T {
        if reader.packed != nil {
            // An element of a packed array has no tag to decode from: it is decoded as the number it is.
            let element: Value
            do { element = try reader.peekValueView().value() } catch {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: error.description, underlyingError: error))
            }
            let value = try decode(type, from: element, in: reference)
            try reader.skipValue()
            return value
        }
        let end: Int
        do { end = try reader.input.valueEnd(at: reader.readerIndex, limit: reader.limit) } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
        let options = options(reference: reference)
        if options.verifiesWholeInput {
            // `.complete`: every byte of the value, as for a whole input (a stream's record read as a model, say).
            var verifier = InputVerifier(input: reader.input)
            do { try verifier.verifyValue(at: reader.readerIndex, end: end, depth: reader.depth) } catch {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: [], debugDescription: Self.describe(error, reference), underlyingError: error))
            }
        }
        var decoder = makeDecoder(
            input: reader.input, options: options, offset: reader.readerIndex, end: end, depth: reader.depth)
        defer { recycle(&decoder) }
        let value = try decoder.decodeRoot(type)
        try reader.skipValue()
        return value
    }

    func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer, options: DecoderOptions) throws -> T {
        var decoder = try rootDecoder(bytes, options: options)
        defer { recycle(&decoder) }
        return try decoder.decodeRoot(type)
    }

    /// The decoder of one top-level call, at the root value of `bytes`.
    func rootDecoder(_ bytes: UnsafeRawBufferPointer, options: DecoderOptions) throws -> DecoderImpl {
        let input: ReaderInput
        do {
            input = try ReaderInput(bytes, rootStart: 0, limits: options.limits)
            if options.verifiesWholeInput {
                var verifier = InputVerifier(input: input)
                try verifier.verify()
            }
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: Self.describe(error, options.reference), underlyingError: error)
            )
        }
        return makeDecoder(input: input, options: options, offset: 0, end: input.rootEnd, depth: 0)
    }

    /// The decoding context for one top-level call: the one a previous call left (`recycle`), prepared for this call,
    /// or a new one. The call hands it back to `recycle` when it returns or throws.
    func makeDecoder(input: ReaderInput, options: DecoderOptions, offset: Int, end: Int, depth: Int) -> DecoderImpl {
        guard let decoder = takeSpare() else {
            return DecoderImpl(input: input, options: options, offset: offset, end: end, depth: depth)
        }
        decoder.prepare(input: input, options: options, offset: offset, end: end, depth: depth)
        return decoder
    }

    /// The kept context, now the caller's alone, or nil when none is kept (or another call has it).
    private func takeSpare() -> DecoderImpl? {
        guard let kept = UnsafeRawPointer(bitPattern: spare.exchange(0, ordering: .acquiring)) else { return nil }
        return Unmanaged<DecoderImpl>.fromOpaque(kept).takeRetainedValue()
    }

    /// Keeps the context of a finished call for the next one, unless something else still holds it (a type's
    /// `init(from:)` may keep the `Decoder` it was given), it has grown large, or another context is already kept.
    func recycle(_ decoder: inout DecoderImpl) {
        guard isKnownUniquelyReferenced(&decoder), decoder.isWorthKeeping else { return }
        let kept = Unmanaged.passRetained(decoder).toOpaque()
        if !spare.compareExchange(expected: 0, desired: UInt(bitPattern: kept), ordering: .releasing).exchanged {
            Unmanaged<DecoderImpl>.fromOpaque(kept).release()
        }
    }

    /// The options for one top-level call, read under the lock once.
    @usableFromInline
    func options(reference: DocumentReference?) -> DecoderOptions {
        var options = state.withLock { $0 }
        options.reference = reference
        options.verifiesWholeInput = options.settings.value.inputValidation == .complete
        return options
    }

    static func describe(_ error: FirePackError, _ reference: DocumentReference?) -> String {
        reference.map { "\(error) in document \($0.path)" } ?? error.description
    }
}

/// A snapshot of the decoder's settings for one top-level call: the settings, shared with the decoder
/// (`SharedSettings`: one retain per call, not a copy field by field; guarded by `Decode 1 Book`), and the document.
@usableFromInline
@dynamicMemberLookup
struct DecoderOptions: SharedSettings {
    /// What the decoder's properties set.
    struct Settings: Sendable {
        var dateStrategy: FirePackDecoder.DateDecodingStrategy = .timestamp
        var dataStrategy: FirePackDecoder.DataDecodingStrategy = .bytes
        var keyStrategy: FirePackDecoder.KeyDecodingStrategy = .useDefaultKeys
        var floatStrategy: FirePackDecoder.NonConformingFloatDecodingStrategy = .allow
        var missingKeyStrategy: FirePackDecoder.MissingKeyDecodingStrategy = .throw
        var serverTimestampEstimate: Timestamp?
        var userInfo: [CodingUserInfoKey: any Sendable] = [:]
        var limits: ReaderLimits = .default
        var usesGeneratedCoding = true
        var inputValidation = FirePackDecoder.InputValidation.automatic
    }

    var settings = SharedValue(Settings())
    /// The document being decoded, if any.
    var reference: DocumentReference?
    /// Whether this call checks the whole input before reading it (`FirePackDecoder.inputValidation`).
    var verifiesWholeInput = false

    var usesDefaultKeys: Bool {
        if case .useDefaultKeys = settings.value.keyStrategy { return true }
        return false
    }

    /// Whether stored keys are converted from snake case (`convertFromSnakeCase`), which generated coding does itself.
    var convertsKeysFromSnakeCase: Bool {
        if case .convertFromSnakeCase = settings.value.keyStrategy { return true }
        return false
    }

    /// Whether generated coding may be used: it is on, and keys are kept or converted from snake case (a custom
    /// strategy is given each key's coding path, which generated coding does not keep).
    var takesGeneratedPath: Bool {
        settings.value.usesGeneratedCoding && (usesDefaultKeys || convertsKeysFromSnakeCase)
    }

    /// Whether dates decode from native timestamps (the default strategy).
    var dateStrategyIsTimestamp: Bool {
        if case .timestamp = settings.value.dateStrategy { return true }
        return false
    }
}
