/// A field name compared and hashed by its UTF-8 bytes, as FirePack compares keys (Docs/FORMAT.md §2: byte for
/// byte), not by Unicode canonical equivalence as `String` is: `"a\u{301}"` and `"\u{e1}"` are two fields, two
/// columns, never one column holding both.
struct FieldName: Hashable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (left: FieldName, right: FieldName) -> Bool { left.string.utf8.elementsEqual(right.string.utf8) }

    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
