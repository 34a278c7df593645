import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest
import FirePackMacrosPlugin

/// The macro as the compiler sees it: both roles, with the conformances it may add.
private let macros: [String: MacroSpec] = [
    "FirePackCodable": MacroSpec(type: FirePackCodableMacro.self, conformances: ["FirePackDecodable", "FirePackEncodable"]),
]

/// Expansion of every supported shape and every diagnostic.
final class FirePackCodableMacroTests: XCTestCase {
    func testStructWithWrappersOptionalsDefaultsAndInferredTypes() {
        assertMacroExpansion(
            """
            @FirePackCodable
            public struct Book: Codable {
                @DocumentID var id: String?
                var title: String
                var pages: Int = 0
                let kind = "book"
                var cover: Cover?
                var tags: [String]
                var count = 3
                static var shared = 1
                var computed: Int { pages * 2 }
            }
            """,
            expandedSource: """
            public struct Book: Codable {
                @DocumentID var id: String?
                var title: String
                var pages: Int = 0
                let kind = "book"
                var cover: Cover?
                var tags: [String]
                var count = 3
                static var shared = 1
                var computed: Int { pages * 2 }
            }

            extension Book: FirePackDecodable, FirePackEncodable {
                public init(firePack reader: inout FirePackValueReader) throws {
                    var fields = try reader.readFields()
                    let __firePack_id = try reader.decode(DocumentID<String>.self, forKey: "id", in: &fields)
                    let __firePack_title = try reader.decode(String.self, forKey: "title", in: &fields)
                    let __firePack_pages = try reader.decodeIfFound(Int.self, forKey: "pages", in: &fields)
                    let __firePack_cover = try reader.decodeIfPresent(Cover.self, forKey: "cover", in: &fields)
                    let __firePack_tags = try reader.decode([String].self, forKey: "tags", in: &fields)
                    let __firePack_count = try reader.decodeInferredIfFound(forKey: "count", in: &fields, like: 3)
                    self._id = __firePack_id
                    self.title = __firePack_title
                    if let __firePack_pages {
                        self.pages = __firePack_pages
                    }
                    self.cover = __firePack_cover
                    self.tags = __firePack_tags
                    if let __firePack_count {
                        self.count = __firePack_count
                    }
                }

                public func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    if writer.sortsKeys {
                        try writer.encode(self.count, forKey: "count")
                        try writer.encodeIfPresent(self.cover, forKey: "cover")
                        try writer.encode(self._id, forKey: "id")
                        try writer.encode(self.kind, forKey: "kind")
                        try writer.encode(self.pages, forKey: "pages")
                        try writer.encode(self.tags, forKey: "tags")
                        try writer.encode(self.title, forKey: "title")
                    } else {
                        try writer.encode(self._id, forKey: "id")
                        try writer.encode(self.title, forKey: "title")
                        try writer.encode(self.pages, forKey: "pages")
                        try writer.encode(self.kind, forKey: "kind")
                        try writer.encodeIfPresent(self.cover, forKey: "cover")
                        try writer.encode(self.tags, forKey: "tags")
                        try writer.encode(self.count, forKey: "count")
                    }
                    writer.endFields()
                }
            }
            """,
            macroSpecs: macros)
    }

    func testFirePackWrappersByBackingTypeOtherWrappersAtRunTime() {
        assertMacroExpansion(
            """
            @FirePackCodable
            struct Post: Codable {
                @ServerTimestamp var at: Timestamp?
                @FirePack.ExplicitNull var gone: Swift.Optional<Date>
                @Clamped var level: Int
                @ServerTimestamp @Logged var both: Date?
            }
            """,
            expandedSource: """
            struct Post: Codable {
                @ServerTimestamp var at: Timestamp?
                @FirePack.ExplicitNull var gone: Swift.Optional<Date>
                @Clamped var level: Int
                @ServerTimestamp @Logged var both: Date?
            }

            extension Post: FirePackDecodable, FirePackEncodable {
                init(firePack reader: inout FirePackValueReader) throws {
                    var fields = try reader.readFields()
                    let __firePack_at = try reader.decode(ServerTimestamp<Timestamp>.self, forKey: "at", in: &fields)
                    let __firePack_gone = try reader.decode(FirePack.ExplicitNull<Date>.self, forKey: "gone", in: &fields)
                    self._level = try reader.decodeWrapped(forKey: "level", in: &fields)
                    self._both = try reader.decodeWrapped(forKey: "both", in: &fields)
                    self._at = __firePack_at
                    self._gone = __firePack_gone
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    if writer.sortsKeys {
                        try writer.encode(self._at, forKey: "at")
                        try writer.encode(self._both, forKey: "both")
                        try writer.encode(self._gone, forKey: "gone")
                        try writer.encode(self._level, forKey: "level")
                    } else {
                        try writer.encode(self._at, forKey: "at")
                        try writer.encode(self._gone, forKey: "gone")
                        try writer.encode(self._level, forKey: "level")
                        try writer.encode(self._both, forKey: "both")
                    }
                    writer.endFields()
                }
            }
            """,
            macroSpecs: macros)
    }

    func testCodingKeysRenameAndExclude() {
        assertMacroExpansion(
            """
            @FirePackCodable
            struct Language: Codable {
                var name: String
                var year: Date
                var reducedName: String = "unknown"
                enum CodingKeys: String, CodingKey {
                    case name = "language_name"
                    case year
                }
            }
            """,
            expandedSource: """
            struct Language: Codable {
                var name: String
                var year: Date
                var reducedName: String = "unknown"
                enum CodingKeys: String, CodingKey {
                    case name = "language_name"
                    case year
                }
            }

            extension Language: FirePackDecodable, FirePackEncodable {
                init(firePack reader: inout FirePackValueReader) throws {
                    var fields = try reader.readFields()
                    let __firePack_name = try reader.decode(String.self, forKey: "language_name", in: &fields)
                    let __firePack_year = try reader.decode(Date.self, forKey: "year", in: &fields)
                    self.name = __firePack_name
                    self.year = __firePack_year
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    try writer.encode(self.name, forKey: "language_name")
                    try writer.encode(self.year, forKey: "year")
                    writer.endFields()
                }
            }
            """,
            macroSpecs: macros)
    }

    /// A plain struct (every stored property coded, typed, without an initial value or wrapper, no initializer in its
    /// body) is initialized through its memberwise initializer, each property once; one that declares an initializer
    /// keeps the stores property by property.
    func testPlainStructEndsInItsMemberwiseInitializer() {
        assertMacroExpansion(
            """
            @FirePackCodable
            struct Status: Codable {
                let id: Int64
                var text: String
                var reply: String?
                @FirePackKey("fav", aliases: ["favorite"]) var favorites: Int
            }
            @FirePackCodable
            struct Tagged: Codable {
                var tag: String?
                init(tag: String?) { self.tag = tag }
            }
            """,
            expandedSource: """
            struct Status: Codable {
                let id: Int64
                var text: String
                var reply: String?
                @FirePackKey("fav", aliases: ["favorite"]) var favorites: Int
            }
            struct Tagged: Codable {
                var tag: String?
                init(tag: String?) { self.tag = tag }
            }

            extension Status: FirePackDecodable, FirePackEncodable {
                init(firePack reader: inout FirePackValueReader) throws {
                    var fields = try reader.readFields()
                    let __firePack_id = try reader.decode(Int64.self, forKey: "id", in: &fields)
                    let __firePack_text = try reader.decode(String.self, forKey: "text", in: &fields)
                    let __firePack_reply = try reader.decodeIfPresent(String.self, forKey: "reply", in: &fields)
                    let __firePack_favorites: Int
                    if let value = try reader.decodeIfFound(Int.self, forKey: "fav", in: &fields) {
                        __firePack_favorites = value
                    } else if let value = try reader.decodeIfFound(Int.self, forKey: "favorite", in: &fields) {
                        __firePack_favorites = value
                    } else {
                        __firePack_favorites = try reader.missingKey("fav", aliases: ["favorite"], in: fields)
                    }
                    self.init(id: __firePack_id, text: __firePack_text, reply: __firePack_reply, favorites: __firePack_favorites)
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    if writer.sortsKeys {
                        try writer.encode(self.favorites, forKey: "fav")
                        try writer.encode(self.id, forKey: "id")
                        try writer.encodeIfPresent(self.reply, forKey: "reply")
                        try writer.encode(self.text, forKey: "text")
                    } else {
                        try writer.encode(self.id, forKey: "id")
                        try writer.encode(self.text, forKey: "text")
                        try writer.encodeIfPresent(self.reply, forKey: "reply")
                        try writer.encode(self.favorites, forKey: "fav")
                    }
                    writer.endFields()
                }
            }

            extension Tagged: FirePackDecodable, FirePackEncodable {
                init(firePack reader: inout FirePackValueReader) throws {
                    var fields = try reader.readFields()
                    let __firePack_tag = try reader.decodeIfPresent(String.self, forKey: "tag", in: &fields)
                    self.tag = __firePack_tag
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    try writer.encodeIfPresent(self.tag, forKey: "tag")
                    writer.endFields()
                }
            }
            """,
            macroSpecs: macros)
    }

    func testClassGetsRequiredInitializerInItsBody() {
        assertMacroExpansion(
            """
            @FirePackCodable
            class Shelf: Codable {
                var name: String
                var books: [Book]?
            }
            """,
            expandedSource: """
            class Shelf: Codable {
                var name: String
                var books: [Book]?

                required init(firePack reader: inout FirePackValueReader) throws {
                    var fields = try reader.readFields()
                    let __firePack_name = try reader.decode(String.self, forKey: "name", in: &fields)
                    let __firePack_books = try reader.decodeIfPresent([Book].self, forKey: "books", in: &fields)
                    self.name = __firePack_name
                    self.books = __firePack_books
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    if writer.sortsKeys {
                        try writer.encodeIfPresent(self.books, forKey: "books")
                        try writer.encode(self.name, forKey: "name")
                    } else {
                        try writer.encode(self.name, forKey: "name")
                        try writer.encodeIfPresent(self.books, forKey: "books")
                    }
                    writer.endFields()
                }
            }

            extension Shelf: FirePackDecodable, FirePackEncodable {
            }
            """,
            macroSpecs: macros)
    }

    func testRawValueEnumAndOneDirection() {
        assertMacroExpansion(
            """
            @FirePackCodable
            enum Genre: String, Codable {
                case fiction, poetry
            }
            @FirePackCodable
            struct Out: Encodable {
                var a: Int
            }
            """,
            expandedSource: """
            enum Genre: String, Codable {
                case fiction, poetry
            }
            struct Out: Encodable {
                var a: Int
            }

            extension Genre: FirePackDecodable, FirePackEncodable {
                init(firePack reader: inout FirePackValueReader) throws {
                    self = try reader.decodeRawValue(Self.self)
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    try writer.encodeRawValue(self)
                }
            }

            extension Out: FirePackEncodable {
                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    try writer.encode(self.a, forKey: "a")
                    writer.endFields()
                }
            }
            """,
            macroSpecs: macros)
    }

    func testEnumWithAssociatedValuesHasTheSynthesizedShape() {
        assertMacroExpansion(
            """
            @FirePackCodable
            enum Payment: Codable {
                case card(last4: String, expires: Int?)
                case cash
                case voucher(String, amount: Int)
            }
            """,
            expandedSource: """
            enum Payment: Codable {
                case card(last4: String, expires: Int?)
                case cash
                case voucher(String, amount: Int)
            }

            extension Payment: FirePackDecodable, FirePackEncodable {
                init(firePack reader: inout FirePackValueReader) throws {
                    let fields = try reader.readFields()
                    let (index, payload) = try reader.decodeCase(of: Self.self, in: fields, cases: ["card", "cash", "voucher"])
                    switch index {
                    case 0:
                        self = try reader.decodeCase("card", at: payload) { reader in
                            var fields = try reader.readFields()
                            return .card(last4: try reader.decode(String.self, forKey: "last4", in: &fields), expires: try reader.decodeIfPresent(Int.self, forKey: "expires", in: &fields))
                        }
                    case 1:
                        try reader.decodeEmptyCase("cash", at: payload)
                        self = .cash
                    default:
                        self = try reader.decodeCase("voucher", at: payload) { reader in
                            var fields = try reader.readFields()
                            return .voucher(try reader.decode(String.self, forKey: "_0", in: &fields), amount: try reader.decode(Int.self, forKey: "amount", in: &fields))
                        }
                    }
                }

                func encode(firePack writer: inout FirePackValueWriter) throws {
                    writer.beginFields()
                    switch self {
                    case .card(let value0, let value1):
                        try writer.encodeCase("card") { writer in
                            if writer.sortsKeys {
                                try writer.encodeIfPresent(value1, forKey: "expires")
                                try writer.encode(value0, forKey: "last4")
                            } else {
                                try writer.encode(value0, forKey: "last4")
                                try writer.encodeIfPresent(value1, forKey: "expires")
                            }
                        }
                    case .cash:
                        try writer.encodeEmptyCase("cash")
                    case .voucher(let value0, let value1):
                        try writer.encodeCase("voucher") { writer in
                            try writer.encode(value0, forKey: "_0")
                            try writer.encode(value1, forKey: "amount")
                        }
                    }
                    writer.endFields()
                }
            }
            """,
            macroSpecs: macros)
    }

    func testDiagnosticsNameTheFix() {
        let cases: [(String, String, Int, Int)] = [
            ("enum Shape: Codable {\n    case circle(Double), square\n    enum CodingKeys: CodingKey {\n        case circle\n    }\n}",
             "'square' has no key in its CodingKeys enum; add a case for it there (synthesized Codable needs one too)", 3, 26),
            ("enum Plain: Character, Codable {\n    case a, b\n}",
             "@FirePackCodable codes enums with a raw type of String or an integer or floating-point type, and enums whose first inherited name is Codable (or another standard protocol); name Codable first, use one of those raw types, or remove @FirePackCodable", 2, 6),
            ("enum Never2: Codable {\n}",
             "an enum without cases has no value to code; remove @FirePackCodable", 2, 6),
            ("struct Custom: Codable {\n    var a: Int\n    init(from decoder: any Decoder) throws { a = 1 }\n}",
             "@FirePackCodable would bypass this type's own init(from:); remove @FirePackCodable (FirePackDecoder then calls your init(from:)), or remove init(from:) to have both generated", 4, 5),
            ("struct Custom: Codable {\n    var a: Int\n    func encode(to encoder: any Encoder) throws {}\n}",
             "@FirePackCodable would bypass this type's own encode(to:); remove @FirePackCodable (FirePackEncoder then calls your encode(to:)), or remove encode(to:) to have both generated", 4, 5),
            ("struct Computed: Codable {\n    var a: Int { 1 }\n}",
             "@FirePackCodable found no stored properties to code (a computed-only type); remove @FirePackCodable, or write init(from:)/encode(to:) for the type", 2, 1),
            ("struct Twice: Codable {\n    var a: Int\n    var b: Int\n    enum CodingKeys: String, CodingKey {\n        case a = \"x\", b = \"x\"\n    }\n}",
             "two properties are coded under the same key; give each a distinct key in CodingKeys or @FirePackKey", 2, 1),
            ("protocol P {}",
             "@FirePackCodable applies to structs, classes and enums; remove it from this declaration", 2, 1),
            ("actor A {\n    var a = 1\n}",
             "@FirePackCodable applies to structs, classes and enums; remove it from this declaration", 2, 1),
            // A raw-value enum's own init(from:) (a fallback for unknown raw values) is not bypassed either.
            ("enum Status: String, Codable {\n    case active, unknown\n    init(from decoder: any Decoder) throws { self = .unknown }\n}",
             "@FirePackCodable would bypass this type's own init(from:); remove @FirePackCodable (FirePackDecoder then calls your init(from:)), or remove init(from:) to have both generated", 4, 5),
            // A stored property under #if, which the macro cannot see, would never be coded.
            ("struct Settings: Codable {\n    var theme: String\n    #if DEBUG\n    var verbose = false\n    #endif\n}",
             "'verbose' is declared under #if, where @FirePackCodable cannot see it, so it would never be coded (synthesized Codable codes it): declare it outside the #if, or remove @FirePackCodable", 5, 5),
        ]
        for (declaration, message, line, column) in cases {
            assertMacroExpansion("@FirePackCodable\n" + declaration, expandedSource: declaration,
                                 diagnostics: [DiagnosticSpec(message: message, line: line, column: column)],
                                 macroSpecs: macros)
        }
    }
}
