import FirePack
import GuideModels
import Foundation

// A fixed workload for `valgrind --tool=callgrind` (instruction counts are repeatable, unlike wall clock):
//   ProfileCodable encode|decode|books|encodeBooks|articles|oneBook [iterations]
let mode = CommandLine.arguments.dropFirst().first ?? "decode"
let iterations = Int(CommandLine.arguments.dropFirst(2).first ?? "") ?? 2_000
let book = makeBookWithTags(1)
let encoder = FirePackEncoder()
let decoder = FirePackDecoder()
let bytes = try encoder.encodeToBytes(book)
let books = (0..<1_000).map(makeBook)
let booksBytes = try encoder.encodeToBytes(books)
let articlesBytes = try encoder.encodeToBytes((0..<1_000).map(makeArticle))
let oneBookBytes = try encoder.encodeToBytes([makeBook(1)])
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
