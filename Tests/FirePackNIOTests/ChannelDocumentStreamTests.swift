#if FirePackNIO
import FirePack
import FirePackNIO
import FirePackStreams
import Foundation
import NIOCore
import NIOPosix
import Testing

@Suite("A .fpks stream read from a swift-nio channel in async code")
struct ChannelDocumentStreamTests {
    /// A stream of `count` documents, with record `damaged` (if any) hit by a flipped byte.
    func streamBytes(_ count: Int, damaged: Int? = nil) throws -> [UInt8] {
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, version: 2)
        for index in 0..<count {
            try writer.append(Document(reference: try DocumentReference(path: "events/e\(index)"),
                                       fields: ["n": .integer(Int64(index)), "payload": .string(String(repeating: "x", count: 200))]))
        }
        try writer.close()
        var bytes = sink.bytes
        if let damaged {
            // A byte of the record's payload string, found after its path: its CRC-32 no longer matches.
            let at = bytes.firstRange(of: Array("events/e\(damaged)".utf8))!.upperBound
            bytes[at + 20] ^= 0x40
        }
        return bytes
    }

    /// Serves one connection on a loopback port: reads its bytes as a document stream and returns what it read.
    func serveOnce(_ send: [UInt8], pieceSize: Int) async throws -> (paths: [String], problems: [StreamProblem], completion: StreamCompletion?) {
        let group = MultiThreadedEventLoopGroup.singleton
        let server = try await ServerBootstrap(group: group)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let port = try #require(server.channel.localAddress?.port)
        async let received: (paths: [String], problems: [StreamProblem], completion: StreamCompletion?) = server.executeThenClose { inbound in
            for try await connection in inbound {
                return try await connection.executeThenClose { inbound, _ in
                    let stream = DocumentStreamReader.documents(fromBuffers: inbound)
                    var paths: [String] = []
                    for try await document in stream { paths.append(document.reference.path) }
                    return (paths, stream.problems, stream.completion)
                }
            }
            return ([], [], nil)
        }
        let client = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
        }
        try await client.executeThenClose { _, outbound in
            var offset = 0
            while offset < send.count {
                let end = min(send.count, offset + pieceSize)
                try await outbound.write(ByteBuffer(bytes: send[offset..<end]))
                offset = end
            }
        }
        return try await received
    }

    @Test("every document, in order, with the stream's completion, whatever the pieces the peer sends",
          arguments: [1, 97, 65_536])
    func readsFromAChannel(pieceSize: Int) async throws {
        let count = pieceSize == 1 ? 40 : 2_000
        let received = try await serveOnce(try streamBytes(count), pieceSize: pieceSize)
        #expect(received.paths == (0..<count).map { "events/e\($0)" })
        #expect(received.problems.isEmpty && received.completion == .closed(recordCount: count))
    }

    @Test("a damaged record is reported with its number and offset, and the rest still read")
    func reportsDamage() async throws {
        let bytes = try streamBytes(300, damaged: 123)
        let received = try await serveOnce(bytes, pieceSize: 1_000)
        #expect(received.paths.count == 299 && !received.paths.contains("events/e123"))
        #expect(received.problems.count == 1 && received.problems[0].recordNumber == 123 && received.problems[0].code == .badChecksum)
        let reader = try DocumentStreamReader(source: MemorySource(bytes))
        while try reader.next() != nil {}
        #expect(received.problems == reader.problems && received.completion == reader.completion)
    }
}
#endif
