import FirePack
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Every format has the same shape as FirePack's own (`Value(firePackBytes:)` / `firePackBytes()`): an initialiser
// that reads `Data`, `[UInt8]` or borrowed bytes, and a method that writes bytes. JSON: `Value(json:)` /
// `jsonBytes()`; `[String: Any]`: `Value(any:)` / `anyValue`.

extension Value {
    /// Reads one value in the Firestore REST API's typed JSON (`{"integerValue": "816"}`, …), straight from the bytes.
    public init(firestoreJSON bytes: some ContiguousBytes, maxDepth: Int = 100) throws(FirePackError) {
        self = try FirestoreJSON.value(from: bytes, maxDepth: maxDepth)
    }

    /// The value as the REST API's typed JSON; throws `invalidValue` for a pending server timestamp, which has no
    /// REST value form.
    public func firestoreJSONBytes(pretty: Bool = false) throws(FirePackError) -> [UInt8] {
        try FirestoreJSON.jsonBytes(for: self, pretty: pretty)
    }

    /// Reads a `google.firestore.v1.Value` protobuf message.
    public init(firestoreProto bytes: some ContiguousBytes, limits: ReaderLimits = .default) throws(FirePackError) {
        self = try FirestoreProto.decodeValue(bytes, limits: limits)
    }

    /// The value as a `google.firestore.v1.Value` protobuf message; throws `invalidValue` for a pending server
    /// timestamp, which has no protobuf value form.
    public func firestoreProtoBytes() throws(FirePackError) -> [UInt8] {
        try FirestoreProto.encode(self)
    }
}

extension Document {
    /// Reads one document in the REST API's JSON (`{"name": …, "fields": {…}, "createTime": …}`); `fields` may be
    /// absent, any other member throws `invalidDocument`.
    public init(firestoreJSON bytes: some ContiguousBytes, maxDepth: Int = 100) throws(FirePackError) {
        self = try FirestoreJSON.document(from: bytes, maxDepth: maxDepth)
    }

    /// The document as the REST API's JSON.
    public func firestoreJSONBytes(pretty: Bool = false) throws(FirePackError) -> [UInt8] {
        try FirestoreJSON.jsonBytes(for: self, pretty: pretty)
    }

    /// Reads a `google.firestore.v1.Document` protobuf message.
    public init(firestoreProto bytes: some ContiguousBytes, limits: ReaderLimits = .default) throws(FirePackError) {
        self = try FirestoreProto.decodeDocument(bytes, limits: limits)
    }

    /// The document as a `google.firestore.v1.Document` protobuf message.
    public func firestoreProtoBytes() throws(FirePackError) -> [UInt8] {
        try FirestoreProto.encode(self)
    }

    /// Appends the document as a varint-length-delimited `Document` message (protobuf's `writeDelimitedTo`).
    public func appendFirestoreProtoDelimited(to bytes: inout [UInt8]) throws(FirePackError) {
        try FirestoreProto.appendDelimited(self, to: &bytes)
    }
}

extension Array where Element == Document {
    /// Reads varint-length-delimited `google.firestore.v1.Document` messages, one after another.
    public init(firestoreProtoDelimited bytes: some ContiguousBytes, limits: ReaderLimits = .default)
        throws(FirePackError)
    {
        self = try FirestoreProto.decodeDelimitedDocuments(bytes, limits: limits)
    }
}
