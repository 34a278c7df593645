import SwiftSyntax

// Enums without a raw type — with associated values or not — in the shape synthesized `Codable` gives them
// (SE-0295): a map with one key, the case's name, holding a map of the case's values under their labels (`_0`, `_1`, …
// for unlabeled ones); a case without values holds an empty map. Decoding refuses a map with other than one case key
// among its keys, with the error and message the synthesized `init(from:)` throws. `CodingKeys` may rename cases and
// `<Case>CodingKeys` a case's values, as for synthesized coding.

/// One case of such an enum, as it is coded.
struct CodedCase {
    /// One associated value.
    struct Value {
        /// The key (label, or `_index`).
        var key: String
        /// The local name it is bound to in generated code.
        var binding: String
        var type: TypeSyntax

        var isOptional: Bool {
            type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
                || type.as(IdentifierTypeSyntax.self)?.name.text == "Optional"
        }
    }

    /// The case's name as written (without backticks).
    var name: String
    /// The key the case is coded under.
    var key: String
    /// The labels as written (nil for unlabeled values), to rebuild the case.
    var labels: [String?]
    var values: [Value]
}

extension EnumDeclSyntax {
    /// The cases, with their keys; nil (with `fail` called for each problem) when they cannot be coded as synthesized
    /// `Codable` codes them.
    func codedCases(fail: (FirePackCodableDiagnostic, Syntax) -> Void) -> [CodedCase]? {
        let caseKeys = nestedCodingKeys(named: "CodingKeys")
        var cases: [CodedCase] = []
        var ok = true
        for member in memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            for element in caseDecl.elements {
                let name = element.name.text.trimmingBackticks
                var key = name
                if let caseKeys {
                    guard let renamed = caseKeys[name] else {
                        fail(.caseNotInCodingKeys(name), Syntax(element))
                        ok = false
                        continue
                    }
                    key = renamed
                }
                let parameters = Array(element.parameterClause?.parameters ?? [])
                let capitalized = name.prefix(1).uppercased() + name.dropFirst()
                let valueKeys = nestedCodingKeys(named: capitalized + "CodingKeys")
                var labels: [String?] = [], values: [CodedCase.Value] = []
                for (index, parameter) in parameters.enumerated() {
                    let label = parameter.firstName.flatMap {
                        $0.tokenKind == .wildcard ? nil : $0.text.trimmingBackticks
                    }
                    labels.append(label)
                    var valueKey = label ?? "_\(index)"
                    if let valueKeys {
                        guard let renamed = valueKeys[valueKey] else {
                            fail(.caseNotInCodingKeys("\(name).\(valueKey)"), Syntax(parameter))
                            ok = false
                            continue
                        }
                        valueKey = renamed
                    }
                    values.append(
                        CodedCase.Value(key: valueKey, binding: "value\(index)", type: parameter.type.trimmed))
                }
                cases.append(CodedCase(name: name, key: key, labels: labels, values: values))
            }
        }
        return ok ? cases : nil
    }

    /// The cases of a nested `CodingKey` enum called `name`, by case name, with their string values; nil without one.
    private func nestedCodingKeys(named name: String) -> [String: String]? {
        for member in memberBlock.members {
            guard let keys = member.decl.as(EnumDeclSyntax.self), keys.name.text == name else { continue }
            var names: [String: String] = [:]
            for keyMember in keys.memberBlock.members {
                guard let caseDecl = keyMember.decl.as(EnumCaseDeclSyntax.self) else { continue }
                for element in caseDecl.elements {
                    let caseName = element.name.text.trimmingBackticks
                    let literal = element.rawValue?.value.as(StringLiteralExprSyntax.self)?.representedLiteralValue
                    names[caseName] = literal ?? caseName
                }
            }
            return names
        }
        return nil
    }
}

extension CodingPlan {
    /// `init(firePack:)` for a case-keyed enum: find the one case key, then decode its values under it.
    func caseKeyedDecodeMember(_ cases: [CodedCase], initKeyword: String) -> DeclSyntax {
        var lines = [
            "let fields = try reader.readFields()",
            "let (index, payload) = try reader.decodeCase(of: Self.self, in: fields, cases: [\(cases.map { CodedProperty.literal($0.key) }.joined(separator: ", "))])",
            "switch index {"
        ]
        for (index, coded) in cases.enumerated() {
            lines.append(index == cases.count - 1 ? "default:" : "case \(index):")
            let key = CodedProperty.literal(coded.key)
            if coded.values.isEmpty {
                lines.append("    try reader.decodeEmptyCase(\(key), at: payload)")
                lines.append("    self = .\(coded.name)")
                continue
            }
            lines.append("    self = try reader.decodeCase(\(key), at: payload) { reader in")
            lines.append("        var fields = try reader.readFields()")
            var arguments: [String] = []
            for (value, label) in zip(coded.values, coded.labels) {
                let property = CodedProperty(
                    name: value.key, key: value.key, type: value.type, isWrapped: false, isInitializedConstant: false)
                let call = "try reader.\(property.decodeCall)"
                arguments.append(label.map { "\($0): \(call)" } ?? call)
            }
            lines.append("        return .\(coded.name)(\(arguments.joined(separator: ", ")))")
            lines.append("    }")
        }
        lines.append("}")
        return """
            \(raw: access)\(raw: initKeyword)(firePack reader: inout FirePackValueReader) throws {
                \(raw: lines.joined(separator: "\n"))
            }
            """
    }

    /// `encode(firePack:)` for a case-keyed enum: the case key, then its values in a map (keys sorted when asked).
    func caseKeyedEncodeMember(_ cases: [CodedCase]) -> DeclSyntax {
        var lines = ["writer.beginFields()", "switch self {"]
        for coded in cases {
            let bindings = coded.values.map { "let \($0.binding)" }
            lines.append("case .\(coded.name)\(bindings.isEmpty ? "" : "(\(bindings.joined(separator: ", ")))"):")
            let key = CodedProperty.literal(coded.key)
            if coded.values.isEmpty {
                lines.append("    try writer.encodeEmptyCase(\(key))")
                continue
            }
            func statements(_ values: [CodedCase.Value]) -> [String] {
                values.map { value in
                    "try writer.\(value.isOptional ? "encodeIfPresent" : "encode")(\(value.binding), forKey: \(CodedProperty.literal(value.key)))"
                }
            }
            lines.append("    try writer.encodeCase(\(key)) { writer in")
            let sorted = coded.values.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
            if sorted.map(\.key) == coded.values.map(\.key) {
                lines += statements(coded.values).map { "        " + $0 }
            } else {
                lines.append("        if writer.sortsKeys {")
                lines += statements(sorted).map { "            " + $0 }
                lines.append("        } else {")
                lines += statements(coded.values).map { "            " + $0 }
                lines.append("        }")
            }
            lines.append("    }")
        }
        lines += ["}", "writer.endFields()"]
        return """
            \(raw: access)func encode(firePack writer: inout FirePackValueWriter) throws {
                \(raw: lines.joined(separator: "\n"))
            }
            """
    }
}
