import FirePack
import Foundation

/// The typed JSON of the Firestore REST API, both ways:
///
/// ```
/// {"nullValue": null}                   {"booleanValue": true}
/// {"integerValue": "816"}               {"doubleValue": 3.5}   {"doubleValue": "NaN" | "Infinity" | "-Infinity"}
/// {"timestampValue": "2014-10-02T15:01:23.045123456Z"}       {"stringValue": "…"}   {"bytesValue": "<base64>"}
/// {"referenceValue": "projects/p/databases/(default)/documents/books/b"}
/// {"geoPointValue": {"latitude": 37.4, "longitude": -122.1}}
/// {"arrayValue": {"values": […]}}       {"mapValue": {"fields": {…}}}
/// vector: {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"},
///                                 "value": {"arrayValue": {"values": [{"doubleValue": 1.0}, …]}}}}}
/// Document: {"name": "projects/…/documents/books/b", "fields": {…}, "createTime": "…", "updateTime": "…"}
/// ```
///
/// Reading also accepts `integerValue` as a JSON number, and absent `values` / `fields` for empty containers.
/// The server-timestamp sentinel has no REST value form (Firestore sends it as a field transform): writing one
/// throws `invalidValue`; resolve it first with `Document.resolvingServerTimestamps(at:)`.
public enum FirestoreJSON {
    static let readOptions = JSONOptions(readsMarkers: false)
    static let writeOptions = JSONOptions(form: .plain)

    /// Reads one typed value, straight from the bytes.
    public static func value(from bytes: [UInt8], maxDepth: Int = 100) throws(FirePackError) -> Value {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(FirePackError) in
                guard let base = raw.baseAddress else { throw FirePackError(.truncated, offset: 0, "empty input") }
                var parser = JSONParser(base: base, count: raw.count, maxDepth: maxDepth, readsMarkers: false)
                parser.skipWhitespace()
                let value = try parser.parseTypedValue(depth: 0)
                parser.skipWhitespace()
                guard parser.index == raw.count else { throw FirePackError(.trailingBytes, offset: parser.index, "text follows the value") }
                return value
            }
        }.get()
    }

    /// Reads one document, straight from the bytes (unknown members are skipped).
    public static func document(from bytes: [UInt8], maxDepth: Int = 100) throws(FirePackError) -> Document {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(FirePackError) in
                guard let base = raw.baseAddress else { throw FirePackError(.truncated, offset: 0, "empty input") }
                var parser = JSONParser(base: base, count: raw.count, maxDepth: maxDepth, readsMarkers: false)
                parser.skipWhitespace()
                var name: String?, fields = MapValue(), createTime: Timestamp?, updateTime: Timestamp?
                try parser.parseObjectMembers { (parser, key) throws(FirePackError) in
                    let offset = parser.index
                    switch key {
                    case "name": name = try parser.parseStringPayload()
                    case "fields": fields = try parser.parseTypedFields(depth: 1)
                    case "createTime", "updateTime":
                        let text = try parser.parseStringPayload()
                        let time: Timestamp
                        do throws(FirePackError) { time = try Timestamp(rfc3339: text) } catch {
                            throw FirePackError(.invalidJSON, offset: offset, error.message, path: [.key(key)])
                        }
                        if key == "createTime" { createTime = time } else { updateTime = time }
                    default: _ = try parser.parseValue(depth: 1)
                    }
                }
                parser.skipWhitespace()
                guard parser.index == raw.count else { throw FirePackError(.trailingBytes, offset: parser.index, "text follows the document") }
                guard let name else { throw invalid("a document needs a \"name\" string", [.key("name")]) }
                let reference: DocumentReference
                do throws(FirePackError) { reference = try DocumentReference(path: name) } catch { throw invalid(error.message, [.key("name")]) }
                return Document(reference: reference, fields: fields, createTime: createTime, updateTime: updateTime)
            }
        }.get()
    }

    /// Writes one typed value as JSON text, straight into the output (pretty output goes through a tree).
    public static func jsonBytes(for value: Value, pretty: Bool = false) throws(FirePackError) -> [UInt8] {
        guard !pretty else {
            var options = writeOptions
            options.pretty = true
            return try typedJSON(value, path: []).jsonBytes(options: options)
        }
        var writer = JSONTextWriter(options: writeOptions)
        try writer.writeTyped(value, path: [])
        return writer.output
    }

    /// Writes one document as JSON text.
    public static func jsonBytes(for document: Document, pretty: Bool = false) throws(FirePackError) -> [UInt8] {
        var options = writeOptions
        options.pretty = pretty
        return try documentJSON(document).jsonBytes(options: options)
    }

    /// A document from its parsed JSON (name, fields, optional times).
    public static func document(fromJSON json: Value) throws(FirePackError) -> Document {
        guard case .map(let object) = json else { throw invalid("a document must be a JSON object", []) }
        guard case .string(let name)? = object["name"] else { throw invalid("a document needs a \"name\" string", [.key("name")]) }
        let reference: DocumentReference
        do { reference = try DocumentReference(path: name) } catch { throw invalid(error.message, [.key("name")]) }
        var fields = MapValue()
        if let rawFields = object["fields"] {
            guard case .map(let map) = rawFields else { throw invalid("\"fields\" must be an object", [.key("fields")]) }
            fields = try typedFields(map, path: [.key("fields")])
        }
        return Document(reference: reference, fields: fields,
                        createTime: try object["createTime"].map { (raw) throws(FirePackError) in try timestamp(raw, path: [.key("createTime")]) },
                        updateTime: try object["updateTime"].map { (raw) throws(FirePackError) in try timestamp(raw, path: [.key("updateTime")]) })
    }

    /// A document as its JSON tree.
    public static func documentJSON(_ document: Document) throws(FirePackError) -> Value {
        var object: MapValue = ["name": .string(document.reference.path)]
        if !document.fields.isEmpty { object["fields"] = .map(try typedFieldsJSON(document.fields, path: [.key("fields")])) }
        if let createTime = document.createTime { object["createTime"] = .string(createTime.rfc3339String) }
        if let updateTime = document.updateTime { object["updateTime"] = .string(updateTime.rfc3339String) }
        return .map(object)
    }

    static func invalid(_ message: String, _ path: [PathComponent]) -> FirePackError {
        FirePackError(.invalidJSON, message, path: path)
    }

    static func timestamp(_ raw: Value, path: [PathComponent]) throws(FirePackError) -> Timestamp {
        guard case .string(let text) = raw else { throw invalid("a timestamp must be an RFC 3339 string", path) }
        do { return try Timestamp(rfc3339: text) } catch { throw invalid(error.message, path) }
    }

    static func typedFields(_ fields: MapValue, path: [PathComponent]) throws(FirePackError) -> MapValue {
        var map = MapValue()
        for (key, raw) in fields { map[key] = try typedValue(raw, path: path + [.key(key)]) }
        return map
    }

    static func typedFieldsJSON(_ fields: MapValue, path: [PathComponent]) throws(FirePackError) -> MapValue {
        var map = MapValue()
        for (key, value) in fields { map[key] = try typedJSON(value, path: path + [.key(key)]) }
        return map
    }
}
