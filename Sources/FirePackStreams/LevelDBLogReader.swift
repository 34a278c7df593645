import FirePack

/// One record of a LevelDB log file, put together from its chunks.
public struct LevelDBLogRecord: Sendable {
    /// The record's number, counting from 0 (records lost to damage are not counted).
    public var number: Int
    /// The byte offset of the header of the record's first chunk.
    public var offset: Int
    /// The record's bytes.
    public var payload: [UInt8]
}

/// Reads the records of a LevelDB log file — the framing of Firestore's managed export files (`output-N`), and of
/// App Engine's "records" files — one at a time, holding one 32 KiB block and one record.
///
/// The format (leveldb/doc/log_format.md): the file is a sequence of 32 KiB blocks; a block holds chunks, each a
/// 7-byte header (the masked CRC-32C of the type byte and the data, little-endian; the data's length, 2 bytes
/// little-endian; the type: 1 full, 2 first, 3 middle, 4 last) and the data. A record is one full chunk, or a first,
/// any middles and a last. Fewer than 7 bytes left in a block are a zero trailer; a chunk header of zeros pads the
/// rest of its block (writers pad the last block so).
///
/// Damage is never skipped in silence: a chunk whose checksum, length or type is wrong costs the rest of its block —
/// as LevelDB's own reader does, since nothing inside a block says where the next chunk starts — and is reported in
/// `problems` (the first 1,000, with `problemCount` counting all), as is a record whose chunks come out of order and a
/// file that ends inside a chunk or a record. Callers decide what damage means; the tool fails the conversion.
public final class LevelDBLogReader {
    /// The size of a block.
    public static let blockSize = 32_768
    /// The size of a chunk header.
    public static let headerLength = 7
    /// The most problems kept with their descriptions.
    public static let maxProblemsKept = 1_000

    let source: ByteSource
    /// The longest record read; a longer one is reported and skipped.
    public let maxRecordLength: Int
    private var block = [UInt8](repeating: 0, count: LevelDBLogReader.blockSize)
    private var blockLength = 0
    private var position = 0
    /// The file offset of `block[0]`.
    private var blockStart = 0
    private var started = false
    /// The record being put together from a first chunk, and where it started.
    private var partial: [UInt8]?
    private var partialOffset = 0
    /// Whether the chunks up to the next first or full chunk belong to a record already reported.
    private var discarding = false

    /// The number of records returned so far.
    public private(set) var recordsRead = 0
    /// The first `maxProblemsKept` problems.
    public private(set) var problems: [StreamProblem] = []
    /// Every problem found.
    public private(set) var problemCount = 0

    /// Reads `source` from its first byte.
    public init(source: ByteSource, maxRecordLength: Int = DocumentStreamFormat.defaultMaxRecordLength) {
        self.source = source
        self.maxRecordLength = maxRecordLength
    }

    /// The next intact record, or nil at the end of the file.
    public func next() throws -> LevelDBLogRecord? {
        while true {
            if !started || position + Self.headerLength > blockLength {
                try finishBlock()
                guard try readBlock() else {
                    if partial != nil {
                        report(
                            partialOffset, .truncated,
                            "the file ends inside a record of several chunks (a torn last record)")
                    }
                    partial = nil
                    return nil
                }
                continue
            }
            let chunkOffset = blockStart + position
            let header = position
            let storedChecksum =
                UInt32(block[header]) | UInt32(block[header + 1]) << 8 | UInt32(block[header + 2]) << 16 | UInt32(
                    block[header + 3]) << 24
            let length = Int(block[header + 4]) | Int(block[header + 5]) << 8
            let type = block[header + 6]
            if type == 0 && length == 0 && storedChecksum == 0 {
                // Padding: the rest of the block must be zeros too.
                if let nonZero = block[position..<blockLength].firstIndex(where: { $0 != 0 }) {
                    skipBlock(
                        blockStart + nonZero, .invalidValue,
                        "bytes after the zero padding that starts at byte \(chunkOffset)")
                } else {
                    position = blockLength
                }
                continue
            }
            let dataStart = header + Self.headerLength
            guard length <= blockLength - dataStart else {
                if blockLength < Self.blockSize {
                    report(
                        chunkOffset, .truncated, "the file ends inside a chunk of \(length) bytes (a torn last record)")
                    partial = nil
                    position = blockLength
                } else {
                    skipBlock(
                        chunkOffset, .lengthOutOfBounds,
                        "a chunk of \(length) bytes runs past the end of its 32 KiB block")
                }
                continue
            }
            let checksum = block.withUnsafeBytes { bytes in
                CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[(dataStart - 1)..<(dataStart + length)]))
            }
            guard CRC32C.masked(checksum) == storedChecksum else {
                skipBlock(chunkOffset, .badChecksum, "chunk checksum mismatch")
                continue
            }
            position = dataStart + length
            let data = block[dataStart..<(dataStart + length)]
            switch type {
            case 1, 2:
                reportUnfinished(before: chunkOffset)
                discarding = false
                guard length <= maxRecordLength else {
                    report(chunkOffset, .limitExceeded, "a record longer than \(maxRecordLength) bytes")
                    discarding = type == 2
                    continue
                }
                if type == 1 { return deliver(Array(data), offset: chunkOffset) }
                partial = Array(data)
                partialOffset = chunkOffset
            case 3, 4:
                guard var record = partial else {
                    if !discarding {
                        report(
                            chunkOffset, .invalidValue,
                            "a \(type == 3 ? "middle" : "last") chunk with no first chunk before it")
                    }
                    // The record already reported ends at a last chunk; orphans after it are reported again.
                    discarding = type == 3
                    continue
                }
                guard record.count + length <= maxRecordLength else {
                    report(partialOffset, .limitExceeded, "a record longer than \(maxRecordLength) bytes")
                    partial = nil
                    discarding = true
                    continue
                }
                partial = nil  // one owner while appending
                record.append(contentsOf: data)
                if type == 4 { return deliver(record, offset: partialOffset) }
                partial = record
            default:
                skipBlock(
                    chunkOffset, .invalidValue,
                    "chunk type \(type) is not one of 1 (full), 2 (first), 3 (middle), 4 (last)")
            }
        }
    }

    private func deliver(_ payload: [UInt8], offset: Int) -> LevelDBLogRecord {
        defer { recordsRead += 1 }
        return LevelDBLogRecord(number: recordsRead, offset: offset, payload: payload)
    }

    /// A first chunk that started a record which never got its last chunk.
    private func reportUnfinished(before offset: Int) {
        guard partial != nil else { return }
        report(
            partialOffset, .invalidValue,
            "a record whose first chunk is not followed by its last (a new record starts at byte \(offset))")
        partial = nil
    }

    /// The bytes left at the end of a block, fewer than a header: a full block's trailer must be zeros; in a block
    /// the file ends in, anything but zeros is a header cut short.
    private func finishBlock() throws {
        guard started, position < blockLength else { return }
        if let nonZero = block[position..<blockLength].firstIndex(where: { $0 != 0 }) {
            if blockLength < Self.blockSize {
                report(blockStart + position, .truncated, "the file ends inside a chunk header (a torn last record)")
                partial = nil
            } else {
                report(
                    blockStart + nonZero, .invalidValue, "the trailer of the block at byte \(blockStart) is not zeros")
            }
        }
        position = blockLength
    }

    /// Reads the next block; false at the end of the file.
    private func readBlock() throws -> Bool {
        if started { blockStart += blockLength }
        started = true
        blockLength = 0
        position = 0
        while blockLength < Self.blockSize {
            let count = try block.withUnsafeMutableBytes {
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[blockLength...]))
            }
            if count == 0 { break }
            blockLength += count
        }
        return blockLength > 0
    }

    /// Reports damage at `offset` and skips to the next block, dropping the record being put together.
    private func skipBlock(_ offset: Int, _ code: FirePackError.Code, _ reason: String) {
        let skipped = blockLength - position
        report(offset, code, "\(reason); the rest of its block (\(skipped) bytes) is skipped")
        partial = nil
        discarding = true
        position = blockLength
    }

    private func report(_ offset: Int, _ code: FirePackError.Code, _ reason: String) {
        problemCount += 1
        guard problems.count < Self.maxProblemsKept else { return }
        problems.append(StreamProblem(recordNumber: recordsRead, offset: offset, code: code, reason: reason))
    }
}
