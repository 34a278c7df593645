#if FirePackHummingbird
import FirePack
import FirePackNIO
public import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import NIOPosix

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A small HTTP/1.1 client of the book service over one keep-alive connection, speaking JSON or FirePack.
///
/// FirePack bodies are encoded straight into the request's `ByteBuffer` and decoded from the response's without a
/// copy (FirePackNIO). Use it inside `BookClient.withConnection(host:port:_:)`; requests go one after another.
public final class BookClient {
    /// The body format a call uses for its request and asks for in its answer.
    public enum Format: String, CaseIterable, Sendable {
        case json
        case firePack

        /// The media type of the format.
        public var mediaType: String { self == .json ? "application/json" : "application/vnd.firepack" }
    }

    /// An answer: status, headers and the body's bytes.
    public struct Answer: Sendable {
        /// The status code.
        public var status: Int
        /// The response headers.
        public var headers: [(name: String, value: String)]
        /// The body.
        public var body: ByteBuffer

        /// The first value of a header, by case-insensitive name.
        public func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// What a call can fail with besides the connection's own errors.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String

        /// A failure described by `description`.
        public init(description: String) { self.description = description }
    }

    private let host: String
    private var inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>

    private init(host: String, inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator,
                 outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>) {
        (self.host, self.inbound, self.outbound) = (host, inbound, outbound)
    }

    /// Opens a connection to the service, runs `body` with a client on it, and closes it.
    public static func withConnection<Result>(host: String = "127.0.0.1", port: Int,
                                              _ body: (BookClient) async throws -> Result) async throws -> Result {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(BookClient(host: host, inbound: inbound.makeAsyncIterator(), outbound: outbound))
        }
    }

    /// `GET /books?count=N`.
    public func listBooks(count: Int, as format: Format) async throws -> [BookWithTags] {
        try decode([BookWithTags].self, format, try await expect(200, send("GET", "/books?count=\(count)", accept: format)))
    }

    /// `GET /books/{id}`.
    public func book(id: String, as format: Format) async throws -> BookWithTags {
        try decode(BookWithTags.self, format, try await expect(200, send("GET", "/books/\(id)", accept: format)))
    }

    /// `POST /books` with the books in `format`; returns them as stored, with their new ids.
    public func create(_ books: [BookWithTags], as format: Format) async throws -> [BookWithTags] {
        let body = try Self.encode(books, format)
        return try decode([BookWithTags].self, format,
                          try await expect(201, send("POST", "/books", accept: format, contentType: format.mediaType, body: body)))
    }

    /// The body of `value` in `format`, as the client sends it.
    public static func encode(_ value: some Encodable, _ format: Format) throws -> ByteBuffer {
        var buffer = ByteBuffer()
        switch format {
        case .json: buffer.writeBytes(try JSONEncoder().encode(value))
        case .firePack: try buffer.writeFirePack(value)
        }
        return buffer
    }

    /// Sends one request and reads its whole answer.
    public func send(_ method: String, _ path: String, accept: Format? = nil, contentType: String? = nil,
                     body: ByteBuffer? = nil, headers extra: [(String, String)] = []) async throws -> Answer {
        var headers = HTTPHeaders([("Host", host)] + extra)
        if let accept { headers.add(name: "Accept", value: accept.mediaType) }
        if let contentType { headers.add(name: "Content-Type", value: contentType) }
        if method != "GET" || body != nil { headers.add(name: "Content-Length", value: String(body?.readableBytes ?? 0)) }
        try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method), uri: path, headers: headers)))
        if let body, body.readableBytes > 0 { try await outbound.write(.body(.byteBuffer(body))) }
        try await outbound.write(.end(nil))

        var answer: Answer?
        while let part = try await inbound.next() {
            switch part {
            case .head(let head):
                answer = Answer(status: Int(head.status.code), headers: head.headers.map { ($0.name, $0.value) }, body: ByteBuffer())
            case .body(var chunk):
                answer?.body.writeBuffer(&chunk)
            case .end:
                guard let answer else { throw Failure(description: "the answer to \(method) \(path) ended before its head") }
                return answer
            }
        }
        throw Failure(description: "the connection closed before the answer to \(method) \(path) was complete")
    }

    private func expect(_ status: Int, _ answer: Answer) throws -> Answer {
        guard answer.status == status else {
            throw Failure(description: "expected status \(status), got \(answer.status): \(String(buffer: answer.body))")
        }
        return answer
    }

    private func decode<T: Decodable>(_ type: T.Type, _ format: Format, _ answer: Answer) throws -> T {
        let contentType = answer.header("Content-Type") ?? ""
        guard contentType.hasPrefix(format.mediaType) else {
            throw Failure(description: "asked for \(format.mediaType), got \(contentType)")
        }
        var body = answer.body
        switch format {
        case .json: return try JSONDecoder().decode(type, from: body)
        case .firePack: return try body.readFirePack(type)
        }
    }
}
#endif
