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

    func validate() throws {
        guard (0 ... 65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard createdCapacity > 0 else { throw ValidationError("--created-capacity must be positive") }
    }

    func run() async throws {
        let service = makeBookService(host: host, port: port, store: BookStore(createdCapacity: createdCapacity)) { port in
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
