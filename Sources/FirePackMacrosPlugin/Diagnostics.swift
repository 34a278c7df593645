import SwiftDiagnostics
import SwiftSyntax

/// Why `@FirePackCodable` cannot generate coding for a declaration; each message names the fix.
enum FirePackCodableDiagnostic: DiagnosticMessage {
    case unsupportedDeclaration
    case noRawType
    case customInitFrom
    case customEncodeTo
    case noStoredProperties
    case duplicateKey
    case aliasCollides(String)
    case keyNotLiteral
    case evolutionOnWrapper(String)
    case defaultOnConstant(String)
    case defaultWithoutType(String)
    case ignoredWithoutDefault(String)
    case unknownKeysValue
    case bagDeclaredTwice(String, first: String)
    case bagWithReject
    case bagNotPlain(String)
    case bagNotInCodingKeys(String)
    case caseNotInCodingKeys(String)
    case unknownKeysOnEnum
    case noCases
    case storedPropertyUnderIf(String)

    var message: String {
        switch self {
        case .unsupportedDeclaration:
            "@FirePackCodable applies to structs, classes and enums; remove it from this declaration"
        case .noRawType:
            "@FirePackCodable codes enums with a raw type of String or an integer or floating-point type, and enums whose first inherited name is Codable (or another standard protocol); name Codable first, use one of those raw types, or remove @FirePackCodable"
        case .customInitFrom:
            "@FirePackCodable would bypass this type's own init(from:); remove @FirePackCodable (FirePackDecoder then calls your init(from:)), or remove init(from:) to have both generated"
        case .customEncodeTo:
            "@FirePackCodable would bypass this type's own encode(to:); remove @FirePackCodable (FirePackEncoder then calls your encode(to:)), or remove encode(to:) to have both generated"
        case .noStoredProperties:
            "@FirePackCodable found no stored properties to code (a computed-only type); remove @FirePackCodable, or write init(from:)/encode(to:) for the type"
        case .duplicateKey:
            "two properties are coded under the same key; give each a distinct key in CodingKeys or @FirePackKey"
        case .aliasCollides(let alias):
            "alias \(alias.debugDescription) is already a key or alias of this type; a document would fill two properties from one field: remove the alias or rename the other key"
        case .keyNotLiteral:
            "@FirePackKey takes string literals: @FirePackKey(\"wire_name\", aliases: [\"oldName\"])"
        case .evolutionOnWrapper(let name):
            "'\(name)' has a property wrapper, which decides what an absent key means; remove @FirePackDefault, @FirePackIgnored and aliases from it"
        case .defaultOnConstant(let name):
            "'\(name)' is a let with an initial value, which is never decoded; remove @FirePackDefault, or make it a var without an initial value"
        case .defaultWithoutType(let name):
            "write the type of '\(name)' (var \(name): Type) to give it a @FirePackDefault"
        case .ignoredWithoutDefault(let name):
            "'\(name)' is ignored, so never decoded: give it an initial value or @FirePackDefault(value), or make it optional"
        case .unknownKeysValue:
            "unknownKeys is .ignore or .reject"
        case .bagDeclaredTwice(let name, let first):
            "'\(name)' is a second FirePackUnknownFields bag; '\(first)' already keeps the unknown fields: remove one"
        case .bagWithReject:
            "a model with unknownKeys: .reject has no unknown fields to keep; remove the FirePackUnknownFields property or unknownKeys: .reject"
        case .caseNotInCodingKeys(let name):
            "'\(name)' has no key in its CodingKeys enum; add a case for it there (synthesized Codable needs one too)"
        case .unknownKeysOnEnum:
            "unknownKeys applies to structs and classes; remove it from this enum"
        case .noCases:
            "an enum without cases has no value to code; remove @FirePackCodable"
        case .storedPropertyUnderIf(let name):
            "'\(name)' is declared under #if, where @FirePackCodable cannot see it, so it would never be coded (synthesized Codable codes it): declare it outside the #if, or remove @FirePackCodable"
        case .bagNotInCodingKeys(let name):
            "'\(name)' keeps the unknown fields but has no case in CodingKeys, so it would never be filled and every field the model does not declare would be lost when it is written back: add `case \(name)` to CodingKeys"
        case .bagNotPlain(let name):
            "declare the bag as a plain stored property: var \(name) = FirePackUnknownFields() (not optional, not a let, no wrapper or FirePack attribute)"
        }
    }

    var id: String {
        switch self {
        case .unsupportedDeclaration: "unsupportedDeclaration"
        case .noRawType: "noRawType"
        case .customInitFrom: "customInitFrom"
        case .customEncodeTo: "customEncodeTo"
        case .noStoredProperties: "noStoredProperties"
        case .duplicateKey: "duplicateKey"
        case .aliasCollides: "aliasCollides"
        case .keyNotLiteral: "keyNotLiteral"
        case .evolutionOnWrapper: "evolutionOnWrapper"
        case .defaultOnConstant: "defaultOnConstant"
        case .defaultWithoutType: "defaultWithoutType"
        case .ignoredWithoutDefault: "ignoredWithoutDefault"
        case .unknownKeysValue: "unknownKeysValue"
        case .bagDeclaredTwice: "bagDeclaredTwice"
        case .bagWithReject: "bagWithReject"
        case .bagNotPlain: "bagNotPlain"
        case .bagNotInCodingKeys: "bagNotInCodingKeys"
        case .caseNotInCodingKeys: "caseNotInCodingKeys"
        case .unknownKeysOnEnum: "unknownKeysOnEnum"
        case .noCases: "noCases"
        case .storedPropertyUnderIf: "storedPropertyUnderIf"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "FirePackMacros", id: id) }
    var severity: DiagnosticSeverity { .error }
}

/// Thrown by the expansion after it has emitted its diagnostic.
struct DiagnosticsEmitted: Error {}
