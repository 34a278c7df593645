// Generated from README.md by Tests/FirePackReadmeTests (run `FIREPACK_UPDATE_README=1 swift test --filter ReadmeTests` after editing the README's Swift blocks); do not edit.
import FirePack
import FirePackInterop
import FirePackMacros
import FirePackStreams
import Foundation

/// README.md's Swift blocks, in order, with the README line of each.
func readmeBlocks() -> [(line: Int, run: (@escaping (Any...) -> Void) throws -> Void)] {
    [(195, readmeBlock1), (242, readmeBlock2), (354, readmeBlock3), (373, readmeBlock4)]
}

/// README.md line 195.
func readmeBlock1(print: @escaping (Any...) -> Void) throws {

    // Values: Firestore's types, literals, Firestore ordering.
    let book: Value = [
        "title": "The Hitchhiker's Guide to the Galaxy",
        "pages": 216,
        "published": .timestamp(Timestamp(seconds: 308_534_400, nanoseconds: 0)),
        "tags": ["towel", "classic"],
    ]

    // Write: one call for a whole tree, or the streaming API below.
    let bytes = book.firePackBytes()
    print(bytes.count)                          // 95
    let same = try Value(firePackBytes: bytes)  // checks every byte
    print(same == book)                         // true

    // Read lazily: look up one field without decoding the rest.
    try FirePackReader.withReader(bytes) { reader in
        let title = try reader.root["title"]?.stringView()   // a view into `bytes`, no copy
        print(title!.count)                                  // 36
        print(try reader.root.lookup("tags[0]")!.string())   // towel
    }

    // Stream: a reused buffer, containers of unknown size, handed to a sink (a file, a socket) as values complete.
    var sent: [UInt8] = []
    let writer = FirePackWriter(sink: .init { chunk in sent += chunk })
    writer.beginMap()
    writer.writeKey("id");    writer.writeInteger(42)
    writer.writeKey("where"); writer.writeGeoPoint(GeoPoint(latitude: 51.5, longitude: -0.12))
    writer.endMap()
    try writer.flushIfNeeded()                  // flushes once 1 MiB is buffered: nothing yet
    try writer.flush()                          // hands over every complete value
    print(sent.count)                           // 18

    // Cursor: enter containers, read scalars, skip what you do not need in O(1).
    try FirePackReader.withReader(bytes) { reader in
        let map = try reader.enterMap()
        for _ in 0..<map.count {
            if try reader.readKey() == "pages" { print(try reader.readInteger()) } else { try reader.skipValue() }   // 216
        }
        try reader.exitMap(map)
    }
}

// README.md line 242: declarations with a macro, at file scope.
@FirePackCodable                         // generated coding: same bytes, same errors, several times the speed
struct Book: Codable {
    @DocumentID var id: String?          // filled from the document reference, never written
    var title: String
    var numberOfPages: Int
    var author: String
    @ServerTimestamp var addedAt: Timestamp?   // nil is written as the server-timestamp sentinel
}

/// README.md line 242.
func readmeBlock2(print: @escaping (Any...) -> Void) throws {


    let book = Book(title: "The Hitchhiker's Guide to the Galaxy", numberOfPages: 216, author: "Douglas Adams")
    let data = try FirePackEncoder().encode(book)          // {title, numberOfPages, author, addedAt: serverTimestamp}

    let reference = try CollectionReference(path: "books").document("hitchhiker")
    let decoded = try FirePackDecoder().decode(Book.self, from: data, in: reference)
    print(decoded.id!)                                      // hitchhiker

    // Errors say where, in Foundation's terms, with the byte offset and the document:
    struct Shelf: Codable { var books: [Book] }
    let shelf: Value = ["books": [["title": "Dune", "numberOfPages": "many", "author": "Frank Herbert"]]]
    do {
        _ = try FirePackDecoder().decode(Shelf.self, from: shelf.firePackBytes(), in: reference)
    } catch DecodingError.typeMismatch(_, let context) {
        print(context.codingPath.map(\.stringValue))   // ["books", "Index 0", "numberOfPages"]
        print(context.debugDescription)
        // Expected to decode Int but found string (at byte 37 in document books/hitchhiker).
    }

    // Documents carry a reference, fields and times; pending server timestamps read as the SDK reads them.
    let document = try Document(reference: reference, from: book)
    print(document.documentID, document["numberOfPages"]!) // hitchhiker 216
    print(try document.data(as: Book.self).addedAt as Any)                  // nil
    print(try document.data(as: Book.self, with: .estimate).addedAt != nil) // true
}

/// README.md line 354.
func readmeBlock3(print: @escaping (Any...) -> Void) throws {

    let value = try Value(json: #"{"title": "Dune", "published": {"__timestamp__": "1965-08-01T00:00:00Z"}}"#)
    print(value["published"]!)                  // timestamp(1965-08-01T00:00:00Z)
    print(value.jsonString())                   // {"title":"Dune","published":{"__timestamp__":"1965-08-01T00:00:00Z"}}
}

/// README.md line 373.
func readmeBlock4(print: @escaping (Any...) -> Void) throws {

    let export = MemorySource(Array(#"[{"id": "dune", "pages": 412}, {"id": "emma", "pages": 474}]"#.utf8))
    let rest = MemorySink()
    try FirestoreJSONWriter(rest).write(from: JSONArrayReader(export, naming: DocumentNaming(collection: "books", idField: "id")))
    let documents = try FirestoreJSONReader(MemorySource(rest.bytes)).readAll()
    print(documents.map(\.reference.path))      // ["books/dune", "books/emma"]
    print(documents[1]["pages"]!)               // 474
}
