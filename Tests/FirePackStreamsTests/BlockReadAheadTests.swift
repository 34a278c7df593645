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
        for (name, bytes) in streams {
            for chunk in [Int.max, 4096, 333] {
                let source = { chunk == .max ? MemorySource(bytes) as ByteSource : SlowSource(bytes, chunk: chunk) }
                let inTurn = try transcript(try DocumentStreamReader(source: source()), ahead: false)
                let ahead = try transcript(try DocumentStreamReader(source: source()), ahead: true)
                #expect(ahead.lines == inTurn.lines, "\(name), chunks of \(chunk)")
                #expect(inTurn.lines.count > 10, "\(name)")
                // Reading ahead took place: every block after the first whole in the buffer was unpacked ahead.
                if name == "intact" { #expect(ahead.taken == offsets.count - 1, "chunks of \(chunk)") }
            }
        }
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
