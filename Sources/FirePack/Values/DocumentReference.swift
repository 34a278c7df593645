/// A reference to a Firestore document by its path: relative (`books/hitchhiker`) or full
/// (`projects/p/databases/(default)/documents/books/hitchhiker`).
public struct DocumentReference: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The path exactly as given.
    public let path: String

    /// Creates a reference; throws `invalidReference` unless `path` names a document (Docs/FORMAT.md §1: segments
    /// neither empty, `.`, `..` nor `__…__`; an even number of them, after the optional
    /// `projects/P/databases/D/documents/` prefix).
    public init(path: String) throws(FirePackError) {
        if let problem = Self.problem(inPath: path) {
            throw FirePackError(.invalidReference, "'\(path)' is not a document path: \(problem)")
        }
        self.path = path
    }

    init(validatedPath path: String) { self.path = path }

    /// The last segment: the document's ID.
    public var documentID: String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// The path of the collection holding the document (everything before the last `/`).
    public var parent: String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return String(path[..<slash])
    }

    /// The path's segments.
    public var segments: [Substring] { path.split(separator: "/", omittingEmptySubsequences: false) }

    /// Orders segment by segment, as Firestore orders references.
    public static func < (lhs: DocumentReference, rhs: DocumentReference) -> Bool {
        lhs.segments.lexicographicallyPrecedes(rhs.segments) { a, b in a.utf8.lexicographicallyPrecedes(b.utf8) }
    }

    /// The path.
    public var description: String { path }

    /// Decodes the path string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let path = try container.decode(String.self)
        do {
            try self.init(path: path)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.message)
        }
    }

    /// Encodes the path string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(path)
    }

    /// Why `path` is not a document path, or nil when it is one (Docs/FORMAT.md §1, "References").
    ///
    /// Every segment is non-empty, not `.` or `..`, and not of the form `__…__`. A path is in the full form when it
    /// starts with `projects/P/databases/D/documents/` and what follows is a relative document path; otherwise the
    /// whole path must be a relative document path: an even number of segments (collection, document, …).
    static func problem(inPath path: String) -> String? {
        let segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for segment in segments {
            if segment.isEmpty { return "it has an empty segment" }
            if segment.elementsEqual(".".utf8) || segment.elementsEqual("..".utf8) { return "a segment is '.' or '..'" }
            if isReserved(segment) { return "a segment of the form __…__ is reserved" }
        }
        let hasFullPrefix = segments.count >= 5 && segments[0].elementsEqual("projects".utf8)
            && segments[2].elementsEqual("databases".utf8) && segments[4].elementsEqual("documents".utf8)
        if hasFullPrefix && segments.count > 5 && (segments.count - 5) % 2 == 0 { return nil }
        if segments.count % 2 != 0 { return "it has an odd number of segments (a collection, not a document)" }
        return nil
    }

    /// Whether a path segment or field name has Firestore's reserved form `__…__` (at least four characters).
    package static func isReserved(_ name: some Collection<UInt8>) -> Bool {
        name.count >= 4 && name.starts(with: "__".utf8) && name.reversed().starts(with: "__".utf8)
    }
}
