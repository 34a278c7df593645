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
        try FirestoreFormsFromBytes.withBytes(of: value) { reader throws(FirePackError) in
            var writer = ProtoWriter(limit: 1 << 31)  // what `Value(firestoreProto:)` reads: the input limit
            var place = ValuePlace()
            try writeValueBody(&reader, into: &writer, at: &place)
            try writer.checkLimit("the value")
            return writer.bytes
        }
    }

    /// A `google.firestore.v1.Document` message.
    static func encode(_ document: Document) throws(FirePackError) -> [UInt8] {
        try FirestoreFormsFromBytes.withRecord(of: document) { record throws(FirePackError) in
            try encode(record: record, limits: FirestoreFormsFromBytes.ownBytesLimits)
        }
    }

    /// A `google.firestore.v1.Document` message of the document a stream's record holds, written from its bytes.
    static func encode(record: UnsafeRawBufferPointer, limits: ReaderLimits, serverTime: Timestamp? = nil)
        throws(FirePackError) -> [UInt8]
    {
        var writer = ProtoWriter(limit: maxDocumentLength)
        try writeDocument(record: record, limits: limits, serverTime: serverTime, into: &writer)
        return writer.bytes
    }

    /// Appends a document as a varint-length-delimited message (the `writeDelimitedTo` convention).
    static func appendDelimited(_ document: Document, to bytes: inout [UInt8]) throws(FirePackError) {
        appendDelimited(message: try encode(document), to: &bytes)
    }

    /// Appends `message` with its varint length before it.
    static func appendDelimited(message: [UInt8], to bytes: inout [UInt8]) {
        var prefix = ProtoWriter()
        prefix.writeVarint(UInt64(message.count))
        bytes += prefix.bytes
        bytes += message
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

    static func writeDocument(
        record: UnsafeRawBufferPointer, limits: ReaderLimits, serverTime: Timestamp? = nil,
        into writer: inout ProtoWriter
    ) throws(FirePackError) {
        var (reference, fields, createTime, updateTime) = try Document.recordParts(
            record, limits: limits)
        writer.writeStringField(1, reference.path)
        let what = "document \(reference.path)"
        let map = try fields.enterMap()
        var place = ValuePlace(serverTime: serverTime)
        for _ in 0..<map.count {
            try writer.checkLimit(what)
            try writeEntry(2, &fields, into: &writer, at: &place)
        }
        try fields.exitMap(map)
        if let createTime { writeTimestamp(3, createTime, into: &writer) }
        if let updateTime { writeTimestamp(4, updateTime, into: &writer) }
        try writer.checkLimit(what)
    }

    /// A map entry message (`key` 1, `value` 2) as field `field`, from the entry at the cursor.
    static func writeEntry(
        _ field: Int, _ reader: inout FirePackReader, into writer: inout ProtoWriter, at place: inout ValuePlace
    ) throws(FirePackError) {
        let key = try reader.readKey()
        let entry = writer.beginMessage(field)
        if key.count > 0 { writer.writeBytesField(1, key.utf8) }  // proto3 leaves out the default ""
        let valueMark = writer.beginMessage(2)
        place.enter(key: key)
        try writeValueBody(&reader, into: &writer, at: &place)
        place.leave()
        writer.endMessage(valueMark)
        writer.endMessage(entry)
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

    /// The fields of one Value message (its oneof member), from the value at the cursor, moving past it.
    static func writeValueBody(
        _ reader: inout FirePackReader, into writer: inout ProtoWriter, at place: inout ValuePlace
    )
        throws(FirePackError)
    {
        switch try reader.peekType() {
        case .null:
            _ = try reader.readNull()
            writer.writeTag(11, ProtoWire.varint)
            writer.writeVarint(0)
        case .boolean:
            writer.writeTag(1, ProtoWire.varint)
            writer.writeVarint(try reader.readBoolean() ? 1 : 0)
        case .integer:
            writer.writeTag(2, ProtoWire.varint)
            writer.writeVarint(UInt64(bitPattern: try reader.readInteger()))
        case .double: writeDouble(3, try reader.readDouble(), into: &writer)
        case .timestamp: writeTimestamp(10, try reader.readTimestamp(), into: &writer)
        case .string: writer.writeBytesField(17, try reader.readString().utf8)
        case .bytes: writer.writeBytesField(18, try reader.readBytes().bytes)
        case .reference: writer.writeStringField(5, try reader.readReference().path)
        case .geoPoint:
            let point = try reader.readGeoPoint()
            let mark = writer.beginMessage(8)
            // Written unless +0.0 (the default), so that -0.0 keeps its sign.
            if point.latitude.bitPattern != 0 { writeDouble(1, point.latitude, into: &writer) }
            if point.longitude.bitPattern != 0 { writeDouble(2, point.longitude, into: &writer) }
            writer.endMessage(mark)
        case .array:
            let array = try reader.enterArray()
            let mark = writer.beginMessage(9)
            for index in 0..<array.count {
                // Each element, as each map entry: packed rows are a byte a row in FirePack and up to 17 here.
                try writer.checkLimit("the message", path: place.path)
                let elementMark = writer.beginMessage(1)
                place.enter(index: index)
                try writeValueBody(&reader, into: &writer, at: &place)
                place.leave()
                writer.endMessage(elementMark)
            }
            try reader.exitArray(array)
            writer.endMessage(mark)
        case .map:
            try FirestoreVectorForm.checkWritableAsMap(reader, place: place)
            let map = try reader.enterMap()
            let mark = writer.beginMessage(6)
            for _ in 0..<map.count {
                try writer.checkLimit("the message", path: place.path)
                try writeEntry(1, &reader, into: &writer, at: &place)
            }
            try reader.exitMap(map)
            writer.endMessage(mark)
        case .vector:
            // Firestore's form: a map {__type__: "__vector__", value: [doubles]}.
            let vector = try reader.readVector()
            let mark = writer.beginMessage(6)
            let typeEntry = writer.beginMessage(1)
            writer.writeStringField(1, "__type__")
            let typeValue = writer.beginMessage(2)
            writer.writeStringField(17, "__vector__")
            writer.endMessage(typeValue)
            writer.endMessage(typeEntry)
            let valueEntry = writer.beginMessage(1)
            writer.writeStringField(1, "value")
            let value = writer.beginMessage(2)
            let array = writer.beginMessage(9)
            for index in 0..<vector.count {
                try writer.checkLimit("the message", path: place.path)
                let element = writer.beginMessage(1)
                writeDouble(3, vector[index], into: &writer)
                writer.endMessage(element)
            }
            writer.endMessage(array)
            writer.endMessage(value)
            writer.endMessage(valueEntry)
            writer.endMessage(mark)
        case .serverTimestamp:
            guard let time = place.serverTime else {
                throw place.serverTimestampError("google.firestore.v1.Value form")
            }
            try reader.skipValue()
            writeTimestamp(10, time, into: &writer)
        }
    }

    /// A double as a fixed64 field: every bit kept, NaN payloads too.
    static func writeDouble(_ field: Int, _ double: Double, into writer: inout ProtoWriter) {
        writer.writeTag(field, ProtoWire.fixed64)
        writer.writeFixed64(double.bitPattern)
    }
}
