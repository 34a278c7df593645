import FirePack
import Foundation

// The practical limit, for the benchmarks and the profiling workload: the same FirePack bytes as FirePackEncoder
// writes for `Book`, written and read by hand with the writer and the cursor, no Codable.

public func handWrittenEncode(_ books: [Book], into writer: FirePackWriter) {
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

public func handWrittenDecode(_ bytes: [UInt8]) throws -> [Book] {
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

// The same for `BookWithTags`: nested maps, arrays, optional fields, URLs and the colour's hex string.

public func handWrittenEncode(_ books: [BookWithTags], into writer: FirePackWriter) {
    writer.beginArray()
    for book in books {
        writer.beginMap()
        writer.writeKey("title"); writer.writeString(book.title)
        writer.writeKey("numberOfPages"); writer.writeInteger(Int64(book.numberOfPages))
        writer.writeKey("author"); writer.writeString(book.author)
        if let cover = book.cover {
            writer.writeKey("cover")
            writer.beginMap()
            writer.writeKey("small"); writer.writeString(cover.small.absoluteString)
            if let medium = cover.medium { writer.writeKey("medium"); writer.writeString(medium.absoluteString) }
            writer.writeKey("large"); writer.writeString(cover.large.absoluteString)
            writer.endMap()
        }
        writer.writeKey("genres")
        writer.beginArray()
        for genre in book.genres { writer.writeString(genre) }
        writer.endArray()
        writer.writeKey("tags")
        writer.beginArray()
        for tag in book.tags {
            writer.beginMap()
            writer.writeKey("title"); writer.writeString(tag.title)
            writer.writeKey("color"); writer.writeString(tag.color.hex)
            writer.endMap()
        }
        writer.endArray()
        writer.endMap()
    }
    writer.endArray()
}

/// A document the hand-written decoder cannot read.
public struct HandWrittenError: Error {}

public func handWrittenDecodeTagged(_ bytes: [UInt8]) throws -> [BookWithTags] {
    try FirePackReader.withReader(bytes) { reader in
        let array = try reader.enterArray()
        var books: [BookWithTags] = []
        books.reserveCapacity(array.count)
        for _ in 0..<array.count {
            let map = try reader.enterMap()
            var title = "", author = "", pages = 0, cover: CoverImages?, genres: [String] = [], tags: [Tag] = []
            for _ in 0..<map.count {
                let key = try reader.readKey()
                if key == "title" { title = try reader.readString().string }
                else if key == "numberOfPages" { pages = Int(try reader.readInteger()) }
                else if key == "author" { author = try reader.readString().string }
                else if key == "cover" {
                    let coverMap = try reader.enterMap()
                    var small: URL?, medium: URL?, large: URL?
                    for _ in 0..<coverMap.count {
                        let coverKey = try reader.readKey()
                        let url = URL(string: try reader.readString().string)
                        if coverKey == "small" { small = url } else if coverKey == "medium" { medium = url } else if coverKey == "large" { large = url }
                    }
                    try reader.exitMap(coverMap)
                    guard let small, let large else { throw HandWrittenError() }
                    cover = CoverImages(small: small, medium: medium, large: large)
                } else if key == "genres" {
                    let list = try reader.enterArray()
                    genres.reserveCapacity(list.count)
                    for _ in 0..<list.count { genres.append(try reader.readString().string) }
                    try reader.exitArray(list)
                } else if key == "tags" {
                    let list = try reader.enterArray()
                    tags.reserveCapacity(list.count)
                    for _ in 0..<list.count {
                        let tagMap = try reader.enterMap()
                        var tagTitle = "", color = Color(red: 0, green: 0, blue: 0)
                        for _ in 0..<tagMap.count {
                            let tagKey = try reader.readKey()
                            if tagKey == "title" { tagTitle = try reader.readString().string }
                            else if tagKey == "color" { color = Color(hex: try reader.readString().string) }
                            else { try reader.skipValue() }
                        }
                        try reader.exitMap(tagMap)
                        tags.append(Tag(title: tagTitle, color: color))
                    }
                    try reader.exitArray(list)
                } else { try reader.skipValue() }
            }
            try reader.exitMap(map)
            books.append(BookWithTags(title: title, numberOfPages: pages, author: author, cover: cover, genres: genres, tags: tags))
        }
        try reader.exitArray(array)
        return books
    }
}
