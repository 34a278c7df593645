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

    /// Every violation in a document.
    public static func violations(in document: Document) -> [Violation] {
        var problems: [Violation] = []
        let size = storageSize(of: document)
        if size > maxDocumentSize {
            problems.append(
                Violation(
                    kind: "document larger than \(maxDocumentSize) bytes",
                    text: "document is \(size) bytes; Firestore allows \(maxDocumentSize)"))
        }
        check(.map(document.fields), path: "", depth: 0, into: &problems)
        return problems
    }

    static func check(_ value: Value, path: String, depth: Int, into problems: inout [Violation]) {
        func add(_ kind: String, _ text: String) { problems.append(Violation(kind: kind, text: text)) }
        switch value {
        case .map(let map):
            if depth > maxDepth {
                add("nested deeper than \(maxDepth) levels", "\(path): nested deeper than \(maxDepth) levels")
                return
            }
            for (key, element) in map {
                let here = path.isEmpty ? key : path + "." + key
                if key.utf8.count > maxFieldNameBytes {
                    add(
                        "field name longer than \(maxFieldNameBytes) bytes",
                        "\(here): field name longer than \(maxFieldNameBytes) bytes")
                }
                if DocumentReference.isReserved(key.utf8) && !(key == "__type__" && map["value"] != nil) {
                    add("reserved field name (__x__)", "\(here): field names like __x__ are reserved")
                }
                if key.isEmpty { add("empty field name", "\(path.isEmpty ? "(top level)" : path): empty field name") }
                check(element, path: here, depth: depth + 1, into: &problems)
            }
        case .array(let elements):
            if depth > maxDepth {
                add("nested deeper than \(maxDepth) levels", "\(path): nested deeper than \(maxDepth) levels")
                return
            }
            for (index, element) in elements.enumerated() {
                if case .array = element {
                    add(
                        "array directly inside an array",
                        "\(path)[\(index)]: Firestore does not allow an array directly inside an array")
                }
                check(element, path: "\(path)[\(index)]", depth: depth + 1, into: &problems)
            }
        case .timestamp(let timestamp):
            if !Timestamp.firestoreRange.contains(timestamp) {
                add("timestamp outside 0001-01-01 … 9999-12-31", "\(path): timestamp outside 0001-01-01 … 9999-12-31")
            }
        default: break
        }
    }

    /// Firestore's storage-size formula: document name + fields + 32 bytes.
    public static func storageSize(of document: Document) -> Int {
        let name = document.reference.segments.reduce(16) { $0 + $1.utf8.count + 1 }
        return name + document.fields.reduce(0) { $0 + $1.key.utf8.count + 1 + storageSize(of: $1.value) } + 32
    }

    static func storageSize(of value: Value) -> Int {
        switch value {
        case .null, .boolean: 1
        case .integer, .double, .timestamp, .serverTimestamp: 8
        case .string(let string): string.utf8.count + 1
        case .bytes(let data): data.count
        case .reference(let reference): reference.segments.reduce(16) { $0 + $1.utf8.count + 1 }
        case .geoPoint: 16
        case .array(let elements): elements.reduce(0) { $0 + storageSize(of: $1) }
        case .map(let map): map.reduce(0) { $0 + $1.key.utf8.count + 1 + storageSize(of: $1.value) }
        case .vector(let vector): 8 * vector.array.count + 20
        }
    }
}
