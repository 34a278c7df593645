import CorpusModels
import FirePack
import GuideModels
import Foundation

// A fixed workload for `valgrind --tool=callgrind` (instruction counts are repeatable, unlike wall clock):
//   ProfileCodable encode|decode|books|manyTagged|encodeBooks|articles|encodeArticles|intMap|stringMap|encodeIntMap|encodeStringMap|orders|encodeOrders|evolvedOrders|oneBook|encodeOneBook|encodeOneTagged [iterations]
// the hand-written cursor code for the same bytes: handDecode|handBooks|handManyTagged|handOneBook|handEncodeOneBook|handEncodeOneTagged; and Foundation's
// JSON coders on the same values: jsonDecode|jsonBooks|jsonOrders|jsonOneBook|jsonEncodeOneBook.
// The corpus models (../shared/corpus): twitter|citm|canada decode, encodeTwitter|encodeCitm|encodeCanada,
// codableEncodeTwitter|codableEncodeCitm|codableEncodeCanada (FirePack's Codable path), jsonTwitter|jsonCitm|jsonCanada
// (JSONDecoder), handCanada.
// Run it twice with different iteration counts and subtract: the difference is the cost of the extra iterations alone.
let mode = CommandLine.arguments.dropFirst().first ?? "decode"
let iterations = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 2_000
let book = makeBookWithTags(1)
let encoder = FirePackEncoder()
let decoder = FirePackDecoder()
let bytes = try encoder.encodeToBytes(book)
let books = (0..<1_000).map(makeBook)
let booksBytes = try encoder.encodeToBytes(books)
let articles = (0..<1_000).map(makeArticle)
let articlesBytes = try encoder.encodeToBytes(articles)
let oneBook = [makeBook(1)]
let oneBookBytes = try encoder.encodeToBytes(oneBook)
let taggedBytes = try encoder.encodeToBytes([book])
let taggedValue = try Value(firePackBytes: taggedBytes)
let manyTaggedBytes = try encoder.encodeToBytes((0..<1_000).map(makeBookWithTags))
let jsonEncoder = JSONEncoder(), jsonDecoder = JSONDecoder()
let oneBookJSON = try jsonEncoder.encode(oneBook), booksJSON = try jsonEncoder.encode(books), taggedJSON = try jsonEncoder.encode([book])
let orders = (0..<5_000).map(makeOrder)
let ordersBytes = try encoder.encodeToBytes(orders), ordersJSON = try jsonEncoder.encode(orders)
let intMap = Dictionary(uniqueKeysWithValues: (0..<1_000).map { ("counter-\($0)", $0 * 7) })
let intMapBytes = try FirePackEncoder().encodeToBytes(intMap)
let stringMap = intMap.mapValues { "value \($0)" }
let stringMapBytes = try FirePackEncoder().encodeToBytes(stringMap)
let writer = FirePackWriter()
let codableEncoder = FirePackEncoder()
codableEncoder.usesGeneratedCoding = false
var checksum = 0

/// A corpus model read from ../shared/corpus with JSONDecoder, and its FirePack and JSON bytes.
func corpus<T: Codable & FirePackEncodable>(_ name: String, as type: T.Type) throws -> (value: T, bytes: [UInt8], json: Data) {
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus/\(name).json")
    let json = try Data(contentsOf: file)
    let value = try JSONDecoder().decode(T.self, from: json)
    return (value, try encoder.encodeToBytes(value), try JSONEncoder().encode(value))
}
let corpusName = ["twitter": "twitter", "citm": "citm_catalog", "canada": "canada"]
    .first { mode.lowercased().hasSuffix($0.key) }?.value
if let corpusName {
    // One model per run; each mode decodes, encodes or decodes JSON.
    func run<T: Codable & FirePackDecodable & FirePackEncodable>(_ type: T.Type) throws {
        let (value, bytes, json) = try corpus(corpusName, as: T.self)
        for _ in 0..<iterations {
            if mode.hasPrefix("codableEncode") {
                // FirePack's Codable path: the same encoder with generated coding off.
                try codableEncoder.encode(value, into: writer)
                checksum &+= writer.writerIndex
                writer.clear()
            } else if mode.hasPrefix("encode") {
                try encoder.encode(value, into: writer)
                checksum &+= writer.writerIndex
                writer.clear()
            } else if mode.hasPrefix("json") {
                blackHole(try jsonDecoder.decode(T.self, from: json))
            } else if mode == "handCanada" {
                blackHole(try handWrittenDecodeCanada(bytes))
            } else {
                blackHole(try decoder.decode(T.self, from: bytes))
            }
        }
    }
    switch corpusName {
    case "twitter": try run(Twitter.self)
    case "citm_catalog": try run(CitmCatalog.self)
    default: try run(Canada.self)
    }
}

/// Keeps a result alive so the optimizer cannot drop the work.
@inline(never) func blackHole<T>(_ value: T) { withExtendedLifetime(value) {} }

for _ in 0..<(corpusName == nil ? iterations : 0) {
    if mode == "encodeOrders" {
        try encoder.encode(orders, into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else if mode == "encodeBooks" {
        try encoder.encode(books, into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else if mode == "orders" {
        checksum &+= try decoder.decode([Order].self, from: ordersBytes).count
    } else if mode == "evolvedOrders" {
        // The same bytes through the model with an alias, defaults and an unknown-field bag.
        checksum &+= try decoder.decode([EvolvingOrder].self, from: ordersBytes).count
    } else if mode == "jsonOrders" {
        checksum &+= try jsonDecoder.decode([Order].self, from: ordersJSON).count
    } else if mode == "intMap" {
        // A `[String: Int]` of 1,000 entries (counters, scores: a common Firestore map).
        checksum &+= try decoder.decode([String: Int].self, from: intMapBytes).count
    } else if mode == "encodeIntMap" {
        try encoder.encode(intMap, into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else if mode == "encodeStringMap" {
        try encoder.encode(stringMap, into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else if mode == "stringMap" {
        checksum &+= try decoder.decode([String: String].self, from: stringMapBytes).count
    } else if mode == "encodeArticles" {
        try encoder.encode(articles, into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else if mode == "articles" {
        checksum &+= try decoder.decode([Article].self, from: articlesBytes).count
    } else if mode == "oneBook" {
        // A one-document call, as PathsBenchmarks' "Decode 1 Book": what each call costs besides the document.
        checksum &+= try decoder.decode([Book].self, from: oneBookBytes).count
    } else if mode == "handOneBook" {
        checksum &+= try handWrittenDecode(oneBookBytes).count
    } else if mode == "encodeOneBook" {
        try encoder.encode(oneBook, into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else if mode == "handEncodeOneBook" {
        handWrittenEncode(oneBook, into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else if mode == "encodeOneTagged" {
        try encoder.encode([book], into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else if mode == "handEncodeOneTagged" {
        handWrittenEncode([book], into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else if mode == "handBooks" {
        checksum &+= try handWrittenDecode(booksBytes).count
    } else if mode == "manyTagged" {
        checksum &+= try decoder.decode([BookWithTags].self, from: manyTaggedBytes).count
    } else if mode == "handManyTagged" {
        checksum &+= try handWrittenDecodeTagged(manyTaggedBytes).count
    } else if mode == "handDecode" {
        checksum &+= try handWrittenDecodeTagged(taggedBytes).count
    } else if mode == "jsonOneBook" {
        checksum &+= try jsonDecoder.decode([Book].self, from: oneBookJSON).count
    } else if mode == "jsonBooks" {
        checksum &+= try jsonDecoder.decode([Book].self, from: booksJSON).count
    } else if mode == "jsonDecode" {
        checksum &+= try jsonDecoder.decode([BookWithTags].self, from: taggedJSON).count
    } else if mode == "jsonEncodeOneBook" {
        checksum &+= try jsonEncoder.encode(oneBook).count
    } else if mode == "valueDecode" {
        // A tree (what REST JSON, protobuf and Document hold) decoded through FirePackDecoder.
        checksum &+= try decoder.decode([BookWithTags].self, from: taggedValue).count
    } else if mode == "books" {
        checksum &+= try decoder.decode([Book].self, from: booksBytes).count
    } else if mode == "encode" {
        try encoder.encode(book, into: writer)
        checksum &+= writer.writerIndex
        writer.clear()
    } else {
        checksum &+= try decoder.decode(BookWithTags.self, from: bytes).numberOfPages
    }
}
print(checksum)
