import FirePack
import FirePackInterop

// A FirePack table's schema as Apache Spark's JSON schema text (`StructType.json`, read by `DataType.fromJson`),
// and back: how the schema travels to and from Spark's JVM, where there is no Arrow schema to hand over.
//
// Spark's types have no Arrow metadata, so each top-level field carries the FirePack marks of everything inside it
// in its Spark metadata, under "firepack": a map from a path below the field ("" for the field itself, ".name" for a
// struct field, "[]" for a list element; a name that holds `.`, `[`, `]`, a backquote or a backslash in backquotes,
// `FieldPathText`) to the `firepack.*` keys of that Arrow field. The Python package's
// `firepack.spark.spark_schema` writes the same (Docs/ARROW.md, "Spark"), so either reader plans from either schema.
// Timestamps are Spark's `timestamp` (microseconds); a vector's fixed dimension is not kept (Spark has no fixed-size
// list): it reads back as a vector of any dimension.

extension ArrowDocumentSchema {
    /// The Spark metadata key of the marks.
    public static let sparkMarksKey = "firepack"

    /// Spark's JSON schema text for these columns, each top-level field with its marks.
    public var sparkJSON: String {
        "{\"type\":\"struct\",\"fields\":["
            + columns.map { $0.sparkFieldJSON(marks: $0.sparkMarks()) }.joined(separator: ",") + "]}"
    }

    /// The columns a Spark JSON schema (`StructType.json`) stands for, with the marks of `sparkJSON` put back.
    /// Spark types FirePack has no type for (integer, decimal, date, …) are an error naming the field.
    public init(sparkJSON text: String) throws(FirePackError) {
        let root = try Value(json: text)
        guard case .map(let schema) = root, schema["type"] == .string("struct"),
            case .array(let fields)? = schema["fields"]
        else {
            throw FirePackError(
                .typeMismatch, "a Spark schema is a struct's JSON ({\"type\":\"struct\",\"fields\":[…]})")
        }
        var columns: [ArrowColumn] = []
        for field in fields {
            guard case .map(let field) = field, case .string(let name)? = field["name"] else {
                throw FirePackError(.typeMismatch, "a Spark schema field without a name")
            }
            var marks: [String: [String: String]] = [:]
            if case .map(let metadata)? = field["metadata"], case .map(let byPath)? = metadata[Self.sparkMarksKey] {
                for (path, entry) in byPath {
                    guard case .map(let keys) = entry else { continue }
                    var found: [String: String] = [:]
                    for (key, value) in keys { if case .string(let text) = value { found[key] = text } }
                    marks[path] = found
                }
            }
            let type = field["type"] ?? .null
            marks = try Self.resolving(marks, of: type, field: name)
            columns.append(try ArrowColumn(sparkName: name, type: type, marks: marks, path: ""))
        }
        self.init(columns: columns)
        try checkUniqueNames()
    }
}

extension ArrowDocumentSchema {
    /// `marks`, the marks of the top-level Spark field `name` of type `type`, each by the path `FieldPathText` spells;
    /// a key written before paths quoted keys (`.a.b` for the field `a.b`, now ``.`a.b` ``) is read as the one field
    /// it names. A mark that names no field, or more than one, or that is no FirePack mark, is an error: dropped, it
    /// would have a reference written back as a plain string.
    static func resolving(_ marks: [String: [String: String]], of type: Value, field name: String) throws(FirePackError)
        -> [String: [String: String]]
    {
        guard !marks.isEmpty else { return marks }
        // Every node's path as spelled now, and as it was spelled before keys were quoted.
        var nodes: [(path: String, unquoted: String)] = []
        func visit(_ type: Value, _ path: String, _ unquoted: String) {
            nodes.append((path, unquoted))
            guard case .map(let nested) = type else { return }
            if nested["type"] == .string("struct"), case .array(let fields)? = nested["fields"] {
                for case .map(let field) in fields {
                    guard case .string(let child)? = field["name"] else { continue }
                    visit(
                        field["type"] ?? .null, FieldPathText.member(child, of: path, withDot: true),
                        unquoted + "." + child)
                }
            } else if nested["type"] == .string("array") {
                visit(nested["elementType"] ?? .null, FieldPathText.elements(of: path), unquoted + "[]")
            }
        }
        visit(type, "", "")
        let paths = Set(nodes.map(\.path))
        var resolved: [String: [String: String]] = [:]
        func unnamed(_ why: String) -> FirePackError {
            FirePackError(
                .typeMismatch, "field \(name.debugDescription): its Spark metadata \(why)", path: [.key(name)])
        }
        for (key, keys) in marks.sorted(by: { $0.key < $1.key }) {
            if let mark = keys[typeKey], !ArrowColumn.typeMarks.contains(mark) {
                throw unnamed(
                    "marks \(key.debugDescription) \(typeKey) \(mark.debugDescription), no FirePack type mark")
            }
            if let meaning = keys[nullKey], meaning != "value" && meaning != "absent" {
                throw unnamed("marks \(key.debugDescription) \(nullKey) \(meaning.debugDescription)")
            }
            if paths.contains(key) {
                resolved[key] = keys
                continue
            }
            let named = nodes.filter { $0.unquoted == key && marks[$0.path] == nil }
            guard named.count == 1 else {
                throw unnamed(
                    "marks \(key.debugDescription), which names \(named.isEmpty ? "no field" : "more than one field") of it"
                )
            }
            resolved[named[0].path] = keys
        }
        return resolved
    }
}

extension ArrowColumn {
    /// The values `firepack.type` takes.
    static let typeMarks: Set = ["reference", "value", "geopoint", "vector"]

    /// The `firepack.*` keys of this column and of everything inside it, by path below it.
    func sparkMarks(path: String = "") -> [String: [(String, String)]] {
        let layout = arrowLayout()
        var found: [String: [(String, String)]] = [:]
        if !layout.metadata.isEmpty { found[path] = layout.metadata }
        let isList = layout.format == "+l" || layout.format.hasPrefix("+w:")
        for child in layout.children {
            let childPath =
                isList
                ? FieldPathText.elements(of: path) : FieldPathText.member(child.name, of: path, withDot: true)
            found.merge(child.sparkMarks(path: childPath)) { first, _ in first }
        }
        return found
    }

    func sparkFieldJSON(marks: [String: [(String, String)]]) -> String {
        var metadata = "{}"
        if !marks.isEmpty {
            let entries = marks.sorted { $0.key < $1.key }.map { path, keys in
                JSONText.quoted(path) + ":{"
                    + keys.map { JSONText.quoted($0.0) + ":" + JSONText.quoted($0.1) }.joined(separator: ",") + "}"
            }
            metadata =
                "{" + JSONText.quoted(ArrowDocumentSchema.sparkMarksKey) + ":{" + entries.joined(separator: ",") + "}}"
        }
        return
            "{\"name\":\(JSONText.quoted(name)),\"type\":\(sparkTypeJSON),\"nullable\":true,\"metadata\":\(metadata)}"
    }

    var sparkTypeJSON: String {
        let layout = arrowLayout()
        switch type {
        case .null: return "\"void\""
        case .boolean: return "\"boolean\""
        case .int64: return "\"long\""
        case .float64: return "\"double\""
        case .timestamp: return "\"timestamp\""
        case .string, .reference, .exact: return "\"string\""
        case .binary: return "\"binary\""
        case .geoPoint, .map:
            let fields = layout.children.map { $0.sparkFieldJSON(marks: [:]) }
            return "{\"type\":\"struct\",\"fields\":[" + fields.joined(separator: ",") + "]}"
        case .vector, .list:
            return "{\"type\":\"array\",\"elementType\":\(layout.children[0].sparkTypeJSON),\"containsNull\":true}"
        }
    }

    /// The column a Spark field's type stands for, given the marks of the top-level field it is in.
    init(sparkName name: String, type: Value, marks: [String: [String: String]], path: String) throws(FirePackError) {
        let own = marks[path] ?? [:]
        let mark = own[ArrowDocumentSchema.typeKey]
        let nullMeaning: ArrowNullMeaning = own[ArrowDocumentSchema.nullKey] == "value" ? .value : .absent
        func unsupported(_ what: String) -> FirePackError {
            FirePackError(
                .typeMismatch,
                "field \(name.debugDescription): Spark type \(what) has no FirePack type "
                    + "(long, double, boolean, string, binary, timestamp, struct, array and void are read: Docs/ARROW.md)",
                path: [.key(name)])
        }
        let columnType: ArrowColumnType
        switch type {
        case .string("void"): columnType = .null
        case .string("boolean"): columnType = .boolean
        case .string("long"): columnType = .int64
        case .string("double"): columnType = .float64
        case .string("timestamp"): columnType = .timestamp
        case .string("binary"): columnType = .binary
        case .string("string"):
            columnType = mark == "reference" ? .reference : mark == "value" ? .exact : .string
        case .map(let nested) where nested["type"] == .string("struct"):
            guard case .array(let fields)? = nested["fields"] else { throw unsupported("struct without fields") }
            var columns: [ArrowColumn] = []
            for field in fields {
                guard case .map(let field) = field, case .string(let child)? = field["name"] else {
                    throw unsupported("struct field without a name")
                }
                columns.append(
                    try ArrowColumn(
                        sparkName: child, type: field["type"] ?? .null, marks: marks,
                        path: FieldPathText.member(child, of: path, withDot: true)))
            }
            if mark == "geopoint" {
                guard columns.map(\.name) == ["latitude", "longitude"], columns.allSatisfy({ $0.type == .float64 })
                else {
                    throw unsupported("struct marked geopoint that is not struct<latitude: double, longitude: double>")
                }
                columnType = .geoPoint
            } else {
                columnType = .map(columns)
            }
        case .map(let nested) where nested["type"] == .string("array"):
            let element = try ArrowColumn(
                sparkName: "item", type: nested["elementType"] ?? .null, marks: marks,
                path: FieldPathText.elements(of: path))
            if mark == "vector" {
                guard element.type == .float64 else {
                    throw unsupported("array marked vector that is not array<double>")
                }
                columnType = .vector(dimension: nil)
            } else {
                columnType = .list(element)
            }
        case .string(let other): throw unsupported(other)
        default: throw unsupported(String(decoding: type.jsonBytes(), as: UTF8.self))
        }
        self.init(name: name, type: columnType, nullMeaning: nullMeaning)
    }
}
