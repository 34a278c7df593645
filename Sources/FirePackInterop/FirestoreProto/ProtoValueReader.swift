import FirePack
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Firestore's Value and Document messages straight from the bytes into `Value`s.
struct ProtoValueReader {
    let reader: ProtoReader
    let limits: ReaderLimits

    /// A Value message occupying `start ..< end`.
    func value(start: Int, end: Int, depth: Int) throws(FirePackError) -> Value {
        guard depth <= limits.maxDepth else {
            throw FirePackError(
                .depthLimitExceeded, offset: start, "protobuf values nested deeper than \(limits.maxDepth)")
        }
        var result = Value.null
        // A message field of the oneof given again merges into the one before, as protobuf parsers merge a repeated
        // embedded message: an array's values are appended, a map's entries added (a repeated key keeps its last
        // value), a timestamp's or geopoint's fields given again replace those before. `fields` is the map so far
        // (a map is told from a vector at the end).
        var last = 0
        var fields: MapValue?
        var offset = start
        while offset < end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: end)
            defer { last = field }
            if field != 6 { fields = nil }
            switch (field, wireType) {
            case (11, ProtoWire.varint): (result, offset) = (.null, try reader.getVarint(at: payload, end: end).1)
            case (1, ProtoWire.varint):
                let (flag, next) = try reader.getVarint(at: payload, end: end)
                (result, offset) = (.boolean(flag != 0), next)
            case (2, ProtoWire.varint):
                let (integer, next) = try reader.getVarint(at: payload, end: end)
                (result, offset) = (.integer(Int64(bitPattern: integer)), next)
            case (3, ProtoWire.fixed64):
                let (bits, next) = try reader.readFixed64(at: payload, end: end)
                (result, offset) = (.double(Double(bitPattern: bits)), next)
            case (10, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                let before: Timestamp? = if last == 10, case .timestamp(let time) = result { time } else { nil }
                (result, offset) = (.timestamp(try timestamp(range, merging: before)), range.end)
            case (17, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                (result, offset) = (.string(try reader.readString(range)), range.end)
            case (18, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                (result, offset) = (
                    .bytes(
                        Data(UnsafeRawBufferPointer(start: reader.base + range.start, count: range.end - range.start))),
                    range.end
                )
            case (5, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                let path = try reader.readString(range)
                do { result = .reference(try DocumentReference(path: path)) } catch {
                    throw FirePackError(.invalidReference, offset: range.start, error.message)
                }
                offset = range.end
            case (8, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                let before: GeoPoint? = if last == 8, case .geoPoint(let point) = result { point } else { nil }
                (result, offset) = (.geoPoint(try geoPoint(range, merging: before)), range.end)
            case (9, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                // Taken out of `result` before growing, so that its storage is not copied per occurrence.
                var elements: [Value] = []
                if last == 9, case .array(let before) = result { (elements, result) = (before, .null) }
                try array(range, depth: depth, appendingTo: &elements)
                (result, offset) = (.array(elements), range.end)
            case (6, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                // Taken out of `fields` and `result` before growing, so that its storage is not copied per occurrence.
                var map = fields ?? MapValue()
                (fields, result) = (nil, .null)
                try self.fields(range, fieldNumber: 1, depth: depth, into: &map)
                fields = map
                result = FirestoreVectorForm.vector(in: map).map(Value.vector) ?? .map(map)
                offset = range.end
            default:
                // Skipping an unknown field would drop data without a word: a converter refuses it instead.
                throw FirePackError(
                    .invalidValue, offset: offset,
                    "field \(field) (wire type \(wireType)) is not a google.firestore.v1.Value field FirePack can convert"
                )
            }
        }
        return result
    }

    /// A Timestamp message; `merging` is the one an earlier occurrence of the same field gave, whose fields this one's
    /// replace.
    func timestamp(_ range: (start: Int, end: Int), merging before: Timestamp? = nil) throws(FirePackError)
        -> Timestamp
    {
        var seconds: Int64 = before?.seconds ?? 0, nanos = Int64(before?.nanoseconds ?? 0)
        var offset = range.start
        while offset < range.end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: range.end)
            switch (field, wireType) {
            case (1, ProtoWire.varint):
                let (value, next) = try reader.getVarint(at: payload, end: range.end)
                (seconds, offset) = (Int64(bitPattern: value), next)
            case (2, ProtoWire.varint):
                let (value, next) = try reader.getVarint(at: payload, end: range.end)
                (nanos, offset) = (Int64(Int32(truncatingIfNeeded: value)), next)
            default: throw unexpected(field, wireType, at: offset, in: "google.protobuf.Timestamp")
            }
        }
        guard nanos >= 0 && nanos < 1_000_000_000 else {
            throw FirePackError(
                .invalidTimestamp, offset: range.start, "timestamp nanos \(nanos) outside 0 ..< 1000000000")
        }
        return try Timestamp(validatingSeconds: seconds, nanoseconds: Int32(nanos))
    }

    /// A LatLng message; `merging` is the one an earlier occurrence of the same field gave, whose fields this one's
    /// replace.
    func geoPoint(_ range: (start: Int, end: Int), merging before: GeoPoint? = nil) throws(FirePackError) -> GeoPoint {
        var latitude = before?.latitude ?? 0, longitude = before?.longitude ?? 0
        var offset = range.start
        while offset < range.end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: range.end)
            switch (field, wireType) {
            case (1, ProtoWire.fixed64):
                let (bits, next) = try reader.readFixed64(at: payload, end: range.end)
                (latitude, offset) = (Double(bitPattern: bits), next)
            case (2, ProtoWire.fixed64):
                let (bits, next) = try reader.readFixed64(at: payload, end: range.end)
                (longitude, offset) = (Double(bitPattern: bits), next)
            default: throw unexpected(field, wireType, at: offset, in: "google.type.LatLng")
            }
        }
        do { return try GeoPoint(validatingLatitude: latitude, longitude: longitude) } catch {
            throw FirePackError(.invalidGeoPoint, offset: range.start, error.message)
        }
    }

    /// Appends the values of an ArrayValue message to `elements`.
    func array(_ range: (start: Int, end: Int), depth: Int, appendingTo elements: inout [Value]) throws(FirePackError) {
        var offset = range.start
        while offset < range.end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: range.end)
            if field == 1 && wireType == ProtoWire.lengthDelimited {
                let element = try reader.getLength(at: payload, end: range.end)
                do {
                    elements.append(try value(start: element.start, end: element.end, depth: depth + 1))
                } catch {
                    throw error.prefixingPath(with: .index(elements.count))
                }
                offset = element.end
            } else {
                throw unexpected(field, wireType, at: offset, in: "google.firestore.v1.ArrayValue")
            }
            guard elements.count <= limits.maxElementCount else {
                throw FirePackError(.limitExceeded, offset: offset, "more than \(limits.maxElementCount) array values")
            }
        }
    }

    /// Adds to `map` the entries of a `map<string, Value>` field (`fieldNumber` in the message at `range`, a MapValue
    /// or a Document); a repeated key keeps its last value, as protobuf maps do.
    func fields(_ range: (start: Int, end: Int), fieldNumber: Int, depth: Int, into map: inout MapValue)
        throws(FirePackError)
    {
        var offset = range.start
        while offset < range.end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: range.end)
            guard field == fieldNumber && wireType == ProtoWire.lengthDelimited else {
                throw unexpected(field, wireType, at: offset, in: "google.firestore.v1.MapValue")
            }
            let entry = try reader.getLength(at: payload, end: range.end)
            var key = "", element = Value.null
            var cursor = entry.start
            while cursor < entry.end {
                let (entryField, entryWireType, entryPayload) = try reader.getTag(at: cursor, end: entry.end)
                switch (entryField, entryWireType) {
                case (1, ProtoWire.lengthDelimited):
                    let keyRange = try reader.getLength(at: entryPayload, end: entry.end)
                    (key, cursor) = (try reader.readString(keyRange), keyRange.end)
                case (2, ProtoWire.lengthDelimited):
                    let valueRange = try reader.getLength(at: entryPayload, end: entry.end)
                    do {
                        element = try value(start: valueRange.start, end: valueRange.end, depth: depth + 1)
                    } catch {
                        throw error.prefixingPath(with: .key(key))
                    }
                    cursor = valueRange.end
                default: throw unexpected(entryField, entryWireType, at: cursor, in: "a map entry")
                }
            }
            map[key] = element
            guard map.count <= limits.maxElementCount else {
                throw FirePackError(.limitExceeded, offset: offset, "more than \(limits.maxElementCount) map entries")
            }
            offset = entry.end
        }
    }

    /// A field that the message does not have (or has with another wire type): skipping it would drop data without a
    /// word, so a converter refuses it.
    func unexpected(_ field: Int, _ wireType: Int, at offset: Int, in message: String) -> FirePackError {
        FirePackError(
            .invalidValue, offset: offset,
            "field \(field) (wire type \(wireType)) is not a \(message) field FirePack can convert")
    }

    func document(start: Int, end: Int) throws(FirePackError) -> Document {
        var name: String?
        var documentFields = MapValue()
        var createTime: Timestamp?, updateTime: Timestamp?
        var offset = start
        while offset < end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: end)
            switch (field, wireType) {
            case (1, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                (name, offset) = (try reader.readString(range), range.end)
            case (2, ProtoWire.lengthDelimited):
                // Each map entry is its own field 2 occurrence: read this one entry.
                let entryEnd = try reader.getLength(at: payload, end: end).end
                try fields((offset, entryEnd), fieldNumber: 2, depth: 0, into: &documentFields)
                offset = entryEnd
            case (3, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                (createTime, offset) = (try timestamp(range, merging: createTime), range.end)
            case (4, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                (updateTime, offset) = (try timestamp(range, merging: updateTime), range.end)
            default:
                throw FirePackError(
                    .invalidDocument, offset: offset,
                    "field \(field) (wire type \(wireType)) is not a google.firestore.v1.Document field FirePack can convert"
                )
            }
        }
        guard let name else { throw FirePackError(.invalidValue, offset: start, "document message has no name") }
        do {
            return Document(
                reference: try DocumentReference(path: name), fields: documentFields, createTime: createTime,
                updateTime: updateTime)
        } catch {
            throw FirePackError(.invalidReference, offset: start, error.message)
        }
    }
}
