import FirePack

/// Firestore's documented limits on documents (document size, nesting, field names, reserved names, arrays in arrays,
/// the timestamp range): what `firepack validate --firestore-limits` and a conversion into Firestore's formats check.
public enum FirestoreLimits {
    /// The largest document, in Firestore's storage-size bytes.
    public static let maxDocumentSize = 1_048_576
    /// The deepest nesting of maps and arrays.
    public static let maxDepth = 20
    /// The longest field name, in UTF-8 bytes.
    public static let maxFieldNameBytes = 1_500

    /// One broken rule: its kind (for grouping in reports) and a readable line.
    public struct Violation: Sendable {
        /// The rule broken, the same for every document that breaks it (for grouping).
        public var kind: String
        /// Where and how, for this document.
        public var text: String
    }

    /// Every violation in a document, each with its text (for a document whose violations may be many, with long
    /// paths, `forEachViolation(in:_:)` makes the texts wanted only).
    public static func violations(in document: Document) -> [Violation] {
        var problems: [Violation] = []
        forEachViolation(in: document) { kind, text in problems.append(Violation(kind: kind, text: text())) }
        return problems
    }

    /// What a walk reports for each violation: its kind, and a closure that makes its text — made only when called,
    /// for the reports' examples (a text names the path, and paths are as long as the keys on the way: made for every
    /// violation and element, a megabyte key over 100,000 elements was 100 GB of copying).
    package typealias Report = (_ kind: String, _ text: () -> String) -> Void

    /// Calls `report` with every violation in a document, as `violations(in:)` finds them.
    package static func forEachViolation(in document: Document, _ report: Report) {
        // One walk for a tree and for a record's bytes: the tree is checked on its encoding.
        let bytes = document.firePackBytes()
        do {
            try bytes.withUnsafeBytes { raw in try forEachViolation(inRecord: raw, limits: ownEncoding, report) }
        } catch {
            // A tree past what FirePack's readers take (more than 2 GiB, or 16,777,216 elements in one container).
            report("document past FirePack's reader limits") { "not checked: \(error)" }
        }
    }

    /// Limits that read back every document FirePack's writer writes: the deepest nesting a reader takes, every other
    /// limit as large as it goes.
    static let ownEncoding = ReaderLimits(
        maxDepth: ReaderLimits.maximumDepth, maxElementCount: .max, maxInputSize: .max, maxKeyExpansion: .max)

    /// Calls `report` with every violation in the document record `payload` (Docs/FORMAT.md §9, read with `limits`):
    /// its size first, then what a walk of its fields meets, in order. The record is walked in its bytes, twice (its
    /// size, then its fields), not made into a tree: checking it costs memory for its nesting, where a tree of packed
    /// rows is about 110 bytes a row (Docs/SAFETY.md), and time for its bytes, paths made only for the texts asked
    /// for. Throws what reading the record throws.
    package static func forEachViolation(
        inRecord payload: UnsafeRawBufferPointer, limits: ReaderLimits, _ report: Report
    ) throws {
        let root = try FirePackReader(bytes: payload, limits: limits).root
        guard let name = try root["name"], let fields = try root["fields"] else {
            throw FirePackError(.invalidDocument, offset: 0, "a document record needs a name and fields")
        }
        let size = storageSize(of: try name.reference()) + (try storageSize(of: fields)) + 32
        if size > maxDocumentSize {
            report("document larger than \(maxDocumentSize) bytes") {
                "document is \(size) bytes; Firestore allows \(maxDocumentSize)"
            }
        }
        var place = ValuePlace()
        try check(fields, at: &place, depth: 0, report)
    }

    static func check(_ view: ValueView, at place: inout ValuePlace, depth: Int, _ report: Report) throws {
        func add(_ kind: String, at place: ValuePlace, _ what: String) { report(kind) { "\(place.text): \(what)" } }
        switch view.type {
        case .map?:
            if depth > maxDepth {
                add("nested deeper than \(maxDepth) levels", at: place, "nested deeper than \(maxDepth) levels")
                return
            }
            let mapPlace = place
            try view.forEachEntry { key, element in
                place.enter(key: key)
                defer { place.leave() }
                if key.count > maxFieldNameBytes {
                    add(
                        "field name longer than \(maxFieldNameBytes) bytes", at: place,
                        "field name longer than \(maxFieldNameBytes) bytes")
                }
                // `__type__` beside `value` is how Firestore spells a vector (a map with both is one).
                if DocumentReference.isReserved(key.utf8), try !(key == "__type__" && view["value"] != nil) {
                    add("reserved field name (__x__)", at: place, "field names like __x__ are reserved")
                }
                if key.count == 0 {
                    report("empty field name") {
                        "\(mapPlace.isRoot ? "(top level)" : mapPlace.text): empty field name"
                    }
                }
                try check(element, at: &place, depth: depth + 1, report)
            }
        case .array?:
            if depth > maxDepth {
                add("nested deeper than \(maxDepth) levels", at: place, "nested deeper than \(maxDepth) levels")
                return
            }
            var index = 0
            try view.forEachElement { element in
                place.enter(index: index)
                defer { place.leave() }
                if element.type == .array {
                    add(
                        "array directly inside an array", at: place,
                        "Firestore does not allow an array directly inside an array")
                }
                try check(element, at: &place, depth: depth + 1, report)
                index += 1
            }
        case .timestamp?:
            if !Timestamp.firestoreRange.contains(try view.timestamp()) {
                add(
                    "timestamp outside 0001-01-01 … 9999-12-31", at: place,
                    "timestamp outside 0001-01-01 … 9999-12-31")
            }
        default: break
        }
    }

    /// Firestore's storage-size formula: document name + fields + 32 bytes.
    public static func storageSize(of document: Document) -> Int {
        let name = storageSize(of: document.reference)
        return name + document.fields.reduce(0) { $0 + $1.key.utf8.count + 1 + storageSize(of: $1.value) } + 32
    }

    /// A reference's or a document name's size: its segments' bytes and one each, and 16.
    static func storageSize(of reference: DocumentReference) -> Int {
        reference.segments.reduce(16) { $0 + $1.utf8.count + 1 }
    }

    static func storageSize(of value: Value) -> Int {
        switch value {
        case .null, .boolean: 1
        case .integer, .double, .timestamp, .serverTimestamp: 8
        case .string(let string): string.utf8.count + 1
        case .bytes(let data): data.count
        case .reference(let reference): storageSize(of: reference)
        case .geoPoint: 16
        case .array(let elements): elements.reduce(0) { $0 + storageSize(of: $1) }
        case .map(let map): map.reduce(0) { $0 + $1.key.utf8.count + 1 + storageSize(of: $1.value) }
        case .vector(let vector): 8 * vector.array.count + 20
        }
    }

    /// `storageSize(of: Value)` of the value a view reads, from its bytes.
    static func storageSize(of view: ValueView) throws -> Int {
        switch view.type {
        case .null?, .boolean?: return 1
        case .integer?, .double?, .timestamp?, .serverTimestamp?: return 8
        case .string?: return try view.stringView().count + 1
        case .bytes?: return try view.bytes().count
        case .reference?: return storageSize(of: try view.reference())
        case .geoPoint?: return 16
        case .vector?: return 8 * (try view.vector().count) + 20
        case .array?:
            var total = 0
            try view.forEachElement { total += try storageSize(of: $0) }
            return total
        case .map?:
            var total = 0
            try view.forEachEntry { key, element in total += key.count + 1 + (try storageSize(of: element)) }
            return total
        case nil: return 0
        }
    }
}
