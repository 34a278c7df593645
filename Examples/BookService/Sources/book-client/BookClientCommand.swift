#if FirePackHummingbird
import ArgumentParser
import BookService

/// Calls every route of a running book service in JSON and in FirePack, checks that the answers agree, and prints
/// each body's size.
@main
struct BookClientCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "book-client",
        abstract: "Call every route of a running book-service both ways and compare the answers.")

    @Option(help: "The service's address.") var host = "127.0.0.1"
    @Option(help: "The service's port.") var port = 8080

    func validate() throws {
        guard (1 ... 65_535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
    }

    func run() async throws {
        try await BookClient.withConnection(host: host, port: port) { client in
            for count in [1, 100, 1_000] {
                let json = try await client.listBooks(count: count, as: .json)
                let firePack = try await client.listBooks(count: count, as: .firePack)
                try check(json == firePack, "GET /books?count=\(count) differs between JSON and FirePack")
                try await report("GET /books?count=\(count)", client: client, path: "/books?count=\(count)")
            }
            let id = "book-0042"
            try check(try await client.book(id: id, as: .json) == (try await client.book(id: id, as: .firePack)),
                      "GET /books/\(id) differs between JSON and FirePack")
            try await report("GET /books/\(id)", client: client, path: "/books/\(id)")
            let new = (0 ..< 100).map { index in
                var book = BookWithTags.sample(index)
                book.id = nil
                return book
            }
            for format in BookClient.Format.allCases {
                let created = try await client.create(new, as: format)
                try check(created.count == new.count, "POST /books (\(format)) stored \(created.count) of \(new.count) books")
                for book in created.prefix(3) {
                    try check(try await client.book(id: book.id!, as: format) == book, "created book \(book.id!) reads back changed")
                }
            }
            let body = (json: try BookClient.encode(new, .json).readableBytes, firePack: try BookClient.encode(new, .firePack).readableBytes)
            print("POST /books (100 books): request body JSON \(body.json) B, FirePack \(body.firePack) B; both stored and read back")
            print("every route answers the same books in JSON and FirePack")
        }
    }

    private func report(_ route: String, client: BookClient, path: String) async throws {
        let json = try await client.send("GET", path, accept: .json).body.readableBytes
        let firePack = try await client.send("GET", path, accept: .firePack).body.readableBytes
        print("\(route): JSON \(json) B, FirePack \(firePack) B (\(firePack * 100 / max(json, 1))%)")
    }

    private func check(_ condition: Bool, _ message: String) throws {
        guard condition else { throw BookClient.Failure(description: message) }
    }
}
#else
/// Without the FirePackHummingbird trait there is no client to run.
@main
enum BookClientUnavailable {
    static func main() {
        print("book-client needs the FirePackHummingbird trait: swift build --traits FirePackHummingbird --product book-client")
    }
}
#endif
