import SwiftSyntax
import SwiftSyntaxMacros

/// `@FirePackDefault(value)`: a static function beside the property that returns `value` as the property's type, which
/// `@FirePackCodable`'s decoding calls for an absent key. Written at the property, a value of the wrong type is a
/// compiler error there, naming both types.
public struct FirePackDefaultMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            case .argumentList(let arguments)? = node.arguments,
            let value = arguments.first?.expression
        else { return [] }
        let bindings = Array(variable.bindings)
        var peers: [DeclSyntax] = []
        for (index, binding) in bindings.enumerated() {
            guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text.trimmingBackticks,
                let type = binding.typeAnnotation?.type
                    ?? bindings[(index + 1)...].first(where: { $0.typeAnnotation != nil })?.typeAnnotation?.type
            else { continue }
            peers.append("static func __firePackDefault_\(raw: name)() -> \(type.trimmed) { \(value.trimmed) }")
        }
        return peers
    }
}

/// `@FirePackKey(_:aliases:)` and `@FirePackIgnored`: marks that `@FirePackCodable` reads; they add nothing themselves.
public struct FirePackPropertyMarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
