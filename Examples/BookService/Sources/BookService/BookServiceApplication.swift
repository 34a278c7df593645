#if FirePackHummingbird
import FirePackHummingbird
public import Hummingbird
public import Logging
import NIOCore

/// The request context of the book service: bodies in FirePack or JSON, by `Content-Type` and `Accept`.
public struct BookRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    /// Creates a context for one request.
    public init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }

    /// Request bodies up to 4 MiB (a thousand books are about 250 kB in FirePack and 380 kB in JSON); larger ones get 413.
    public var maxUploadSize: Int { 4 << 20 }
    /// FirePack for `application/vnd.firepack` bodies, JSON for `application/json`, 415 otherwise.
    public var requestDecoder: FirePackOrJSONRequestDecoder { FirePackOrJSONRequestDecoder() }
    /// The format the `Accept` header prefers.
    public var responseEncoder: FirePackOrJSONResponseEncoder { FirePackOrJSONResponseEncoder() }
}

/// A book is a handler's answer, encoded by the context's negotiating encoder.
extension BookWithTags: ResponseEncodable {}

/// The service's routes, each answering in JSON or FirePack by the request's `Accept` header:
/// - `GET /books?count=N`: the first N books of the catalog (1 ... 1,000; 100 when absent);
/// - `GET /books/{id}`: one book, or 404;
/// - `POST /books`: stores a list of books under new ids and answers 201 with them.
public func makeBookRouter(store: BookStore) -> Router<BookRequestContext> {
    let router = Router(context: BookRequestContext.self)
    let books = router.group("books")
    books.get { request, context -> [BookWithTags] in
        let count = request.uri.queryParameters.get("count", as: Int.self) ?? 100
        guard (1 ... BookStore.catalogSize).contains(count) else {
            throw HTTPError(.badRequest, message: "count must be between 1 and \(BookStore.catalogSize), not \(count)")
        }
        return Array(store.list(count: count))
    }
    books.get(":id") { _, context -> BookWithTags in
        let id = try context.parameters.require("id")
        guard let book = store.book(id: id) else { throw HTTPError(.notFound, message: "no book \(id)") }
        return book
    }
    books.post { request, context -> EditedResponse<[BookWithTags]> in
        let created = try store.create(try await request.decode(as: [BookWithTags].self, context: context))
        return EditedResponse(status: .created, response: created)
    }
    return router
}

/// How long a connection may wait: for a request (idle; also for a request head that never completes) and for a
/// request's body once its head has arrived (read).
public struct ConnectionTimeouts: Sendable {
    /// A connection that sends no complete request head for this long is closed.
    public var idle: Duration
    /// A request whose body is not complete this long after its head is closed.
    public var read: Duration

    /// 30 seconds idle, 60 seconds for a body (a 4 MiB body at 70 kB/s).
    public init(idle: Duration = .seconds(30), read: Duration = .seconds(60)) {
        self.idle = idle
        self.read = read
    }
}

/// The book service on `host`:`port` (port 0 picks a free one; `onServerRunning` learns which).
public func makeBookService(host: String = "127.0.0.1", port: Int = 8080, store: BookStore = BookStore(),
                            timeouts: ConnectionTimeouts = ConnectionTimeouts(), logLevel: Logger.Level = .warning,
                            onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) -> some ApplicationProtocol {
    var logger = Logger(label: "book-service")
    logger.logLevel = logLevel
    let read = TimeAmount(timeouts.read)
    return Application(router: makeBookRouter(store: store),
                       server: .http1(configuration: .init(additionalChannelHandlers: [RequestReadTimeout(timeout: read)],
                                                           idleTimeout: TimeAmount(timeouts.idle))),
                       configuration: .init(address: .hostname(host, port: port), serverName: "book-service"),
                       onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? port) },
                       logger: logger)
}
#endif
