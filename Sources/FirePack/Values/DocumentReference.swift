/// A reference to a Firestore document by its path: relative (`books/hitchhiker`) or full
/// (`projects/p/databases/(default)/documents/books/hitchhiker`).
public struct DocumentReference: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The path exactly as given.
    public let path: String

    /// Creates a reference; throws `invalidReference` unless `path` names a document (an even number of non-empty
    /// segments after the optional `projects/P/databases/D/documents/` prefix).
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

    /// Why `path` is not a document path, or nil when it is one.
    static func problem(inPath path: String) -> String? {
        var segments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        if segments.contains(where: \.isEmpty) { return "it has an empty segment" }
        if segments.count >= 5, segments[0].elementsEqual("projects".utf8), segments[2].elementsEqual("databases".utf8),
           segments[4].elementsEqual("documents".utf8) {
            segments.removeFirst(5)
            if segments.isEmpty { return "it names no document after 'documents'" }
        }
        if segments.count % 2 != 0 { return "it has an odd number of segments (a collection, not a document)" }
        return nil
    }
}
