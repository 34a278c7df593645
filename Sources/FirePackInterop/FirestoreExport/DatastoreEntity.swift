import FirePack
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Document {
    /// The document an App Engine Datastore `EntityProto` holds — one record of a Firestore managed export
    /// (`gcloud firestore export`), whose `output-N` files are LevelDB logs of these messages.
    ///
    /// The mapping (Docs/FIRESTORE-EXPORT.md) is Firestore's own: the key's path elements give the document path (a
    /// numeric ID `N` becomes the ID `__idN__`, as Firestore shows Datastore's numeric IDs); properties with
    /// `multiple` set are an array's elements in order, an `EMPTY_LIST` property an empty array; `GD_WHEN` integers
    /// are timestamps (microseconds); `BLOB`/`BYTESTRING` strings are bytes; `ENTITY_PROTO` strings are maps (a map in
    /// Firestore's vector form is a vector); points are geopoints; references name documents (with the
    /// `projects/P/databases/D/documents/` prefix when they point into another project or database); a value with
    /// nothing set is null. Nothing is dropped: a property given twice, a user value, a namespace, a value of two
    /// kinds or bytes that are not protobuf throw `FirePackError` with the byte offset inside `bytes` and the field's
    /// path.
    public init(datastoreEntity bytes: [UInt8], limits: ReaderLimits = .default) throws(FirePackError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(FirePackError) -> Document in
                let reader = DatastoreEntityReader(
                    reader: ProtoReader(base: raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: raw.count),
                    limits: limits)
                return try reader.document()
            }
        }
        self = try result.get()
    }
}

/// Reads an `EntityProto` (App Engine's `storage_onestore_v3` entity_pb, proto2 with groups) into FirePack values.
struct DatastoreEntityReader {
    let reader: ProtoReader
    let limits: ReaderLimits

    /// The `Property.Meaning` values that change how a value reads (entity_pb.proto).
    enum Meaning {
        static let gdWhen: UInt64 = 7
        static let georssPoint: UInt64 = 9
        static let blob: UInt64 = 14
        static let byteString: UInt64 = 16
        static let entityProto: UInt64 = 19
        static let emptyList: UInt64 = 24
    }

    /// Where an entity's key came from, for references that point elsewhere.
    struct Partition: Equatable {
        var project = ""
        var database = ""
    }

    func document() throws(FirePackError) -> Document {
        var key: (start: Int, end: Int)?
        var offset = 0
        while offset < reader.count {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: reader.count)
            if field == 13 && wireType == ProtoWire.lengthDelimited {
                guard key == nil else { throw reader.fail(offset, "the entity has two keys") }
                let range = try reader.getLength(at: payload, end: reader.count)
                key = range
                offset = range.end
            } else {
                offset = try skip(field: field, wireType: wireType, at: payload, end: reader.count)
            }
        }
        guard let key else {
            throw FirePackError(.invalidValue, offset: 0, "the entity has no key: not a document of an export")
        }
        let (path, partition) = try self.key(key)
        let reference: DocumentReference
        do { reference = try DocumentReference(path: path) } catch {
            throw FirePackError(.invalidReference, offset: key.start, "the entity's key: \(error.message)")
        }
        let fields = try properties(start: 0, end: reader.count, depth: 0, path: [], partition: partition)
        return Document(reference: reference, fields: fields)
    }

    // MARK: Keys and references

    /// A `Reference` message: its path elements as a document path, and its project and database.
    private func key(_ range: (start: Int, end: Int)) throws(FirePackError) -> (String, Partition) {
        var partition = Partition()
        var segments: [String] = []
        var offset = range.start
        while offset < range.end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: range.end)
            if let next = try partitionField(field, wireType, at: payload, end: range.end, into: &partition) {
                offset = next
                continue
            }
            switch (field, wireType) {
            case (14, ProtoWire.lengthDelimited):
                // Path: repeated group Element = 1 { type = 2; id = 3; name = 4 }.
                let path = try reader.getLength(at: payload, end: range.end)
                var inner = path.start
                while inner < path.end {
                    let (elementField, elementWire, elementStart) = try reader.getTag(at: inner, end: path.end)
                    if elementField == 1 && elementWire == ProtoWire.startGroup {
                        let (kind, id, next) = try pathElement(
                            at: elementStart, end: path.end, group: 1, typeField: 2, idField: 3, nameField: 4)
                        segments += [kind, id]
                        inner = next
                    } else {
                        inner = try skip(field: elementField, wireType: elementWire, at: elementStart, end: path.end)
                    }
                }
                offset = path.end
            default:
                offset = try skip(field: field, wireType: wireType, at: payload, end: range.end)
            }
        }
        guard !segments.isEmpty else { throw reader.fail(range.start, "the key has no path elements") }
        return (segments.joined(separator: "/"), partition)
    }

    /// One path element group: its kind (collection ID) and its name, or `__idN__` for a numeric ID.
    private func pathElement(
        at start: Int, end: Int, group: Int, typeField: Int, idField: Int,
        nameField: Int
    ) throws(FirePackError) -> (String, String, Int) {
        var kind: String?, id: String?
        var offset = start
        while true {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: end)
            if field == group && wireType == ProtoWire.endGroup {
                guard let kind else { throw reader.fail(start, "a key path element without a kind") }
                guard let id else {
                    throw reader.fail(start, "a key path element without a name or ID (an incomplete key)")
                }
                return (kind, id, payload)
            }
            switch (field, wireType) {
            case (typeField, ProtoWire.lengthDelimited):
                let value = try reader.getLength(at: payload, end: end)
                kind = try segment(value, "kind")
                offset = value.end
            case (nameField, ProtoWire.lengthDelimited):
                let value = try reader.getLength(at: payload, end: end)
                guard id == nil else { throw reader.fail(offset, "a key path element with both a name and an ID") }
                id = try segment(value, "name")
                offset = value.end
            case (idField, ProtoWire.varint):
                let (number, next) = try reader.getVarint(at: payload, end: end)
                guard id == nil else { throw reader.fail(offset, "a key path element with both a name and an ID") }
                guard number > 0 && number <= UInt64(Int64.max) else {
                    throw FirePackError(
                        .invalidReference, offset: offset,
                        "key ID \(Int64(bitPattern: number)): Datastore IDs are 1 … 2⁶³ − 1")
                }
                id = "__id\(number)__"
                offset = next
            default:
                offset = try skip(field: field, wireType: wireType, at: payload, end: end)
            }
        }
    }

    /// A `ReferenceValue` group (app 13, name_space 20, PathElement group 14 { type 15, id 16, name 17 },
    /// database_id 23) as a reference, relative when it points into the entity's own project and database.
    private func referenceValue(at start: Int, end: Int, partition: Partition) throws(FirePackError) -> (Value, Int) {
        var target = Partition()
        var segments: [String] = []
        var offset = start
        while true {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: end)
            if let next = try partitionField(field, wireType, at: payload, end: end, into: &target) {
                offset = next
                continue
            }
            switch (field, wireType) {
            case (12, ProtoWire.endGroup):
                guard !segments.isEmpty else { throw reader.fail(start, "a reference value without path elements") }
                let relative = segments.joined(separator: "/")
                // Unset parts are the entity's own; relative when the reference stays in its project and database.
                let project = target.project.isEmpty ? partition.project : target.project
                let database = target.database.isEmpty ? partition.database : target.database
                let path =
                    project == partition.project && database == partition.database
                    ? relative
                    : "projects/\(project)/databases/\(database.isEmpty ? "(default)" : database)/documents/\(relative)"
                do { return (.reference(try DocumentReference(path: path)), payload) } catch {
                    throw FirePackError(.invalidReference, offset: start, error.message)
                }
            case (14, ProtoWire.startGroup):
                let (kind, id, next) = try pathElement(
                    at: payload, end: end, group: 14, typeField: 15, idField: 16, nameField: 17)
                segments += [kind, id]
                offset = next
            default:
                offset = try skip(field: field, wireType: wireType, at: payload, end: end)
            }
        }
    }

    /// A kind, name, project or database: a `/` in it would make the joined path name another document.
    private func segment(_ range: (start: Int, end: Int), _ what: String) throws(FirePackError) -> String {
        let text = try reader.readString(range)
        guard !text.utf8.contains(UInt8(ascii: "/")) else {
            throw FirePackError(
                .invalidReference, offset: range.start,
                "a key \(what) with a '/' in it (\(text.debugDescription)) names no single document")
        }
        return text
    }

    /// Reads the fields a key and a reference value share — app (13), name_space (20), database_id (23) — into
    /// `partition` and returns the offset after the field, or nil for any other field. Firestore has no namespaces:
    /// an entity in one (Datastore mode) has no Firestore path to be written at.
    private func partitionField(
        _ field: Int, _ wireType: Int, at payload: Int, end: Int,
        into partition: inout Partition
    ) throws(FirePackError) -> Int? {
        guard wireType == ProtoWire.lengthDelimited, field == 13 || field == 20 || field == 23 else { return nil }
        let value = try reader.getLength(at: payload, end: end)
        switch field {
        case 13: partition.project = Self.project(fromApp: try segment(value, "project"))
        case 23: partition.database = try segment(value, "database")
        default:
            let namespace = try reader.readString(value)
            guard namespace.isEmpty else {
                throw reader.fail(
                    value.start,
                    "namespace '\(namespace)': Firestore documents have no namespace, so this entity has no document path"
                )
            }
        }
        return value.end
    }

    /// `s~project` (App Engine's partition prefix) → `project`.
    static func project(fromApp app: String) -> String {
        guard let tilde = app.firstIndex(of: "~") else { return app }
        return String(app[app.index(after: tilde)...])
    }

    // MARK: Properties

    /// The fields of the entity whose message is `start ..< end`: its `property` (14) entries, then its
    /// `raw_property` (15) ones, as Datastore's own reader lists them.
    private func properties(
        start: Int, end: Int, depth: Int, path: [PathComponent],
        partition: Partition
    ) throws(FirePackError) -> MapValue {
        guard depth < limits.maxDepth else {
            throw FirePackError(
                .depthLimitExceeded, offset: start, "entities nested deeper than \(limits.maxDepth)", path: path)
        }
        var indexed: [(start: Int, end: Int)] = [], unindexed: [(start: Int, end: Int)] = []
        var offset = start
        while offset < end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: end)
            if (field == 14 || field == 15) && wireType == ProtoWire.lengthDelimited {
                let range = try reader.getLength(at: payload, end: end)
                if field == 14 { indexed.append(range) } else { unindexed.append(range) }
                offset = range.end
            } else {
                offset = try skip(field: field, wireType: wireType, at: payload, end: end)
            }
        }
        var map = MapValue()
        /// The elements of the fields made of `multiple` properties, filled in at the end (their place in `map` is
        /// where the first element came; appending to a list held in the map would copy it per element).
        var lists: [[UInt8]: [Value]] = [:]  // by the name's bytes: keys are compared byte for byte
        for range in indexed + unindexed {
            let property = try self.property(range, depth: depth, path: path, partition: partition)
            let fieldPath = path + [.key(property.name)]
            guard map.count < limits.maxElementCount else {
                throw FirePackError(
                    .limitExceeded, offset: range.start, "more than \(limits.maxElementCount) properties", path: path)
            }
            let name = Array(property.name.utf8)
            if map[property.name] != nil {
                guard property.multiple, lists[name] != nil else {
                    throw FirePackError(
                        .duplicateKey, offset: range.start, "the property '\(property.name)' is given twice",
                        path: fieldPath)
                }
                guard lists[name]!.count < limits.maxElementCount else {
                    throw FirePackError(
                        .limitExceeded, offset: range.start, "more than \(limits.maxElementCount) elements",
                        path: fieldPath)
                }
                lists[name]!.append(property.value)
            } else {
                map[property.name] = property.multiple ? .null : property.value
                if property.multiple { lists[name] = [property.value] }
            }
        }
        for (name, elements) in lists { map[String(decoding: name, as: UTF8.self)] = .array(elements) }
        return map
    }

    /// A `Property` message: its name, its value read by its meaning, and whether it is a list element.
    private func property(
        _ range: (start: Int, end: Int), depth: Int, path: [PathComponent],
        partition: Partition
    ) throws(FirePackError) -> (name: String, value: Value, multiple: Bool) {
        var meaning: UInt64 = 0, multiple = false
        var name: String?, valueRange: (start: Int, end: Int)?
        var offset = range.start
        while offset < range.end {
            let (field, wireType, payload) = try reader.getTag(at: offset, end: range.end)
            switch (field, wireType) {
            case (1, ProtoWire.varint): (meaning, offset) = try reader.getVarint(at: payload, end: range.end)
            case (4, ProtoWire.varint):
                let (flag, next) = try reader.getVarint(at: payload, end: range.end)
                (multiple, offset) = (flag != 0, next)
            case (3, ProtoWire.lengthDelimited):
                let value = try reader.getLength(at: payload, end: range.end)
                name = try reader.readString(value)
                offset = value.end
            case (5, ProtoWire.lengthDelimited):
                let value = try reader.getLength(at: payload, end: range.end)
                valueRange = value
                offset = value.end
            case (2, ProtoWire.lengthDelimited):
                // meaning_uri: "ZLIB" once marked a compressed blob; no Firestore export writes one.
                let value = try reader.getLength(at: payload, end: range.end)
                guard value.start == value.end else {
                    throw reader.fail(
                        offset,
                        "a property with a meaning_uri (\((try? reader.readString(value)) ?? "?")): not a Firestore value"
                    )
                }
                offset = value.end
            case (1...5, _):
                throw reader.fail(offset, "property field \(field) with wire type \(wireType)")
            default:
                offset = try skip(field: field, wireType: wireType, at: payload, end: range.end)
            }
        }
        guard let name else { throw reader.fail(range.start, "a property without a name") }
        let fieldPath = path + [.key(name)]
        if meaning == Meaning.emptyList {
            // An empty list is a property with this meaning and no value (a null one); one that holds a value, or
            // that is itself one of a list's values, would have that value dropped: refused.
            guard !multiple, valueRange.map({ $0.start == $0.end }) ?? true else {
                throw FirePackError(
                    .invalidValue, offset: range.start,
                    "a property whose meaning is EMPTY_LIST \(multiple ? "is one of a list's values" : "holds a value"): an empty list holds none",
                    path: fieldPath)
            }
            return (name, .array([]), false)
        }
        guard let valueRange else {
            throw FirePackError(.invalidValue, offset: range.start, "a property without a value", path: fieldPath)
        }
        // A list is a level of nesting too (a map in a list in a map is three deep, as FirePack readers count).
        let value = try self.value(
            valueRange, meaning: meaning, depth: multiple ? depth + 1 : depth, path: fieldPath, partition: partition)
        return (name, value, multiple)
    }

    /// A `PropertyValue` message read by the property's meaning; a value with nothing set is null.
    private func value(
        _ range: (start: Int, end: Int), meaning: UInt64, depth: Int, path: [PathComponent],
        partition: Partition
    ) throws(FirePackError) -> Value {
        var result: Value?
        var offset = range.start
        while offset < range.end {
            let fieldStart = offset
            let (field, wireType, payload) = try reader.getTag(at: offset, end: range.end)
            var read: Value?
            switch (field, wireType) {
            case (1, ProtoWire.varint):
                let (bits, next) = try reader.getVarint(at: payload, end: range.end)
                let integer = Int64(bitPattern: bits)
                read =
                    meaning == Meaning.gdWhen
                    ? .timestamp(try Self.timestamp(microseconds: integer)) : .integer(integer)
                offset = next
            case (2, ProtoWire.varint):
                let (flag, next) = try reader.getVarint(at: payload, end: range.end)
                (read, offset) = (.boolean(flag != 0), next)
            case (3, ProtoWire.lengthDelimited):
                let bytes = try reader.getLength(at: payload, end: range.end)
                switch meaning {
                case Meaning.blob, Meaning.byteString:
                    read = .bytes(
                        Data(UnsafeRawBufferPointer(start: reader.base + bytes.start, count: bytes.end - bytes.start)))
                case Meaning.entityProto:
                    let map = try properties(
                        start: bytes.start, end: bytes.end, depth: depth + 1, path: path, partition: partition)
                    read = FirestoreVectorForm.vector(in: map).map(Value.vector) ?? .map(map)
                default:
                    do { read = .string(try reader.readString(bytes)) } catch {
                        throw FirePackError(
                            error.code, offset: error.offset,
                            "\(error.message) (a string property; bytes would have the BLOB or BYTESTRING meaning)",
                            path: path)
                    }
                }
                offset = bytes.end
            case (4, ProtoWire.fixed64):
                let (bits, next) = try reader.readFixed64(at: payload, end: range.end)
                (read, offset) = (.double(Double(bitPattern: bits)), next)
            case (5, ProtoWire.startGroup):
                // PointValue { required double x = 6; required double y = 7 }: latitude, longitude.
                var x: Double?, y: Double?
                var inner = payload
                while true {
                    let (pointField, pointWire, pointPayload) = try reader.getTag(at: inner, end: range.end)
                    if pointField == 5 && pointWire == ProtoWire.endGroup {
                        inner = pointPayload
                        break
                    }
                    if (pointField == 6 || pointField == 7) && pointWire == ProtoWire.fixed64 {
                        let (bits, next) = try reader.readFixed64(at: pointPayload, end: range.end)
                        if pointField == 6 { x = Double(bitPattern: bits) } else { y = Double(bitPattern: bits) }
                        inner = next
                    } else {
                        inner = try skip(field: pointField, wireType: pointWire, at: pointPayload, end: range.end)
                    }
                }
                guard let x, let y else {
                    throw FirePackError(
                        .invalidValue, offset: fieldStart, "a point value without both coordinates", path: path)
                }
                do { read = .geoPoint(try GeoPoint(validatingLatitude: x, longitude: y)) } catch {
                    throw FirePackError(error.code, offset: fieldStart, error.message, path: path)
                }
                offset = inner
            case (8, ProtoWire.startGroup):
                throw FirePackError(
                    .invalidValue, offset: fieldStart, "a Datastore user value: not a Firestore type", path: path)
            case (12, ProtoWire.startGroup):
                (read, offset) = try referenceValue(at: payload, end: range.end, partition: partition)
            default:
                // A field this reader does not know, or a known one of another wire type, would be a value lost.
                throw FirePackError(
                    .invalidValue, offset: fieldStart,
                    "property value field \(field) with wire type \(wireType) is not one Firestore writes", path: path)
            }
            if let read {
                guard result == nil else {
                    throw FirePackError(.invalidValue, offset: fieldStart, "a property value of two kinds", path: path)
                }
                result = read
            }
        }
        if meaning == Meaning.gdWhen, let result {
            guard case .timestamp = result else {
                throw FirePackError(
                    .invalidValue, offset: range.start, "a GD_WHEN (timestamp) property whose value is not an integer",
                    path: path)
            }
        }
        return result ?? .null
    }

    /// Datastore's microseconds since the epoch as a timestamp (floor division: before 1970 too). Every Int64 is a
    /// timestamp FirePack holds, also outside Firestore's years 1–9999 (the validating initializer, which never
    /// traps; it cannot throw here, as the nanoseconds are always in range).
    static func timestamp(microseconds: Int64) throws(FirePackError) -> Timestamp {
        let (seconds, remainder) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        return remainder < 0
            ? try Timestamp(validatingSeconds: seconds - 1, nanoseconds: Int32(remainder + 1_000_000) * 1_000)
            : try Timestamp(validatingSeconds: seconds, nanoseconds: Int32(remainder) * 1_000)
    }

    /// Skips a field of any wire type, groups included (proto2: a group ends at the end tag of its own number).
    private func skip(field: Int, wireType: Int, at offset: Int, end: Int) throws(FirePackError) -> Int {
        guard wireType == ProtoWire.startGroup else {
            if wireType == ProtoWire.endGroup { throw reader.fail(offset, "protobuf group end with no group open") }
            return try reader.skip(wireType: wireType, at: offset, end: end)
        }
        // Nested groups are counted, not recursed into: a crafted message of deep groups costs no stack.
        var open = [field]
        var position = offset
        while let innermost = open.last {
            guard open.count <= limits.maxDepth else {
                throw FirePackError(
                    .depthLimitExceeded, offset: position, "protobuf groups nested deeper than \(limits.maxDepth)")
            }
            let (inner, innerWire, payload) = try reader.getTag(at: position, end: end)
            switch innerWire {
            case ProtoWire.startGroup:
                open.append(inner)
                position = payload
            case ProtoWire.endGroup:
                guard inner == innermost else {
                    throw reader.fail(position, "protobuf group \(innermost) ends with the end tag of \(inner)")
                }
                open.removeLast()
                position = payload
            default: position = try reader.skip(wireType: innerWire, at: payload, end: end)
            }
        }
        return position
    }
}
