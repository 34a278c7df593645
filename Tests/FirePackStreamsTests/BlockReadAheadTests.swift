import FirePack
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackStreams

/// `DocumentStreamReader.readsBlocksAhead`: the next block unpacked on another thread changes when the work is done,
/// never what is read — the same records, numbers, offsets and problems, in the same order, whatever the damage and
/// however the source hands out its bytes.
@Suite("Reading blocks ahead")
struct BlockReadAheadTests {
    let blocks = BlockStreamTests()

    /// A source in chunks that says it never waits, as a file's does: the reader reads the next block early from it.
    final class NeverWaiting: ByteSource {
        let upstream: SlowSource
        init(_ bytes: [UInt8], chunk: Int) { upstream = SlowSource(bytes, chunk: chunk) }
        var readsWithoutWaiting: Bool { true }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { try upstream.read(into: buffer) }
    }

    /// Everything a reader of `reader` sees, as lines: each record (number, block offset, payload offset, payload),
    /// each problem, the records found and the completion; and how many blocks were taken from reading ahead.
    func transcript(_ reader: DocumentStreamReader, ahead: Bool) throws -> (lines: [String], taken: Int) {
        reader.readsBlocksAhead = ahead
        var lines: [String] = []
        while let record = try reader.nextRecord() {
            let payload = record.payload.map { String($0, radix: 16) }.joined(separator: " ")
            lines.append("record \(record.number) \(record.offset) \(String(describing: record.payloadOffset)) \(payload)")
        }
        lines += reader.problems.map { "problem \($0.code) \($0.offset) \($0.recordNumber) \($0.reason)" }
        lines.append("found \(reader.recordsFound) \(String(describing: reader.completion))")
        return (lines, reader.readAhead?.taken ?? 0)
    }

    /// `bytes` with its block `block` (of `offsets`) given a body whose CRC-32 checks out but whose data does not
    /// decompress or rebuild: an invalid block, which only unpacking finds.
    func invalidating(_ bytes: [UInt8], block: Int, offsets: [Int]) -> [UInt8] {
        let offset = offsets[block]
        let length = bytes[offset + 4..<offset + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
        var body = Array(bytes[offset + 12..<offset + 12 + length])
        for index in stride(from: body.count / 2, to: body.count, by: 7) { body[index] ^= 0x5A }
        let checksum = body.withUnsafeBytes { crc32($0) }
        var damaged = bytes
        damaged.replaceSubrange(offset + 12..<offset + 12 + length, with: body)
        damaged.replaceSubrange(offset + 8..<offset + 12, with: withUnsafeBytes(of: checksum.littleEndian, Array.init))
        return damaged
    }

    @Test("the same records and problems with and without reading ahead, for each codec, intact and damaged",
          arguments: BlockCodec.allCases)
    func theSameRecordsAndProblems(codec: BlockCodec) throws {
        let intact = try blocks.blocks(try blocks.mixedDocuments(160, seed: 11), codec: codec, blockSize: 8192)
        let offsets = blocks.blockOffsets(intact)
        #expect(offsets.count > 10)
        var checksumDamaged = intact
        checksumDamaged[offsets[2] + 30] ^= 0x40
        let cutOut = Array(intact[..<offsets[4]]) + intact[offsets[5]...]
        let streams: [(String, [UInt8])] = [
            ("intact", intact),
            ("a block whose CRC-32 fails", checksumDamaged),
            ("a block that does not unpack", invalidating(intact, block: 3, offsets: offsets)),
            ("two blocks in a row that do not unpack",
             invalidating(invalidating(intact, block: 5, offsets: offsets), block: 6, offsets: offsets)),
            ("a block cut out", cutOut),
            ("a torn last block", Array(intact.prefix(offsets.last! + 40))),
        ]
        // Memory; chunks from a source that never waits (read early); chunks from one that may (a pipe's: nothing
        // is read early, and a block is unpacked ahead only when its bytes came with the ones before).
        let sources: [(String, ([UInt8]) -> ByteSource)] = [
            ("memory", { MemorySource($0) }), ("4,096-byte chunks", { NeverWaiting($0, chunk: 4096) }),
            ("333-byte chunks", { NeverWaiting($0, chunk: 333) }), ("a pipe's 333-byte chunks", { SlowSource($0, chunk: 333) }),
        ]
        for (name, bytes) in streams {
            for (sourceName, source) in sources {
                let inTurn = try transcript(try DocumentStreamReader(source: source(bytes)), ahead: false)
                let ahead = try transcript(try DocumentStreamReader(source: source(bytes)), ahead: true)
                #expect(ahead.lines == inTurn.lines, "\(name), \(sourceName)")
                #expect(inTurn.lines.count > 10, "\(name)")
                // Reading ahead took place: every block after the first, from a source that never waits (from the
                // pipe, those that came whole with the bytes before them; `aPipesReaderDoesNotWaitForTheNextBlock`).
                if name == "intact" && !sourceName.hasPrefix("a pipe") {
                    #expect(ahead.taken == offsets.count - 1, "\(sourceName)")
                }
            }
        }
    }

    /// From a source that may wait (a pipe), a block's records are handed out without reading the next block's
    /// bytes: a reader of a live stream gets each block as it comes.
    @Test func aPipesReaderDoesNotWaitForTheNextBlock() throws {
        let bytes = try blocks.blocks(try blocks.mixedDocuments(60, seed: 9), codec: .zstd, blockSize: 8192)
        let offsets = blocks.blockOffsets(bytes)
        let pipe = SlowSource(bytes, chunk: 100)
        let reader = try DocumentStreamReader(source: pipe)
        reader.readsBlocksAhead = true
        #expect(try reader.nextRecord()?.number == 0)
        #expect(pipe.position >= offsets[1] && pipe.position < offsets[1] + 100, "read to \(pipe.position)")
        // A file's reader reads the next block early, and unpacks it ahead.
        let file = NeverWaiting(bytes, chunk: 100)
        let early = try DocumentStreamReader(source: file)
        early.readsBlocksAhead = true
        #expect(try early.nextRecord()?.number == 0)
        #expect(file.upstream.position >= offsets[2])
    }

    @Test func rangesReadTheSameAhead() throws {
        let bytes = try blocks.blocks(try blocks.mixedDocuments(120, seed: 5), codec: .zstd, blockSize: 8192)
        let path = try blocks.temporaryFile(invalidating(bytes, block: 2, offsets: blocks.blockOffsets(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let size = bytes.count
        for split in stride(from: 0, through: size, by: size / 9) {
            for (offset, length) in [(0, split), (split, size - split)] {
                let inTurn = try transcript(
                    try DocumentStreamReader.reading(path: path, offset: offset, length: length), ahead: false)
                let ahead = try transcript(
                    try DocumentStreamReader.reading(path: path, offset: offset, length: length), ahead: true)
                #expect(ahead.lines == inTurn.lines, "bytes \(offset) + \(length)")
            }
        }
    }

    @Test func turningReadingAheadOffMidStreamReadsOn() throws {
        let bytes = try blocks.blocks(try blocks.mixedDocuments(100, seed: 3), codec: .deflate, blockSize: 8192)
        let whole = try transcript(try DocumentStreamReader(source: MemorySource(bytes)), ahead: false).lines
        let reader = try DocumentStreamReader(source: MemorySource(bytes))
        reader.readsBlocksAhead = true
        var numbers: [Int] = []
        while let record = try reader.nextRecord() {
            numbers.append(record.number)
            if numbers.count == 30 { reader.readsBlocksAhead = false }
            if numbers.count == 60 { reader.readsBlocksAhead = true }
        }
        #expect(numbers == Array(0..<100))
        #expect(whole.filter { $0.hasPrefix("record") }.count == 100)
    }
}
