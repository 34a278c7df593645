import FirePack
import FirePackStreams
import FirePackTestSupport
import Testing

/// LevelDB log files (the framing of Firestore's managed exports): records put together from chunks across 32 KiB
/// blocks, and every kind of damage reported with its byte offset — never skipped in silence.
@Suite struct LevelDBLogReaderTests {
    static let block = LevelDBLogReader.blockSize

    /// A log as LevelDB's and App Engine's writers make it (leveldb/db/log_writer.cc): chunks never cross a block,
    /// fewer than 7 bytes left are a zero trailer; optionally the last block padded with zeros.
    static func log(_ records: [[UInt8]], pad: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        for record in records {
            var rest = record[...]
            var first = true
            repeat {
                var left = block - out.count % block
                if left < 7 {
                    out += [UInt8](repeating: 0, count: left)
                    left = block
                }
                let take = min(rest.count, left - 7)
                let last = take == rest.count
                let type: UInt8 = first ? (last ? 1 : 2) : (last ? 4 : 3)
                out += chunk(type: type, Array(rest.prefix(take)))
                rest = rest.dropFirst(take)
                first = false
                if last { break }
            } while true
        }
        if pad && out.count % block != 0 { out += [UInt8](repeating: 0, count: block - out.count % block) }
        return out
    }

    static func chunk(type: UInt8, _ data: [UInt8]) -> [UInt8] {
        let crc = ([type] + data).withUnsafeBytes { CRC32C.checksum($0) }
        let masked = ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
        return [UInt8(masked & 0xFF), UInt8(masked >> 8 & 0xFF), UInt8(masked >> 16 & 0xFF), UInt8(masked >> 24),
                UInt8(data.count & 0xFF), UInt8(data.count >> 8), type] + data
    }

    static func read(_ bytes: [UInt8], chunkSize: Int = 4_096, maxRecordLength: Int = 1 << 20) throws -> ([LevelDBLogRecord], LevelDBLogReader) {
        let reader = LevelDBLogReader(source: SlowSource(bytes, chunk: chunkSize), maxRecordLength: maxRecordLength)
        var records: [LevelDBLogRecord] = []
        while let record = try reader.next() { records.append(record) }
        return (records, reader)
    }

    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var rng = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0 ... .max, using: &rng) }
    }

    @Test func crc32cCheckValue() {
        // The check value of CRC-32C (RFC 3720, B.4) and an all-zero 32-byte vector from the same appendix.
        #expect([UInt8]("123456789".utf8).withUnsafeBytes { CRC32C.checksum($0) } == 0xE306_9283)
        #expect([UInt8](repeating: 0, count: 32).withUnsafeBytes { CRC32C.checksum($0) } == 0x8A91_36AA)
        #expect([UInt8](repeating: 0xFF, count: 32).withUnsafeBytes { CRC32C.checksum($0) } == 0x62A8_AB43)
        // Continuing over two pieces is the CRC of the whole, at every split.
        let data = Self.bytes(100, seed: 1)
        let whole = data.withUnsafeBytes { CRC32C.checksum($0) }
        for split in 0...100 {
            let head = data[..<split].withUnsafeBytes { CRC32C.checksum($0) }
            #expect(data[split...].withUnsafeBytes { CRC32C.checksum($0, continuing: head) } == whole)
        }
    }

    @Test func recordsOfEverySizeComeBackAcrossBlocks() throws {
        // Empty, small, one byte short of filling a block (a trailer of 0…6 bytes follows), several blocks long.
        var sizes = [0, 1, 100, Self.block - 7, Self.block - 14, 3 * Self.block + 17, 5]
        sizes += (0..<7).map { Self.block - 7 - 7 - $0 }
        let records = sizes.enumerated().map { Self.bytes($0.element, seed: UInt64($0.offset)) }
        for pad in [false, true] {
            for chunkSize in [1 << 16, 4_093] {
                let (read, reader) = try Self.read(Self.log(records, pad: pad), chunkSize: chunkSize)
                #expect(read.map(\.payload) == records)
                #expect(read.map(\.number) == Array(0..<records.count))
                #expect(reader.problemCount == 0, "\(reader.problems)")
            }
        }
    }

    @Test func aDamagedChunkCostsTheRestOfItsBlockAndIsReported() throws {
        let records = (0..<200).map { Self.bytes(500 + $0, seed: UInt64($0)) }
        var log = Self.log(records)
        // Record 3 starts at 7 + 3 × 7 + (500 + 501 + 502): flip a byte of its data.
        let offset = 4 * 7 + 500 + 501 + 502
        log[offset + 10] ^= 0x01
        let (read, reader) = try Self.read(log)
        #expect(reader.problemCount == 1)
        let problem = try #require(reader.problems.first)
        #expect(problem.code == .badChecksum && problem.offset == offset - 7 && problem.recordNumber == 3, "\(problem)")
        #expect(problem.reason.contains("chunk checksum mismatch"))
        // The records of the next blocks all come back, in order; none of the damaged block's after record 3.
        #expect(read.prefix(3).map(\.payload) == Array(records.prefix(3)))
        let firstAfter = try #require(read.dropFirst(3).first)
        #expect(firstAfter.offset >= Self.block)
        #expect(read.last?.payload == records.last)
    }

    @Test func everyKindOfDamageIsNamed() throws {
        let record = Self.bytes(Self.block * 2, seed: 9)
        let whole = Self.log([[1, 2, 3], record, [4, 5]])
        // A file that ends inside a chunk, inside a record of several chunks, inside a chunk header.
        for (cut, code) in [(whole.count - 1, FirePackError.Code.truncated), (Self.block + 100, .truncated), (Self.block * 2 + 3, .truncated)] {
            let (read, reader) = try Self.read(Array(whole.prefix(cut)))
            #expect(read.first?.payload == [1, 2, 3])
            #expect(reader.problems.first?.code == code, "cut at \(cut): \(reader.problems)")
            #expect(reader.problems.first?.reason.contains("torn") == true)
        }
        // A middle chunk with no first; a first chunk followed by a full one; an unknown type; a length past the block.
        let orphan = Self.chunk(type: 3, [7]) + Self.chunk(type: 1, [8])
        #expect(try Self.read(orphan).1.problems.map(\.reason) == ["a middle chunk with no first chunk before it"])
        #expect(try Self.read(orphan).0.map(\.payload) == [[8]])
        let unfinished = Self.chunk(type: 2, [1]) + Self.chunk(type: 1, [2])
        let (kept, unfinishedReader) = try Self.read(unfinished)
        #expect(kept.map(\.payload) == [[2]] && unfinishedReader.problems.first?.offset == 0)
        #expect(try Self.read(Self.chunk(type: 9, [1]) + Self.chunk(type: 1, [2])).1.problems.first?.reason.contains("chunk type 9") == true)
        var long = Self.chunk(type: 1, [UInt8](repeating: 1, count: 100))
        long[4] = 0xFF; long[5] = 0xFF
        long += [UInt8](repeating: 0, count: Self.block - long.count)
        #expect(try Self.read(long).1.problems.first?.code == .lengthOutOfBounds)
        // Zero padding followed by something else; a trailer that is not zeros.
        var padded = Self.chunk(type: 1, [1]) + [UInt8](repeating: 0, count: 20) + [0x55]
        padded += [UInt8](repeating: 0, count: Self.block - padded.count)
        let paddedReader = try Self.read(padded).1
        #expect(paddedReader.problems.first?.offset == 8 + 20, "\(paddedReader.problems)")
        var trailer = Self.log([[UInt8](repeating: 2, count: Self.block - 7 - 3)]) + [0, 0, 1]
        trailer += Self.chunk(type: 1, [3])
        let trailerRead = try Self.read(trailer)
        #expect(trailerRead.0.count == 2 && trailerRead.1.problems.first?.offset == Self.block - 1)
    }

    @Test func aRecordPastTheLimitIsReportedNotHeld() throws {
        let big = Self.bytes(5 * Self.block, seed: 3)
        let (read, reader) = try Self.read(Self.log([[1], big, [2]]), maxRecordLength: 2 * Self.block)
        #expect(read.map(\.payload) == [[1], [2]])
        #expect(reader.problemCount == 1 && reader.problems.first?.code == .limitExceeded)
        // A limit below one chunk holds for full and first chunks too.
        let small = try Self.read(Self.log([[1], [UInt8](repeating: 7, count: 100), [2]]), maxRecordLength: 50)
        #expect(small.0.map(\.payload) == [[1], [2]] && small.1.problems.map(\.code) == [.limitExceeded])
    }

    @Test func orphanChunksAfterADamagedRecordAreReportedAgain() throws {
        // A damaged record's last chunk ends what was reported; a middle chunk after it is new damage.
        var log = Self.log([Self.bytes(Self.block + 100, seed: 5)])
        log[10] ^= 0xFF                                    // the first chunk: checksum mismatch, its block skipped
        log += Self.chunk(type: 3, [9]) + Self.chunk(type: 1, [8])
        let (read, reader) = try Self.read(log)
        #expect(read.map(\.payload) == [[8]])
        #expect(reader.problems.map(\.code) == [.badChecksum, .invalidValue], "\(reader.problems)")
    }

    @Test func problemsAreBoundedButAllCounted() throws {
        // 1,200 blocks, each starting with a chunk whose checksum is wrong.
        var bad = Self.chunk(type: 1, [1, 2, 3])
        bad[0] ^= 0xFF
        let block = bad + [UInt8](repeating: 0, count: Self.block - bad.count)
        let log = Array([[UInt8]](repeating: block, count: 1_200).joined())
        let (read, reader) = try Self.read(log, chunkSize: 1 << 16)
        #expect(read.isEmpty)
        #expect(reader.problemCount == 1_200 && reader.problems.count == LevelDBLogReader.maxProblemsKept)
    }
}

/// Hands out bytes a few at a time, as pipes and files do.
final class SlowSource: ByteSource {
    let bytes: [UInt8]
    let chunk: Int
    var position = 0
    init(_ bytes: [UInt8], chunk: Int) { (self.bytes, self.chunk) = (bytes, chunk) }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, chunk, bytes.count - position)
        bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
        position += count
        return count
    }
}
