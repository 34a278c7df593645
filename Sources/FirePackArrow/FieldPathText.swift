/// A field's path as reports, warnings and Spark's marks spell it: its keys joined by `.`, `[]` for a list's
/// elements (`orders[].price`). A key that holds `.`, `[`, `]`, a backquote or a backslash, or is empty, is written
/// in backquotes, a backquote or backslash in it after a backslash, in the manner of Firestore's quoted field-path
/// segments (which quote every key that is not a plain identifier; these quote only keys that would be read
/// otherwise): `` m.`a.b` `` is the key `a.b` of `m`, `m.a.b` the key `b` of the map `a` of `m`. Without them the two
/// were one path, and Spark's marks of the one were given to the other.
enum FieldPathText {
    /// The path of the field `name` of the map at `path` ("" for a document's own fields, whose paths start with
    /// their key; Spark's marks of a top-level field's struct fields start with `.`, `withDot`).
    static func member(_ name: String, of path: String, withDot: Bool = false) -> String {
        let key = quoted(name)
        return path.isEmpty && !withDot ? key : path + "." + key
    }

    /// The path of the elements of the list at `path`.
    static func elements(of path: String) -> String { path + "[]" }

    /// `name` as one key of a path: as it is, or in backquotes when it holds what paths are made of.
    static func quoted(_ name: String) -> String {
        guard name.isEmpty || name.utf8.contains(where: needsQuotes) else { return name }
        var text = "`"
        for character in name.unicodeScalars {
            if character == "`" || character == "\\" { text.unicodeScalars.append("\\") }
            text.unicodeScalars.append(character)
        }
        return text + "`"
    }

    private static func needsQuotes(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "`"), UInt8(ascii: "\\"): true
        default: false
        }
    }
}
