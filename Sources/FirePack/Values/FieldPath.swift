/// A path to a field inside a document's nested maps, as the Firestore SDK's `FieldPath`.
public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// The field names, outermost first.
    public let fieldNames: [String]

    /// A path from its field names, taken literally (a name may hold any character, `.` included).
    ///
    /// - Precondition: at least one name, none empty — what the SDK rejects too.
    public init(_ fieldNames: [String]) {
        precondition(!fieldNames.isEmpty && !fieldNames.contains(""), "a field path needs non-empty field names")
        self.fieldNames = fieldNames
    }

    /// Parses Firestore's dotted form: names separated by `.`; a name in backticks may hold any character, with
    /// `` \` `` and `\\` escaping a backtick and a backslash.
    ///
    /// - Precondition: well formed (no empty name, backticks closed, no escape outside them), as the SDK requires.
    init(parsing text: String) {
        var names: [String] = []
        var name: [UInt8] = []
        var quoted = false, wasQuoted = false, escaped = false
        for byte in text.utf8 {
            if escaped {
                name.append(byte)
                escaped = false
                continue
            }
            switch byte {
            case UInt8(ascii: "\\") where quoted: escaped = true
            case UInt8(ascii: "`"):
                quoted.toggle()
                wasQuoted = true
            case UInt8(ascii: ".") where !quoted:
                precondition(!name.isEmpty || wasQuoted, "field path '\(text)' has an empty field name")
                names.append(String(decoding: name, as: UTF8.self))
                name = []
                wasQuoted = false
            default: name.append(byte)
            }
        }
        precondition(!quoted && !escaped, "field path '\(text)' has an unclosed backtick")
        precondition(!name.isEmpty || wasQuoted, "field path '\(text)' has an empty field name")
        names.append(String(decoding: name, as: UTF8.self))
        self.init(names)
    }

    /// The dotted form, names quoted in backticks where they need it.
    public var description: String {
        fieldNames.map { name in
            let plain =
                name.utf8.first.map { !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
                && name.utf8.allSatisfy {
                    $0 == UInt8(ascii: "_") || ($0 | 0x20 >= UInt8(ascii: "a") && $0 | 0x20 <= UInt8(ascii: "z"))
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                }
            guard !plain else { return name }
            var quoted = "`"
            for character in name {
                if character == "`" || character == "\\" { quoted.append("\\") }
                quoted.append(character)
            }
            return quoted + "`"
        }.joined(separator: ".")
    }
}
