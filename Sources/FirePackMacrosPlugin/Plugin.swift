import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that expands `@FirePackCodable`.
@main
struct FirePackMacrosPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [FirePackCodableMacro.self]
}
