#if FirePackHummingbird
import FirePack
import FirePackNIO
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the FirePack and negotiating coders share: building a response and decoding a request body in one format.
enum BodyCoding {
    /// A 200 response with `value` encoded in `format`; FirePack is written straight into the body's buffer.
    static func response(
        _ format: BodyFormat, for value: some Encodable, firePack: FirePackEncoder,
        json: JSONEncoder?
    ) throws -> Response {
        var buffer: ByteBuffer
        switch format {
        case .firePack:
            buffer = ByteBuffer()
            try buffer.writeFirePack(value, encoder: firePack)
        case .json:
            buffer = ByteBuffer(bytes: try (json ?? JSONEncoder()).encode(value))
        }
        let headers: HTTPFields = [.contentType: format.contentType, .contentLength: String(buffer.readableBytes)]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: buffer))
    }

    /// Collects the body (413 past the context's `maxUploadSize`) and decodes it; bytes that do not decode are a 400.
    static func decode<T: Decodable>(
        _ type: T.Type, _ format: BodyFormat, from request: Request, context: some RequestContext,
        firePack: FirePackDecoder, json: JSONDecoder?
    ) async throws -> T {
        var body: ByteBuffer
        do { body = try await request.body.collect(upTo: context.maxUploadSize) } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge, message: tooLargeMessage(limit: context.maxUploadSize, format: format))
        }
        do {
            switch format {
            case .firePack: return try body.readFirePack(type, decoder: firePack)
            case .json: return try (json ?? JSONDecoder()).decode(type, from: body)
            }
        } catch let error as DecodingError {
            throw HTTPError(.badRequest, message: badBodyMessage(error, format: format, type: type))
        }
    }

    /// "The FirePack body is not a valid Book: typeMismatch: … (at byte 12); coding path: tags[0].title".
    static func badBodyMessage(_ error: DecodingError, format: BodyFormat, type: Any.Type) -> String {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default: return "The \(format.name) body is not a valid \(type): \(error)"
        }
        var message = "The \(format.name) body is not a valid \(type): \(context.debugDescription)"
        if case .keyNotFound(let key, _) = error { message += " (missing key \"\(key.stringValue)\")" }
        let path = context.codingPath.map { key in key.intValue.map { "[\($0)]" } ?? "." + key.stringValue }.joined()
        message +=
            "; coding path: "
            + (path.hasPrefix(".") ? String(path.dropFirst()) : path.isEmpty ? "(the top level)" : path)
        return message
    }

    /// "The FirePack body is larger than this route's limit of 4,194,304 bytes (the request context's maxUploadSize)".
    static func tooLargeMessage(limit: Int, format: BodyFormat) -> String {
        "The \(format.name) body is larger than this route's limit of \(limit) bytes (the request context's maxUploadSize)"
    }

    /// A 415 answer naming the content types that are accepted.
    static func unsupportedMediaType(_ contentType: String?, accepted: [BodyFormat]) -> HTTPError {
        let names = accepted.map(\.mediaType).joined(separator: " or ")
        let sent = contentType.map { "Content-Type \($0) is not supported" } ?? "The request has no Content-Type"
        return HTTPError(.unsupportedMediaType, message: "\(sent): send \(names)")
    }
}

extension BodyFormat {
    /// The format's name in messages.
    var name: String {
        switch self {
        case .json: "JSON"
        case .firePack: "FirePack"
        }
    }
}
#endif
