import FirePack
import Synchronization

/// How documents map to plain JSON objects: their fields, with the document path under `__name__` (Firestore's name
/// for the document key) or the document ID under an ID field.
///
/// One naming serves one conversion: it counts the records it has named (for generated IDs and messages).
public final class DocumentNaming {
    /// The collection of documents named by an ID field, or given a new ID.
    public let collection: String
    /// The field that holds each document's ID, if any.
    public let idField: String?
    /// Give documents without the ID field a new ID instead of failing.
    public let generatesMissingIDs: Bool
    /// Keep the ID field among the document's fields as well.
    public let keepsIDField: Bool
    /// Generated IDs derived from the collection and the record number, so that runs are reproducible.
    public let deterministic: Bool
    /// What integers outside Int64 become when plain JSON is read.
    public let largeIntegers: JSONOptions.LargeIntegers
    /// Why `idField` cannot be one (`problem(withIDField:)`): then every document read or written throws it.
    package let idFieldProblem: String?
    // `@exclusivity(unchecked)` on the `var`s used per line, document or record: Docs/ARCHITECTURE.md, "Performance
    // mechanisms".
    /// Whether `collection` was given (`--collection`) rather than a default: then every document written under the
    /// ID field must be in it.
    public let collectionIsGiven: Bool
    /// The collection every document written under the ID field must be in, in its short form: `collection` when
    /// given; else the first such document's, set by `member(for:)`.
    private let writtenCollection: Mutex<String?>
    private let leftOutDatabase = Mutex<String?>(nil)
    /// Documents given a generated ID so far.
    @exclusivity(unchecked) public private(set) var generatedCount = 0
    /// Documents made so far (the record number of the next one).
    @exclusivity(unchecked) public private(set) var recordCount = 0
    /// Documents named by an integer in the ID field, which was left out of their fields: their ID is its digits, and
    /// plain JSON writes an ID back as a string, so the field's type does not come back (`--keep-id-field` keeps it).
    public var integerIDCount: Int { integerIDs.load(ordering: .relaxed) }
    private let integerIDs = Atomic<Int>(0)

    /// A naming for documents of `collection`, found by `__name__`, else by `idField`.
    public init(
        collection: String, idField: String?, generatesMissingIDs: Bool = false, keepsIDField: Bool = false,
        deterministic: Bool = false, largeIntegers: JSONOptions.LargeIntegers = .reject, collectionIsGiven: Bool = true
    ) {
        self.collection = collection
        self.collectionIsGiven = collectionIsGiven
        writtenCollection = Mutex(collectionIsGiven ? String(Self.shortForm(Substring(collection))) : nil)
        self.idField = idField
        self.generatesMissingIDs = generatesMissingIDs
        self.keepsIDField = keepsIDField
        self.deterministic = deterministic
        self.largeIntegers = largeIntegers
        idFieldProblem = idField.flatMap(Self.problem(withIDField:))
    }

    /// A document from a plain object: its path from `__name__`, else `collection/<idField value>`, else (without an
    /// ID field, or with `generatesMissingIDs`) a new ID; a missing ID field is otherwise an error naming the line
    /// (JSON lines) or the record.
    public func document(from value: Value, line: Int?) throws -> Document {
        let record = recordCount
        recordCount += 1
        var generated = false
        defer { if generated { generatedCount += 1 } }
        return try document(from: value, line: line, record: record, generated: &generated)
    }

    /// `document(from:line:)` for the record numbered `record`, counting nothing: `generated` is set when the document
    /// is given a new ID. Safe to call from several threads at once (it reads only the naming's settings).
    package func document(from value: Value, line: Int?, record: Int, generated: inout Bool) throws -> Document {
        let position = Self.position(line: line, record: record)
        guard case .map(var fields) = value else {
            throw FirePackError(.invalidValue, "\(position)a document must be a JSON object, not \(value.type)")
        }
        let (reference, consumedKey) = try reference(
            name: fields[Self.nameMember], id: idField.flatMap { fields[$0] }, line: line, record: record,
            generated: &generated)
        if let consumedKey { fields[consumedKey] = nil }
        var document = Document(reference: reference, fields: fields)
        // The times `value(of:)` writes: taken when they hold timestamps, else fields like any other.
        if case .timestamp(let time)? = document.fields[Self.createTimeMember] {
            document.createTime = time
            document.fields[Self.createTimeMember] = nil
        }
        if case .timestamp(let time)? = document.fields[Self.updateTimeMember] {
            document.updateTime = time
            document.fields[Self.updateTimeMember] = nil
        }
        return document
    }

    /// The member that holds a document's create time in plain JSON (the Arrow column's name), as a timestamp.
    public static let createTimeMember = "__create_time__"
    /// The member that holds a document's update time in plain JSON (the Arrow column's name), as a timestamp.
    public static let updateTimeMember = "__update_time__"
    /// The member that holds a document's path in plain JSON (the Arrow column's name).
    public static let nameMember = "__name__"
    /// The members plain JSON reads back as a document's own, not as fields: its path and its times. No ID field may
    /// be one of them (`problem(withIDField:)`).
    public static let namingMembers = [nameMember, createTimeMember, updateTimeMember]

    /// Why `field` cannot be an ID field (it is one of `namingMembers`), or nil when it can.
    public static func problem(withIDField field: String) -> String? {
        guard namingMembers.contains(field) else { return nil }
        let what =
            field == nameMember
            ? "path (read without an ID field)" : field == createTimeMember ? "create time" : "update time"
        return "\(field) holds a document's \(what) in plain JSON; it cannot be an ID field"
    }

    /// The reference of the next record, from the values of its `__name__` and ID-field members (nil when absent),
    /// and the member to leave out of its fields (nil: none); counts the record (and a generated ID).
    package func reference(name: Value?, id: Value?, line: Int?) throws -> (DocumentReference, consumedKey: String?) {
        let record = recordCount
        recordCount += 1
        var generated = false
        defer { if generated { generatedCount += 1 } }
        return try reference(name: name, id: id, line: line, record: record, generated: &generated)
    }

    /// Counts a record named by the counting-free functions, as `reference(name:id:line:)` would have: when its name
    /// was sought (`outcome.counted`), whether or not it was found, and a new ID among them.
    package func count(_ outcome: NamingOutcome) {
        if outcome.counted { recordCount += 1 }
        if outcome.generated { generatedCount += 1 }
    }

    /// `reference(name:id:line:)` for the record numbered `record`, counting nothing: `generated` is set when the
    /// document is given a new ID. Safe to call from several threads at once (it reads only the naming's settings).
    package func reference(name: Value?, id: Value?, line: Int?, record: Int, generated: inout Bool) throws -> (
        DocumentReference, consumedKey: String?
    ) {
        if let idFieldProblem { throw FirePackError(.invalidValue, idFieldProblem) }
        let position = Self.position(line: line, record: record)
        let path: String, consumedKey: String?
        if let name {
            consumedKey = Self.nameMember
            switch name {
            case .string(let text): path = text
            case .reference(let reference): path = reference.path
            default: throw FirePackError(.invalidValue, "\(position)__name__ must be a document path")
            }
        } else if let idField, let id {
            switch id {
            case .string(let text):
                // An ID is one segment: slashes would make it a path in another collection, without a word.
                guard !text.utf8.contains(UInt8(ascii: "/")) else {
                    throw FirePackError(
                        .invalidValue,
                        "\(position)the id field \(idField.debugDescription) holds \(text.debugDescription), which is not a "
                            + "document ID (an ID holds no '/'); name documents by path with __name__")
                }
                path = collection + "/" + text
            case .integer(let number):
                path = collection + "/" + String(number)
                if !keepsIDField { integerIDs.add(1, ordering: .relaxed) }
            default:
                throw FirePackError(
                    .invalidValue, "\(position)the id field \(idField.debugDescription) must be a string or integer")
            }
            consumedKey = keepsIDField ? nil : idField
        } else if let idField, !generatesMissingIDs {
            throw FirePackError(
                .invalidValue,
                "\(position)the document has no \(idField.debugDescription) field (--id-field); "
                    + "add --generate-missing-ids to give such documents new IDs")
        } else {
            generated = true
            path = generatedPath(record: record)
            consumedKey = nil
        }
        do {
            return (try DocumentReference(path: path), consumedKey)
        } catch {
            throw FirePackError(.invalidReference, "\(position)\(error.message)")
        }
    }

    /// `line L: ` for JSON lines, `record R: ` for a record of a single value.
    private static func position(line: Int?, record: Int) -> String {
        line.map { "line \($0): " } ?? "record \(record): "
    }

    /// A path with a new 20-character ID, random or (deterministic) derived from the collection and record number.
    func generatedPath(record: Int) -> String {
        let collectionReference: CollectionReference
        do { collectionReference = try CollectionReference(path: collection) } catch {
            // An invalid collection name is reported by DocumentReference(path:) for the whole path.
            return collection + "/" + String(repeating: "x", count: 20)
        }
        guard deterministic else { return collectionReference.document().path }
        var generator = SplitMix64(
            seed: UInt64(truncatingIfNeeded: record)
                &+ collection.utf8.reduce(14_695_981_039_346_656_037) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 })
        return collectionReference.document(using: &generator).path
    }

    /// The member `value(of:)` adds to a document's fields: its ID under the ID field, else its path under `__name__`.
    ///
    /// Under the ID field only the ID is written, and read back every document is in one collection: a document in
    /// another collection than `collection` (when given) or than the first document this naming meets (when not; on
    /// several threads, which document is then named varies, and the conversion fails either way) throws, naming it,
    /// rather than being written as a document it is not. Safe to call from several threads at once.
    public func member(for reference: DocumentReference) throws(FirePackError) -> (key: String, value: String) {
        guard let idField else { return (Self.nameMember, reference.path) }
        // The parent path, in place: a document path has at least two segments.
        let path = reference.path
        let parent = Self.shortForm(path[..<path.utf8.lastIndex(of: UInt8(ascii: "/"))!])
        let expected = writtenCollection.withLock { expected in
            if expected == nil { expected = String(parent) }
            return expected!
        }
        if parent.startIndex != path.startIndex {
            leftOutDatabase.withLock { $0 = $0 ?? String(path[..<path.index(before: parent.startIndex)]) }
        }
        guard expected.utf8.elementsEqual(parent.utf8) else {
            let why =
                collectionIsGiven
                ? "\(collection.debugDescription) (--collection): under the ID field \(idField.debugDescription) only "
                    + "its ID is written, and read back it would be \(collection)/\(reference.documentID)"
                : "\(expected.debugDescription), as another document of this conversion is: under the ID field "
                    + "\(idField.debugDescription) only IDs are written, and read back all would be in one collection"
            throw FirePackError(
                .invalidValue,
                "document \(reference.path) is not in collection \(why); convert each collection apart with "
                    + "--collection, or leave out --id-field to write paths under __name__")
        }
        return (idField, reference.documentID)
    }

    /// The collection of the documents written under the ID field (its short form) when it was not given: nil
    /// before the first, or when given. Plain JSON holds only IDs, so reading the output back needs it.
    public var collectionWrittenUnderIDs: String? {
        guard idField != nil, !collectionIsGiven else { return nil }
        return writtenCollection.withLock { $0 }
    }
    /// The `projects/P/databases/D/documents` of the first document written under the ID field in that form, which
    /// the output does not hold.
    public var databaseLeftOut: String? { leftOutDatabase.withLock { $0 } }

    /// A collection path without its `projects/P/databases/D/documents/` prefix, if it has one: IDs read back under
    /// one collection path, whatever the project and database the documents were named in.
    private static func shortForm(_ path: Substring) -> Substring {
        guard path.hasPrefix("projects/") else { return path }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count > 5, segments[2] == "databases", segments[4] == "documents" else { return path }
        return path[segments[5].startIndex...]
    }

    /// A plain object from a document: its fields plus its ID under the ID field, or its path under `__name__`, and
    /// its create and update times, when it has them, under `__create_time__` and `__update_time__`.
    ///
    /// A field named like the ID field is kept when the naming keeps ID fields (`--keep-id-field`) and it names the
    /// same document (the ID as a string, or the integer that reads as it): read back so, it is the same document
    /// with the same fields. Any other, and any field named `__name__`, would be lost (or name another document), so
    /// the document is refused, naming it.
    public func value(of document: Document) throws -> Value {
        if let idFieldProblem { throw FirePackError(.invalidValue, idFieldProblem) }
        var fields = document.fields
        for (key, time) in [(Self.createTimeMember, document.createTime), (Self.updateTimeMember, document.updateTime)]
        {
            // Read back, a timestamp under these keys is the document's time, not a field: a field of that name is
            // kept only when it holds something else and the document has no such time.
            guard let existing = fields[key] else {
                if let time { fields[key] = .timestamp(time) }
                continue
            }
            let isTimestamp = if case .timestamp = existing { true } else { false }
            if time != nil || isTimestamp {
                let which = key == Self.createTimeMember ? "create" : "update"
                let loss = time != nil ? "one of them would be lost" : "it would be read back as that time"
                throw FirePackError(
                    .invalidValue,
                    "document \(document.reference.path) has a field \(key.debugDescription), where plain JSON holds the "
                        + "document's \(which) time: \(loss)")
            }
        }
        // Read back, `__name__` always names the document and is never a field: a field of that name would be lost.
        if fields[Self.nameMember] != nil {
            throw FirePackError(
                .invalidValue,
                "document \(document.reference.path) has a field \"__name__\", which plain JSON reads back as the "
                    + "document's path: it would be lost")
        }
        let (key, value) = try member(for: document.reference)
        if let existing = fields[key] {
            // Read back, the ID field stays a field only with `--keep-id-field`, and then names the document too.
            let same = names(existing, value, idField: idField != nil)
            guard keepsIDField, same else {
                let why =
                    same
                    ? "read back without --keep-id-field it is taken as the ID, not kept as a field (add --keep-id-field)"
                    : "it holds a \(existing.type) that does not name the document, and would be lost (choose another --id-field)"
                throw FirePackError(
                    .invalidValue,
                    "document \(document.reference.path) has a field \(key.debugDescription), where plain JSON names the "
                        + "document: \(why)")
            }
            return .map(fields)
        }
        // Read back with --keep-id-field, the ID written here would stay a field the document does not have; but
        // where IDs are generated (`--generate-missing-ids`), the ID field is where a generated one is kept.
        if keepsIDField, !generatesMissingIDs, let idField {
            throw FirePackError(
                .invalidValue,
                "document \(document.reference.path) has no field \(idField.debugDescription): with --keep-id-field its "
                    + "ID written there would be read back as a field too (leave out --keep-id-field to write IDs)")
        }
        fields[key] = .string(value)
        return .map(fields)
    }

    /// Whether a document's plain object may be written straight from its bytes with `member(for:)` appended (the
    /// fast path of a stream to JSON lines): not when ID fields are kept, as `value(of:)` then judges each one.
    package var appendsMemberDirectly: Bool { !(keepsIDField && !generatesMissingIDs && idField != nil) }

    /// Whether `existing`, read back as the document's name (`reference(name:id:line:)`), gives `member`.
    private func names(_ existing: Value, _ member: String, idField: Bool) -> Bool {
        switch existing {
        case .string(let text): return text.utf8.elementsEqual(member.utf8)  // bytes: what a reader takes
        case .integer(let number): return idField && String(number) == member
        case .reference(let reference): return !idField && reference.path.utf8.elementsEqual(member.utf8)
        default: return false
        }
    }
}

/// A small seedable generator (SplitMix64) for reproducible document IDs.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Line and column of a byte offset in text, for messages about JSON input.
package enum TextPosition {
    /// `line L, column C` (both from 1; the column counts characters) of `offset` in `text`.
    package static func describe(_ offset: Int, in text: some Collection<UInt8>) -> String {
        var line = 1
        var lineStart = text.startIndex
        var index = text.startIndex
        var position = 0
        while position < offset && index != text.endIndex {
            if text[index] == 0x0A {
                line += 1
                lineStart = text.index(after: index)
            }
            index = text.index(after: index)
            position += 1
        }
        return "line \(line), column \(column(of: text.distance(from: lineStart, to: index), in: text[lineStart...]))"
    }

    /// The column (from 1, in characters: UTF-8 continuation bytes do not count) of `offset` within one line.
    package static func column(of offset: Int, in line: some Collection<UInt8>) -> Int {
        1 + line.prefix(offset).reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
    }
}

/// What naming one record counts, for the counting-free functions: whether its name was sought (the record takes a
/// number) and whether it was given a new ID.
package struct NamingOutcome: Sendable {
    /// The record takes a record number.
    package var counted = false
    /// The record was given a new ID.
    package var generated = false

    package init() {}
}

extension Document {
    /// The document as plain JSON text (`DocumentNaming.value(of:)`): one line of JSON lines, or one element of a
    /// JSON array. Throws `limitExceeded` past `JSONTextLimits.document`, the longest line or element
    /// FirePack's JSON readers take.
    package func jsonLine(naming: DocumentNaming, options: JSONOptions) throws -> [UInt8] {
        try naming.value(of: self).jsonBytes(
            options: options, maxLength: JSONTextLimits.document, what: "document \(reference.path)")
    }
}
