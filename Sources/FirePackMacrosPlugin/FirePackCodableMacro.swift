import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@FirePackCodable`: conformances to `FirePackDecodable` / `FirePackEncodable` whose requirements read and write
/// FirePack bytes directly, coding what synthesized `Codable` codes, under the same keys, in the same order.
///
/// Structs and enums get their generated members in the extension (so a struct keeps its memberwise initializer);
/// classes get them as members, since a class's `required` initializer must be in its body.
public struct FirePackCodableMacro: MemberMacro, ExtensionMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        // Diagnostics come from the extension role, which runs for every declaration.
        guard let classDecl = declaration.as(ClassDeclSyntax.self),
            let plan = try? CodingPlan(declaration, attribute: node, diagnose: nil)
        else { return [] }
        let isFinal = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.final) }
        return plan.members(initKeyword: isFinal ? "init" : "required init")
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        // A declaration it cannot generate for gets its diagnostics and no extension.
        guard
            let plan = try? CodingPlan(
                declaration, attribute: node,
                diagnose: { diagnostic, node in
                    context.diagnose(Diagnostic(node: node, message: diagnostic))
                })
        else { return [] }
        var conformances: [String] = []
        let wanted = Set(protocols.map { $0.trimmedDescription.split(separator: ".").last.map(String.init) ?? "" })
        if plan.decodes && wanted.contains("FirePackDecodable") { conformances.append("FirePackDecodable") }
        if plan.encodes && wanted.contains("FirePackEncodable") { conformances.append("FirePackEncodable") }
        guard !conformances.isEmpty else { return [] }
        let members = declaration.is(ClassDeclSyntax.self) ? [] : plan.members(initKeyword: "init")
        let body = members.map { $0.description }.joined(separator: "\n\n")
        let decl: DeclSyntax =
            body.isEmpty
            ? "extension \(type.trimmed): \(raw: conformances.joined(separator: ", ")) {}"
            : """
            extension \(type.trimmed): \(raw: conformances.joined(separator: ", ")) {
            \(raw: body)
            }
            """
        return [decl.cast(ExtensionDeclSyntax.self)]
    }
}

/// What to generate for one declaration, checked.
struct CodingPlan {
    enum Shape {
        case fields([CodedProperty])
        case rawValueEnum
        /// An enum without a raw type, coded as synthesized `Codable` codes it (CaseKeyedEnum.swift).
        case caseKeyedEnum([CodedCase])
    }

    let shape: Shape
    let decodes: Bool
    let encodes: Bool
    let access: String
    /// `@FirePackCodable(unknownKeys: .reject)`.
    let rejectsUnknownKeys: Bool
    /// Whether `init(firePack:)` stores through the struct's implicit memberwise initializer (`memberwiseInitializes`).
    private(set) var delegatesToMemberwise = false

    /// Reads the declaration; reports every reason it cannot be generated to `diagnose` and throws.
    init(
        _ declaration: some DeclGroupSyntax, attribute: AttributeSyntax,
        diagnose: ((FirePackCodableDiagnostic, Syntax) -> Void)?
    ) throws {
        var failed = false
        func fail(_ diagnostic: FirePackCodableDiagnostic, _ node: some SyntaxProtocol) {
            diagnose?(diagnostic, Syntax(node))
            failed = true
        }
        let names = declaration.inheritedNames
        let namesCodable = names.contains("Codable")
        let namesDecodable = names.contains("Decodable"), namesEncodable = names.contains("Encodable")
        // Without a visible conformance (declared in another extension), generate both directions.
        decodes = namesCodable || namesDecodable || !namesEncodable
        encodes = namesCodable || namesEncodable || !namesDecodable
        access = declaration.memberAccess
        var rejects = false
        if case .argumentList(let arguments)? = attribute.arguments {
            for argument in arguments where argument.label?.text == "unknownKeys" {
                let value = argument.expression.trimmedDescription
                rejects = value.hasSuffix(".reject")
                if !rejects && !value.hasSuffix(".ignore") { fail(.unknownKeysValue, argument.expression) }
            }
        }
        rejectsUnknownKeys = rejects

        if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            let rawTypes: Set<String> = [
                "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16",
                "UInt32", "UInt64", "Double", "Float"
            ]
            // Protocols an enum without a raw type names first; anything else there may be a raw type we cannot code.
            let protocols: Set<String> = [
                "Codable", "Decodable", "Encodable", "Equatable", "Hashable", "Sendable",
                "CaseIterable", "Swift.Codable", "Swift.Decodable", "Swift.Encodable"
            ]
            let hasValues = enumDecl.memberBlock.members.contains { member in
                member.decl.as(EnumCaseDeclSyntax.self)?.elements.contains { $0.parameterClause != nil } ?? false
            }
            if let first = names.first, rawTypes.contains(first), !hasValues {
                // Its own init(from:) or encode(to:) (a fallback case for unknown raw values, say) decides, as for
                // any other type.
                if decodes, let custom = declaration.declaresCodableRequirement(initFrom: true) {
                    fail(.customInitFrom, custom)
                }
                if encodes, let custom = declaration.declaresCodableRequirement(initFrom: false) {
                    fail(.customEncodeTo, custom)
                }
                shape = .rawValueEnum
            } else if hasValues || names.first.map(protocols.contains) ?? true {
                if decodes, let custom = declaration.declaresCodableRequirement(initFrom: true) {
                    fail(.customInitFrom, custom)
                }
                if encodes, let custom = declaration.declaresCodableRequirement(initFrom: false) {
                    fail(.customEncodeTo, custom)
                }
                if rejects { fail(.unknownKeysOnEnum, attribute) }
                let cases = enumDecl.codedCases { diagnostic, node in fail(diagnostic, node) }
                if cases?.isEmpty == true { fail(.noCases, enumDecl.name) }
                shape = .caseKeyedEnum(cases ?? [])
            } else {
                fail(.noRawType, enumDecl.name)
                shape = .rawValueEnum
            }
        } else if declaration.is(StructDeclSyntax.self) || declaration.is(ClassDeclSyntax.self) {
            if decodes, let custom = declaration.declaresCodableRequirement(initFrom: true) {
                fail(.customInitFrom, custom)
            }
            if encodes, let custom = declaration.declaresCodableRequirement(initFrom: false) {
                fail(.customEncodeTo, custom)
            }
            for variable in declaration.storedPropertiesUnderIf() {
                fail(.storedPropertyUnderIf(variable.bindings.first?.pattern.trimmedDescription ?? "?"), variable)
            }
            let properties = declaration.codedProperties()
            let hasStoredProperty = declaration.memberBlock.members.contains { member in
                guard let variable = member.decl.as(VariableDeclSyntax.self),
                    !variable.modifiers.contains(where: { $0.name.text == "static" || $0.name.text == "class" })
                else { return false }
                return variable.bindings.contains(where: \.isStored)
            }
            if !hasStoredProperty { fail(.noStoredProperties, declaration.introducer) }
            var seen: Set<String> = []
            for property in properties where property.ignoredAttribute == nil && !seen.insert(property.key).inserted {
                fail(.duplicateKey, property.keyAttribute.map(Syntax.init) ?? Syntax(declaration.introducer))
            }
            for property in properties where property.ignoredAttribute == nil {
                for alias in property.aliases where !seen.insert(alias).inserted {
                    fail(.aliasCollides(alias), property.keyAttribute!)
                }
                if let attribute = property.keyAttribute {
                    let arguments = attribute.keyArguments
                    if arguments.key == nil || arguments.aliases == nil { fail(.keyNotLiteral, attribute) }
                }
            }
            for property in properties {
                let attribute = property.defaultAttribute ?? property.keyAttribute ?? property.ignoredAttribute
                if property.isWrapped, let attribute,
                    property.aliases.count > 0 || property.defaultAttribute != nil || property.ignoredAttribute != nil
                {
                    fail(.evolutionOnWrapper(property.name), attribute)
                }
                if property.isInitializedConstant, let attribute = property.defaultAttribute {
                    fail(.defaultOnConstant(property.name), attribute)
                } else if let attribute = property.defaultAttribute, property.type == nil {
                    fail(.defaultWithoutType(property.name), attribute)
                }
                if let attribute = property.ignoredAttribute, !property.hasDefault, !property.isOptional {
                    fail(.ignoredWithoutDefault(property.name), attribute)
                }
            }
            for (name, node) in declaration.bagsLeftOutOfCodingKeys() { fail(.bagNotInCodingKeys(name), node) }
            var bag: CodedProperty?
            for property in properties where property.isUnknownFieldsBag || property.isOptionalBag {
                let node = property.defaultAttribute ?? property.keyAttribute ?? property.ignoredAttribute
                if property.isOptionalBag || property.isWrapped || property.isInitializedConstant || node != nil {
                    fail(
                        .bagNotPlain(property.name),
                        node.map(Syntax.init) ?? property.node ?? Syntax(declaration.introducer))
                } else if let first = bag {
                    fail(
                        .bagDeclaredTwice(property.name, first: first.name),
                        property.node ?? Syntax(declaration.introducer))
                } else {
                    bag = property
                    if rejects { fail(.bagWithReject, property.node ?? Syntax(declaration.introducer)) }
                }
            }
            shape = .fields(properties)
            delegatesToMemberwise = declaration.memberwiseInitializes(properties)
        } else {
            fail(.unsupportedDeclaration, declaration.introducer)
            shape = .rawValueEnum
        }
        if failed { throw DiagnosticsEmitted() }
    }

    /// `init(firePack:)` and `encode(firePack:)`, as the directions require.
    func members(initKeyword: String) -> [DeclSyntax] {
        var members: [DeclSyntax] = []
        switch shape {
        case .rawValueEnum:
            if decodes {
                members.append(
                    """
                    \(raw: access)\(raw: initKeyword)(firePack reader: inout FirePackValueReader) throws {
                        self = try reader.decodeRawValue(Self.self)
                    }
                    """)
            }
            if encodes {
                members.append(
                    """
                    \(raw: access)func encode(firePack writer: inout FirePackValueWriter) throws {
                        try writer.encodeRawValue(self)
                    }
                    """)
            }
        case .caseKeyedEnum(let cases):
            if decodes { members.append(caseKeyedDecodeMember(cases, initKeyword: initKeyword)) }
            if encodes { members.append(caseKeyedEncodeMember(cases)) }
        case .fields(let properties):
            if decodes { members.append(decodeMember(properties, initKeyword: initKeyword)) }
            if encodes { members.append(encodeMember(properties)) }
        }
        // Re-indented as a whole: the bodies are assembled from lines.
        return members.map { $0.formatted().cast(DeclSyntax.self) }
    }

    /// `init(firePack:)` for a struct or class: every property read into a local in declaration order, then the
    /// checks that may throw, then every property stored. Stored one by one between reads that may throw, a large
    /// struct was built in a temporary and copied out at the end (a retain and a release per reference it holds;
    /// guarded by `Decode twitter model/FirePackDecoder @FirePackCodable`).
    private func decodeMember(_ properties: [CodedProperty], initKeyword: String) -> DeclSyntax {
        let searched = properties.filter {
            !$0.isInitializedConstant && $0.ignoredAttribute == nil && !$0.isUnknownFieldsBag
        }
        let hasBag = properties.contains { $0.isUnknownFieldsBag }
        var lines: [String] = []
        var stores: [Store] = []
        if searched.isEmpty {
            lines.append(
                rejectsUnknownKeys || hasBag ? "let fields = try reader.readFields()" : "_ = try reader.readFields()")
        } else {
            lines.append("var fields = try reader.readFields()")
        }
        for property in properties where !property.isInitializedConstant {
            if property.isUnknownFieldsBag {
                // Every key the model reads or writes is known; the bag's own name is not (UnknownFields.swift).
                let known = properties.filter { $0.ignoredAttribute == nil && !$0.isUnknownFieldsBag }
                    .flatMap { [$0.keyLiteral] + $0.aliasLiterals }
                lines.append(
                    "let \(property.local) = try reader.unknownFields(in: fields, known: [\(known.joined(separator: ", "))])"
                )
                stores.append(Store(property, property.local))
                continue
            }
            lines += decodeLines(property, stores: &stores)
        }
        if rejectsUnknownKeys {
            let known = properties.filter { $0.ignoredAttribute == nil }.flatMap { [$0.keyLiteral] + $0.aliasLiterals }
            lines.append("try reader.rejectUnknownKeys(in: fields, known: [\(known.joined(separator: ", "))])")
        }
        lines +=
            delegatesToMemberwise
            ? memberwiseCall(properties, stores: stores) ?? stores.map(\.statement) : stores.map(\.statement)
        return """
            \(raw: access)\(raw: initKeyword)(firePack reader: inout FirePackValueReader) throws {
                \(raw: lines.joined(separator: "\n"))
            }
            """
    }

    /// `self.init(name: value, …)`, the memberwise initializer called with what `stores` would store, one store per
    /// property in declaration order; nil when the stores are not that (then they are used as they are).
    ///
    /// Why: a struct with an optional `var` (`var note: String?`, implicitly initialized to nil) that is stored field
    /// by field is built in a temporary and copied out (a retain and a release of every reference it holds), however
    /// the stores are ordered; Swift 6.3's optimizer keeps `self` in memory because the optional's store is an
    /// assignment over the implicit nil. The memberwise initializer initializes each property once, and the copy is
    /// gone (guarded by `Decode twitter model/FirePackDecoder @FirePackCodable`).
    private func memberwiseCall(_ properties: [CodedProperty], stores: [Store]) -> [String]? {
        guard stores.map(\.property.name) == properties.map(\.name), stores.allSatisfy({ !$0.onlyIfFound }) else {
            return nil
        }
        return ["self.init(\(stores.map { "\($0.property.name): \($0.value)" }.joined(separator: ", ")))"]
    }

    /// What `init(firePack:)` stores in one property after its reads: `value`, or only when the key was found, the
    /// initial value staying otherwise (`value` is then an optional local).
    private struct Store {
        let property: CodedProperty
        let value: String
        let onlyIfFound: Bool

        init(_ property: CodedProperty, _ value: String, onlyIfFound: Bool = false) {
            (self.property, self.value, self.onlyIfFound) = (property, value, onlyIfFound)
        }

        /// The statement, as a store of its own.
        var statement: String {
            let assign = "\(property.storage) = "
            return onlyIfFound ? "if let \(value) {\n    \(assign)\(value)\n}" : assign + value
        }
    }

    /// The statements that decode one property into its local — one call, or a chain over its key and aliases ending
    /// in its default, nil, or `keyNotFound` — with the statement that stores it added to `stores`. A property whose
    /// call takes its type from what it is assigned to (a wrapper the macro does not know) is stored in place.
    private func decodeLines(_ property: CodedProperty, stores: inout [Store]) -> [String] {
        let assign = "\(property.storage) = "
        let local = property.local
        if property.ignoredAttribute != nil {
            if property.defaultAttribute != nil { stores.append(Store(property, property.defaultFunction)) }
            return []
        }
        guard !property.isWrapped, property.hasDefault || !property.aliases.isEmpty else {
            guard property.decodeCallNamesType else { return [assign + "try reader.\(property.decodeCall)"] }
            stores.append(Store(property, local))
            return ["let \(local) = try reader.\(property.decodeCall)"]
        }
        var fallback: String?
        if property.defaultAttribute != nil {
            fallback = property.defaultFunction
        } else if property.initializer != nil {
            fallback = nil  // the initial value stays
        } else if property.isOptional {
            fallback = "nil"
        } else {
            fallback =
                "try reader.missingKey(\(property.keyLiteral), aliases: [\(property.aliasLiterals.joined(separator: ", "))], in: fields)"
        }
        let keys = [property.keyLiteral] + property.aliasLiterals
        var lines: [String] = []
        if let type = property.type, let fallback {
            // Every branch gives the local its value; the fallback may throw (`keyNotFound`).
            lines.append("let \(local): \(type.trimmedDescription)")
            for (index, key) in keys.enumerated() {
                let call = property.decodeIfFoundCall(key: key)
                lines.append((index == 0 ? "if" : "} else if") + " let value = try reader.\(call) {")
                lines.append("    \(local) = value")
            }
            lines.append("} else {")
            lines.append("    \(local) = \(fallback)")
            lines.append("}")
            stores.append(Store(property, local))
            return lines
        }
        // The value found under the first key that has one, or nil: then the initial value stays, or the default
        // (which cannot throw) is stored.
        for (index, key) in keys.enumerated() {
            let call = "try reader.\(property.decodeIfFoundCall(key: key))"
            if index == 0 {
                lines.append("\(keys.count > 1 ? "var" : "let") \(local) = \(call)")
            } else {
                lines.append("if \(local) == nil {")
                lines.append("    \(local) = \(call)")
                lines.append("}")
            }
        }
        if let fallback {
            stores.append(Store(property, "\(local) ?? \(fallback)"))
        } else {
            stores.append(Store(property, local, onlyIfFound: true))
        }
        return lines
    }

    private func encodeMember(_ properties: [CodedProperty]) -> DeclSyntax {
        // The bag's entries under a key the model writes in this call are left out (the model's field wins): its
        // keys, an optional's only when it is not nil, a `@DocumentID`'s never. Listed only for a bag with entries.
        // A type not written as an optional may still be one (a typealias): `declaredKey` lets the compiler decide.
        let declared = properties.filter { $0.ignoredAttribute == nil && !$0.isUnknownFieldsBag && !$0.isDocumentID }
            .map { property in
                if property.isOptional { return "(\(property.storage) == nil ? nil : \(property.keyLiteral))" }
                if property.isWrapped { return property.keyLiteral }
                return "FirePackValueWriter.declaredKey(\(property.storage), \(property.keyLiteral))"
            }
        func statements(_ properties: [CodedProperty]) -> CodeBlockItemListSyntax {
            CodeBlockItemListSyntax(
                properties.map { property in
                    if property.isUnknownFieldsBag {
                        return CodeBlockItemSyntax(
                            item: .expr(
                                """
                                if !\(raw: property.storage).isEmpty {
                                    try writer.encodeUnknownFields(\(raw: property.storage), declared: [\(raw: declared.joined(separator: ", "))])
                                }
                                """
                            ))
                    }
                    let method = property.isOptional ? "encodeIfPresent" : "encode"
                    return CodeBlockItemSyntax(
                        item: .expr(
                            "try writer.\(raw: method)(\(raw: property.storage), forKey: \(raw: property.keyLiteral))"))
                })
        }
        let properties = properties.filter { $0.ignoredAttribute == nil }
        // Deterministic output sorts keys by their UTF-8 bytes: the order is fixed here, at compile time.
        let sorted = properties.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }
        var body: [CodeBlockItemSyntax] = [CodeBlockItemSyntax(item: .expr("writer.beginFields()"))]
        if sorted.map(\.key) == properties.map(\.key) {
            body += statements(properties)
        } else {
            let choice = IfExprSyntax(
                conditions: [ConditionElementSyntax(condition: .expression("writer.sortsKeys"))],
                body: CodeBlockSyntax(statements: statements(sorted)),
                elseKeyword: .keyword(.else),
                elseBody: .codeBlock(CodeBlockSyntax(statements: statements(properties))))
            body.append(CodeBlockItemSyntax(item: .expr(ExprSyntax(choice))))
        }
        body.append(CodeBlockItemSyntax(item: .expr("writer.endFields()")))
        let function = try! FunctionDeclSyntax(
            "\(raw: access)func encode(firePack writer: inout FirePackValueWriter) throws"
        ) {
            for item in body { item }
        }
        return DeclSyntax(function)
    }
}
