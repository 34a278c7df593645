/// A type that decodes itself from FirePack bytes directly, with no Codable containers: what `@FirePackCodable`
/// generates (import `FirePackMacros`).
///
/// `FirePackDecoder` calls `init(firePack:)` by itself wherever a value of the type is decoded (at the top level, in
/// arrays and optionals, inside generated or plain `Decodable` types), unless a `.custom` key decoding strategy is set
/// (snake case converts the keys here; Docs/EVOLUTION.md). The generated initializer reads exactly what the type's
/// `Decodable` conformance reads and throws the same errors.
public protocol FirePackDecodable: Decodable {
    /// Decodes a value from the FirePack value `reader` is positioned at.
    init(firePack reader: inout FirePackValueReader) throws
}

/// A type that encodes itself as FirePack bytes directly, with no Codable containers: what `@FirePackCodable`
/// generates (import `FirePackMacros`).
///
/// `FirePackEncoder` calls `encode(firePack:)` by itself wherever a value of the type is encoded — in bytes and in
/// trees — unless a `.custom` key encoding strategy is set; the bytes are those its `Encodable` conformance gives, but
/// for what the evolution attributes change (Docs/EVOLUTION.md).
public protocol FirePackEncodable: Encodable {
    /// Writes the value as one FirePack value.
    func encode(firePack writer: inout FirePackValueWriter) throws
}

extension FirePackDecodable {
    /// Runs `init(firePack:)` for the value at `offset` into `slot`, from inside the Codable path (`DecoderImpl`):
    /// the decoder's coding path is set aside, so errors come out relative and get it back as a prefix.
    static func decodeGenerated(
        into slot: UnsafeMutableRawPointer, decoder: DecoderImpl, at offset: Int, end: Int,
        depth: Int
    ) throws {
        let outerPath = decoder.path
        decoder.path = []
        defer { decoder.path = outerPath }
        var reader = FirePackValueReader(decoder: decoder, offset: offset, end: end, depth: depth)
        do {
            slot.initializeMemory(as: Self.self, to: try Self(firePack: &reader))
        } catch let error as DecodingError where !outerPath.isEmpty {
            throw error.prefixingPath(outerPath.map(\.codingKey))
        }
    }
}

extension FirePackEncodable {
    /// Runs `encode(firePack:)` for `value` (of type `Self`) from inside the Codable path over bytes, at the writer's
    /// position; errors come out relative to the encoder's coding path and get it back as a prefix.
    static func encodeGenerated<T>(_ value: T, encoder: EncoderImpl) throws {
        let outerPath = encoder.path
        encoder.path = []
        defer { encoder.path = outerPath }
        var writer = FirePackValueWriter(
            writer: encoder.writer, options: encoder.options, sortsKeys: false, codable: encoder)
        do {
            try withUnsafePointer(to: value) { pointer in
                try UnsafeRawPointer(pointer).assumingMemoryBound(to: Self.self).pointee.encode(firePack: &writer)
            }
        } catch let error as EncodingError where !outerPath.isEmpty {
            throw error.prefixingPath(outerPath.map(\.codingKey))
        }
    }
}

extension FirePackEncodable {
    /// `value` (of type `Self`) as a `Value` tree, through its generated coding: written into bytes of its own (values
    /// without generated coding as trees, so that containers used out of order are honoured), then read back. The tree
    /// path — `encodeToValue`, `DictionaryEncoder`, deterministic output, a value that bytes in order could not hold —
    /// takes this for a generated type, so that its evolution attributes hold there as well: the synthesized `Codable`
    /// conformance knows neither `@FirePackKey` names nor `@FirePackIgnored`.
    static func generatedTree<T>(of value: T, options: EncoderOptions) throws -> Value {
        // A tree has no limits of its own (the writer it goes to checks them): the scratch bytes take the widest.
        let limits = ReaderLimits(
            maxDepth: ReaderLimits.maximumDepth, maxElementCount: 1 << 62, maxInputSize: 1 << 62, maxKeyExpansion: .max)
        let scratch = FirePackWriter(options: .init(deterministic: false, limits: limits))
        var writer = FirePackValueWriter(
            writer: scratch, options: options, sortsKeys: false, codable: nil, codableThroughTree: true)
        do {
            try withUnsafePointer(to: value) { pointer in
                try UnsafeRawPointer(pointer).assumingMemoryBound(to: Self.self).pointee.encode(firePack: &writer)
            }
        } catch is EncoderImpl.OutOfOrder {
            // Not reached: keys the key strategy makes one throw where they meet (`writeConvertedKey`), values
            // without generated coding go through trees here, and the bag leaves out the model's keys.
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "\(Self.self) writes a key twice"))
        }
        do throws(FirePackError) {
            if let violation = scratch.limitViolation { throw violation }
            return try Value(firePackBytes: scratch.takeBytes(), limits: limits)
        } catch {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: error.description, underlyingError: error))
        }
    }
}
