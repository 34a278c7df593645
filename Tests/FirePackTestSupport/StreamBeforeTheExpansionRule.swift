import FirePack

/// A version-3 stream as FirePack wrote it before the expansion rule (Docs/FORMAT.md §8, "Expansion", 2026-12-02),
/// built byte by byte from the spec: record 0, a small document in a block stored as it is; record 1, a document
/// holding one string of `run` `a`s in a zstd block of about a hundred bytes (a zstd frame of raw and RLE blocks,
/// RFC 8878 §3.1.1.2, as zstd itself makes of a run); then a close record without an index. The second block unpacks
/// into far more than 1,024 bytes per byte: readers refuse it unless allowed `expansionNeeded`.
public struct StreamBeforeTheExpansionRule {
    /// Record 0.
    public let small: Document
    /// Record 1: the run.
    public let long: Document
    /// The stream's bytes.
    public let bytes: [UInt8]
    /// What reading the second block needs: its data's size per byte of the block in the stream, rounded up.
    public let expansionNeeded: Int
    /// The offset of the second block's marker.
    public let longBlockOffset: Int

    /// A stream whose second record holds `run` bytes of one letter.
    public init(run: Int = 2_000_000) throws {
        small = Document(reference: try DocumentReference(path: "books/small"), fields: ["n": 1])
        long = Document(
            reference: try DocumentReference(path: "books/long"),
            fields: ["text": .string(String(repeating: "a", count: run))])
        let header: [UInt8] = [0x89, 0x46, 0x50, 0x53, 3, 0]
        var stream = header + Self.framed(Self.block(of: small, first: 0, stored: nil))
        longBlockOffset = stream.count
        // The long document's bytes around its run: stored as raw blocks, the run as RLE blocks.
        let payload = long.firePackBytes()
        let data = payload + Self.varint(payload.count)
        // The first two `a`s in a row start the run: no key or path holds them.
        let runStart = data.indices.first { data[$0] == UInt8(ascii: "a") && data[$0 + 1] == UInt8(ascii: "a") }!
        let runEnd = runStart + run
        let frame = Self.zstdFrame(
            [(Array(data[..<runStart]), 0), ([UInt8(ascii: "a")], run), (Array(data[runEnd...]), 0)],
            size: data.count)
        let longBlock = Self.framed(Self.block(of: long, first: 1, stored: (frame, data.count)))
        stream += longBlock
        expansionNeeded = (data.count + longBlock.count - 1) / longBlock.count
        // The close record: marker, record count, index offset (0: none), CRC-32 of those.
        let fields = Self.uint64(2) + Self.uint64(0)
        stream += [0xF3, 0x50, 0x52, 0x45] + fields + Self.uint32(Self.crc32(fields))
        bytes = stream
    }

    /// A block's body (Docs/FORMAT.md §8, the row form): codec, count 1, `first`, data size, documents' size, data
    /// (stored as it is, or `stored`: zstd bytes and the size they give).
    static func block(of document: Document, first: Int, stored: ([UInt8], Int)?) -> [UInt8] {
        let payload = document.firePackBytes()
        let data = payload + varint(payload.count)
        return [stored == nil ? 0x00 : 0x02] + varint(1) + varint(first) + varint(stored?.1 ?? data.count)
            + varint(payload.count) + (stored?.0 ?? data)
    }

    /// `body` framed as a block: marker, length, CRC-32.
    static func framed(_ body: [UInt8]) -> [UInt8] {
        [0xF3, 0x50, 0x52, 0x1E] + uint32(UInt32(body.count)) + uint32(crc32(body)) + body
    }

    /// A single-segment zstd frame with its content size: each part `(bytes, 0)` as raw blocks, `(byte, n)` as RLE
    /// blocks of `n` copies, at most 128 KiB per block.
    static func zstdFrame(_ parts: [(bytes: [UInt8], repeats: Int)], size: Int) -> [UInt8] {
        var blocks: [(type: UInt32, size: Int, content: [UInt8])] = []
        for part in parts {
            var remaining = part.repeats > 0 ? part.repeats : part.bytes.count
            var start = 0
            while remaining > 0 {
                let count = min(remaining, 128 << 10)
                blocks.append(
                    part.repeats > 0
                        ? (1, count, part.bytes) : (0, count, Array(part.bytes[start..<(start + count)])))
                start += count
                remaining -= count
            }
        }
        var frame: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD, 0xE0] + uint64(UInt64(size))
        for (index, block) in blocks.enumerated() {
            let last: UInt32 = index == blocks.count - 1 ? 1 : 0
            frame += uint32(UInt32(block.size) << 3 | block.type << 1 | last).prefix(3) + block.content
        }
        return frame
    }

    static func varint(_ value: Int) -> [UInt8] {
        var value = UInt64(value), out: [UInt8] = []
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        return out + [UInt8(value)]
    }

    static func uint32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
    static func uint64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }

    /// CRC-32 (ISO-HDLC, zlib's), bit by bit: the blocks here are a few hundred bytes.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
