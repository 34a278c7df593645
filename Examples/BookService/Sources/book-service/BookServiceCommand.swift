#if FirePackHummingbird
import ArgumentParser
import BookService

/// Serves the book catalog in JSON and FirePack until SIGINT or SIGTERM.
@main
struct BookServiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "book-service",
        abstract: "Serve the example book catalog as JSON and FirePack (GET /books?count=N, GET /books/{id}, POST /books).")

    @Option(help: "The address to listen on.") var host = "127.0.0.1"
    @Option(help: "The port to listen on (0 picks a free port).") var port = 8080
    @Option(help: "How many created books to keep.") var createdCapacity = 10_000
    @Option(help: "How many bytes of created books (their FirePack encodings) to keep.") var createdByteCapacity = 64 << 20
    @Option(help: "Seconds a connection may wait before sending a complete request head.") var idleTimeout = 30.0
    @Option(help: "Seconds a request's body may take once its head has arrived.") var readTimeout = 60.0

    func validate() throws {
        guard (0 ... 65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard createdCapacity > 0 else { throw ValidationError("--created-capacity must be positive") }
        guard createdByteCapacity > 0 else { throw ValidationError("--created-byte-capacity must be positive") }
        guard idleTimeout > 0, readTimeout > 0 else { throw ValidationError("--idle-timeout and --read-timeout must be positive") }
    }

    func run() async throws {
        let store = BookStore(createdCapacity: createdCapacity, createdByteCapacity: createdByteCapacity)
        let timeouts = ConnectionTimeouts(idle: .milliseconds(Int64(idleTimeout * 1_000)), read: .milliseconds(Int64(readTimeout * 1_000)))
        let service = makeBookService(host: host, port: port, store: store, timeouts: timeouts) { port in
            print("book-service listening on http://\(host):\(port)")
        }
        try await service.runService()
    }
}
#else
/// Without the FirePackHummingbird trait there is no service to run.
@main
enum BookServiceUnavailable {
    static func main() {
        print("book-service needs the FirePackHummingbird trait: swift build --traits FirePackHummingbird --product book-service")
    }
}
#endif
