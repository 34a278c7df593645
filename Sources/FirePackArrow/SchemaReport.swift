import FirePack

/// One line of a schema report: what was seen at a field path and the column it becomes.
public struct FieldReport: Sendable {
    /// The path: `a.b`, with `[]` for the elements of a list (`tags[]`) and a key that holds `.`, `[`, `]`, a
    /// backquote or a backslash in backquotes (`` a.`x.y` ``, `FieldPathText`).
    public var path: String
    /// How many values of each type were seen, null included, most frequent first.
    public var types: [(type: String, count: Int)]
    /// How many times the field was absent from a map that could have held it.
    public var absent: Int
    /// The column type inferred.
    public var column: String
    /// Why the field is kept as JSON text, when it is.
    public var exactReason: String?
}

extension DocumentProfile {
    /// Every field path seen, depth first in first-seen order, with what the inferred schema makes of it.
    public func report() throws(FirePackError) -> [FieldReport] {
        let (schema, reasons) = try schema()
        var lines: [FieldReport] = []
        func visit(_ profile: FieldProfile, path: String, column: ArrowColumn?) {
            let types = profile.typeCounts.map { ($0.key.description, $0.value) }.sorted {
                $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0
            }
            lines.append(
                FieldReport(
                    path: path, types: types, absent: profile.absent,
                    column: column?.type.description ?? "?", exactReason: reasons[path]))
            if case .map(let fields)? = column?.type {
                let columns = byName(fields)
                for (name, child) in profile.fields {
                    visit(child, path: FieldPathText.member(name, of: path), column: columns[FieldName(name)])
                }
            } else if column?.type != .exact {
                for (name, child) in profile.fields {
                    visit(child, path: FieldPathText.member(name, of: path), column: nil)
                }
            }
            if let element = profile.element, column?.type != .exact {
                if case .list(let elementColumn)? = column?.type {
                    visit(element, path: FieldPathText.elements(of: path), column: elementColumn)
                } else if case .vector? = column?.type {
                } else {
                    visit(element, path: FieldPathText.elements(of: path), column: nil)
                }
            }
        }
        let columns = byName(schema.columns)
        for (name, profile) in fields.fields {
            visit(profile, path: FieldPathText.member(name, of: ""), column: columns[FieldName(name)])
        }
        return lines
    }

    /// Columns by their names' bytes, as the profile tells fields apart: looked up once a field, so that a map of
    /// many fields costs time in proportion to them (a search of the list per field was fields²).
    private func byName(_ columns: [ArrowColumn]) -> [FieldName: ArrowColumn] {
        Dictionary(columns.map { (FieldName($0.name), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// The report as JSON: `{"documents": N, "problems": N, "blocks_past_expansion": N, "block_expansion_needed": N,
    /// "rejected": N, "rejected_past_key_limit": N, "first_rejected": text or null, "closed_records": N or null,
    /// "not_closed": [{"path", "records"}], "fields": [{"path", "types", "absent", "column", "exact"}]}`; `rejected`
    /// counts the records found not to be documents (damaged, or past a limit), `rejected_past_key_limit` those past
    /// the key-expansion limit, `first_rejected` says the first; `closed_records` is what the
    /// streams' close records count when every stream was read whole and closed, and `not_closed` the streams read to
    /// their end without one.
    public func reportJSON() throws(FirePackError) -> String {
        let fields = try report().map { line in
            let types = line.types.map { "\(JSONText.quoted($0.type)):\($0.count)" }.joined(separator: ",")
            var text =
                "{\"path\":\(JSONText.quoted(line.path)),\"types\":{\(types)},\"absent\":\(line.absent),\"column\":\(JSONText.quoted(line.column))"
            if let reason = line.exactReason { text += ",\"exact\":\(JSONText.quoted(reason))" }
            return text + "}"
        }
        let unclosed = notClosed.map { "{\"path\":\(JSONText.quoted($0.path)),\"records\":\($0.records)}" }
        return
            "{\"documents\":\(documents),\"problems\":\(problemCount),\"blocks_past_expansion\":\(blocksPastExpansion),\"block_expansion_needed\":\(blockExpansionNeeded),"
            + "\"rejected\":\(rejectedCount),\"rejected_past_key_limit\":\(rejectedPastKeyLimit),\"first_rejected\":\(firstRejected.map(JSONText.quoted) ?? "null"),"
            + "\"closed_records\":\(closedRecords.map(String.init) ?? "null"),\"not_closed\":[\(unclosed.joined(separator: ","))],"
            + "\"fields\":[\(fields.joined(separator: ","))]}"
    }
}
