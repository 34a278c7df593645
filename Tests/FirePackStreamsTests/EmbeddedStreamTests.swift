import FirePack
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackStreams

/// A document may hold a whole `.fpks` stream in a bytes field (a backup, an attachment), and a block stored as it is
/// (codec none, or zstd's raw blocks for data that does not compress) then holds intact blocks of that stream inside
/// its payload: a marker, a length and a CRC-32 that check out. A reader must never return their records: not a
/// byte range that starts inside the outer block, not a reader resynchronising after the outer block is damaged.
@Suite("Streams inside documents: never read as records")
struct EmbeddedStreamTests {
    let folder = TemporaryFolder("embedded")

    /// The stream bytes of `documents`, codec none.
    func streamBytes(_ documents: [Document], codec: BlockCodec = .none) throws -> [UInt8] {
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, codec: codec)
        for document in documents { try writer.append(document) }
        try writer.close()
        return sink.bytes
    }

    /// Three documents, the second holding a whole stream of five others as bytes; as a file, with its path.
    func outer(codec: BlockCodec) throws -> (path: String, bytes: [UInt8], names: [String]) {
        let inner = try (0..<5).map { index in
            Document(reference: try DocumentReference(path: "inner/i\(index)"), fields: ["n": .integer(Int64(index))])
        }
        let payload = try streamBytes(inner)
        let documents = try (0..<3).map { index in
            Document(
                reference: try DocumentReference(path: "outer/o\(index)"),
                fields: index == 1 ? ["backup": .bytes(Data(payload))] : ["n": .integer(Int64(index))])
        }
        let bytes = try streamBytes(documents, codec: codec)
        let path = folder.path("outer-\(codec).fpks")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes, documents.map(\.reference.path))
    }

    func names(_ reader: DocumentStreamReader) throws -> [String] {
        var names: [String] = []
        while let (_, _, document) = try reader.next() { names.append(document.reference.path) }
        return names
    }

    @Test("byte ranges of any size read the stream's own records, none from inside a document", arguments: [BlockCodec.none, .zstd])
    func rangesNeverStartInsideABlock(codec: BlockCodec) throws {
        let (path, bytes, expected) = try outer(codec: codec)
        #expect(try names(DocumentStreamReader(source: MemorySource(bytes))) == expected)
        for size in [1, 7, 50, 100, 333, 1000] {
            var read: [String] = []
            var offset = 0
            while offset < bytes.count {
                let range = try DocumentStreamReader.reading(path: path, offset: offset, length: size)
                read += try names(range)
                #expect(range.problems.isEmpty, "range at \(offset) of \(size): \(range.problems)")
                offset += size
            }
            #expect(read == expected, "ranges of \(size)")
        }
    }

    @Test("a damaged block whose length holds is passed over whole: the stream inside it is not read")
    func resynchronisingPassesOverTheDamagedBlock() async throws {
        let (_, bytes, _) = try outer(codec: .none)
        // A byte of the first document (before the stream inside the second) flipped: the block fails its CRC-32.
        var damaged = bytes
        let at = try #require(bytes.firstRange(of: Array("outer/o0".utf8))).lowerBound
        damaged[at] ^= 0x01
        let reader = try DocumentStreamReader(source: MemorySource(damaged))
        #expect(try names(reader) == [])
        #expect(reader.problems.map(\.code) == [.badChecksum] && reader.problems.first?.offset == 6)
        // Had the reader searched the payload for a marker, five records no writer wrote would have come back.
        #expect(reader.recordsFound == 1)
        // The same without the index and close record (a stream not closed), and fed in chunks of any size: where a
        // chunk ends does not change what the reader does.
        let unclosed = Array(damaged[..<blockEnd(damaged, at: 6)])
        for bytes in [damaged, unclosed] {
            let whole = try DocumentStreamReader(source: MemorySource(bytes))
            #expect(try names(whole) == [] && whole.problems.map(\.offset) == [6])
            for size in [1, 5, 12, 100, 4096] {
                let stream = AsyncDocumentStream(chunks: Chunks(bytes: bytes, size: size))
                var read: [String] = []
                while let (_, _, document) = try await stream.next() { read.append(document.reference.path) }
                #expect(read == [] && stream.problems.map(\.offset) == [6], "chunks of \(size): \(stream.problems)")
            }
        }
    }

    @Test("in a closed stream file, damage to a block's marker or length goes on at the next block the index lists",
          arguments: [BlockCodec.none, .zstd])
    func theIndexSaysWhereTheNextBlockIs(codec: BlockCodec) throws {
        // One document a block: the second holds a stream of five others (which zstd stores as it is).
        let inner = try streamBytes((0..<5).map { index in
            Document(reference: try DocumentReference(path: "inner/i\(index)"), fields: ["n": .integer(Int64(index))])
        })
        let documents = try (0..<4).map { index in
            Document(
                reference: try DocumentReference(path: "outer/o\(index)"),
                fields: index == 1 ? ["backup": .bytes(Data(inner))] : ["n": .integer(Int64(index))])
        }
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, codec: codec, blockSize: 16)
        for document in documents { try writer.append(document) }
        try writer.close()
        let bytes = sink.bytes
        let blocks = try #require(try DocumentStreamReader.blockIndex(path: {
            let path = folder.path("index-\(codec).fpks")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }()))
        #expect(blocks.count == 4)
        let second = blocks[1].offset, third = blocks[2].offset
        // The second block's marker, its length (past the limit; short of its end; landing on the fourth block).
        let fourthLength = blocks[3].offset - second - 12
        var cases: [(String, (inout [UInt8]) -> Void)] = [
            ("marker", { $0[second + 1] ^= 0x40 }),
            ("length past the limit", { $0[second + 7] = 0x7F }),
            ("length short", { $0[second + 4] = 0x20; $0[second + 5] = 0; $0[second + 6] = 0; $0[second + 7] = 0 }),
            ("length landing on the fourth block", { bytes in
                for index in 0..<4 { bytes[second + 4 + index] = UInt8(truncatingIfNeeded: fourthLength >> (8 * index)) }
            }),
        ]
        cases.append(("third block's marker", { $0[third] ^= 0x01 }))
        // The second block's payload, then the third's marker (a sector zeroed across their boundary): the index's
        // next unit has no marker, and the one after it is where reading goes on.
        cases.append(("second payload and third marker", { $0[third - 3] ^= 0x01; $0[third + 1] ^= 0x01 }))
        for (name, damage) in cases {
            var damaged = bytes
            damage(&damaged)
            let path = folder.path("damaged-\(codec).fpks")
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            let reader = try DocumentStreamReader(source: FileSource(path: path))
            let read = try names(reader)
            let lost: Set = name.hasPrefix("third") ? ["outer/o2"] : name.hasPrefix("second payload") ? ["outer/o1", "outer/o2"] : ["outer/o1"]
            #expect(read == ["outer/o0", "outer/o1", "outer/o2", "outer/o3"].filter { !lost.contains($0) }, "\(codec), \(name): \(read)")
            #expect(reader.problems.count == lost.count, "\(codec), \(name): \(reader.problems)")
            // Through a source that gives back bytes read to tell the format (as the tool's reading of an input
            // without a known extension does): the same records.
            let file = try FileSource(path: path)
            var head = [UInt8](repeating: 0, count: 6)
            _ = try head.withUnsafeMutableBytes { try file.read(into: $0) }
            #expect(try names(DocumentStreamReader(source: PrefixedSource(head, then: file))) == read, "\(codec), \(name)")
            // Byte ranges of the file read the same records, wherever their boundaries fall.
            for size in [1, 50, 333] {
                var ranged: [String] = []
                var offset = 0
                while offset < damaged.count {
                    ranged += try names(DocumentStreamReader.reading(path: path, offset: offset, length: size))
                    offset += size
                }
                #expect(ranged == read, "\(codec), \(name), ranges of \(size): \(ranged)")
            }
        }
    }

    /// The end of the unit whose header is at `offset`.
    func blockEnd(_ bytes: [UInt8], at offset: Int) -> Int {
        offset + 12 + Int(UInt32(bytes[offset + 4]) | UInt32(bytes[offset + 5]) << 8 | UInt32(bytes[offset + 6]) << 16
            | UInt32(bytes[offset + 7]) << 24)
    }
}

/// `bytes` in chunks of `size`.
private struct Chunks: AsyncSequence {
    let bytes: [UInt8]
    let size: Int
    struct AsyncIterator: AsyncIteratorProtocol {
        let bytes: [UInt8]
        let size: Int
        var position = 0
        mutating func next() async -> [UInt8]? {
            guard position < bytes.count else { return nil }
            defer { position = Swift.min(bytes.count, position + size) }
            return Array(bytes[position..<Swift.min(bytes.count, position + size)])
        }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes, size: size) }
}
