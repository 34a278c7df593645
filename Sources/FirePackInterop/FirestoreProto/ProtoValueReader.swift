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
        var offset = start
        while offset < end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: end)
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
                (result, offset) = (.timestamp(try timestamp(range)), range.end)
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
                (result, offset) = (.geoPoint(try geoPoint(range)), range.end)
            case (9, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                (result, offset) = (.array(try array(range, depth: depth)), range.end)
            case (6, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                let map = try fields(range, fieldNumber: 1, depth: depth)
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

    func timestamp(_ range: (start: Int, end: Int)) throws(FirePackError) -> Timestamp {
        var seconds: Int64 = 0, nanos: Int64 = 0
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
            default: offset = try reader.skip(wireType: wireType, at: payload, end: range.end)
            }
        }
        guard nanos >= 0 && nanos < 1_000_000_000 else {
            throw FirePackError(
                .invalidTimestamp, offset: range.start, "timestamp nanos \(nanos) outside 0 ..< 1000000000")
        }
        return try Timestamp(validatingSeconds: seconds, nanoseconds: Int32(nanos))
    }

    func geoPoint(_ range: (start: Int, end: Int)) throws(FirePackError) -> GeoPoint {
        var latitude = 0.0, longitude = 0.0
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
            default: offset = try reader.skip(wireType: wireType, at: payload, end: range.end)
            }
        }
        do { return try GeoPoint(validatingLatitude: latitude, longitude: longitude) } catch {
            throw FirePackError(.invalidGeoPoint, offset: range.start, error.message)
        }
    }

    func array(_ range: (start: Int, end: Int), depth: Int) throws(FirePackError) -> [Value] {
        var elements: [Value] = []
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
                offset = try reader.skip(wireType: wireType, at: payload, end: range.end)
            }
            guard elements.count <= limits.maxElementCount else {
                throw FirePackError(.limitExceeded, offset: offset, "more than \(limits.maxElementCount) array values")
            }
        }
        return elements
    }

    /// The entries of a `map<string, Value>` field (`fieldNumber` in the message at `range`); a repeated key keeps
    /// its last value, as protobuf maps do.
    func fields(_ range: (start: Int, end: Int), fieldNumber: Int, depth: Int) throws(FirePackError) -> MapValue {
        var map = MapValue()
        var offset = range.start
        while offset < range.end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: range.end)
            guard field == fieldNumber && wireType == ProtoWire.lengthDelimited else {
                offset = try reader.skip(wireType: wireType, at: payload, end: range.end)
                continue
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
                default: cursor = try reader.skip(wireType: entryWireType, at: entryPayload, end: entry.end)
                }
            }
            map[key] = element
            guard map.count <= limits.maxElementCount else {
                throw FirePackError(.limitExceeded, offset: offset, "more than \(limits.maxElementCount) map entries")
            }
            offset = entry.end
        }
        return map
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
                for (key, value) in try fields((offset, entryEnd), fieldNumber: 2, depth: 0) {
                    documentFields[key] = value
                }
                offset = entryEnd
            case (3, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                (createTime, offset) = (try timestamp(range), range.end)
            case (4, ProtoWire.lengthDelimited):
                let range = try reader.getLength(at: payload, end: end)
                (updateTime, offset) = (try timestamp(range), range.end)
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
