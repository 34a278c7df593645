@_exported import FirePack

/// Generates FirePack coding for a `Codable` struct, class or enum: `FirePackDecodable` and `FirePackEncodable`
/// conformances that read and write FirePack bytes directly, with no Codable containers.
///
/// `FirePackEncoder` and `FirePackDecoder` take the generated path by themselves wherever the type appears (at the top
/// level, in arrays, dictionaries and optionals, inside other generated or plain `Codable` types, in trees and
/// deterministic output, under the snake-case key strategies); the bytes, values and errors are those of the `Codable`
/// path but for the evolution attributes below (Docs/EVOLUTION.md). The type stays `Codable`, so every other coder
/// keeps working.
///
/// Coded as synthesized `Codable` codes them: stored properties (a nested `CodingKeys` enum renames and excludes),
/// optionals (absent key or null → nil, nil left out; also an Optional spelled through a typealias, which the
/// compiler, not the macro, recognises), `@DocumentID`, `@ServerTimestamp`, `@ExplicitNull` and other property
/// wrappers; raw-value enums as their raw values, other enums in the synthesized `{"case": {"label": value}}` shape.
/// A type with its own `init(from:)` or `encode(to:)`, or with no stored properties, gets a compile-time error that
/// says what to do.
///
/// Models that change over time (Docs/EVOLUTION.md) differ from synthesized `Codable` on purpose: a property's initial
/// value (`var pages = 0`) or `@FirePackDefault(value)` is used when its key is absent (synthesized `Codable` throws
/// `keyNotFound`); `@FirePackKey("name", aliases: [...])` codes it under another key and accepts older ones on
/// decode; `@FirePackIgnored` leaves it out of the document. With `unknownKeys: .reject`, a document with a key the
/// type does not declare is refused (`.ignore`, the default, skips it as `Codable` does).
@attached(member, names: named(init), named(encode))
@attached(extension, conformances: FirePackDecodable, FirePackEncodable, names: named(init), named(encode))
public macro FirePackCodable(unknownKeys: FirePackUnknownKeys = .ignore) =
    #externalMacro(module: "FirePackMacrosPlugin", type: "FirePackCodableMacro")

/// The value `@FirePackCodable` decoding gives the property when its key is absent from the document (a field older
/// documents never had). Write the value with its type where Swift needs it (`Genre.unknown`, `[String]()`); a null
/// stays an error for a non-optional property. Not for `let` constants with initial values or wrapped properties.
@attached(peer, names: prefixed(__firePackDefault_))
public macro FirePackDefault<T>(_ value: T) =
    #externalMacro(module: "FirePackMacrosPlugin", type: "FirePackDefaultMacro")

/// Codes the property under `key` instead of its name, and on decode accepts `aliases` (older names), tried in order
/// after `key` when it is absent. Encoding always writes `key`.
@attached(peer)
public macro FirePackKey(_ key: String, aliases: [String] = []) =
    #externalMacro(module: "FirePackMacrosPlugin", type: "FirePackPropertyMarkerMacro")

/// Leaves the property out of the document: never encoded, and on decode given its initial value, its
/// `@FirePackDefault`, or nil.
@attached(peer)
public macro FirePackIgnored() = #externalMacro(module: "FirePackMacrosPlugin", type: "FirePackPropertyMarkerMacro")
