#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The Codable path's answer to a field that old documents lack, where Codable allows one: a synthesized
// `init(from:)` asks for a non-optional property with `decode(_:forKey:)`, which must return a value or throw, so a
// decoder option can supply the value only for types that say what it is. `@FirePackCodable` says more, per property
// (`@FirePackDefault`, initial values); the two are laid side by side in Docs/EVOLUTION.md.

/// A type with a value that stands for "never written": what `FirePackDecoder` gives for a missing key when its
/// `missingKeyDecodingStrategy` is `.useDefaultValues`.
///
/// FirePack gives `Optional` (nil), `Array`, `Set` and `Dictionary` (empty); its own property wrappers read an absent
/// key as nil already. Numbers, strings and booleans have none: a missing count is not zero. Conform your own types
/// (an enum's `.unknown` case, a property wrapper around an optional, a settings struct's defaults).
public protocol FirePackDefaultValue {
    /// The value for a key that is absent.
    static var firePackDefault: Self { get }
}

extension FirePackDecoder {
    /// What decoding gives for a key a map lacks, where the type asks for it with `decode(_:forKey:)` (a synthesized
    /// `init(from:)` does for every non-optional property, and for a property wrapper's backing storage).
    public enum MissingKeyDecodingStrategy: Sendable, Hashable {
        /// `DecodingError.keyNotFound`, as JSONDecoder (the default).
        case `throw`
        /// The type's `FirePackDefaultValue.firePackDefault` when it conforms; `keyNotFound` otherwise.
        case useDefaultValues
    }
}

extension Optional: FirePackDefaultValue {
    /// nil.
    public static var firePackDefault: Self { nil }
}

extension Array: FirePackDefaultValue {
    /// Empty.
    public static var firePackDefault: Self { [] }
}

extension Set: FirePackDefaultValue {
    /// Empty.
    public static var firePackDefault: Self { [] }
}

extension Dictionary: FirePackDefaultValue {
    /// Empty.
    public static var firePackDefault: Self { [:] }
}

extension DecoderImpl {
    /// The value for a missing key of type `T` under the missing-key strategy, or nil (then `keyNotFound`).
    @inline(never)
    func defaultForMissingKey<T>(_ type: T.Type) -> T? {
        guard options.settings.value.missingKeyStrategy == .useDefaultValues,
            let defaulted = T.self as? any FirePackDefaultValue.Type
        else { return nil }
        return defaulted.firePackDefault as? T
    }
}
