#if FirePackHummingbird
public import FirePack
import FirePackNIO
public import Hummingbird

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension FirePackEncoder: ResponseEncoder {
    /// Encodes a handler's value as an `application/vnd.firepack` response, straight into the body's buffer.
    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response
    {
        try BodyCoding.response(.firePack, for: value, firePack: self, json: nil)
    }
}

extension FirePackDecoder: RequestDecoder {
    /// Decodes an `application/vnd.firepack` request body without copying it.
    ///
    /// Another content type is answered with 415, a body larger than the context's `maxUploadSize` with 413, and
    /// bytes that do not decode with 400 and a message naming the byte offset and coding path.
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws
        -> T
    {
        guard BodyFormat(contentType: request.headers[.contentType]) == .firePack else {
            throw BodyCoding.unsupportedMediaType(request.headers[.contentType], accepted: [.firePack])
        }
        return try await BodyCoding.decode(type, .firePack, from: request, context: context, firePack: self, json: nil)
    }
}

/// Answers each request in the format its `Accept` header prefers: FirePack or JSON.
///
/// Use it as a request context's `responseEncoder` so that one route serves both. Without an `Accept` header, or
/// with one that accepts neither, the answer is JSON. Every response says `Vary: Accept`.
public struct FirePackOrJSONResponseEncoder: ResponseEncoder, Sendable {
    /// The encoder for FirePack answers.
    public var firePack: FirePackEncoder
    /// The encoder for JSON answers.
    public var json: JSONEncoder

    /// Creates a negotiating encoder from the two encoders it chooses between.
    public init(firePack: FirePackEncoder = FirePackEncoder(), json: JSONEncoder = JSONEncoder()) {
        self.firePack = firePack
        self.json = json
    }

    /// Encodes a handler's value in the format the request's `Accept` header prefers.
    public func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response
    {
        let format = BodyFormat.negotiate(accept: request.headers[values: .accept])
        var response = try BodyCoding.response(format, for: value, firePack: firePack, json: json)
        response.headers[.vary] = "Accept"
        return response
    }
}

/// Decodes a request body as FirePack or JSON, by its `Content-Type`.
///
/// Any other content type (or none) is answered with 415, a body larger than the context's `maxUploadSize` with
/// 413, and a body that does not decode with 400 and a message naming where (for FirePack, the byte offset).
public struct FirePackOrJSONRequestDecoder: RequestDecoder, Sendable {
    /// The decoder for FirePack bodies.
    public var firePack: FirePackDecoder
    /// The decoder for JSON bodies.
    public var json: JSONDecoder

    /// Creates a decoder from the two decoders it chooses between.
    public init(firePack: FirePackDecoder = FirePackDecoder(), json: JSONDecoder = JSONDecoder()) {
        self.firePack = firePack
        self.json = json
    }

    /// Decodes the request's body with the decoder its `Content-Type` names.
    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws
        -> T
    {
        guard let format = BodyFormat(contentType: request.headers[.contentType]) else {
            throw BodyCoding.unsupportedMediaType(request.headers[.contentType], accepted: [.firePack, .json])
        }
        return try await BodyCoding.decode(
            type, format, from: request, context: context, firePack: firePack, json: json)
    }
}
#endif
