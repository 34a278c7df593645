/// A reference to a Firestore collection by its path: relative (`books`, `books/hitchhiker/reviews`) or full
/// (`projects/p/databases/(default)/documents/books`), with the Firestore SDK's names.
public struct CollectionReference: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The path exactly as given.
    public let path: String

    /// Creates a reference; throws `invalidReference` unless `path` names a collection (Docs/FORMAT.md §1: the
    /// segment rules of document paths, with an odd number of segments after the optional full-form prefix).
    public init(path: String) throws(FirePackError) {
        self.path = try ReferencePath.validated(path, naming: .collection)
    }

    init(validatedPath path: String) { self.path = path }

    /// The last segment: the collection's ID.
    public var collectionID: String { ReferencePath.lastSegment(of: path) }

    /// The document holding this sub-collection, or nil for a top-level collection (as in the SDK).
    public var parent: DocumentReference? {
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let prefix = ReferencePath.fullFormPrefixLength(segments)
        guard segments.count - prefix > 1, let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        return DocumentReference(validatedPath: String(path[..<slash]))
    }

    /// The document at `documentPath` (one ID, or an odd number of `/`-separated segments) in this collection, as in
    /// the Firestore SDK.
    ///
    /// - Precondition: the result is a valid document path, as the SDK requires (a programmer error there too); for
    ///   paths from outside the program use `DocumentReference(path:)`, which throws.
    public func document(_ documentPath: String) -> DocumentReference {
        DocumentReference(validatedPath: ReferencePath.joined(path, documentPath, naming: .document))
    }

    /// A document with a new random ID of 20 letters and digits, as the SDK's `document()` makes them.
    public func document() -> DocumentReference {
        var generator = SystemRandomNumberGenerator()
        return document(using: &generator)
    }

    /// A document with a random ID of 20 letters and digits drawn from `generator` (reproducible with a seeded one).
    public func document(using generator: inout some RandomNumberGenerator) -> DocumentReference {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let id = String(decoding: (0..<20).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
        return DocumentReference(validatedPath: path + "/" + id)
    }

    /// Orders segment by segment, as Firestore orders paths.
    public static func < (lhs: CollectionReference, rhs: CollectionReference) -> Bool {
        ReferencePath.precedes(lhs.path, rhs.path)
    }

    /// The path.
    public var description: String { path }
}
