import CArrowABI
import FirePack

// Reading an `ArrowSchema` produced elsewhere (pyarrow, Spark, DuckDB, Polars) into FirePack's column model. The
// formats read are the ones Docs/ARROW.md maps (the Python package casts other Arrow types to them first); the
// `firepack.type` marks in field metadata say which FirePack type a string or struct column carries.

extension ArrowDocumentSchema {
    /// The columns of a record batch's schema (a struct), read from the C Data Interface; the caller keeps ownership.
    public init(importing schema: UnsafePointer<ArrowSchema>) throws(FirePackError) {
        let format = String(cString: schema.pointee.format)
        guard format == "+s" else {
            throw FirePackError(
                .typeMismatch, "a record batch's schema is a struct (+s), not \(format.debugDescription)")
        }
        var columns: [ArrowColumn] = []
        for index in 0..<Int(schema.pointee.n_children) {
            columns.append(try ArrowColumn(importing: schema.pointee.children[index]!))
        }
        self.init(columns: columns)
        try checkUniqueNames()
    }

    /// Throws when two columns, or two fields of one struct, share a name (byte for byte, as map keys compare): a
    /// FirePack map holds a key once, so one of the two would be lost, on reading and on writing alike.
    public func checkUniqueNames() throws(FirePackError) {
        try Self.checkUniqueNames(columns, in: [])
    }

    /// Throws `typeMismatch` naming the column unless the document's own columns have the types a reader fills them
    /// with: `__name__` a string (or reference), `__create_time__` and `__update_time__` timestamps. A schema given for
    /// reading that types them otherwise would have a path or a time written as what it is not (a path read back as
    /// an integer was its bytes' address).
    public func checkOwnColumns() throws(FirePackError) {
        for column in columns {
            let wanted: String
            switch column.name {
            case Self.nameColumn:
                if column.type == .string || column.type == .reference { continue }
                wanted = "a string column (the document's path)"
            case Self.createTimeColumn, Self.updateTimeColumn:
                if column.type == .timestamp { continue }
                wanted = "a timestamp column (the document's time)"
            default: continue
            }
            throw FirePackError(
                .typeMismatch, "\(column.name) must be \(wanted), not \(column.type.description)",
                path: [.key(column.name)])
        }
    }

    private static func checkUniqueNames(_ columns: [ArrowColumn], in path: [PathComponent]) throws(FirePackError) {
        var seen = Set<FieldName>()
        for column in columns {
            guard seen.insert(FieldName(column.name)).inserted else {
                let what =
                    path.isEmpty ? "two columns" : "two fields of the struct at \(FirePackError.describe(path: path))"
                throw FirePackError(
                    .duplicateKey, "\(what) are named \(column.name.debugDescription): a map holds a key once",
                    path: path + [.key(column.name)])
            }
            try checkUniqueNames(in: column.type, at: path + [.key(column.name)])
        }
    }

    private static func checkUniqueNames(in type: ArrowColumnType, at path: [PathComponent]) throws(FirePackError) {
        switch type {
        case .map(let fields): try checkUniqueNames(fields, in: path)
        case .list(let element): try checkUniqueNames(in: element.type, at: path)
        default: break
        }
    }
}

extension ArrowColumn {
    /// One field of an Arrow schema, read from the C Data Interface.
    public init(importing schema: UnsafePointer<ArrowSchema>) throws(FirePackError) {
        let name = schema.pointee.name.map { String(cString: $0) } ?? ""
        let format = String(cString: schema.pointee.format)
        let metadata = ArrowColumn.metadata(schema.pointee.metadata)
        let mark = metadata[ArrowDocumentSchema.typeKey]
        let nullMeaning: ArrowNullMeaning = metadata[ArrowDocumentSchema.nullKey] == "value" ? .value : .absent
        func child(_ index: Int) throws(FirePackError) -> ArrowColumn {
            guard index < Int(schema.pointee.n_children) else {
                throw FirePackError(
                    .typeMismatch, "field \(name.debugDescription): format \(format) without its child",
                    path: [.key(name)])
            }
            return try ArrowColumn(importing: schema.pointee.children[index]!)
        }
        func unsupported(_ why: String) -> FirePackError {
            FirePackError(.typeMismatch, "field \(name.debugDescription): \(why)", path: [.key(name)])
        }
        if schema.pointee.dictionary != nil {
            throw unsupported("dictionary-encoded columns are not read: decode them first")
        }
        // A mark misspelled would have the column written as its plain Arrow type (a reference as a string) without
        // a word; one on a column of another type names nothing that column can be, and changes nothing.
        if let mark, !ArrowColumn.typeMarks.contains(mark) {
            throw unsupported(
                "\(ArrowDocumentSchema.typeKey) \(mark.debugDescription) is no FirePack type mark "
                    + "(reference, value, geopoint or vector: Docs/ARROW.md)")
        }
        if let meaning = metadata[ArrowDocumentSchema.nullKey], meaning != "value" && meaning != "absent" {
            throw unsupported(
                "\(ArrowDocumentSchema.nullKey) \(meaning.debugDescription) is neither \"value\" nor \"absent\"")
        }
        let type: ArrowColumnType
        var unitsPerSecond: Int64 = 1_000_000_000
        switch (format, mark) {
        case ("n", _): type = .null
        case ("b", _): type = .boolean
        case ("l", _): type = .int64
        case ("g", _): type = .float64
        case (let f, _) where ["tss:", "tsm:", "tsu:", "tsn:"].contains(f.prefix(4)):
            // A timestamp in any unit (the time zone, when there is one, does not change the instant).
            unitsPerSecond = ["tss:": 1, "tsm:": 1_000, "tsu:": 1_000_000][f.prefix(4)] ?? 1_000_000_000
            type = .timestamp
        case ("u", "reference"): type = .reference
        case ("u", "value"): type = .exact
        case ("u", _): type = .string
        case ("z", _): type = .binary
        case ("+s", "geopoint"):
            let fields = try (0..<Int(schema.pointee.n_children)).map { (index) throws(FirePackError) in
                try child(index)
            }
            guard fields.map(\.name) == ["latitude", "longitude"], fields.allSatisfy({ $0.type == .float64 }) else {
                throw unsupported("a geopoint is struct<latitude: float64, longitude: float64>")
            }
            type = .geoPoint
        case ("+s", _):
            var fields: [ArrowColumn] = []
            for index in 0..<Int(schema.pointee.n_children) { fields.append(try child(index)) }
            type = .map(fields)
        case ("+l", "vector"):
            guard try child(0).type == .float64 else { throw unsupported("a vector is a list of float64") }
            type = .vector(dimension: nil)
        case ("+l", _):
            type = .list(try child(0))
        case (let f, let mark) where f.hasPrefix("+w:"):
            guard let dimension = Int(f.dropFirst(3)), dimension >= 0 else { throw unsupported("bad format \(f)") }
            let element = try child(0)
            if mark == "vector" || element.type == .float64 {
                guard element.type == .float64 else { throw unsupported("a vector is a list of float64") }
                type = .vector(dimension: dimension)
            } else {
                throw unsupported(
                    "fixed_size_list of \(element.type.description) is read only as a vector (of float64)")
            }
        default:
            throw unsupported(
                "Arrow format \(format.debugDescription) has no FirePack type (Docs/ARROW.md lists the types read)")
        }
        self.init(name: name, type: type, nullMeaning: nullMeaning)
        timeUnitsPerSecond = unitsPerSecond
    }

    /// The C Data Interface's metadata: an int32 count, then each key and value as an int32 length and bytes.
    static func metadata(_ pointer: UnsafePointer<CChar>?) -> [String: String] {
        guard let pointer else { return [:] }
        let raw = UnsafeRawPointer(pointer)
        var offset = 0
        func int32() -> Int {
            defer { offset += 4 }
            return Int(Int32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)))
        }
        func text() -> String {
            let count = int32()
            defer { offset += count }
            return String(decoding: UnsafeRawBufferPointer(start: raw + offset, count: count), as: UTF8.self)
        }
        var result: [String: String] = [:]
        for _ in 0..<int32() {
            let key = text()
            result[key] = text()
        }
        return result
    }
}
