#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Firestore document: its reference, its fields, and when known its create and update times.
public struct Document: Hashable, Sendable {
    /// The document's reference (its path).
    public var reference: DocumentReference
    /// The document's fields.
    public var fields: MapValue
    /// When the document was created, if known.
    public var createTime: Timestamp?
    /// When the document was last updated, if known.
    public var updateTime: Timestamp?

    /// A document from its parts.
    public init(
        reference: DocumentReference, fields: MapValue, createTime: Timestamp? = nil, updateTime: Timestamp? = nil
    ) {
        self.reference = reference
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// A document whose fields are `value` encoded; throws `EncodingError.invalidValue` unless it encodes as a map.
    public init<T: Encodable>(reference: DocumentReference, from value: T, encoder: FirePackEncoder = FirePackEncoder())
        throws
    {
        // Generated coding writes bytes faster than the tree encoder builds a tree; the tree is then read from them.
        let tree =
            encoder.hasGeneratedCoding(T.self)
            ? try Value(firePackBytes: encoder.encodeToBytes(value)) : try encoder.encodeToValue(value)
        guard case .map(let fields) = tree else {
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: [],
                    debugDescription:
                        "\(T.self) does not encode as a map, so it cannot be the fields of document \(reference.path)"))
        }
        self.init(reference: reference, fields: fields)
    }

    /// The document's ID: the last segment of its path.
    public var documentID: String { reference.documentID }
}

extension Document: Codable {
    private enum CodingKeys: String, CodingKey { case name, fields, createTime, updateTime }

    /// `{name: reference, fields: map, createTime?, updateTime?}` — natively a reference, a map and timestamps.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reference, forKey: .name)
        try container.encode(fields, forKey: .fields)
        try container.encodeIfPresent(createTime, forKey: .createTime)
        try container.encodeIfPresent(updateTime, forKey: .updateTime)
    }

    /// Decodes the form `encode(to:)` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reference = try container.decode(DocumentReference.self, forKey: .name)
        fields = try container.decode(MapValue.self, forKey: .fields)
        createTime = try container.decodeIfPresent(Timestamp.self, forKey: .createTime)
        updateTime = try container.decodeIfPresent(Timestamp.self, forKey: .updateTime)
    }
}

extension Document {
    /// The document as FirePack bytes: `{name, fields, createTime?, updateTime?}` with native types.
    public func firePackBytes(deterministic: Bool = false) -> [UInt8] {
        let writer = FirePackWriter(options: .init(deterministic: deterministic))
        write(to: writer)
        return writer.takeBytes()
    }

    /// Writes the document as one value, straight into the writer (no temporary `Value`): its keys always in §9's
    /// order (`name`, `fields`, `createTime`, `updateTime`), the fields' keys sorted when the writer is deterministic.
    public func write(to writer: FirePackWriter) {
        writer.beginMap()
        writer.writeKey("name")
        writer.writeReference(reference)
        writer.writeKey("fields")
        writer.write(.map(fields))
        Document.writeTimes(createTime: createTime, updateTime: updateTime, to: writer)
        writer.endMap()
    }

    /// The document as a `Value`: `{name, fields, createTime?, updateTime?}`.
    public var value: Value {
        var map: MapValue = ["name": .reference(reference), "fields": .map(fields)]
        if let createTime { map["createTime"] = .timestamp(createTime) }
        if let updateTime { map["updateTime"] = .timestamp(updateTime) }
        return .map(map)
    }

    /// Reads a document written by `firePackBytes()` from `Data`, `[UInt8]` or borrowed bytes, straight through the
    /// reader (no Codable).
    ///
    /// The shape is fixed (Docs/FORMAT.md §9): a map of `name` (a reference) and `fields` (a map), then optionally
    /// `createTime` and `updateTime` (timestamps), in this order and nothing else; anything else throws
    /// `invalidDocument` at the offending key, so no key of a record is ever dropped.
    public init(firePackBytes bytes: some ContiguousBytes, limits: ReaderLimits = .default) throws(FirePackError) {
        self = try bytes.withBorrowedBytes { raw throws(FirePackError) in try Document(borrowing: raw, limits: limits) }
    }

    private init(borrowing bytes: UnsafeRawBufferPointer, limits: ReaderLimits) throws(FirePackError) {
        var fields: MapValue?
        let (reference, createTime, updateTime) = try Self.scanRecord(bytes, limits: limits) {
            reader throws(FirePackError) in
            guard case .map(let value) = try reader.readValue() else {
                preconditionFailure("the scan checked for a map")
            }
            fields = value
        }
        self.init(reference: reference, fields: fields!, createTime: createTime, updateTime: updateTime)
    }

    /// Writes a document record's optional `createTime` and `updateTime` entries (§9), the one place that does.
    package static func writeTimes(createTime: Timestamp?, updateTime: Timestamp?, to writer: FirePackWriter) {
        if let createTime {
            writer.writeKey("createTime")
            writer.writeTimestamp(createTime)
        }
        if let updateTime {
            writer.writeKey("updateTime")
            writer.writeTimestamp(updateTime)
        }
    }

    /// Checks a document record as `init(firePackBytes:)` reads it — its shape, and every byte of its fields, with
    /// the same error at the same offset — and returns its name, without building the fields' tree: memory for the
    /// check, not for the values (Docs/SAFETY.md).
    package static func checkRecord(_ bytes: UnsafeRawBufferPointer, limits: ReaderLimits) throws(FirePackError)
        -> DocumentReference
    {
        try scanRecord(bytes, limits: limits) { reader throws(FirePackError) in try reader.verifyValue() }.reference
    }

    /// A document record's parts, checked as `init(firePackBytes:)` reads them, with its fields as a reader at the
    /// fields map (not read yet): for writers that copy or transcode the fields from their bytes, without a tree.
    package static func recordParts(_ bytes: UnsafeRawBufferPointer, limits: ReaderLimits) throws(FirePackError)
        -> (reference: DocumentReference, fields: FirePackReader, createTime: Timestamp?, updateTime: Timestamp?)
    {
        var fields: FirePackReader?
        let scanned = try scanRecord(bytes, limits: limits) { reader throws(FirePackError) in
            fields = reader
            try reader.skipValue()
        }
        // `scanRecord` returns only after it handed over the fields map.
        return (scanned.reference, fields!, scanned.createTime, scanned.updateTime)
    }

    /// Walks a document record in §9's strict shape — `name` (a reference), `fields` (a map), then optionally
    /// `createTime` and `updateTime`, in this order and nothing else — and hands `readFields` the reader at the
    /// fields map, which it must read or skip. The one parser of document records: `Document(firePackBytes:)`
    /// materializes the fields, a stream's `next(as:)` decodes a type straight from them.
    package static func scanRecord(
        _ bytes: UnsafeRawBufferPointer, limits: ReaderLimits,
        readFields: (inout FirePackReader) throws(FirePackError) -> Void
    )
        throws(FirePackError) -> (reference: DocumentReference, createTime: Timestamp?, updateTime: Timestamp?)
    {
        var reader = try FirePackReader(bytes: bytes, limits: limits)
        guard try reader.peekType() == .map else {
            throw FirePackError(
                .invalidDocument, offset: reader.readerIndex, "a document is a map, not \(try reader.peekType())")
        }
        let map = try reader.enterMap()
        var reference: DocumentReference?
        var hasFields = false
        var createTime: Timestamp?, updateTime: Timestamp?
        for _ in 0..<map.count {
            let keyOffset = reader.readerIndex
            let key = try reader.readKey()
            func expect(_ type: ValueType) throws(FirePackError) {
                let found = try reader.peekType()
                guard found == type else {
                    throw FirePackError(
                        .invalidDocument, offset: reader.readerIndex,
                        "a document's \(key) must be a \(type), not a \(found)")
                }
            }
            if key == "name" && reference == nil && !hasFields {
                try expect(.reference)
                reference = try reader.readReference()
            } else if key == "fields" && reference != nil && !hasFields {
                try expect(.map)
                try readFields(&reader)
                hasFields = true
            } else if key == "createTime" && hasFields && createTime == nil && updateTime == nil {
                try expect(.timestamp)
                createTime = try reader.readTimestamp()
            } else if key == "updateTime" && hasFields && updateTime == nil {
                try expect(.timestamp)
                updateTime = try reader.readTimestamp()
            } else {
                throw FirePackError(
                    .invalidDocument, offset: keyOffset,
                    "unexpected key \(key.string.debugDescription): a document is {name, fields[, createTime][, updateTime]}, in this order"
                )
            }
        }
        try reader.exitMap(map)
        guard let reference, hasFields else {
            throw FirePackError(
                .invalidDocument, offset: 0,
                "a document needs \(reference == nil ? "a \"name\" reference" : "\"fields\"")")
        }
        return (reference, createTime, updateTime)
    }
}
