import Foundation

/// Encodes `Encodable` types as FirePack bytes with the mapping semantics of the Firestore SDK's Codable support.
///
/// Writes straight into one reused buffer. Types that use their containers out of order (a nested container written
/// to after its parent moved on), write a key twice, or go through `superEncoder()` are encoded through a `Value`
/// tree instead, with the same result JSONEncoder gives (a repeated key keeps its last value); so is everything in
/// deterministic mode, which sorts keys.
public final class FirePackEncoder {
    /// How `Date` is written; `.timestamp` by default.
    public var dateEncodingStrategy: DateEncodingStrategy = .timestamp
    /// How `Data` is written; `.bytes` by default.
    public var dataEncodingStrategy: DataEncodingStrategy = .bytes
    /// How coding keys become map keys; keys of `[String: T]` are never converted.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// What happens to NaN and ±∞: stored natively by default.
    public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .allow
    /// Sorted keys and shortest forms, so that equal values give identical bytes.
    public var deterministic = false
    /// Values for your types' `encode(to:)` to read from `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder with Firestore's defaults.
    public init() {}

    /// The value's bare FirePack encoding as `Data`.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let writer = FirePackWriter(options: .init(deterministic: deterministic))
        try encode(value, into: writer)
        return writer.takeData()
    }

    /// The value's bare FirePack encoding as `[UInt8]`.
    public func encodeToBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        let writer = FirePackWriter(options: .init(deterministic: deterministic))
        try encode(value, into: writer)
        return writer.takeBytes()
    }

    /// Appends the value as one root value to `writer`; reusing a writer for a stream of values costs no allocation
    /// per value once its buffer is warm. On error nothing of the value stays in the writer.
    public func encode<T: Encodable>(_ value: T, into writer: FirePackWriter) throws {
        guard !writer.isInsideValue else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "The writer is inside a value: FirePackEncoder appends whole root values"))
        }
        let options = self.options
        let start = writer.writerIndex
        if !deterministic && !writer.options.deterministic {
            let encoder = StreamingEncoder(writer: writer, options: options)
            do {
                try encoder.encodeRoot(value)
                return
            } catch is StreamingEncoder.NeedsTree {
                writer.abandonRootValue(truncatingTo: start)
            } catch {
                writer.abandonRootValue(truncatingTo: start)
                throw error
            }
        }
        let tree = try ValueEncoder(options: options).encodeRoot(value)
        if deterministic && !writer.options.deterministic {
            let sorted = FirePackWriter(options: .init(deterministic: true))
            sorted.write(tree)
            sorted.withUnsafeWrittenBytes { bytes in writer.appendCompleteValues(bytes) }
        } else {
            writer.write(tree)
        }
    }

    /// The value as a `Value` tree, with this encoder's strategies.
    public func encodeToValue<T: Encodable>(_ value: T) throws -> Value {
        try ValueEncoder(options: options).encodeRoot(value)
    }

    var options: EncoderOptions {
        EncoderOptions(dateStrategy: dateEncodingStrategy, dataStrategy: dataEncodingStrategy, keyStrategy: keyEncodingStrategy,
                       floatStrategy: nonConformingFloatEncodingStrategy, userInfo: userInfo)
    }
}

/// A snapshot of the encoder's settings for one top-level call.
struct EncoderOptions {
    var dateStrategy: DateEncodingStrategy
    var dataStrategy: DataEncodingStrategy
    var keyStrategy: KeyEncodingStrategy
    var floatStrategy: NonConformingFloatEncodingStrategy
    var userInfo: [CodingUserInfoKey: any Sendable]

    var usesDefaultKeys: Bool {
        if case .useDefaultKeys = keyStrategy { return true }
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
