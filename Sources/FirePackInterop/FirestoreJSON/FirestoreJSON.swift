import FirePack
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The typed JSON of the Firestore REST API, both ways (public as `Value(firestoreJSON:)`, `firestoreJSONBytes()`
/// and the same on `Document`):
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
/// REST JSON has one NaN, as Firestore has: a NaN's payload bits are not kept (FirePack, protobuf and reversible JSON
/// keep them). Reading also accepts, as proto3 JSON does, `integerValue` as a JSON number and `doubleValue` as a string
/// holding a number's text (`"65.66"`), and absent `values` / `fields` for empty containers.
/// The server-timestamp sentinel has no REST value form (Firestore sends it as a field transform): writing one
/// throws `invalidValue`; resolve it first with `Document.resolvingServerTimestamps(at:)`.
enum FirestoreJSON {
    static let readOptions = JSONOptions(readsMarkers: false)
    static let writeOptions = JSONOptions(form: .plain)

    /// Reads one typed value from `Data`, `[UInt8]` or borrowed bytes, straight from the bytes.
    static func value(from bytes: some ContiguousBytes, maxDepth: Int = 100) throws(FirePackError) -> Value {
        try bytes.withBorrowedBytes { raw throws(FirePackError) in
            guard let base = raw.baseAddress else { throw FirePackError(.truncated, offset: 0, "empty input") }
            var parser = JSONParser(base: base, count: raw.count, maxDepth: maxDepth, readsMarkers: false)
            parser.skipWhitespace()
            let value = try parser.parseTypedValue(depth: 0)
            parser.skipWhitespace()
            guard parser.index == raw.count else {
                throw FirePackError(.trailingBytes, offset: parser.index, "text follows the value")
            }
            return value
        }
    }

    /// Reads one document, straight from the bytes: `name` is required, `fields` may be absent (the REST API leaves it
    /// out of an empty document); any other member throws `invalidDocument`, so nothing is dropped.
    static func document(from bytes: some ContiguousBytes, maxDepth: Int = 100) throws(FirePackError) -> Document {
        try bytes.withBorrowedBytes { raw throws(FirePackError) in
            guard let base = raw.baseAddress else { throw FirePackError(.truncated, offset: 0, "empty input") }
            var parser = JSONParser(base: base, count: raw.count, maxDepth: maxDepth, readsMarkers: false)
            parser.skipWhitespace()
            var name: String?, fields = MapValue(), createTime: Timestamp?, updateTime: Timestamp?
            var seen = Set<String>()
            try parser.parseObjectMembers { (parser, key) throws(FirePackError) in
                let offset = parser.index
                // A member given twice would keep one of them in silence (JSON leaves it to the reader).
                guard seen.insert(key).inserted else {
                    throw FirePackError(
                        .duplicateKey, offset: offset, "document member \(key.debugDescription) appears twice",
                        path: [.key(key)])
                }
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
                default:
                    throw FirePackError(
                        .invalidDocument, offset: offset,
                        "unknown document member \(key.debugDescription): a document has name, fields, createTime and updateTime",
                        path: [.key(key)])
                }
            }
            parser.skipWhitespace()
            guard parser.index == raw.count else {
                throw FirePackError(.trailingBytes, offset: parser.index, "text follows the document")
            }
            guard let name else { throw invalid("a document needs a \"name\" string", [.key("name")]) }
            let reference: DocumentReference
            do throws(FirePackError) { reference = try DocumentReference(path: name) } catch {
                throw invalid(error.message, [.key("name")])
            }
            return Document(reference: reference, fields: fields, createTime: createTime, updateTime: updateTime)
        }
    }

    /// Writes one typed value as JSON text, straight into the output: at most 2 GiB, what a reader of one whole JSON
    /// text takes.
    static func jsonBytes(for value: Value, pretty: Bool = false) throws(FirePackError) -> [UInt8] {
        let compact = try FirestoreFormsFromBytes.withBytes(of: value) { reader throws(FirePackError) in
            try JSONTextWriter.text(options: writeOptions) { writer throws(FirePackError) in
                writer.limitingText(to: JSONTextLimits.value)
                var place = ValuePlace()
                try writer.writeTyped(&reader, at: &place)
                try writer.checkLimit("the value")
            }
        }
        return try pretty ? reindent(compact, limit: JSONTextLimits.value, "the value") : compact
    }

    /// Writes one document as JSON text, straight into the output: at most `JSONTextLimits.document`
    /// bytes, what FirePack's readers of REST JSON lines take.
    static func jsonBytes(for document: Document, pretty: Bool = false) throws(FirePackError) -> [UInt8] {
        let compact = try FirestoreFormsFromBytes.withRecord(of: document) { record throws(FirePackError) in
            try JSONTextWriter.text(options: writeOptions) { writer throws(FirePackError) in
                try writer.writeDocument(record: record, limits: FirestoreFormsFromBytes.ownBytesLimits)
            }
        }
        let what = "document \(document.reference.path)"
        return try pretty ? reindent(compact, limit: JSONTextLimits.document, what) : compact
    }

    /// Appends a stream's document record as one line of JSON text (what `jsonBytes(for:)` writes for the document it
    /// holds, and a newline) to `output`, written from the record's bytes; on error `output` is as it was.
    static func appendLine(
        record: UnsafeRawBufferPointer, limits: ReaderLimits, serverTime: Timestamp? = nil, to output: ByteOutput
    ) throws(FirePackError) {
        let mark = output.count
        var writer = JSONTextWriter(options: writeOptions, output: output)  // `output` is the caller's
        do throws(FirePackError) {
            try writer.writeDocument(record: record, limits: limits, serverTime: serverTime)
        } catch {
            output.truncate(to: mark)
            throw error
        }
        output.append(0x0A)
    }

    /// Compact REST JSON, indented (the typed form holds only plain JSON types, so nothing changes but whitespace).
    static func reindent(_ compact: [UInt8], limit: Int, _ what: @autoclosure () -> String) throws(FirePackError)
        -> [UInt8]
    {
        var options = writeOptions
        options.pretty = true
        // Each level of the document is three levels of REST JSON (`{"mapValue": {"fields": {…}}}`): read back with
        // the deepest limit JSON options take, so that every document the compact form holds is indented.
        var read = readOptions
        read.maxDepth = ReaderLimits.maximumDepth
        // Indentation grows with depth: limited as it is written, not after.
        return try Value(json: compact, options: read).jsonBytes(options: options, maxLength: limit, what: what())
    }

    static func invalid(_ message: String, _ path: [PathComponent]) -> FirePackError {
        FirePackError(.invalidJSON, message, path: path)
    }
}

extension JSONTextWriter {
    /// Writes the document a record holds (`Document.scanRecord`) as one REST JSON document, at most
    /// `JSONTextLimits.document` bytes, its pending server timestamps as `serverTime` (refused when nil).
    mutating func writeDocument(record: UnsafeRawBufferPointer, limits: ReaderLimits, serverTime: Timestamp? = nil)
        throws(FirePackError)
    {
        var (reference, fields, createTime, updateTime) = try Document.recordParts(
            record, limits: limits)
        limitingText(to: JSONTextLimits.document)
        append(#"{"name":"#)
        writeString(reference.path)
        var peek = fields
        if try peek.enterMap().count > 0 {
            append(#","fields":"#)
            var place = ValuePlace([.key("fields")], serverTime: serverTime)
            try writeTypedFields(&fields, at: &place)
        }
        if let createTime {
            append(#","createTime":"#)
            createTime.withRFC3339Bytes { writeString(utf8: $0) }
        }
        if let updateTime {
            append(#","updateTime":"#)
            updateTime.withRFC3339Bytes { writeString(utf8: $0) }
        }
        append("}")
        try checkLimit("document \(reference.path)")
    }
}
