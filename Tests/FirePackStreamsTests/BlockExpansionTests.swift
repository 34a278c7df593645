@_spi(Wire) import FirePack
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackStreams

/// Docs/FORMAT.md §8, "Expansion": unpacking a block gives at most 1,024 bytes per byte of it in the stream; readers
/// refuse a block that claims more before doing the work, writers never write one.
@Suite("Block expansion (version 3)")
struct BlockExpansionTests {
    let helper = BlockStreamTests()

    /// `body` framed as a block: marker, length, CRC-32.
    func framed(_ body: [UInt8]) -> [UInt8] {
        DocumentStreamFormat.syncMarker + withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init)
            + withUnsafeBytes(of: body.withUnsafeBytes { crc32($0) }.littleEndian, Array.init) + body
    }

    /// `document`'s data in a block of its own (the row form): the document, then its length.
    func data(of document: Document) -> [UInt8] {
        let payload = document.firePackBytes()
        return payload + varintBytes(payload.count)
    }

    /// `data` as `codec` stores it.
    func compressed(_ data: [UInt8], _ codec: BlockCodec) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: codec.compressBound(data.count))
        let written = try data.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { try codec.compress(input, into: $0) }
        }
        return Array(output[..<written])
    }

    /// The body of a block of `document` alone, `first` records before it, its data stored by `codec` (or as `stored`).
    func body(of document: Document, first: Int, codec: BlockCodec, stored: [UInt8]? = nil) throws -> [UInt8] {
        let payload = document.firePackBytes()
        let data = payload + varintBytes(payload.count)
        return [codec.rawValue] + varintBytes(1) + varintBytes(first) + varintBytes(data.count) + varintBytes(payload.count)
            + (try stored ?? compressed(data, codec))
    }

    /// A document holding one string of `count` `a`s: its data compresses to almost nothing.
    func runOfOneByte(_ count: Int, path: String = "books/long") throws -> Document {
        Document(reference: try DocumentReference(path: path), fields: ["text": .string(String(repeating: "a", count: count))])
    }

    @Test("a block that would unpack into more than 1,024 bytes per byte is refused before it is decompressed")
    func aBlockPastTheExpansionIsRefused() throws {
        let small = Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 1])
        let long = try runOfOneByte(2_000_000)
        // deflate cannot give more than about 1,032 bytes per byte: its block of the run is read.
        let deflated = DocumentStreamFormat.header + framed(try body(of: long, first: 0, codec: .deflate))
        let (inflated, inflatedReader) = try helper.read(deflated)
        #expect(inflated.map(\.document) == [long] && inflatedReader.problems.isEmpty, "\(inflatedReader.problems)")
        for codec in [BlockCodec.zstd] {
            let bomb = try body(of: long, first: 0, codec: codec)
            let claimed = long.firePackBytes().count + 3
            try #require(claimed > 1024 * (bomb.count + 12), "\(codec): \(bomb.count) bytes stored")
            let stream = DocumentStreamFormat.header + framed(bomb) + framed(try body(of: small, first: 1, codec: .none))

            let (records, reader) = try helper.read(stream)
            // Past a limit, not damage: a reader allowing more reads it (below).
            #expect(reader.problems.map(\.code) == [.limitExceeded], "\(codec): \(reader.problems)")
            #expect(reader.problems.first?.offset == 6 && reader.problems.first?.recordNumber == 0)
            #expect(reader.problems.first?.reason.contains("more than 1024 times its \(bomb.count + 12) bytes") == true)
            #expect(records.map(\.number) == [1] && records.first?.document == small)

            // Refused before decompressing: stored bytes that are no frame at all get the same reason.
            let garbage = try body(of: long, first: 0, codec: codec, stored: [UInt8](repeating: 0xEE, count: bomb.count - 8))
            let (_, garbageReader) = try helper.read(DocumentStreamFormat.header + framed(garbage))
            #expect(garbageReader.problems.first?.reason.contains("more than 1024 times") == true, "\(garbageReader.problems)")

            // A reader told to allow more reads the block (a stream of another writer).
            let allowing = try DocumentStreamReader(source: MemorySource(stream))
            allowing.maxBlockExpansion = 1 << 20
            var documents: [Document] = []
            while let (_, _, document) = try allowing.next() { documents.append(document) }
            #expect(documents == [long, small] && allowing.problems.isEmpty, "\(codec): \(allowing.problems)")
        }
    }

    @Test("zstd data is one frame followed by skippable frames only, each whole")
    func zstdDataIsOneFrameThenSkippableFrames() throws {
        let small = Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 1])
        let frame = try compressed(data(of: small), .zstd)
        let empty = try compressed([], .zstd)
        let skippable = [0x5F, 0x2A, 0x4D, 0x18, 3, 0, 0, 0, 1, 2, 3] as [UInt8]
        let cases: [(String, [UInt8], Bool)] = [
            ("a skippable frame after it", frame + skippable, true),
            ("two skippable frames", frame + skippable + skippable, true),
            ("a second frame, empty", frame + empty, false),
            // (These two zstd's decoder refuses as well; the frame walk refuses them first.)
            ("a cut skippable frame", frame + skippable.dropLast(), false),
            ("a stray byte", frame + [0], false),
        ]
        for (name, stored, reads) in cases {
            let stream = DocumentStreamFormat.header + framed(try body(of: small, first: 0, codec: .zstd, stored: stored))
            let (records, reader) = try helper.read(stream)
            #expect(records.map(\.document) == (reads ? [small] : []), "\(name)")
            #expect(reader.problems.map(\.code) == (reads ? [] : [.invalidBlock]), "\(name): \(reader.problems)")
        }
    }

    @Test("a stream of blocks that each claim the record limit from a few bytes costs no decompression")
    func aStreamOfBombsIsRefusedBlockByBlock() throws {
        // 64 blocks, each under 1 KiB in the stream and 16 MiB unpacked: a gigabyte of work for under 64 KiB, without
        // the rule (and each block read whole, well within the record limit).
        let long = try runOfOneByte(16 << 20)
        let frame = try compressed(data(of: long), .zstd)
        var stream = DocumentStreamFormat.header
        for index in 0..<64 {
            stream += framed(try body(of: long, first: index, codec: .zstd, stored: frame))
        }
        let (records, reader) = try helper.read(stream)
        #expect(records.isEmpty)
        #expect(reader.problems.count == 64 && reader.problems.allSatisfy { $0.code == .limitExceeded })
        #expect(reader.problems.allSatisfy { $0.reason.contains("more than 1024 times") }, "\(reader.problems.prefix(2))")
        #expect(reader.problems.map(\.recordNumber) == Array(0..<64))
    }

    /// What `DocumentStreamReader.unpack` makes of the block `body` at `offset` (its buffers released after).
    func unpack(_ body: [UInt8], at offset: Int, maxExpansion: Int)
        -> Result<DocumentStreamReader.BlockHeader, DocumentStreamReader.InvalidBlock>
    {
        var block = OpenBlock()
        defer {
            block.data?.deallocate()
            block.columns?.deallocate()
        }
        return body.withUnsafeBytes {
            DocumentStreamReader.unpack(block: $0, at: offset, maxSize: 64 << 20, maxExpansion: maxExpansion, into: &block)
        }
    }

    @Test("the rows a block in columns rebuilds count: checked before they are rebuilt")
    func theRowsOfTheColumnsFormCount() throws {
        let documents = try (0..<200).map {
            Document(reference: try DocumentReference(path: "c/d\($0)"), fields: ["count": .integer(Int64($0)), "kind": "same"])
        }
        let bytes = try helper.blocks(documents, codec: .none, blockSize: 1 << 20)
        let offset = try #require(helper.blockOffsets(bytes).first)
        let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
        let body = Array(bytes[(offset + 12)..<(offset + 12 + length)])
        try #require(body[0] & 0x10 != 0, "the block is in the columns form")
        for (expansion, refused) in [(1, true), (1024, false)] {
            switch unpack(body, at: offset, maxExpansion: expansion) {
            case .success(let header):
                #expect(!refused && header.count == 200)
            case .failure(let problem):
                #expect(refused && problem.reason.contains("the rows rebuilt from it"), "\(problem.reason)")
                // A limit, not damage, and what it says is exactly what reads the block: its data and rows per
                // byte of it in the stream, rounded up.
                #expect(problem.code == .limitExceeded)
                let needed = try #require(problem.expansionNeeded)
                for (limit, reads) in [(needed, true), (needed - 1, false)] {
                    if case .success = unpack(body, at: offset, maxExpansion: limit) {
                        #expect(reads, "\(limit)")
                    } else {
                        #expect(!reads, "\(limit)")
                    }
                }
            }
        }
    }

    /// The content length of the zstd skippable frame (RFC 8878 §3.1.2) that ends `body` exactly, if one does.
    func skippableFrameAtTheEnd(_ body: [UInt8]) -> Int? {
        let magic: [UInt8] = [0x50, 0x2A, 0x4D, 0x18]
        let start = (0..<Swift.max(0, body.count - 7)).first { start in
            Array(body[start..<(start + 4)]) == magic
                && body[(start + 4)..<(start + 8)].reversed().reduce(0) { $0 << 8 | Int($1) } == body.count - start - 8
        }
        return start.map { body.count - $0 - 8 }
    }

    @Test("a writer keeps its blocks to the rule and they read back: a zstd body made up by a skippable frame",
          arguments: [BlockCodec.zstd, .deflate])
    func writersKeepToTheExpansion(codec: BlockCodec) throws {
        // Long runs of one byte, then many documents repeating a long key (their columns unpack into far more than
        // their compressed bytes).
        let key = String(repeating: "k", count: 10_000)
        let documents = try [runOfOneByte(3_000_000, path: "r/0"), runOfOneByte(300_000, path: "r/1")]
            + (0..<300).map { Document(reference: try DocumentReference(path: "k/\($0)"), fields: [key: .integer(Int64($0))]) }
        let bytes = try helper.blocks(documents, codec: codec, blockSize: 1 << 20)
        var forms: Set<UInt8> = []
        var padded = 0
        for offset in helper.blockOffsets(bytes) {
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let body = Array(bytes[(offset + 12)..<(offset + 12 + length)])
            let stored = try body.withUnsafeBytes { try DocumentStreamReader.blockHeader($0, maxSize: 64 << 20) }
            // What readers allow by default, not one byte more.
            switch unpack(body, at: offset, maxExpansion: 1024) {
            case .failure(let problem):
                Issue.record("\(codec) block at \(offset): \(problem.reason)")
            case .success(let unpacked):
                // A body made up is made up exactly to what the rule asks, or by the shortest skippable frame.
                if let padding = skippableFrameAtTheEnd(body) {
                    padded += 1
                    let rows = stored.columns ? unpacked.size : 0
                    let least = DocumentStreamWriter.leastBody(unpacking: stored.size + rows)
                    #expect(body.count == least || (body.count > least && padding == 0), "\(body.count), \(least)")
                }
            }
            forms.insert(body[0])
        }
        if codec == .zstd {
            // Every block kept zstd, the 3 MB run (about a hundred bytes of frame) made up with a skippable frame.
            #expect(forms.isSubset(of: [0x02, 0x32]), "\(forms)")
            #expect(padded >= 1)
        } else {
            // deflate gives at most about 1,032 bytes per byte, so nothing is made up: a block keeps to the rule as
            // its columns, its rows, or its rows stored as they are.
            #expect(forms.isSubset(of: [0x00, 0x01, 0x31]) && padded == 0, "\(forms)")
        }
        let (records, reader) = try helper.read(bytes)
        #expect(reader.problems.isEmpty, "\(reader.problems.prefix(2))")
        #expect(records.map(\.document) == documents)
    }
}
