import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest
import FirePackMacrosPlugin

/// The macros as the compiler sees them, property attributes included.
private let macros: [String: MacroSpec] = [
    "FirePackCodable": MacroSpec(type: FirePackCodableMacro.self, conformances: ["FirePackDecodable", "FirePackEncodable"]),
    "FirePackDefault": MacroSpec(type: FirePackDefaultMacro.self),
    "FirePackKey": MacroSpec(type: FirePackPropertyMarkerMacro.self),
    "FirePackIgnored": MacroSpec(type: FirePackPropertyMarkerMacro.self),
]

/// Expansion of defaults, keys and aliases, ignored properties and refused keys, and their diagnostics.
final class EvolutionMacroTests: XCTestCase {
    func testDefaultsKeysAliasesAndIgnoredProperties() {
        assertMacroExpansion(
            """
            @FirePackCodable
            struct Book: Codable {
                @FirePackKey("page_count", aliases: ["pages"]) var pages: Int
                @FirePackDefault(Genre.unknown) var genre: Genre
                var rating: Double = 2.5
                var subtitle: String? = "none"
                var edition = 1
                @FirePackKey("isbn13", aliases: ["isbn"]) var isbn: String?
                @FirePackIgnored var cache: [String: Int] = [:]
            }
            """,
            expandedSource: """
            struct Book: Codable {
                var pages: Int
                var genre: Genre

                static func __firePackDefault_genre() -> Genre {
                    Genre.unknown
                }
                var rating: Double = 2.5
                var subtitle: String? = "none"
                var edition = 1
                var isbn: String?
                var cache: [String: Int] = [:]
            }

            extension Book: FirePackDecodable, FirePackEncodable {
                init(firePack reader: inout FirePackValueReader) throws {
                    var fields = try reader.readFields()
                    let __firePack_pages: Int
                    if let value = try reader.decodeIfFound(Int.self, forKey: "page_count", in: &fields) {
                        __firePack_pages = value
                    } else if let value = try reader.decodeIfFound(Int.self, forKey: "pages", in: &fields) {
                        __firePack_pages = value
                    } else {
                        __firePack_pages = try reader.missingKey("page_count", aliases: ["pages"], in: fields)
                    }
                    let __firePack_genre: Genre
                    if let value = try reader.decodeIfFound(Genre.self, forKey: "genre", in: &fields) {
                        __firePack_genre = value
                    } else {
                        __firePack_genre = Self.__firePackDefault_genre()
                    }
                    let __firePack_rating = try reader.decodeIfFound(Double.self, forKey: "rating", in: &fields)
                    let __firePack_subtitle = try reader.decodeOptionalIfFound(String.self, forKey: "subtitle", in: &fields)
                    let __firePack_edition = try reader.decodeInferredIfFound(forKey: "edition", in: &fields, like: 1)
                    let __firePack_isbn: String?
                    if let value = try reader.decodeOptionalIfFound(String.self, forKey: "isbn13", in: &fields) {
                        __firePack_isbn = value
                    } else if let value = try reader.decodeOptionalIfFound(String.self, forKey: "isbn", in: &fields) {
                        __firePack_isbn = value
                    } else {
                        __firePack_isbn = nil
                    }
                    self.pages = __firePack_pages
                    self.genre = __firePack_genre
                    if let __firePack_rating {
                        self.rating = __firePack_rating
                    }
                    if let __firePack_subtitle {
                        self.subtitle = __firePack_subtitle
                    }
                    if let __firePack_edition {
                        self.edition = __firePack_edition
                    }
                    self.isbn = __firePack_isbn
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    if writer.sortsKeys {
                        try writer.encode(self.edition, forKey: "edition")
                        try writer.encode(self.genre, forKey: "genre")
                        try writer.encodeIfPresent(self.isbn, forKey: "isbn13")
                        try writer.encode(self.pages, forKey: "page_count")
                        try writer.encode(self.rating, forKey: "rating")
                        try writer.encodeIfPresent(self.subtitle, forKey: "subtitle")
                    } else {
                        try writer.encode(self.pages, forKey: "page_count")
                        try writer.encode(self.genre, forKey: "genre")
                        try writer.encode(self.rating, forKey: "rating")
                        try writer.encodeIfPresent(self.subtitle, forKey: "subtitle")
                        try writer.encode(self.edition, forKey: "edition")
                        try writer.encodeIfPresent(self.isbn, forKey: "isbn13")
                    }
                    writer.endFields()
                }
            }
            """,
            macroSpecs: macros)
    }

    func testUnknownKeysRejectListsEveryKeyAndAlias() {
        assertMacroExpansion(
            """
            @FirePackCodable(unknownKeys: .reject)
            struct Settings: Codable {
                @FirePackKey("font_size", aliases: ["fontSize"]) var fontSize: Int
                @FirePackIgnored var session: String?
            }
            """,
            expandedSource: """
            struct Settings: Codable {
                var fontSize: Int
                var session: String?
            }

            extension Settings: FirePackDecodable, FirePackEncodable {
                init(firePack reader: inout FirePackValueReader) throws {
                    var fields = try reader.readFields()
                    let __firePack_fontSize: Int
                    if let value = try reader.decodeIfFound(Int.self, forKey: "font_size", in: &fields) {
                        __firePack_fontSize = value
                    } else if let value = try reader.decodeIfFound(Int.self, forKey: "fontSize", in: &fields) {
                        __firePack_fontSize = value
                    } else {
                        __firePack_fontSize = try reader.missingKey("font_size", aliases: ["fontSize"], in: fields)
                    }
                    try reader.rejectUnknownKeys(in: fields, known: ["font_size", "fontSize"])
                    self.fontSize = __firePack_fontSize
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    try writer.encode(self.fontSize, forKey: "font_size")
                    writer.endFields()
                }
            }
            """,
            macroSpecs: macros)
    }

    func testUnknownFieldsBagIsFilledWithEveryOtherKeyAndWrittenInPlace() {
        assertMacroExpansion(
            """
            @FirePackCodable
            struct Order: Codable {
                var id: String
                var unknownFields = FirePackUnknownFields()
                @FirePackKey("total_cents", aliases: ["total"]) var total: Int
                let kind = "order"
                @FirePackIgnored var cache: String?
            }
            """,
            expandedSource: """
            struct Order: Codable {
                var id: String
                var unknownFields = FirePackUnknownFields()
                var total: Int
                let kind = "order"
                var cache: String?
            }

            extension Order: FirePackDecodable, FirePackEncodable {
                init(firePack reader: inout FirePackValueReader) throws {
                    var fields = try reader.readFields()
                    let __firePack_id = try reader.decode(String.self, forKey: "id", in: &fields)
                    let __firePack_unknownFields = try reader.unknownFields(in: fields, known: ["id", "total_cents", "total", "kind"])
                    let __firePack_total: Int
                    if let value = try reader.decodeIfFound(Int.self, forKey: "total_cents", in: &fields) {
                        __firePack_total = value
                    } else if let value = try reader.decodeIfFound(Int.self, forKey: "total", in: &fields) {
                        __firePack_total = value
                    } else {
                        __firePack_total = try reader.missingKey("total_cents", aliases: ["total"], in: fields)
                    }
                    self.id = __firePack_id
                    self.unknownFields = __firePack_unknownFields
                    self.total = __firePack_total
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    if writer.sortsKeys {
                        try writer.encode(self.id, forKey: "id")
                        try writer.encode(self.kind, forKey: "kind")
                        try writer.encode(self.total, forKey: "total_cents")
                        if !self.unknownFields.isEmpty {
                            try writer.encodeUnknownFields(self.unknownFields, declared: [FirePackValueWriter.declaredKey(self.id, "id"), FirePackValueWriter.declaredKey(self.total, "total_cents"), FirePackValueWriter.declaredKey(self.kind, "kind")])
                        }
                    } else {
                        try writer.encode(self.id, forKey: "id")
                        if !self.unknownFields.isEmpty {
                            try writer.encodeUnknownFields(self.unknownFields, declared: [FirePackValueWriter.declaredKey(self.id, "id"), FirePackValueWriter.declaredKey(self.total, "total_cents"), FirePackValueWriter.declaredKey(self.kind, "kind")])
                        }
                        try writer.encode(self.total, forKey: "total_cents")
                        try writer.encode(self.kind, forKey: "kind")
                    }
                    writer.endFields()
                }
            }
            """,
            macroSpecs: macros)
    }

    func testDiagnosticsPointAtThePropertyAndSayWhatToWrite() {
        // (declaration, what it expands to without @FirePackCodable's extension, message, line, column)
        let cases: [(String, String, String, Int, Int)] = [
            ("struct A: Codable {\n    var pages: Int\n    @FirePackKey(\"count\", aliases: [\"pages\"]) var count: Int\n}",
             "struct A: Codable {\n    var pages: Int\n    var count: Int\n}",
             "alias \"pages\" is already a key or alias of this type; a document would fill two properties from one field: remove the alias or rename the other key", 4, 5),
            ("struct A: Codable {\n    @FirePackKey(name) var count: Int\n}",
             "struct A: Codable {\n    var count: Int\n}",
             "@FirePackKey takes string literals: @FirePackKey(\"wire_name\", aliases: [\"oldName\"])", 3, 5),
            ("struct A: Codable {\n    @FirePackDefault(Date()) @ServerTimestamp var at: Date?\n}",
             "struct A: Codable {\n    @ServerTimestamp var at: Date?\n\n    static func __firePackDefault_at() -> Date? {\n        Date()\n    }\n}",
             "'at' has a property wrapper, which decides what an absent key means; remove @FirePackDefault, @FirePackIgnored and aliases from it", 3, 5),
            ("struct A: Codable {\n    @FirePackDefault(2) let kind = 1\n}",
             "struct A: Codable {\n    let kind = 1\n}",
             "'kind' is a let with an initial value, which is never decoded; remove @FirePackDefault, or make it a var without an initial value", 3, 5),
            ("struct A: Codable {\n    @FirePackDefault(2) var count = 1\n}",
             "struct A: Codable {\n    var count = 1\n}",
             "write the type of 'count' (var count: Type) to give it a @FirePackDefault", 3, 5),
            ("struct A: Codable {\n    @FirePackIgnored var cache: [Int]\n}",
             "struct A: Codable {\n    var cache: [Int]\n}",
             "'cache' is ignored, so never decoded: give it an initial value or @FirePackDefault(value), or make it optional", 3, 5),
            ("struct A: Codable {\n    var extra = FirePackUnknownFields()\n    var more: FirePackUnknownFields\n}",
             "struct A: Codable {\n    var extra = FirePackUnknownFields()\n    var more: FirePackUnknownFields\n}",
             "'more' is a second FirePackUnknownFields bag; 'extra' already keeps the unknown fields: remove one", 4, 5),
            ("struct A: Codable {\n    var a: Int\n    var extra: FirePackUnknownFields?\n}",
             "struct A: Codable {\n    var a: Int\n    var extra: FirePackUnknownFields?\n}",
             "declare the bag as a plain stored property: var extra = FirePackUnknownFields() (not optional, not a let, no wrapper or FirePack attribute)", 4, 5),
            ("struct A: Codable {\n    var a: Int\n    @FirePackKey(\"x\") var extra: FirePackUnknownFields\n}",
             "struct A: Codable {\n    var a: Int\n    var extra: FirePackUnknownFields\n}",
             "declare the bag as a plain stored property: var extra = FirePackUnknownFields() (not optional, not a let, no wrapper or FirePack attribute)", 4, 5),
            ("struct A: Codable {\n    var a: Int\n    var rest = FirePackUnknownFields()\n    enum CodingKeys: String, CodingKey {\n        case a = \"b\"\n    }\n}",
             "struct A: Codable {\n    var a: Int\n    var rest = FirePackUnknownFields()\n    enum CodingKeys: String, CodingKey {\n        case a = \"b\"\n    }\n}",
             "'rest' keeps the unknown fields but has no case in CodingKeys, so it would never be filled and every field the model does not declare would be lost when it is written back: add `case rest` to CodingKeys", 4, 5),
            ("struct A: Codable {\n    var a: Int\n}",
             "struct A: Codable {\n    var a: Int\n}",
             "unknownKeys is .ignore or .reject", 1, 31),
        ]
        for (index, (declaration, expanded, message, line, column)) in cases.enumerated() {
            let attribute = index == cases.count - 1 ? "@FirePackCodable(unknownKeys: .sometimes)\n" : "@FirePackCodable\n"
            assertMacroExpansion(attribute + declaration, expandedSource: expanded,
                                 diagnostics: [DiagnosticSpec(message: message, line: line, column: column)],
                                 macroSpecs: macros)
        }
        assertMacroExpansion(
            "@FirePackCodable(unknownKeys: .reject)\nstruct A: Codable {\n    var a: Int\n    var rest = FirePackUnknownFields()\n}",
            expandedSource: "struct A: Codable {\n    var a: Int\n    var rest = FirePackUnknownFields()\n}",
            diagnostics: [DiagnosticSpec(message: "a model with unknownKeys: .reject has no unknown fields to keep; remove the FirePackUnknownFields property or unknownKeys: .reject", line: 4, column: 5)],
            macroSpecs: macros)
    }
}
