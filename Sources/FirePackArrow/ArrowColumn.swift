import FirePack

/// The Arrow type of one column (or nested field), and the FirePack type it carries (Docs/ARROW.md, "Type mapping").
public indirect enum ArrowColumnType: Hashable, Sendable {
    /// Arrow `null` (`n`): a field that only ever held null.
    case null
    /// Arrow `bool` (`b`).
    case boolean
    /// Arrow `int64` (`l`).
    case int64
    /// Arrow `float64` (`g`), bit patterns kept.
    case float64
    /// Arrow `timestamp[ns, tz=UTC]` (`tsn:UTC`).
    case timestamp
    /// Arrow `string` (`u`).
    case string
    /// Arrow `binary` (`z`).
    case binary
    /// Arrow `string` holding a document's full path, marked `firepack.type: reference`.
    case reference
    /// Arrow `struct<latitude: float64, longitude: float64>`, marked `firepack.type: geopoint`.
    case geoPoint
    /// Arrow `list<float64>`, or `fixed_size_list<float64>[dimension]`, marked `firepack.type: vector`.
    case vector(dimension: Int?)
    /// Arrow `struct`: a FirePack map with these fields.
    case map([ArrowColumn])
    /// Arrow `list`: a FirePack array whose elements are `element` (named `item`).
    case list(ArrowColumn)
    /// Arrow `string` holding each value's JSON text in FirePack's reversible form, marked `firepack.type: value`: the exact form
    /// of a field whose values disagree in type (or that Arrow cannot hold exactly otherwise).
    case exact
}

/// What an Arrow null in a column stands for (metadata `firepack.null`).
public enum ArrowNullMeaning: String, Hashable, Sendable {
    /// The field is absent from the map (the default; no mark).
    case absent
    /// The field is present with the value null (mark `firepack.null: value`); list elements always are.
    case value
}

/// One column of a FirePack table, or one field of a nested struct.
public struct ArrowColumn: Hashable, Sendable {
    /// The field's name (a map key; `__name__`, `__create_time__`, `__update_time__` for the document's own).
    public var name: String
    /// Its type.
    public var type: ArrowColumnType
    /// What an Arrow null stands for.
    public var nullMeaning: ArrowNullMeaning
    /// For a timestamp column being written: its values' units per second (Arrow's `tss:`, `tsm:`, `tsu:`, `tsn:`).
    public var timeUnitsPerSecond: Int64 = 1_000_000_000

    /// A column; nulls mean an absent field unless told otherwise.
    public init(name: String, type: ArrowColumnType, nullMeaning: ArrowNullMeaning = .absent) {
        self.name = name
        self.type = type
        self.nullMeaning = nullMeaning
    }

    /// How many Arrow fields this column is: itself and the fields nested in it.
    public var fieldCount: Int {
        switch type {
        case .map(let fields): 1 + fields.reduce(0) { $0 + $1.fieldCount }
        case .list(let element): 1 + element.fieldCount
        case .geoPoint: 3
        case .vector: 2
        default: 1
        }
    }
}

/// The columns a FirePack stream becomes: the document's path, its fields, and its create and update times when
/// some document has them.
public struct ArrowDocumentSchema: Hashable, Sendable {
    /// The name of the column holding each document's path.
    public static let nameColumn = "__name__"
    /// The name of the column holding each document's create time.
    public static let createTimeColumn = "__create_time__"
    /// The name of the column holding each document's update time.
    public static let updateTimeColumn = "__update_time__"
    /// The metadata key marking a column's FirePack type.
    public static let typeKey = "firepack.type"
    /// The metadata key saying what a column's nulls stand for.
    public static let nullKey = "firepack.null"

    /// Every column, the document's own first (`__name__`, then the times when present), then the fields.
    public var columns: [ArrowColumn]

    /// The most distinct keys inference gives a nested map's struct; a map field whose maps hold more between them
    /// (a map keyed by IDs, as Firestore documents often are) is kept as JSON text instead, so that each row costs its
    /// own keys rather than every key of the stream (Docs/ARROW.md, "Wide and sparse maps").
    public static let maxInferredMapKeys = 1_000
    /// The most Arrow fields (columns and their nested fields, `fieldCount`) a reader fills from an inferred schema:
    /// every row holds every one, present or not, so a wider schema makes a small stream cost rows × fields.
    public static let maxReadFields = 10_000

    /// A schema of these columns.
    public init(columns: [ArrowColumn]) { self.columns = columns }

    /// How many Arrow fields the columns are, nested ones included (a geopoint's two, a list's element).
    public var fieldCount: Int { columns.reduce(0) { $0 + $1.fieldCount } }

    /// Why an inferred `schema` of more than `maxReadFields` fields is not read.
    static func tooWide(_ schema: ArrowDocumentSchema) -> String {
        "the inferred schema has \(schema.fieldCount) Arrow fields (\(schema.columns.count) columns and their nested "
            + "fields), more than the \(maxReadFields) a reader fills from an inferred schema: every row holds every "
            + "one, present or not. Read fewer columns (`columns`), or give a schema (one that holds sparse fields as "
            + "JSON text, `firepack.type: value`, costs each row its own)"
    }

    /// Throws when an inferred schema is wider than `maxReadFields` (the engines' planners infer once and hand the
    /// schema to their readers as given).
    public func checkInferredWidth() throws(FirePackError) {
        guard fieldCount <= Self.maxReadFields else { throw FirePackError(.limitExceeded, Self.tooWide(self)) }
    }

    /// Only the columns named in `names`, in the schema's order; a name it does not have throws.
    public func projected(to names: [String]) throws(FirePackError) -> ArrowDocumentSchema {
        let known = Set(columns.map { FieldName($0.name) })
        if let unknown = names.first(where: { !known.contains(FieldName($0)) }) {
            throw FirePackError(
                .invalidValue,
                "no column \(unknown.debugDescription): the schema has \(columns.map(\.name).joined(separator: ", "))")
        }
        let wanted = Set(names.map(FieldName.init))
        return ArrowDocumentSchema(columns: columns.filter { wanted.contains(FieldName($0.name)) })
    }

    /// Paths of the columns (and nested fields) kept as JSON text.
    public var exactPaths: [String] {
        var paths: [String] = []
        func visit(_ column: ArrowColumn, _ prefix: String) {
            let path = FieldPathText.member(column.name, of: prefix)
            switch column.type {
            case .exact: paths.append(path)
            case .map(let fields): for field in fields { visit(field, path) }
            case .list(let element): visit(element, FieldPathText.elements(of: path))
            default: break
            }
        }
        for column in columns { visit(column, "") }
        return paths
    }
}

extension ArrowColumnType {
    /// The type in words, as `firepack schema` and errors show it.
    public var description: String {
        switch self {
        case .null: "null"
        case .boolean: "bool"
        case .int64: "int64"
        case .float64: "float64"
        case .timestamp: "timestamp[ns, UTC]"
        case .string: "string"
        case .binary: "binary"
        case .reference: "reference (string)"
        case .geoPoint: "geopoint (struct)"
        case .vector(let dimension):
            dimension.map { "vector (fixed_size_list<float64>[\($0)])" } ?? "vector (list<float64>)"
        case .map(let fields): "struct<\(fields.map { "\($0.name): \($0.type.description)" }.joined(separator: ", "))>"
        case .list(let element): "list<\(element.type.description)>"
        case .exact: "JSON text (string)"
        }
    }
}
