@_exported import FirePack

/// Generates FirePack coding for a `Codable` struct, class or enum with a raw type: `FirePackDecodable` and
/// `FirePackEncodable` conformances that read and write FirePack bytes directly, with no Codable containers.
///
/// `FirePackEncoder` and `FirePackDecoder` take the generated path by themselves wherever the type appears (at the top
/// level, in arrays, dictionaries and optionals, inside other generated or plain `Codable` types); the bytes, values
/// and errors are those of the `Codable` path. The type stays `Codable`, so every other coder keeps working.
///
/// Coded as synthesized `Codable` codes them: stored properties (a nested `CodingKeys` enum renames and excludes),
/// optionals (absent key or null → nil), `@DocumentID`, `@ServerTimestamp`, `@ExplicitNull` and other property
/// wrappers; raw-value enums as their raw values. A type with its own `init(from:)` or `encode(to:)`, an enum with
/// associated values or without a raw type, or a type with no stored properties gets a compile-time error that says
/// what to do.
@attached(member, names: named(init), named(encode))
@attached(extension, conformances: FirePackDecodable, FirePackEncodable, names: named(init), named(encode))
public macro FirePackCodable() = #externalMacro(module: "FirePackMacrosPlugin", type: "FirePackCodableMacro")
