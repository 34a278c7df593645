import FirePack
import FirePackInterop
import FirePackStreams

extension FuzzTarget {
    /// Plain JSON: whatever parses is written in the reversible form and parses back to the same value.
    public static let json = FuzzTarget(name: "json", summary: "Value(json:); reversible JSON round trip") { input in
        var check = FuzzCheck(input)
        _ = check.attempt("parse without markers") { try Value(json: input, options: JSONOptions(readsMarkers: false)) }
        guard let value = check.attempt("parse", { try Value(json: input) }) else { return check.outcome }
        for options in [JSONOptions(), JSONOptions(pretty: true, sortedKeys: true)] {
            let again = check.attempt("re-parse") { try Value(json: value.jsonBytes(options: options)) }
            check.expect(again == value.sortingKeys(options.sortedKeys), "the reversible JSON round trip changed the value")
        }
        return check.outcome
    }

    /// JSON lines into a stream, by the one pass (`appendNext(to:)`) and by the tree path (`next()`), under three
    /// namings: the same records, or the same error (code, offset, message, JSON path). Every error names a byte
    /// inside the input.
    public static let jsonLines = FuzzTarget(
        name: "json-lines", summary: "JSONLinesReader: the one pass against the tree path, bytes and errors"
    ) { input in
        var check = FuzzCheck(input)
        func convert(direct: Bool, idField: String?, keepsIDField: Bool) -> Result<[UInt8], FirePackError> {
            let naming = DocumentNaming(
                collection: "c", idField: idField, generatesMissingIDs: true, keepsIDField: keepsIDField,
                deterministic: true)
            let reader = JSONLinesReader(MemorySource(input), naming: naming)
            let sink = MemorySink()
            do {
                let stream = try DocumentStreamWriter(sink: sink)
                if direct {
                    while try reader.appendNext(to: stream) {}
                } else {
                    while let document = try reader.next() { try stream.append(document) }
                }
                try stream.close()
                return .success(sink.bytes)
            } catch let error as FirePackError {
                return .failure(error)
            } catch {
                return .failure(FirePackError(.invalidValue, "\(error)"))
            }
        }
        for (idField, keeps) in [(nil, false), ("id", false), ("id", true)] as [(String?, Bool)] {
            let direct = convert(direct: true, idField: idField, keepsIDField: keeps)
            let tree = convert(direct: false, idField: idField, keepsIDField: keeps)
            switch (direct, tree) {
            case (.success(let a), .success(let b)):
                check.expect(a == b, "the one pass wrote other bytes than the tree path")
            case (.failure(let a), .failure(let b)):
                check.expect(
                    a.code == b.code && a.offset == b.offset && a.message == b.message
                        && a.pathDescription == b.pathDescription,
                    "the paths disagree: \(a) / \(b)")
                check.attempt("convert") { throw a }
            case (.success, .failure(let error)):
                check.expect(false, "the one pass took what the tree path refuses: \(error)")
            case (.failure(let error), .success):
                check.expect(false, "the one pass refused what the tree path takes: \(error)")
            }
        }
        return check.outcome
    }

    /// Firestore REST typed JSON, as a value and as a document; whatever reads is written and reads back the same.
    public static let restJSON = FuzzTarget(name: "rest-json", summary: "FirestoreJSON value and document; round trip") { input in
        var check = FuzzCheck(input)
        if let value = check.attempt("value", { try Value(firestoreJSON: input) }) {
            let again = check.attempt("re-read value") { try Value(firestoreJSON: value.firestoreJSONBytes()) }
            check.expect(again.map { $0.equalsIgnoringNaNPayloads(value) } ?? false, "the REST JSON value round trip changed the value")
        }
        if let document = check.attempt("document", { try Document(firestoreJSON: input) }) {
            let again = check.attempt("re-read document") { try Document(firestoreJSON: document.firestoreJSONBytes()) }
            check.expect(again.map { $0.equalsIgnoringNaNPayloads(document) } ?? false, "the REST JSON document round trip changed the document")
        }
        return check.outcome
    }

    /// Firestore protobuf: a Value message, a Document message and varint-delimited Documents; round trips.
    public static let proto = FuzzTarget(name: "proto", summary: "FirestoreProto Value, Document, delimited stream; round trip") { input in
        var check = FuzzCheck(input)
        if let value = check.attempt("value", { try Value(firestoreProto: input) }) {
            let again = check.attempt("re-read value") { try Value(firestoreProto: value.firestoreProtoBytes()) }
            check.expect(again == value, "the protobuf value round trip changed the value")
        }
        if let document = check.attempt("document", { try Document(firestoreProto: input) }) {
            let again = check.attempt("re-read document") { try Document(firestoreProto: document.firestoreProtoBytes()) }
            check.expect(again == document, "the protobuf document round trip changed the document")
        }
        _ = check.attempt("delimited") { try [Document](firestoreProtoDelimited: input) }
        return check.outcome
    }
}

extension Value {
    /// The value with every map's keys in ascending UTF-8 byte order, when `sorted`.
    func sortingKeys(_ sorted: Bool) -> Value {
        guard sorted else { return self }
        switch self {
        case .map(let map):
            var result = MapValue()
            for (key, element) in map.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                result[key] = element.sortingKeys(true)
            }
            return .map(result)
        case .array(let elements): return .array(elements.map { $0.sortingKeys(true) })
        default: return self
        }
    }
}

extension Document {
    /// Equality by `==`, except that any two NaNs in the fields are equal whatever their payloads.
    func equalsIgnoringNaNPayloads(_ other: Document) -> Bool {
        reference == other.reference && createTime == other.createTime && updateTime == other.updateTime
            && Value.map(fields).equalsIgnoringNaNPayloads(.map(other.fields))
    }
}
