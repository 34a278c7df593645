import SwiftDiagnostics
import SwiftSyntax

/// Why `@FirePackCodable` cannot generate coding for a declaration; each message names the fix.
enum FirePackCodableDiagnostic: String, DiagnosticMessage {
    case unsupportedDeclaration
    case associatedValues
    case noRawType
    case customInitFrom
    case customEncodeTo
    case noStoredProperties
    case duplicateKey

    var message: String {
        switch self {
        case .unsupportedDeclaration:
            "@FirePackCodable applies to structs, classes and enums with a raw type; remove it from this declaration"
        case .associatedValues:
            "@FirePackCodable cannot generate coding for an enum with associated values; remove @FirePackCodable (the enum keeps its Codable conformance and FirePack codes it through Codable)"
        case .noRawType:
            "@FirePackCodable generates coding for enums with a raw type (String or an integer or floating-point type); give the enum a raw type, or remove @FirePackCodable"
        case .customInitFrom:
            "@FirePackCodable would bypass this type's own init(from:); remove @FirePackCodable (FirePackDecoder then calls your init(from:)), or remove init(from:) to have both generated"
        case .customEncodeTo:
            "@FirePackCodable would bypass this type's own encode(to:); remove @FirePackCodable (FirePackEncoder then calls your encode(to:)), or remove encode(to:) to have both generated"
        case .noStoredProperties:
            "@FirePackCodable found no stored properties to code (a computed-only type); remove @FirePackCodable, or write init(from:)/encode(to:) for the type"
        case .duplicateKey:
            "two properties are coded under the same key; give each a distinct key in CodingKeys"
        }
    }

    var diagnosticID: MessageID { MessageID(domain: "FirePackMacros", id: rawValue) }
    var severity: DiagnosticSeverity { .error }
}

/// Thrown by the expansion after it has emitted its diagnostic.
struct DiagnosticsEmitted: Error {}
