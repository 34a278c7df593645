#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a generated `encode(firePack:)` writes its value (`FirePackEncodable`): straight into the encoder's
/// `FirePackWriter`.
///
/// Generated code calls `beginFields()`, then `encode(_:forKey:)` or `encodeIfPresent(_:forKey:)` per stored property
/// (in ascending key order when `sortsKeys`), then `endFields()`. Values of generated types, arrays and optionals of
/// them and Swift's scalars are written here directly; everything else through the Codable path at the same position.
/// The bytes are those `FirePackEncoder` writes for the type's `Encodable` conformance.
///
/// As `FirePackValueReader`'s, the generic entry points are `@inlinable`, so that they are specialized for the
/// generated type in the module that encodes it.
public struct FirePackValueWriter {
    /// The writer the encoder appends to.
    @usableFromInline let writer: FirePackWriter
    /// The encoder's options for this call.
    @usableFromInline let options: EncoderOptions
    /// Whether map keys must be written in ascending UTF-8 byte order (deterministic output).
    public let sortsKeys: Bool
    /// Whether values without generated coding go through a `Value` tree rather than the Codable path over bytes:
    /// true where the value is itself becoming a tree (`EncoderImpl.generatedTree(of:options:)`), so that a nested
    /// type's containers used out of order (a class's `superEncoder()`, a key written twice) are honoured there.
    let codableThroughTree: Bool
    /// Whether keys are converted to snake case (`convertToSnakeCase`, `SnakeCaseKeys`).
    @usableFromInline let convertsKeys: Bool
    /// The Codable path's encoder for values without generated coding, made when first needed.
    var codable: EncoderImpl?

    init(
        writer: FirePackWriter, options: EncoderOptions, sortsKeys: Bool, codable: EncoderImpl?,
        codableThroughTree: Bool = false
    ) {
        self.writer = writer
        self.options = options
        self.sortsKeys = sortsKeys
        self.codable = codable
        self.codableThroughTree = codableThroughTree
        convertsKeys = options.convertsKeysToSnakeCase
    }

    /// A writer of one root value into `writer`.
    @usableFromInline
    init(root writer: FirePackWriter, options: EncoderOptions, sortsKeys: Bool) {
        self.init(writer: writer, options: options, sortsKeys: sortsKeys, codable: nil)
    }

    /// The user info the encoder was given.
    public var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    /// Starts the value's map.
    public func beginFields() { writer.beginMap() }

    /// Ends the value's map.
    public func endFields() { writer.endMap() }

    /// Writes a map key; a key already in the map sends the whole value to the tree path, as the Codable path does.
    @usableFromInline
    func writeKey(_ key: StaticString) throws {
        if convertsKeys { return try writeConvertedKey(key) }
        guard writer.writeKey(utf8: UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)) else {
            throw EncoderImpl.OutOfOrder()
        }
    }

    /// Writes a map key converted to snake case. Keys sorted at compile time need not stay in order once converted,
    /// so deterministic output takes the tree path (`FirePackEncodable.generatedTree`, which sorts them).
    func writeConvertedKey(_ key: StaticString) throws {
        if sortsKeys { throw EncoderImpl.OutOfOrder() }
        let converted = SnakeCaseKeys.converted(key)
        guard writer.writeKey(converted) else {
            // Two of the model's keys made one: an error where it happens (its coding path is the map's), not a
            // value lost to the other.
            throw EncodingError.invalidValue(
                converted,
                .init(
                    codingPath: [],
                    debugDescription:
                        "Two keys of the map become \(converted.debugDescription) under convertToSnakeCase (the second is \(key.description.debugDescription)); rename one with @FirePackKey"
                ))
        }
    }

    /// Runs `body`, putting `key` in front of the coding path of an `EncodingError` it throws.
    @inlinable @inline(__always)
    func under(_ key: StaticString, _ body: () throws -> Void) throws {
        do { try body() } catch { throw codingError(error, under: key) }
    }

    /// Writes a double, or what the non-conforming float strategy makes of NaN and ±∞.
    @inline(__always)
    func writeDouble(_ double: Double) throws { try NativeScalar.writeDouble(double, to: writer, options, []) }
}

// MARK: - Fields

extension FirePackValueWriter {
    /// Writes `value` (of a type with generated or native coding) under `key`.
    @inlinable
    public mutating func encode<T: FirePackEncodable>(_ value: T, forKey key: StaticString) throws {
        try writeKey(key)
        try under(key) { try value.encode(firePack: &self) }
    }

    /// Writes `value` under `key`, or nothing for nil.
    @inlinable
    public mutating func encodeIfPresent<T: FirePackEncodable>(_ value: T?, forKey key: StaticString) throws {
        guard let value else { return }
        try encode(value, forKey: key)
    }

    /// Writes `value` of any other `Encodable` type under `key`: a native type (`@ServerTimestamp`'s `Date` or
    /// `Timestamp`, for one) as `FirePackEncoder` does, anything else through its `encode(to:)`.
    public mutating func encode<T: Encodable>(_ value: T, forKey key: StaticString) throws {
        try writeKey(key)
        try under(key) { try encodeNative(value) }
    }

    /// Writes `value` of any other `Encodable` type under `key`, or nothing for nil.
    public mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: StaticString) throws {
        guard let value else { return }
        try encode(value, forKey: key)
    }

    /// Writes a string under `key`.
    public func encode(_ value: String, forKey key: StaticString) throws {
        try writeKey(key)
        writer.writeString(value)
    }

    /// Writes an integer under `key`.
    public func encode(_ value: Int, forKey key: StaticString) throws {
        try writeKey(key)
        writer.writeInteger(Int64(value))
    }

    /// Writes a 64-bit integer under `key`.
    public func encode(_ value: Int64, forKey key: StaticString) throws {
        try writeKey(key)
        writer.writeInteger(value)
    }

    /// Writes a double under `key`.
    public func encode(_ value: Double, forKey key: StaticString) throws {
        try writeKey(key)
        try under(key) { try writeDouble(value) }
    }

    /// Writes a boolean under `key`.
    public func encode(_ value: Bool, forKey key: StaticString) throws {
        try writeKey(key)
        writer.writeBoolean(value)
    }

    /// Writes a string map under `key` by concrete code: its entries in the dictionary's order, the bytes the Codable
    /// path writes for it (guarded by `Encode 5000 Order/FirePackEncoder @FirePackCodable`). Sorted keys (deterministic
    /// output) take the Codable path's tree.
    public mutating func encode(_ value: [String: String], forKey key: StaticString) throws {
        try writeKey(key)
        if sortsKeys { return try under(key) { try encodeCodable(value) } }
        writer.beginMap()
        for (entryKey, entryValue) in value {
            // Always written: a dictionary's keys are distinct.
            _ = writer.writeKey(entryKey)
            writer.writeString(entryValue)
        }
        writer.endMap()
    }

    /// Writes a string map under `key`, or nothing for nil.
    public mutating func encodeIfPresent(_ value: [String: String]?, forKey key: StaticString) throws {
        guard let value else { return }
        try encode(value, forKey: key)
    }

    /// Writes a string under `key`, or nothing for nil.
    public func encodeIfPresent(_ value: String?, forKey key: StaticString) throws {
        guard let value else { return }
        try encode(value, forKey: key)
    }

    /// Writes an integer under `key`, or nothing for nil.
    public func encodeIfPresent(_ value: Int?, forKey key: StaticString) throws {
        guard let value else { return }
        try encode(value, forKey: key)
    }
}

// MARK: - Property wrappers

extension FirePackValueWriter {
    /// Leaves a `@DocumentID` out of the data.
    @inlinable
    public func encode<T>(_ value: DocumentID<T>, forKey key: StaticString) throws {}

    /// Writes a `@ServerTimestamp`: the time, or the server-timestamp sentinel for nil.
    @inlinable
    public mutating func encode<T>(_ value: ServerTimestamp<T>, forKey key: StaticString) throws {
        guard let time = value.wrappedValue else { return try writeServerTimestamp(forKey: key) }
        try encode(time, forKey: key)
    }

    /// Writes an `@ExplicitNull`: the value, or null for nil.
    @inlinable
    public mutating func encode<T: Encodable>(_ value: ExplicitNull<T>, forKey key: StaticString) throws {
        guard let wrapped = value.wrappedValue else { return try writeNull(forKey: key) }
        try encode(wrapped, forKey: key)
    }

    /// Writes an `@ExplicitNull` of a type with generated (or native) coding: the value, or null for nil.
    @inlinable
    public mutating func encode<T: FirePackEncodable>(_ value: ExplicitNull<T>, forKey key: StaticString) throws {
        guard let wrapped = value.wrappedValue else { return try writeNull(forKey: key) }
        try encode(wrapped, forKey: key)
    }

    /// Writes the server-timestamp sentinel under `key`.
    @usableFromInline
    func writeServerTimestamp(forKey key: StaticString) throws {
        try writeKey(key)
        writer.writeServerTimestamp()
    }

    /// Writes null under `key`.
    @usableFromInline
    func writeNull(forKey key: StaticString) throws {
        try writeKey(key)
        writer.writeNull()
    }
}

// MARK: - Whole values

extension FirePackValueWriter {
    /// Writes an array of a generated (or native) element type, element by element.
    @inlinable
    public mutating func encodeArray<Element: FirePackEncodable>(_ elements: [Element]) throws {
        // Arrays of the commonest scalars are written by concrete code, as `FirePackValueReader.decodeArray` reads them;
        // specialized, these comparisons are decided at compile time.
        if Element.self == Double.self {
            try encodeDoubles(unsafeBitCast(elements, to: [Double].self))
        } else if Element.self == String.self {
            encodeStrings(unsafeBitCast(elements, to: [String].self))
        } else if Element.self == Int.self {
            encodeInts(unsafeBitCast(elements, to: [Int].self))
        } else {
            try encodeElements(elements) { try $1.encode(firePack: &$0) }
        }
    }

    /// `[Double]` in one call to the writer (`FirePackWriter.writeDoubles`), unless an element is not finite: those
    /// take the element-by-element path, where the non-conforming float strategy applies.
    @usableFromInline
    mutating func encodeDoubles(_ elements: [Double]) throws {
        for element in elements where !element.isFinite {
            return try encodeElements(elements) { try $0.writeDouble($1) }
        }
        elements.withUnsafeBufferPointer { writer.writeDoubles($0) }
    }

    @usableFromInline
    mutating func encodeStrings(_ elements: [String]) {
        writer.beginArray()
        for element in elements { writer.writeString(element) }
        writer.endArray()
    }

    @usableFromInline
    mutating func encodeInts(_ elements: [Int]) {
        writer.beginArray()
        for element in elements { writer.writeInteger(Int64(element)) }
        writer.endArray()
    }

    /// Writes an array, each element with `write`, putting the element's index in front of the coding path of an
    /// `EncodingError` it throws.
    @inlinable @inline(__always)
    mutating func encodeElements<Element>(_ elements: [Element], _ write: (inout Self, Element) throws -> Void) throws {
        writer.beginArray()
        var index = 0
        for element in elements {
            do { try write(&self, element) } catch { throw codingError(error, at: index) }
            index += 1
        }
        writer.endArray()
    }

    /// Writes an enum as its raw value.
    @inlinable
    public mutating func encodeRawValue<T: RawRepresentable>(_ value: T) throws where T.RawValue: FirePackEncodable {
        try value.rawValue.encode(firePack: &self)
    }

    /// Writes a native type (`NativeType`: Swift's scalars, Firestore's types and Foundation's mapped ones) as
    /// `FirePackEncoder` does, through the same switch on the type.
    mutating func encodeNative<T: Encodable>(_ value: T) throws {
        switch NativeType(T.self) {
        case .scalar(let scalar)?: try scalar.write(value, to: writer, options: options, codingPath: [])
        case .special(let kind)?:
            guard case .value(let native) = try options.special(kind, value) else {
                // A custom or deferred Date/Data strategy runs with an Encoder.
                return try encodeCodable(value)
            }
            writer.write(native, sortingKeys: sortsKeys)
        case nil: try encodeCodable(value, isNative: false)
        }
    }

    /// Leaves the answers of the Codable path's encoder, if one was made, with the writer for its next root value
    /// (`EncoderImpl.keepConformances()`).
    @usableFromInline
    func finishRootValue() { codable?.keepConformances() }

    /// Writes any other `Encodable` through the Codable path: the encoder over bytes, or a `Value` tree (written with
    /// sorted keys in deterministic mode, what the Codable path does for the whole value). `isNative` false: the
    /// caller found that `NativeType` does not name `T`, so the encoder does not ask again.
    mutating func encodeCodable<T: Encodable>(_ value: T, isNative: Bool = true) throws {
        if sortsKeys || codableThroughTree {
            writer.write(try EncoderImpl.tree(of: value, options: options), sortingKeys: sortsKeys)
            return
        }
        let encoder: EncoderImpl
        if let codable {
            encoder = codable
        } else {
            encoder = EncoderImpl(writer: writer, options: options)
            codable = encoder
        }
        let outerPath = encoder.path
        encoder.path = []
        defer { encoder.path = outerPath }
        if isNative {
            try encoder.encodeValue(value, at: encoder.currentPosition)
        } else {
            try encoder.encodeNonNative(value, at: encoder.currentPosition)
        }
        if encoder.needsTree {
            encoder.needsTree = false
            throw EncoderImpl.OutOfOrder()
        }
    }
}

extension FirePackEncodable {
    /// Encodes `value` (of type `Self`) as a root value from `FirePackEncoder`.
    static func encodeTopLevel<T>(_ value: T, writer: FirePackWriter, options: EncoderOptions, sortsKeys: Bool) throws {
        var valueWriter = FirePackValueWriter(writer: writer, options: options, sortsKeys: sortsKeys, codable: nil)
        defer { valueWriter.finishRootValue() }
        try withUnsafePointer(to: value) { pointer in
            try UnsafeRawPointer(pointer).assumingMemoryBound(to: Self.self).pointee.encode(firePack: &valueWriter)
        }
    }
}

extension FirePackEncoder {
    /// Whether this encoder writes `T` through generated coding (the type has it and the options allow it).
    package func hasGeneratedCoding<T>(_ type: T.Type) -> Bool {
        options.takesGeneratedPath && T.self is any FirePackEncodable.Type
    }

    /// Writes `value` through its generated coding at `writer`'s position, inside a value the caller is writing (a
    /// document's fields). Returns false when the value needs the tree path instead (the caller discards what was
    /// written); throws `EncodingError.invalidValue` when it is not a map, and whatever encoding throws.
    package func encodeGeneratedFields<T: Encodable>(_ value: T, into writer: FirePackWriter) throws -> Bool {
        let options = self.options
        guard options.takesGeneratedPath, let generated = T.self as? any FirePackEncodable.Type else { return false }
        let start = writer.writerIndex
        do {
            try generated.encodeTopLevel(
                value, writer: writer, options: options,
                sortsKeys: options.deterministic || writer.options.deterministic)
        } catch is EncoderImpl.OutOfOrder {
            return false
        }
        let tag = writer.storage[start]
        guard tag == Tag.map || tag & 0xF0 == Tag.fixMapBase else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "\(T.self) does not encode as a map"))
        }
        return true
    }
}
