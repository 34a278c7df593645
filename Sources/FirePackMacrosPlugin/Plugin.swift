import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that expands `@FirePackCodable` and its property attributes.
@main
struct FirePackMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        FirePackCodableMacro.self, FirePackDefaultMacro.self, FirePackPropertyMarkerMacro.self
    ]
}
