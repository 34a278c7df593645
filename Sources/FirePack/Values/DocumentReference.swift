/// A reference to a Firestore document by its path: relative (`books/hitchhiker`) or full
/// (`projects/p/databases/(default)/documents/books/hitchhiker`).
public struct DocumentReference: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The path exactly as given.
    public let path: String

    /// Creates a reference; throws `invalidReference` unless `path` names a document (Docs/FORMAT.md §1: segments
    /// neither empty, `.`, `..` nor `__…__`; an even number of them, after the optional
    /// `projects/P/databases/D/documents/` prefix).
    public init(path: String) throws(FirePackError) { self.path = try ReferencePath.validated(path, naming: .document) }

    init(validatedPath path: String) { self.path = path }

    /// The last segment: the document's ID.
    public var documentID: String { ReferencePath.lastSegment(of: path) }

    /// The collection holding the document, as in the Firestore SDK (its path is everything before the last `/`).
    public var parent: CollectionReference {
        let slash = path.utf8.lastIndex(of: UInt8(ascii: "/"))!  // a document path has at least two segments
        return CollectionReference(validatedPath: String(path[..<slash]))
    }

    /// The sub-collection at `collectionPath` (one ID, or an odd number of `/`-separated segments) under this
    /// document, as in the Firestore SDK.
    ///
    /// - Precondition: the result is a valid collection path, as the SDK requires (a programmer error there too);
    ///   for paths from outside the program use `CollectionReference(path:)`, which throws.
    public func collection(_ collectionPath: String) -> CollectionReference {
        CollectionReference(validatedPath: ReferencePath.joined(path, collectionPath, naming: .collection))
    }

    /// The path's segments.
    public var segments: [Substring] { path.split(separator: "/", omittingEmptySubsequences: false) }

    /// Orders segment by segment, as Firestore orders references.
    public static func < (lhs: DocumentReference, rhs: DocumentReference) -> Bool {
        ReferencePath.precedes(lhs.path, rhs.path)
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

    /// Whether a path segment or field name has Firestore's reserved form `__…__` (at least four characters).
    ///
    /// Four bytes read by index: every path read checks each of its segments here, and a `String.UTF8View` literal
    /// walked as a generic sequence (`starts(with:)`) cost a call per byte.
    package static func isReserved(_ name: some BidirectionalCollection<UInt8>) -> Bool {
        let underscore = UInt8(ascii: "_")
        guard name.count >= 4 else { return false }
        let first = name.startIndex, last = name.index(before: name.endIndex)
        return name[first] == underscore && name[name.index(after: first)] == underscore && name[last] == underscore
            && name[name.index(before: last)] == underscore
    }

    /// Whether a path segment is `__id` digits `__`: how Firestore names a document whose Datastore key has a
    /// numeric ID (`__id42__`), the one `__…__` form a path may hold.
    package static func isNumericID(_ segment: UnsafeBufferPointer<UInt8>) -> Bool {
        segment.count >= 7 && segment.starts(with: "__id".utf8) && segment.reversed().starts(with: "__".utf8)
            && segment[4..<(segment.count - 2)].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}

/// The path rules shared by document and collection references (Docs/FORMAT.md §1, "References").
enum ReferencePath {
    /// What a path must name.
    enum Kind: String {
        case document, collection
    }

    /// `path` when it names a `kind`; else `invalidReference`, saying why.
    static func validated(_ path: String, naming kind: Kind) throws(FirePackError) -> String {
        if let problem = problem(in: path, naming: kind) {
            throw FirePackError(.invalidReference, "'\(path)' is not a \(kind.rawValue) path: \(problem)")
        }
        return path
    }

    /// `base` + `/` + `child`, which must name a `kind` (a precondition, as in the Firestore SDK).
    static func joined(_ base: String, _ child: String, naming kind: Kind) -> String {
        let joined = base + "/" + child
        if let problem = problem(in: joined, naming: kind) {
            preconditionFailure("'\(child)' does not name a \(kind.rawValue) under \(base): \(problem)")
        }
        return joined
    }

    /// The last segment of `path`: a document's or a collection's ID.
    static func lastSegment(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// Why `path` does not name a `kind`, or nil when it does.
    ///
    /// Every segment is non-empty, not `.` or `..`, and not of the form `__…__`. A path is in the full form when it
    /// starts with `projects/P/databases/D/documents/` and what follows is a relative path of the kind; otherwise
    /// the whole path must be a relative path: collection, document, collection, … — an even number of segments for
    /// a document, an odd number for a collection.
    ///
    /// One pass over the bytes, no allocation: every document read from FirePack, JSON or a stream checks its path
    /// here, so it does not split the path into an array of segments (guarded by `Stream JSON lines to fpks`).
    static func problem(in path: String, naming kind: Kind) -> String? {
        path.withUTF8Bytes { raw in
            let bytes = raw.assumingMemoryBound(to: UInt8.self)
            var segments = 0, start = 0, fullForm = true
            for end in 0...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: "/") {
                let segment = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if segment.isEmpty { return "it has an empty segment" }
                if segment[0] == UInt8(ascii: "."),
                    segment.count == 1 || (segment.count == 2 && segment[1] == UInt8(ascii: "."))
                {
                    return "a segment is '.' or '..'"
                }
                if DocumentReference.isReserved(segment) && !DocumentReference.isNumericID(segment) {
                    return "a segment of the form __…__ is reserved"
                }
                switch segments {
                case 0: fullForm = equal(segment, "projects")
                case 2: fullForm = fullForm && equal(segment, "databases")
                case 4: fullForm = fullForm && equal(segment, "documents")
                default: break
                }
                segments += 1
                start = end + 1
            }
            let wantsEven = kind == .document
            if fullForm && segments > 5 && ((segments - 5) % 2 == 0) == wantsEven { return nil }
            if (segments % 2 == 0) != wantsEven {
                return wantsEven
                    ? "it has an odd number of segments (a collection, not a document)"
                    : "it has an even number of segments (a document, not a collection)"
            }
            return nil
        }
    }

    /// Whether `segment` is `word`'s bytes (compared in place; a `String.UTF8View` walked as a generic sequence costs a
    /// call per byte).
    private static func equal(_ segment: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        segment.count == word.utf8CodeUnitCount
            && (segment.isEmpty || ByteComparison.equal(segment.baseAddress!, word.utf8Start, count: segment.count))
    }

    /// Whether `lhs` orders before `rhs` segment by segment, each compared by its UTF-8 bytes (Firestore's order).
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        let separator = UInt8(ascii: "/")
        return lhs.utf8.split(separator: separator, omittingEmptySubsequences: false)
            .lexicographicallyPrecedes(rhs.utf8.split(separator: separator, omittingEmptySubsequences: false)) {
                $0.lexicographicallyPrecedes($1)
            }
    }

    /// 5 when the segments start with `projects/P/databases/D/documents`, else 0.
    static func fullFormPrefixLength(_ segments: [Substring.UTF8View]) -> Int {
        segments.count >= 5 && segments[0].elementsEqual("projects".utf8) && segments[2].elementsEqual("databases".utf8)
            && segments[4].elementsEqual("documents".utf8) ? 5 : 0
    }
}
