import FirePack
import GuideModels
import Foundation

// A fixed workload for `valgrind --tool=callgrind` (instruction counts are repeatable, unlike wall clock):
//   ProfileCodable encode|decode|books|encodeBooks|articles|oneBook|encodeOneBook [iterations]
// the hand-written cursor code for the same bytes: handDecode|handBooks|handOneBook|handEncodeOneBook; and Foundation's
// JSON coders on the same values: jsonDecode|jsonBooks|jsonOneBook|jsonEncodeOneBook.
// Run it twice with different iteration counts and subtract: the difference is the cost of the extra iterations alone.
let mode = CommandLine.arguments.dropFirst().first ?? "decode"
let iterations = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 2_000
let book = makeBookWithTags(1)
let encoder = FirePackEncoder()
let decoder = FirePackDecoder()
let bytes = try encoder.encodeToBytes(book)
let books = (0..<1_000).map(makeBook)
let booksBytes = try encoder.encodeToBytes(books)
let articlesBytes = try encoder.encodeToBytes((0..<1_000).map(makeArticle))
let oneBook = [makeBook(1)]
let oneBookBytes = try encoder.encodeToBytes(oneBook)
let taggedBytes = try encoder.encodeToBytes([book])
let jsonEncoder = JSONEncoder(), jsonDecoder = JSONDecoder()
let oneBookJSON = try jsonEncoder.encode(oneBook), booksJSON = try jsonEncoder.encode(books), taggedJSON = try jsonEncoder.encode([book])
let writer = FirePackWriter()
var checksum = 0
for _ in 0..<iterations {
    if mode == "encodeBooks" {
        try encoder.encode(books, into: writer)
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
    } else if mode == "handBooks" {
        checksum &+= try handWrittenDecode(booksBytes).count
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
