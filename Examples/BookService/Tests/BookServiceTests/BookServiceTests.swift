#if FirePackHummingbird
import BookService
import FirePack
import FirePackTestSupport
import Foundation
import Hummingbird
import NIOCore
import Testing

/// Starts the service on a free loopback port, runs `body` with the port, and stops the service.
func withBookService<Result: Sendable>(store: BookStore = BookStore(), timeouts: ConnectionTimeouts = ConnectionTimeouts(),
                                       _ body: @Sendable (Int) async throws -> Result) async throws -> Result {
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    // Stopped by cancellation, which HummingbirdCore logs as an error: only critical messages are shown.
    let service = makeBookService(port: 0, store: store, timeouts: timeouts, logLevel: .critical) { port in
        continuation.yield(port)
        continuation.finish()
    }
    return try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask {
            try await service.run()
            return nil
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw BookClient.Failure(description: "the service did not start") }
        let result: Result
        do { result = try await body(port) } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
        return result
    }
}

/// The message of an error answer: `{"error": {"message": …}}` in JSON or FirePack.
func errorMessage(_ answer: BookClient.Answer) throws -> String {
    struct ErrorBody: Decodable { struct Inner: Decodable { var message: String }; var error: Inner }
    var body = answer.body
    if answer.header("Content-Type")?.hasPrefix("application/vnd.firepack") == true {
        return try body.readFirePack(ErrorBody.self).error.message
    }
    return try JSONDecoder().decode(ErrorBody.self, from: Data(body.readableBytesView)).error.message
}

@Suite("Book service over loopback")
struct BookServiceTests {
    @Test("Every route answers the same books in JSON and in FirePack")
    func routesAgree() async throws {
        try await withBookService { port in
            try await BookClient.withConnection(port: port) { client in
                for count in [1, 100, 1_000] {
                    let json = try await client.listBooks(count: count, as: .json)
                    let firePack = try await client.listBooks(count: count, as: .firePack)
                    #expect(json.count == count)
                    #expect(json == firePack)
                    #expect(json == (0 ..< count).map(BookWithTags.sample))
                }
                for id in ["book-0000", "book-0999"] {
                    let json = try await client.book(id: id, as: .json)
                    #expect(json == (try await client.book(id: id, as: .firePack)))
                    #expect(json.id == id)
                }
                let new = (0 ..< 3).map { index in
                    var book = BookWithTags.sample(index)
                    book.id = nil
                    book.title = "New \(index)"
                    return book
                }
                for format in BookClient.Format.allCases {
                    let created = try await client.create(new, as: format)
                    #expect(created.map(\.title) == new.map(\.title))
                    #expect(created.map { var book = $0; book.id = nil; return book } == new)
                    for book in created {
                        let id = try #require(book.id)
                        #expect(try await client.book(id: id, as: .json) == book)
                        #expect(try await client.book(id: id, as: .firePack) == book)
                    }
                }
            }
        }
    }

    @Test("The answer's format follows Accept, and every answer says Vary: Accept")
    func negotiation() async throws {
        try await withBookService { port in
            try await BookClient.withConnection(port: port) { client in
                for (accept, expected) in [(nil, "application/json"), ("application/vnd.firepack", "application/vnd.firepack"),
                                           ("application/vnd.firepack;q=0.4, application/json", "application/json"),
                                           ("text/html", "application/json")] as [(String?, String)] {
                    var headers: [(String, String)] = []
                    if let accept { headers.append(("Accept", accept)) }
                    let answer = try await client.send("GET", "/books?count=2", headers: headers)
                    #expect(answer.status == 200)
                    #expect(answer.header("Content-Type")?.hasPrefix(expected) == true, "Accept \(accept ?? "none")")
                    #expect(answer.header("Vary") == "Accept")
                }
            }
        }
    }

    @Test("Bad bodies get 4xx answers with a clear message, and the service keeps serving")
    func badBodies() async throws {
        try await withBookService { port in
            let books = (0 ..< 10).map(BookWithTags.sample)
            let firePack = Array(try BookClient.encode(books, .firePack).readableBytesView)
            let json = Array(try BookClient.encode(books, .json).readableBytesView)
            var flipped = firePack
            flipped[flipped.count / 2] ^= 0xFF
            let wrongType = Array(try BookClient.encode(["title": 42], .firePack).readableBytesView)
            let badColor = Array(try BookClient.encode([["title": "t", "numberOfPages": 1, "author": "a", "genres": [],
                                                          "tags": [["title": "x", "color": "blue"]]] as [String: Value]],
                                                       .firePack).readableBytesView)
            let cases: [(String, String?, [UInt8], Int, String)] = [
                ("truncated FirePack", "application/vnd.firepack", Array(firePack.dropLast(7)), 400, "at byte"),
                ("corrupted FirePack", "application/vnd.firepack", flipped, 400, "FirePack body"),
                ("a map for a list", "application/vnd.firepack", wrongType, 400, "coding path"),
                ("a bad color deep inside", "application/vnd.firepack", badColor, 400, "coding path: [0].tags[0].color"),
                ("empty FirePack", "application/vnd.firepack", [], 400, "FirePack body"),
                ("FirePack sent as JSON", "application/json", firePack, 400, "JSON body"),
                ("truncated JSON", "application/json", Array(json.dropLast(3)), 400, "JSON body"),
                ("JSON sent as FirePack", "application/vnd.firepack", json, 400, "FirePack body"),
                ("text", "text/plain", json, 415, "send application/vnd.firepack or application/json"),
                ("no content type", nil, firePack, 415, "no Content-Type"),
            ]
            try await BookClient.withConnection(port: port) { client in
                for (name, contentType, body, status, message) in cases {
                    let answer = try await client.send("POST", "/books", accept: .json, contentType: contentType,
                                                       body: ByteBuffer(bytes: body))
                    #expect(answer.status == status, "\(name)")
                    let text = try errorMessage(answer)
                    #expect(text.contains(message), "\(name): \(text)")
                    #expect(try await client.listBooks(count: 1, as: .firePack).count == 1, "after \(name)")
                }
                #expect(try await client.send("GET", "/books/book-5000", accept: .json).status == 404)
                #expect(try await client.send("GET", "/books?count=1001", accept: .json).status == 400)
                #expect(try await client.send("GET", "/books?count=0", accept: .json).status == 400)
            }
            // A body over the context's 4 MiB limit: 413, on a connection of its own (the service may close it).
            let oversized = ByteBuffer(repeating: 0x82, count: (4 << 20) + 1)
            let answer = try await BookClient.withConnection(port: port) { client in
                try await client.send("POST", "/books", accept: .json, contentType: "application/vnd.firepack", body: oversized)
            }
            #expect(answer.status == 413)
            let after = try await BookClient.withConnection(port: port) { client in
                try await client.listBooks(count: 100, as: .firePack)
            }
            #expect(after.count == 100)
        }
    }

    @Test("Seeded damaged FirePack bodies never get a 5xx, and the service keeps serving")
    func mutatedBodies() async throws {
        try await withBookService(store: BookStore(createdCapacity: 100)) { port in
            let original = Array(try BookClient.encode((0 ..< 3).map(BookWithTags.sample), .firePack).readableBytesView)
            var rng = SeededGenerator(seed: 0x426F_6F6B)
            var statuses: [Int: Int] = [:]
            try await BookClient.withConnection(port: port) { client in
                for _ in 0 ..< 500 {
                    let body = ByteMutation.mutated(original, using: &rng)
                    let answer = try await client.send("POST", "/books", accept: .firePack,
                                                       contentType: "application/vnd.firepack", body: ByteBuffer(bytes: body))
                    statuses[answer.status, default: 0] += 1
                    #expect(answer.status == 201 || answer.status == 400, "\(answer.status) for \(body)")
                    if answer.status == 400 {
                        // The error answer itself is FirePack, as asked, and says where: the byte, or for an error
                        // thrown by a type's own init(from:) (Color's), the coding path.
                        let message = try errorMessage(answer)
                        #expect(message.contains("at byte") || message.contains("coding path: ["), "\(message)")
                    }
                }
                #expect(try await client.listBooks(count: 1_000, as: .firePack).count == 1_000)
            }
            #expect(statuses[400, default: 0] > 0)
        }
    }
}
#endif
