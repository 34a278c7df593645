import FirePack
import GuideModels

// The practical limit: the same FirePack bytes as FirePackEncoder writes for `Book`, written and read by hand with
// the writer and the cursor, no Codable.

func handWrittenEncode(_ books: [Book], into writer: FirePackWriter) {
    writer.beginArray()
    for book in books {
        writer.beginMap()
        writer.writeKey("title"); writer.writeString(book.title)
        writer.writeKey("numberOfPages"); writer.writeInteger(Int64(book.numberOfPages))
        writer.writeKey("author"); writer.writeString(book.author)
        writer.endMap()
    }
    writer.endArray()
}

func handWrittenDecode(_ bytes: [UInt8]) throws -> [Book] {
    try FirePackReader.withReader(bytes) { reader in
        let array = try reader.enterArray()
        var books: [Book] = []
        books.reserveCapacity(array.count)
        for _ in 0..<array.count {
            let map = try reader.enterMap()
            var title = "", author = "", pages = 0
            for _ in 0..<map.count {
                let key = try reader.readKey()
                if key == "title" { title = try reader.readString().string }
                else if key == "numberOfPages" { pages = Int(try reader.readInteger()) }
                else if key == "author" { author = try reader.readString().string }
                else { try reader.skipValue() }
            }
            try reader.exitMap(map)
            books.append(Book(title: title, numberOfPages: pages, author: author))
        }
        try reader.exitArray(array)
        return books
    }
}
