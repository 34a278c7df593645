import FirePack
import FirePackStreams
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `google.firestore.v1.Value` and `google.firestore.v1.Document` in the protobuf wire format, both ways (public as
/// `Value(firestoreProto:)`, `firestoreProtoBytes()` and the same on `Document`), written
/// against the wire format directly (no generated code). Field numbers as in Firestore's document.proto:
///
/// ```
/// Value:     boolean_value 1, integer_value 2, double_value 3, reference_value 5, map_value 6, geo_point_value 8,
///            array_value 9, timestamp_value 10, null_value 11, string_value 17, bytes_value 18
/// Document:  name 1, fields 2 (map<string, Value>), create_time 3, update_time 4
/// Timestamp: seconds 1, nanos 2      LatLng: latitude 1, longitude 2
/// ArrayValue: values 1               MapValue: fields 1 (entries: key 1, value 2)
/// ```
///
/// Vectors are maps `{__type__: "__vector__", value: [doubles]}`, as Firestore stores them. The server-timestamp
/// sentinel has no Value form (it is a field transform): writing one throws `invalidValue`. Reading accepts any field
/// order; for a oneof it keeps the last field, and a message field given again merges into the one before (an
/// array's values appended, a map's entries added, a timestamp's or geopoint's fields replaced), as protobuf parsers
/// must; a Value with no field set reads as null. A field none of these messages has, or one with another wire type,
/// is refused (`invalidValue` at its tag): skipped, it would be data dropped without a word.
package enum FirestoreProto {
    /// A `google.firestore.v1.Value` message.
    static func encode(_ value: Value) throws(FirePackError) -> [UInt8] {
        var writer = ProtoWriter(limit: 1 << 31)  // what `Value(firestoreProto:)` reads: the input limit
        try writeValueBody(value, into: &writer, path: [])
        try writer.checkLimit("the value")
        return writer.bytes
    }

    /// A `google.firestore.v1.Document` message.
    static func encode(_ document: Document) throws(FirePackError) -> [UInt8] {
        var writer = ProtoWriter(limit: maxDocumentLength)
        try writeDocument(document, into: &writer)
        return writer.bytes
    }

    /// Appends a document as a varint-length-delimited message (the `writeDelimitedTo` convention).
    static func appendDelimited(_ document: Document, to bytes: inout [UInt8]) throws(FirePackError) {
        var writer = ProtoWriter(limit: maxDocumentLength)
        try writeDocument(document, into: &writer)
        var prefix = ProtoWriter()
        prefix.writeVarint(UInt64(writer.bytes.count))
        bytes += prefix.bytes
        bytes += writer.bytes
    }

    /// Reads a `google.firestore.v1.Value` message.
    static func decodeValue(_ bytes: some ContiguousBytes, limits: ReaderLimits = .default) throws(FirePackError)
        -> Value
    {
        try bytes.withBorrowedBytes { raw throws(FirePackError) in
            guard let base = raw.baseAddress else { return .null }
            return try ProtoValueReader(reader: ProtoReader(base: base, count: raw.count), limits: limits).value(
                start: 0, end: raw.count, depth: 0)
        }
    }

    /// Reads a `google.firestore.v1.Document` message.
    static func decodeDocument(_ bytes: some ContiguousBytes, limits: ReaderLimits = .default) throws(FirePackError)
        -> Document
    {
        try bytes.withBorrowedBytes { raw throws(FirePackError) in
            guard let base = raw.baseAddress else {
                throw FirePackError(.truncated, offset: 0, "empty document message")
            }
            return try ProtoValueReader(reader: ProtoReader(base: base, count: raw.count), limits: limits).document(
                start: 0, end: raw.count)
        }
    }

    /// The length prefix of a varint-length-delimited message at the start of `bytes` (protobuf's
    /// `writeDelimitedTo`): the message's length and the prefix's size, or nil when `bytes` holds no whole prefix
    /// (cut short, longer than ten bytes, or above 64 bits). The one varint reader of the delimited form, shared with
    /// `decodeDelimitedDocuments` (`ProtoReader.getVarint`).
    package static func delimitedPrefix(_ bytes: UnsafeRawBufferPointer) -> (length: UInt64, prefixCount: Int)? {
        guard let base = bytes.baseAddress else { return nil }
        guard let (length, next) = try? ProtoReader(base: base, count: bytes.count).getVarint(at: 0, end: bytes.count)
        else { return nil }
        return (length, next)
    }

    /// Reads varint-length-delimited Document messages, one after another.
    static func decodeDelimitedDocuments(_ bytes: some ContiguousBytes, limits: ReaderLimits = .default)
        throws(FirePackError) -> [Document]
    {
        try bytes.withBorrowedBytes { raw throws(FirePackError) in
            guard let base = raw.baseAddress else { return [] }
            let values = ProtoValueReader(reader: ProtoReader(base: base, count: raw.count), limits: limits)
            var documents: [Document] = []
            var offset = 0
            while offset < raw.count {
                let range = try values.reader.getLength(at: offset, end: raw.count)
                let document: Document
                do throws(FirePackError) {
                    document = try values.document(start: range.start, end: range.end)
                } catch {
                    throw FirePackError(
                        error.code, offset: error.offset, "record \(documents.count): \(error.message)",
                        path: error.path)
                }
                documents.append(document)
                offset = range.end
            }
            return documents
        }
    }

    /// The longest document message FirePack's readers take (`FirestoreProtoReader`'s default: the record limit).
    static var maxDocumentLength: Int { DocumentStreamFormat.defaultMaxRecordLength }

    static func writeDocument(_ document: Document, into writer: inout ProtoWriter) throws(FirePackError) {
        writer.writeStringField(1, document.reference.path)
        let what = "document \(document.reference.path)"
        for (key, value) in document.fields {
            try writer.checkLimit(what)
            let entry = writer.beginMessage(2)
            if !key.isEmpty { writer.writeStringField(1, key) }  // proto3 leaves out the default ""
            let valueMark = writer.beginMessage(2)
            try writeValueBody(value, into: &writer, path: [.key(key)])
            writer.endMessage(valueMark)
            writer.endMessage(entry)
        }
        if let createTime = document.createTime { writeTimestamp(3, createTime, into: &writer) }
        if let updateTime = document.updateTime { writeTimestamp(4, updateTime, into: &writer) }
        try writer.checkLimit(what)
    }

    static func writeTimestamp(_ field: Int, _ timestamp: Timestamp, into writer: inout ProtoWriter) {
        let mark = writer.beginMessage(field)
        if timestamp.seconds != 0 {
            writer.writeTag(1, ProtoWire.varint)
            writer.writeVarint(UInt64(bitPattern: timestamp.seconds))
        }
        if timestamp.nanoseconds != 0 {
            writer.writeTag(2, ProtoWire.varint)
            writer.writeVarint(UInt64(timestamp.nanoseconds))
        }
        writer.endMessage(mark)
    }

    /// The fields of one Value message (its oneof member).
    static func writeValueBody(_ value: Value, into writer: inout ProtoWriter, path: [PathComponent])
        throws(FirePackError)
    {
        switch value {
        case .null:
            writer.writeTag(11, ProtoWire.varint)
            writer.writeVarint(0)
        case .boolean(let flag):
            writer.writeTag(1, ProtoWire.varint)
            writer.writeVarint(flag ? 1 : 0)
        case .integer(let integer):
            writer.writeTag(2, ProtoWire.varint)
            writer.writeVarint(UInt64(bitPattern: integer))
        case .double(let double):
            writer.writeTag(3, ProtoWire.fixed64)
            writer.writeFixed64(double.bitPattern)
        case .timestamp(let timestamp): writeTimestamp(10, timestamp, into: &writer)
        case .string(let string): writer.writeStringField(17, string)
        case .bytes(let data): data.withUnsafeBytes { writer.writeBytesField(18, $0) }
        case .reference(let reference): writer.writeStringField(5, reference.path)
        case .geoPoint(let point):
            let mark = writer.beginMessage(8)
            // Written unless +0.0 (the default), so that -0.0 keeps its sign.
            if point.latitude.bitPattern != 0 {
                writer.writeTag(1, ProtoWire.fixed64)
                writer.writeFixed64(point.latitude.bitPattern)
            }
            if point.longitude.bitPattern != 0 {
                writer.writeTag(2, ProtoWire.fixed64)
                writer.writeFixed64(point.longitude.bitPattern)
            }
            writer.endMessage(mark)
        case .array(let elements):
            let mark = writer.beginMessage(9)
            for (index, element) in elements.enumerated() {
                let elementMark = writer.beginMessage(1)
                try writeValueBody(element, into: &writer, path: path + [.index(index)])
                writer.endMessage(elementMark)
            }
            writer.endMessage(mark)
        case .map(let map):
            try FirestoreVectorForm.checkWritableAsMap(map, path: path)
            try writeMapValue(map, into: &writer, path: path)
        case .vector(let vector):
            try writeMapValue(FirestoreVectorForm.map(of: vector), into: &writer, path: path)
        case .serverTimestamp:
            throw FirePackError(
                .invalidValue,
                "the server-timestamp sentinel has no google.firestore.v1.Value form; resolve it first (Document.resolvingServerTimestamps(at:))",
                path: path)
        }
    }

    /// A `map_value` (field 6) holding `map`'s entries.
    static func writeMapValue(_ map: MapValue, into writer: inout ProtoWriter, path: [PathComponent])
        throws(FirePackError)
    {
        let mark = writer.beginMessage(6)
        for (key, element) in map {
            try writer.checkLimit("the message", path: path)
            let entry = writer.beginMessage(1)
            if !key.isEmpty { writer.writeStringField(1, key) }  // proto3 leaves out the default ""
            let valueMark = writer.beginMessage(2)
            try writeValueBody(element, into: &writer, path: path + [.key(key)])
            writer.endMessage(valueMark)
            writer.endMessage(entry)
        }
        writer.endMessage(mark)
    }
}
