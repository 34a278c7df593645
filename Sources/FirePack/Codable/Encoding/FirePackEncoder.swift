#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Encodes `Encodable` types as FirePack bytes with the mapping semantics of the Firestore SDK's Codable support.
///
/// One encoder (`EncoderImpl`) writes straight into one reused buffer. Types that use their
/// containers out of order (a nested container written to after its parent moved on), write a key twice, or go
/// through `superEncoder()` are encoded again into a `Value` tree (`EncodingTree`), with the result JSONEncoder gives
/// (a repeated key keeps its last value at its first place); so is everything in deterministic mode, which sorts keys.
///
/// Like JSONEncoder it is `Sendable`: one encoder (`static let encoder = FirePackEncoder()`) can be shared by every
/// thread; its options are read once per top-level call under a lock.
public final class FirePackEncoder: Sendable {
    private let state = Mutex(EncoderOptions())

    /// How `Date` is written; `.timestamp` by default.
    public var dateEncodingStrategy: DateEncodingStrategy {
        get { state.withLock { $0.dateStrategy } }
        set { state.withLock { $0.dateStrategy = newValue } }
    }
    /// How `Data` is written; `.bytes` by default.
    public var dataEncodingStrategy: DataEncodingStrategy {
        get { state.withLock { $0.dataStrategy } }
        set { state.withLock { $0.dataStrategy = newValue } }
    }
    /// How coding keys become map keys; keys of `[String: T]` are never converted.
    public var keyEncodingStrategy: KeyEncodingStrategy {
        get { state.withLock { $0.keyStrategy } }
        set { state.withLock { $0.keyStrategy = newValue } }
    }
    /// What happens to NaN and ±∞: stored natively by default.
    public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy {
        get { state.withLock { $0.floatStrategy } }
        set { state.withLock { $0.floatStrategy = newValue } }
    }
    /// Output options; `.sortedKeys` gives the canonical form.
    public var outputFormatting: OutputFormatting {
        get { state.withLock { $0.outputFormatting } }
        set { state.withLock { $0.outputFormatting = newValue } }
    }
    /// Whether `outputFormatting` contains `.sortedKeys`: sorted keys and shortest forms, so that equal values give
    /// identical bytes.
    public var deterministic: Bool {
        get { outputFormatting.contains(.sortedKeys) }
        set {
            state.withLock {
                if newValue { $0.outputFormatting.insert(.sortedKeys) } else { $0.outputFormatting.remove(.sortedKeys) }
            }
        }
    }
    /// Whether types with generated coding (`@FirePackCodable`) are written through it; true by default. False writes
    /// every type through its `Encodable` conformance (to compare the two): the same bytes, except for what the
    /// evolution attributes change (`@FirePackKey` names, `@FirePackIgnored` properties), which synthesized `Codable`
    /// does not know — as with a `.custom` `keyEncodingStrategy`, under which generated coding is not used
    /// (snake case is; Docs/EVOLUTION.md).
    public var usesGeneratedCoding: Bool {
        get { state.withLock { $0.usesGeneratedCoding } }
        set { state.withLock { $0.usesGeneratedCoding = newValue } }
    }
    /// The format version of the output (Docs/FORMAT.md §5): 3 by default; 1 for readers that predate version 3
    /// (doubles then never take the decimal form). Any other number traps when encoding, as a programming error.
    public var formatVersion: Int {
        get { state.withLock { $0.formatVersion } }
        set { state.withLock { $0.formatVersion = newValue } }
    }
    /// Values for your types' `encode(to:)` to read from `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] {
        get { state.withLock { $0.userInfo } }
        set { state.withLock { $0.userInfo = newValue } }
    }

    /// Creates an encoder with Firestore's defaults.
    public init() {}

    /// The value's bare FirePack encoding as `Data`.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let options = self.options
        let writer = FirePackWriter(options: options.writerOptions)
        try encode(value, into: writer, options: options)
        return writer.takeData()
    }

    /// The value's bare FirePack encoding as `[UInt8]`.
    public func encodeToBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        let options = self.options
        let writer = FirePackWriter(options: options.writerOptions)
        try encode(value, into: writer, options: options)
        return writer.takeBytes()
    }

    /// Appends the value as one root value to `writer`; reusing a writer for a stream of values costs no allocation
    /// per value once its buffer is warm. On error nothing of the value stays in the writer.
    public func encode<T: Encodable>(_ value: T, into writer: FirePackWriter) throws {
        try encode(value, into: writer, options: options)
    }

    /// Encodes the value as one root value into `buffer` (memory the caller owns) while it fits, and returns the
    /// writer that holds the bytes: still in `buffer` when `isWritingInBorrowedMemory`, else in the writer's own
    /// memory. For FirePackNIO's `ByteBuffer.writeFirePack`.
    package func encode<T: Encodable>(_ value: T, borrowing buffer: UnsafeMutableRawBufferPointer) throws
        -> FirePackWriter
    {
        let options = self.options
        let writer = FirePackWriter(options: options.writerOptions, borrowing: buffer)
        try encode(value, into: writer, options: options)
        return writer
    }

    @usableFromInline
    func encode<T: Encodable>(_ value: T, into writer: FirePackWriter, options: EncoderOptions) throws {
        try Self.checkNoEarlierViolation(before: value, in: writer)
        let start = writer.writerIndex
        try encodeValue(value, into: writer, options: options)
        try Self.checkLimits(of: value, in: writer, from: start)
    }

    /// Throws, dropping the value just written, when it exceeds the readers' limits (`FirePackWriter.limitViolation`):
    /// an encoder never produces bytes that a decoder refuses.
    ///
    /// The value becomes an `Any` only for the error: boxed on every call, it was a metadata lookup, a retain and a
    /// release per top-level call (guarded by `Encode 1 Book/FirePackEncoder @FirePackCodable`).
    @inlinable @inline(__always)
    static func checkLimits<T>(of value: T, in writer: FirePackWriter, from start: Int) throws {
        if writer.hasLimitViolation { try limitsExceeded(by: value, in: writer, from: start) }
    }

    /// Throws, writing nothing, when the writer already holds a value past the readers' limits (one written to it
    /// directly, its `limitViolation` not dealt with): the value about to be written would be refused for it, and the
    /// earlier one kept.
    @inlinable @inline(__always)
    static func checkNoEarlierViolation<T>(before value: T, in writer: FirePackWriter) throws {
        if writer.hasLimitViolation { try earlierViolation(before: value, in: writer) }
    }

    /// Throws the writer's `limitViolation`, naming `value` as not written.
    @usableFromInline
    static func earlierViolation(before value: Any, in writer: FirePackWriter) throws {
        guard let violation = writer.limitViolation else { return }
        throw EncodingError.invalidValue(
            value,
            .init(
                codingPath: [],
                debugDescription: "not written: the writer holds an earlier value past the readers' limits "
                    + "(\(violation)); drop it first (clear())",
                underlyingError: violation))
    }

    /// Drops the value just written and throws the writer's `limitViolation`.
    @usableFromInline
    static func limitsExceeded(by value: Any, in writer: FirePackWriter, from start: Int) throws {
        guard let violation = writer.limitViolation else { return }
        writer.abandonRootValue(truncatingTo: start)
        throw EncodingError.invalidValue(
            value, .init(codingPath: [], debugDescription: violation.description, underlyingError: violation))
    }

    func encodeValue<T: Encodable>(_ value: T, into writer: FirePackWriter, options: EncoderOptions) throws {
        guard !writer.isInsideValue else { throw Self.insideValue(value) }
        let deterministic = options.deterministic
        let start = writer.writerIndex
        if options.takesGeneratedPath,
            let generated = writer.state.conformances.generated.conformance(
                of: T.self, { $0 as? any FirePackEncodable.Type })
        {
            // Generated coding (`@FirePackCodable`): straight into the writer, keys sorted at compile time when
            // deterministic. Whatever it cannot honour (a key written twice) goes to the tree path below.
            do {
                try generated.encodeTopLevel(
                    value, writer: writer, options: options,
                    sortsKeys: deterministic || writer.options.deterministic)
                return
            } catch is EncoderImpl.OutOfOrder {
                writer.abandonRootValue(truncatingTo: start)
            } catch {
                writer.abandonRootValue(truncatingTo: start)
                throw error
            }
        } else if !deterministic && !writer.options.deterministic {
            let encoder = EncoderImpl(writer: writer, options: options)
            defer { encoder.keepConformances() }
            do {
                try encoder.encodeValue(value, at: encoder.valueStart)
                if encoder.needsTree { throw EncoderImpl.OutOfOrder() }
                return
            } catch is EncoderImpl.OutOfOrder {
                writer.abandonRootValue(truncatingTo: start)
            } catch {
                writer.abandonRootValue(truncatingTo: start)
                throw error
            }
        }
        try encodeThroughTree(value, into: writer, options: options)
    }

    /// Encodes the value as a `Value` tree, then writes the tree: the path of deterministic output and of values that
    /// bytes in order cannot hold (a key written twice).
    @usableFromInline
    func encodeThroughTree<T: Encodable>(_ value: T, into writer: FirePackWriter, options: EncoderOptions) throws {
        let tree = try EncoderImpl.tree(of: value, options: options)
        if options.deterministic && !writer.options.deterministic {
            let sorted = FirePackWriter(
                options: .init(deterministic: true, formatVersion: writer.options.formatVersion))
            sorted.write(tree)
            sorted.withUnsafeWrittenBytes { bytes in writer.appendCompleteValues(bytes) }
        } else {
            writer.write(tree)
        }
    }

    /// The error for a root value written while the writer is inside another value.
    @usableFromInline
    static func insideValue(_ value: Any) -> EncodingError {
        EncodingError.invalidValue(
            value,
            .init(
                codingPath: [],
                debugDescription: "The writer is inside a value: FirePackEncoder appends whole root values"))
    }

    /// The value as a `Value` tree, with this encoder's strategies.
    public func encodeToValue<T: Encodable>(_ value: T) throws -> Value {
        try EncoderImpl.tree(of: value, options: options)
    }

    /// The options for one top-level call, read under the lock once.
    @usableFromInline
    var options: EncoderOptions { state.withLock { $0 } }
}

/// A snapshot of the encoder's settings for one top-level call: `options.dateStrategy` and the like read the shared
/// settings (`SharedSettings`).
@usableFromInline
@dynamicMemberLookup
struct EncoderOptions: SharedSettings {
    /// What the encoder's properties set.
    struct Settings: Sendable {
        var dateStrategy: FirePackEncoder.DateEncodingStrategy = .timestamp
        var dataStrategy: FirePackEncoder.DataEncodingStrategy = .bytes
        var keyStrategy: FirePackEncoder.KeyEncodingStrategy = .useDefaultKeys
        var floatStrategy: FirePackEncoder.NonConformingFloatEncodingStrategy = .allow
        var outputFormatting: FirePackEncoder.OutputFormatting = []
        var userInfo: [CodingUserInfoKey: any Sendable] = [:]
        var usesGeneratedCoding = true
        var formatVersion = 3
    }

    var settings = SharedValue(Settings())

    @usableFromInline
    var deterministic: Bool { settings.value.outputFormatting.contains(.sortedKeys) }

    /// The options of a writer the encoder makes for itself.
    @usableFromInline
    var writerOptions: FirePackWriter.Options {
        .init(deterministic: deterministic, formatVersion: settings.value.formatVersion)
    }

    /// Whether generated coding may be used: it is on, and keys are kept or converted to snake case (a custom
    /// strategy is given each key's coding path, which generated coding does not keep).
    @usableFromInline
    var takesGeneratedPath: Bool {
        settings.value.usesGeneratedCoding && (usesDefaultKeys || convertsKeysToSnakeCase)
    }

    /// Whether keys are converted to snake case (`convertToSnakeCase`), which generated coding does itself.
    var convertsKeysToSnakeCase: Bool {
        if case .convertToSnakeCase = settings.value.keyStrategy { return true }
        return false
    }

    var usesDefaultKeys: Bool {
        if case .useDefaultKeys = settings.value.keyStrategy { return true }
        return false
    }
}

extension FirePackWriter {
    /// Appends bytes that already hold complete root values (each with its key table).
    func appendCompleteValues(_ bytes: UnsafeRawBufferPointer) {
        precondition(depth == 0)
        reserve(bytes.count)
        appendRaw(bytes)
        completedEnd = writerIndex
    }
}
