import SwiftSyntax

/// What `@FirePackCodable` reads from a struct or class: the stored properties synthesized `Codable` would code, under
/// the keys it would use.
struct CodedProperty {
    /// The property's name (without backticks).
    var name: String
    /// The map key (the `CodingKeys` raw value, or the name).
    var key: String
    /// The declared type, when written.
    var type: TypeSyntax?
    /// Whether the property has a property wrapper (coded through its backing storage `_name`).
    var isWrapped: Bool
    /// The wrapper's name as written (`ServerTimestamp`, `FirePack.DocumentID`), when there is exactly one.
    var wrapper: String? = nil
    /// A `let` with an initial value: encoded, never decoded (as synthesized `Codable` does).
    var isInitializedConstant: Bool
    /// The property's initial value (`var pages = 0`), which stands for an absent key.
    var initializer: ExprSyntax? = nil
    /// `@FirePackDefault(value)`: the value for an absent key (the attribute, for diagnostics).
    var defaultAttribute: AttributeSyntax? = nil
    /// `@FirePackKey(_, aliases:)`: other keys accepted on decode, in order, after `key`.
    var aliases: [String] = []
    /// The `@FirePackKey` attribute, for diagnostics.
    var keyAttribute: AttributeSyntax? = nil
    /// `@FirePackIgnored`: never encoded; decoded as its default.
    var ignoredAttribute: AttributeSyntax? = nil
    /// The declaration, for diagnostics.
    var node: Syntax? = nil

    /// Whether the property is the model's bag for unknown fields (`var unknownFields = FirePackUnknownFields()` or
    /// `: FirePackUnknownFields`).
    var isUnknownFieldsBag: Bool { Self.bagTypeNames.contains(declaredTypeName ?? "") }

    /// Whether the property is a `@DocumentID`, which the data never holds.
    var isDocumentID: Bool { wrapper == "DocumentID" || wrapper == "FirePack.DocumentID" }

    /// Whether the property is an optional bag (`FirePackUnknownFields?`), which the macro refuses.
    var isOptionalBag: Bool {
        isOptionalType && Self.bagTypeNames.contains(wrappedOptionalType?.trimmedDescription ?? "")
    }

    static let bagTypeNames: Set<String> = ["FirePackUnknownFields", "FirePack.FirePackUnknownFields"]

    /// The type as written, or the type an initializer `T()` names.
    private var declaredTypeName: String? {
        if let type { return type.trimmedDescription }
        return initializer?.as(FunctionCallExprSyntax.self)?.calledExpression.trimmedDescription
    }

    /// The generated static function holding the `@FirePackDefault` value (the attribute's peer expansion).
    var defaultFunction: String { "Self.__firePackDefault_\(name)()" }

    /// Whether an absent key is answered by a default (the attribute's, or the initial value).
    var hasDefault: Bool { defaultAttribute != nil || (initializer != nil && !isInitializedConstant) }

    /// Whether the property is written as an optional (then coded with `encodeIfPresent` / `decodeIfPresent`, as
    /// synthesized `Codable` codes it). An Optional spelled otherwise (a typealias) is found by the compiler instead:
    /// `FirePackValueCoding+AliasedOptionals.swift`.
    var isOptional: Bool { !isWrapped && isOptionalType }

    /// Whether the declared type is written as an optional.
    private var isOptionalType: Bool {
        guard let type else { return false }
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional" { return true }
        if let member = type.as(MemberTypeSyntax.self), member.name.text == "Optional",
            member.baseType.trimmedDescription == "Swift"
        {
            return true
        }
        return false
    }

    /// The type inside the optional, for an optional property.
    var wrappedOptionalType: TypeSyntax? {
        guard let type else { return nil }
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType.trimmed }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return optional.wrappedType.trimmed }
        if let identifier = type.as(IdentifierTypeSyntax.self),
            let argument = identifier.genericArgumentClause?.arguments.first
        {
            return argument.argument.as(TypeSyntax.self)?.trimmed
        }
        if let member = type.as(MemberTypeSyntax.self), let argument = member.genericArgumentClause?.arguments.first {
            return argument.argument.as(TypeSyntax.self)?.trimmed
        }
        return nil
    }

    /// The call that decodes the property (generated code passes the type, so that overloads rank by it).
    var decodeCall: String {
        if isWrapped {
            // FirePack's own wrappers by their backing type, so that the reader's overload for it is chosen at compile
            // time: `decodeWrapped` finds the wrapper with runtime casts (guarded by `Decode 1000 Article/
            // FirePackDecoder @FirePackCodable`).
            if let wrapper, firePackWrappers.contains(wrapper), isOptionalType, let wrapped = wrappedOptionalType {
                return "decode(\(wrapper)<\(wrapped.trimmedDescription)>.self, forKey: \(keyLiteral), in: &fields)"
            }
            return "decodeWrapped(forKey: \(keyLiteral), in: &fields)"
        }
        if isOptional, let wrapped = wrappedOptionalType {
            return "decodeIfPresent(\(metatype(wrapped)), forKey: \(keyLiteral), in: &fields)"
        }
        if let type, !isOptional { return "decode(\(metatype(type)), forKey: \(keyLiteral), in: &fields)" }
        return "decodeInferred(forKey: \(keyLiteral), in: &fields)"
    }

    /// The call that decodes the property under `key` when the map has it (nil when absent): the value, or for an
    /// optional the value or nil for null.
    func decodeIfFoundCall(key: String) -> String {
        if isOptional, let wrapped = wrappedOptionalType {
            return "decodeOptionalIfFound(\(metatype(wrapped)), forKey: \(key), in: &fields)"
        }
        if let type { return "decodeIfFound(\(metatype(type)), forKey: \(key), in: &fields)" }
        let example = initializer?.trimmedDescription ?? "fatalError()"
        return "decodeInferredIfFound(forKey: \(key), in: &fields, like: \(example))"
    }

    /// The aliases as Swift string literals.
    var aliasLiterals: [String] { aliases.map(Self.literal) }

    private func metatype(_ type: TypeSyntax) -> String {
        let text = type.trimmedDescription
        // `any P`, `some P` and function types need parentheses before `.self`.
        return type.is(IdentifierTypeSyntax.self) || type.is(MemberTypeSyntax.self) || type.is(ArrayTypeSyntax.self)
            || type.is(DictionaryTypeSyntax.self) ? "\(text).self" : "(\(text)).self"
    }

    /// Whether `decodeCall` names the type it decodes, so that its result can be held in a local before it is
    /// stored (`decodeWrapped` and `decodeInferred` take their type from what they are assigned to).
    var decodeCallNamesType: Bool {
        if isWrapped {
            return wrapper.map(firePackWrappers.contains) == true && isOptionalType && wrappedOptionalType != nil
        }
        return type != nil
    }

    /// The local a generated `init(firePack:)` decodes the property into before storing it.
    var local: String { "__firePack_\(name)" }

    /// The expression that reads the stored value (`self._name` for wrapped properties).
    var storage: String { isWrapped ? "self._\(name)" : "self.\(name)" }

    /// The key as a Swift string literal.
    var keyLiteral: String { Self.literal(key) }

    /// `text` as a Swift string literal.
    static func literal(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            case "\n": literal += "\\n"
            case "\r": literal += "\\r"
            case "\t": literal += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    literal += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    literal.unicodeScalars.append(scalar)
                }
            }
        }
        return literal + "\""
    }
}

/// FirePack's property wrappers, whose backing type is `Wrapper<T>` for a property of type `T?`, as written.
private let firePackWrappers: Set<String> = [
    "DocumentID", "ServerTimestamp", "ExplicitNull", "FirePack.DocumentID", "FirePack.ServerTimestamp",
    "FirePack.ExplicitNull"
]

/// Attributes that are not property wrappers.
private let nonWrapperAttributes = Set([
    "available", "objc", "nonobjc", "MainActor", "preconcurrency", "inline", "inlinable", "usableFromInline",
    "discardableResult", "NSCopying", "NSManaged", "IBOutlet", "IBInspectable", "GKInspectable", "unsafe"
]).union(evolutionAttributes).union(evolutionAttributes.map { "FirePackMacros." + $0 })

/// The property attributes `@FirePackCodable` reads (peer macros of FirePackMacros).
let evolutionAttributes: Set<String> = ["FirePackDefault", "FirePackKey", "FirePackIgnored"]

extension AttributeSyntax {
    /// The attribute's name without a module prefix.
    var unqualifiedName: String {
        let name = attributeName.trimmedDescription
        return name.hasPrefix("FirePackMacros.") ? String(name.dropFirst("FirePackMacros.".count)) : name
    }

    /// The string literals of `@FirePackKey("key", aliases: ["a", "b"])`: the key, then the aliases; nil where an
    /// argument is not a plain string literal.
    var keyArguments: (key: String?, aliases: [String]?) {
        guard case .argumentList(let arguments)? = self.arguments else { return (nil, nil) }
        var key: String?, aliases: [String]? = []
        for argument in arguments {
            if argument.label == nil {
                key = argument.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
            } else if argument.label?.text == "aliases" {
                guard let array = argument.expression.as(ArrayExprSyntax.self) else {
                    aliases = nil
                    continue
                }
                for element in array.elements {
                    guard let text = element.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue else {
                        aliases = nil
                        break
                    }
                    aliases?.append(text)
                }
            }
        }
        return (key, aliases)
    }
}

extension DeclGroupSyntax {
    /// Stored instance properties declared inside `#if` blocks (at any depth), which `codedProperties()` does not see
    /// (which branch is compiled is not known to the macro), and which synthesized `Codable` would code: not `lazy`,
    /// and named in `CodingKeys` when the type declares one.
    func storedPropertiesUnderIf() -> [VariableDeclSyntax] {
        let codingKeys = codingKeyNames()
        func collect(_ members: MemberBlockItemListSyntax, into found: inout [VariableDeclSyntax]) {
            for member in members {
                guard let ifConfig = member.decl.as(IfConfigDeclSyntax.self) else { continue }
                for clause in ifConfig.clauses {
                    guard case .decls(let decls)? = clause.elements else { continue }
                    for item in decls {
                        if let variable = item.decl.as(VariableDeclSyntax.self),
                            !variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) }),
                            variable.bindings.contains(where: { binding in
                                binding.isStored
                                    && codingKeys.map {
                                        $0[binding.pattern.trimmedDescription.trimmingBackticks] != nil
                                    }
                                        ?? true
                            })
                        {
                            found.append(variable)
                        }
                    }
                    collect(decls, into: &found)
                }
            }
        }
        var found: [VariableDeclSyntax] = []
        collect(memberBlock.members, into: &found)
        return found
    }

    /// The stored instance properties, in declaration order, with the keys synthesized `Codable` would use; nil keys
    /// mean the property is excluded by `CodingKeys`.
    func codedProperties() -> [CodedProperty] {
        let codingKeys = codingKeyNames()
        var properties: [CodedProperty] = []
        for member in memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            let modifiers = Set(variable.modifiers.map(\.name.text))
            if modifiers.contains("static") || modifiers.contains("class") || modifiers.contains("lazy") { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            let wrappers = variable.attributes.compactMap { element -> String? in
                guard let attribute = element.as(AttributeSyntax.self) else { return nil }
                let name = attribute.attributeName.trimmedDescription
                return nonWrapperAttributes.contains(name) ? nil : name
            }
            var evolution: [String: AttributeSyntax] = [:]
            for element in variable.attributes {
                if let attribute = element.as(AttributeSyntax.self),
                    evolutionAttributes.contains(attribute.unqualifiedName)
                {
                    evolution[attribute.unqualifiedName] = attribute
                }
            }
            let isWrapped = !wrappers.isEmpty
            let bindings = Array(variable.bindings)
            for (index, binding) in bindings.enumerated() {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self), binding.isStored else { continue }
                let name = pattern.identifier.text.trimmingBackticks
                // `var a, b: Int`: the type written after the last name applies to the names before it.
                var type = binding.typeAnnotation?.type
                if type == nil && binding.initializer == nil {
                    type = bindings[(index + 1)...].first { $0.typeAnnotation != nil }?.typeAnnotation?.type
                }
                var key: String
                if let codingKeys {
                    guard let renamed = codingKeys[name] else { continue }
                    key = renamed
                } else {
                    key = name
                }
                var aliases: [String] = []
                if let attribute = evolution["FirePackKey"] {
                    let arguments = attribute.keyArguments
                    key = arguments.key ?? key
                    aliases = arguments.aliases ?? []
                }
                var property = CodedProperty(
                    name: name, key: key, type: type?.trimmed, isWrapped: isWrapped,
                    wrapper: wrappers.count == 1 ? wrappers[0] : nil,
                    isInitializedConstant: isLet && binding.initializer != nil)
                property.initializer = binding.initializer?.value.trimmed
                property.defaultAttribute = evolution["FirePackDefault"]
                property.keyAttribute = evolution["FirePackKey"]
                property.ignoredAttribute = evolution["FirePackIgnored"]
                property.aliases = aliases
                property.node = Syntax(variable)
                properties.append(property)
            }
        }
        return properties
    }

    /// The unknown-field bags (`FirePackUnknownFields` properties) that a `CodingKeys` enum leaves out: never filled,
    /// so every field the model does not declare would be lost when it is written back.
    func bagsLeftOutOfCodingKeys() -> [(name: String, node: Syntax)] {
        guard let codingKeys = codingKeyNames() else { return [] }
        var left: [(name: String, node: Syntax)] = []
        for member in memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                !variable.modifiers.contains(where: { ["static", "class", "lazy"].contains($0.name.text) })
            else { continue }
            for binding in variable.bindings where binding.isStored {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else { continue }
                let name = pattern.identifier.text.trimmingBackticks
                guard codingKeys[name] == nil else { continue }
                var property = CodedProperty(
                    name: name, key: name, type: binding.typeAnnotation?.type.trimmed, isWrapped: false,
                    isInitializedConstant: false)
                property.initializer = binding.initializer?.value.trimmed
                if property.isUnknownFieldsBag || property.isOptionalBag { left.append((name, Syntax(variable))) }
            }
        }
        return left
    }

    /// Whether this is a struct whose implicit memberwise initializer takes exactly `properties`, in order, each by
    /// its name: no initializer declared in the body (nor anything conditional), and every stored property coded,
    /// typed, without an initial value, a wrapper, `lazy`, `@FirePackIgnored` or a private access (which would make
    /// the memberwise initializer private). Anything else keeps the stores field by field.
    func memberwiseInitializes(_ properties: [CodedProperty]) -> Bool {
        guard self.is(StructDeclSyntax.self) else { return false }
        var stored = 0
        for member in memberBlock.members {
            if member.decl.is(InitializerDeclSyntax.self) || member.decl.is(IfConfigDeclSyntax.self) { return false }
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            let modifiers = variable.modifiers.map(\.name.text)
            if modifiers.contains("static") || modifiers.contains("class") { continue }
            if modifiers.contains(where: { ["lazy", "private", "fileprivate"].contains($0) }) { return false }
            for binding in variable.bindings where binding.isStored {
                guard binding.pattern.is(IdentifierPatternSyntax.self), binding.initializer == nil else { return false }
                stored += 1
            }
        }
        return stored == properties.count
            && properties.allSatisfy {
                !$0.isWrapped && $0.type != nil && $0.initializer == nil && $0.ignoredAttribute == nil
            }
    }

    /// The cases of a nested `CodingKeys` enum, by case name, with their keys; nil without one.
    func codingKeyNames() -> [String: String]? {
        for member in memberBlock.members {
            guard let keys = member.decl.as(EnumDeclSyntax.self), keys.name.text == "CodingKeys" else { continue }
            var names: [String: String] = [:]
            for keyMember in keys.memberBlock.members {
                guard let caseDecl = keyMember.decl.as(EnumCaseDeclSyntax.self) else { continue }
                for element in caseDecl.elements {
                    let name = element.name.text.trimmingBackticks
                    if let literal = element.rawValue?.value.as(StringLiteralExprSyntax.self),
                        let value = literal.representedLiteralValue
                    {
                        names[name] = value
                    } else {
                        names[name] = name
                    }
                }
            }
            return names
        }
        return nil
    }

    /// Whether the type declares `init(from:)` or `encode(to:)` itself.
    func declaresCodableRequirement(initFrom: Bool) -> Syntax? {
        for member in memberBlock.members {
            if initFrom, let initializer = member.decl.as(InitializerDeclSyntax.self) {
                let labels = initializer.signature.parameterClause.parameters.map(\.firstName.text)
                if labels == ["from"] { return Syntax(initializer) }
            }
            if !initFrom, let function = member.decl.as(FunctionDeclSyntax.self), function.name.text == "encode" {
                let labels = function.signature.parameterClause.parameters.map(\.firstName.text)
                if labels == ["to"] { return Syntax(function) }
            }
        }
        return nil
    }

    /// The names in the inheritance clause.
    var inheritedNames: [String] {
        inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
    }

    /// `public`, `package` or nothing: what the generated members need to satisfy the conformance.
    var memberAccess: String {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }
}

extension PatternBindingSyntax {
    /// Whether the binding stores a value (no accessors, or only `willSet`/`didSet` observers).
    var isStored: Bool {
        guard let accessorBlock else { return true }
        switch accessorBlock.accessors {
        case .getter: return false
        case .accessors(let accessors):
            return accessors.allSatisfy { accessor in
                accessor.accessorSpecifier.tokenKind == .keyword(.willSet)
                    || accessor.accessorSpecifier.tokenKind == .keyword(.didSet)
            }
        }
    }
}

extension String {
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
