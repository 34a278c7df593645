#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// Key conversions shared by the encoders and the decoder: Foundation's algorithms (JSONEncoder's and JSONDecoder's
/// snake case, byte for byte), on Unicode scalar properties, so that FirePack needs no more than FoundationEssentials.
enum KeyConversion {
    /// `myURLProperty` → `my_url_property`: words split before an upper-case letter (Unicode Lu and Lt) and, in a run
    /// of capitals, before the last one when a lower-case letter (Ll) follows; then lower-cased and joined with `_`.
    /// Letters are found scalar by scalar and steps taken character by character, as Foundation does (a test checks
    /// thousands of random keys against JSONEncoder).
    static func snakeCase(_ key: String) -> String {
        guard !key.isEmpty else { return key }
        let scalars = key.unicodeScalars
        func firstIndex(in range: Range<String.Index>, where test: (Unicode.GeneralCategory) -> Bool) -> String.Index? {
            scalars[range].indices.first { test(scalars[$0].properties.generalCategory) }
        }
        var words: [Range<String.Index>] = []
        var wordStart = key.startIndex
        var searchRange = key.index(after: wordStart)..<key.endIndex
        while let upperCase = firstIndex(in: searchRange, where: isUpperCase) {
            words.append(wordStart..<upperCase)
            searchRange = upperCase..<searchRange.upperBound
            guard let lowerCase = firstIndex(in: searchRange, where: { $0 == .lowercaseLetter }) else {
                wordStart = searchRange.lowerBound
                break
            }
            if lowerCase == key.index(after: upperCase) {
                wordStart = upperCase
            } else {
                let beforeLower = key.index(before: lowerCase)
                words.append(upperCase..<beforeLower)
                wordStart = beforeLower
            }
            searchRange = scalars.index(after: lowerCase)..<searchRange.upperBound
        }
        words.append(wordStart..<searchRange.upperBound)
        return words.map { key[$0].lowercased() }.joined(separator: "_")
    }

    /// `my_url_property` → `myUrlProperty` (leading and trailing underscores kept): the first word lower-cased, the
    /// others capitalized as Foundation capitalizes.
    static func camelCase(_ key: String) -> String {
        guard !key.isEmpty, let firstNonUnderscore = key.firstIndex(where: { $0 != "_" }) else { return key }
        var lastNonUnderscore = key.index(before: key.endIndex)
        while lastNonUnderscore > firstNonUnderscore && key[lastNonUnderscore] == "_" {
            lastNonUnderscore = key.index(before: lastNonUnderscore)
        }
        let keyRange = firstNonUnderscore...lastNonUnderscore
        let leading = key[key.startIndex..<firstNonUnderscore]
        let trailing = key[key.index(after: lastNonUnderscore)...]
        let components = key[keyRange].split(separator: "_")
        guard components.count > 1 else { return key }
        let joined = components[0].lowercased() + components.dropFirst().map(capitalized).joined()
        return String(leading) + joined + String(trailing)
    }

    /// Foundation's `capitalized`: a cased letter after another keeps its lower-case form, a lower-case letter after
    /// anything else takes its title case; Foundation's case-ignorable characters (marks, format and modifier
    /// characters, apostrophes) leave that state as it was.
    static func capitalized(_ word: Substring) -> String {
        var result = ""
        result.reserveCapacity(word.utf8.count)
        var isLastCased = false
        for scalar in word.unicodeScalars {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .uppercaseLetter, .titlecaseLetter:
                result += isLastCased ? properties.lowercaseMapping : String(scalar)
                isLastCased = true
            case .lowercaseLetter:
                result += isLastCased ? String(scalar) : properties.titlecaseMapping
                isLastCased = true
            case _ where scalar == "'" || scalar == "\u{2019}", .nonspacingMark, .enclosingMark, .format,
                .modifierLetter, .modifierSymbol:
                result.unicodeScalars.append(scalar)
            default:
                result.unicodeScalars.append(scalar)
                isLastCased = false
            }
        }
        return result
    }

    private static func isUpperCase(_ category: Unicode.GeneralCategory) -> Bool {
        category == .uppercaseLetter || category == .titlecaseLetter
    }
}

/// The keys of generated coding (`@FirePackCodable`'s literals) converted to snake case, each once per process: a
/// literal's address and length name it for as long as the program runs.
enum SnakeCaseKeys {
    private static let cache = Mutex<[Literal: String]>([:])

    private struct Literal: Hashable {
        let address: UInt
        let count: Int
    }

    /// `key` as `convertToSnakeCase` writes it.
    static func converted(_ key: StaticString) -> String {
        let literal = Literal(address: UInt(bitPattern: key.utf8Start), count: key.utf8CodeUnitCount)
        if let known = cache.withLock({ $0[literal] }) { return known }
        let converted = KeyConversion.snakeCase(key.description)
        cache.withLock { $0[literal] = converted }
        return converted
    }
}

/// A coding key made from a string or an index: map keys the decoder reads, and `Index N` path entries.
struct AnyCodingKey: CodingKey, Hashable, Sendable {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The path entry Foundation writes for an array element: `Index N`.
    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    static let superKey = AnyCodingKey(stringValue: "super")
}
