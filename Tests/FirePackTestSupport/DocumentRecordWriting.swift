import FirePack

extension FirePackWriter {
    /// Writes a document record, `{"name": path, "fields": {…}}` (Docs/FORMAT.md §9), whose fields map `writeFields`
    /// fills entry by entry: for tests that write what a `Document` cannot hold (bytes that are not UTF-8) or would
    /// take too much memory to hold (millions of rows).
    public func writeDocumentRecord(path: String, fields writeFields: (FirePackWriter) throws -> Void) throws {
        beginMap()
        writeKey("name")
        writeReference(try DocumentReference(path: path))
        writeKey("fields")
        beginMap()
        try writeFields(self)
        endMap()
        endMap()
    }
}
