import CZlib
import CZstd
import FirePack

/// How the data of a version-3 stream block is stored: the codec byte of its header (Docs/FORMAT.md §8).
///
/// Each block is compressed on its own, so a compressed stream stays splittable and seekable, as Avro's object
/// container files and Parquet's pages are (unlike gzip over a whole file).
public enum BlockCodec: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    /// Not compressed (the columns form, Docs/FORMAT.md §8, still applies where it is smaller than the rows).
    case none = 0
    /// Raw deflate (RFC 1951, zlib at level 6), as Avro's `deflate` codec.
    case deflate = 1
    /// One zstd frame (RFC 8878, level 3) holding its content size, followed by a skippable frame only where the
    /// block needs it (Docs/FORMAT.md §8, "Expansion").
    case zstd = 2

    /// The codec's name on the command line and in reports: `none`, `deflate`, `zstd`.
    public var description: String {
        switch self {
        case .none: "none"
        case .deflate: "deflate"
        case .zstd: "zstd"
        }
    }

    /// The codec called `name` (`none`, `deflate`, `zstd`), or nil.
    public init?(name: String) {
        guard let codec = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = codec
    }

    /// zstd's level: 3, its default, at which compressing a block costs about what encoding its documents does.
    static let zstdLevel: Int32 = 3
    /// zstd's shortest match in blocks of `zstdMinMatchFrom` bytes or more. Level 3 looks for matches of 5 bytes
    /// there; 6 gave the same size on the events of `scripts/measure/stream-sizes.py` (1 MiB blocks, within 0.1%)
    /// and compressed their columns half again as fast, as the columns' values are mostly shorter than a match
    /// worth taking. Smaller blocks keep the matches zstd chooses for their size (6 made the fixtures' few-document
    /// blocks larger).
    static let zstdMinMatch: Int32 = 6
    static let zstdMinMatchFrom = 128 << 10

    /// The bytes of a zstd skippable frame before its content: its magic number and the content's length.
    static let skippableFrameHeader = 8

    /// Fills `output` (at least `skippableFrameHeader` bytes) with one zstd skippable frame (RFC 8878 §3.1.2: magic
    /// `0x184D2A50`, the length of the rest, then zeros), which zstd's decoders pass over: what makes a block's body
    /// up to the length readers allow for what it unpacks into (Docs/FORMAT.md §8, "Expansion").
    static func writeSkippableFrame(into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= skippableFrameHeader && output.count - skippableFrameHeader <= Int(UInt32.max))
        output.storeBytes(of: UInt32(0x184D_2A50).littleEndian, toByteOffset: 0, as: UInt32.self)
        output.storeBytes(
            of: UInt32(output.count - skippableFrameHeader).littleEndian, toByteOffset: 4, as: UInt32.self)
        UnsafeMutableRawBufferPointer(rebasing: output[skippableFrameHeader...])
            .initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// The most bytes `compress` can produce from `count` bytes in `parts` parts.
    func compressBound(_ count: Int, parts: Int = 1) -> Int {
        switch self {
        case .none: count
        // Each part ends a deflate block (3 bits of header, up to 7 of padding, a stored block's 4 bytes at worst)
        // or a zstd block (a 3-byte header, and a raw block when compressing does not pay).
        case .deflate: Int(deflateBound(nil, uLong(count))) + 64 + 8 * parts
        case .zstd: ZSTD_compressBound(count) + 8 * parts
        }
    }

    /// Compresses `data` into `output` (at least `compressBound(data.count, parts: partEnds.count)` bytes); returns
    /// the bytes written. `partEnds`: where parts of `data` end (increasing, within `data`), at each of which the
    /// codec ends a block of its own (zstd `ZSTD_e_flush`, deflate `Z_BLOCK`) and the next part starts new entropy
    /// tables, its matches still reaching back into the parts before: the output is one zstd frame or one deflate
    /// stream, as without parts. The columns of a block are its parts: each column's bytes are coded by statistics of
    /// their own instead of the whole block's (Docs/FORMAT.md, Appendix, "Entropy tables per column").
    func compress(
        _ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, partEnds: [Int] = []
    ) throws -> Int {
        switch self {
        case .none:
            if data.count > 0 { output.baseAddress!.copyMemory(from: data.baseAddress!, byteCount: data.count) }
            return data.count
        case .deflate:
            return try Self.deflate(data, into: output, partEnds: partEnds)
        case .zstd:
            return try Self.zstd(data, into: output, partEnds: partEnds)
        }
    }

    /// One zstd frame of `data` holding its content size, a block ended at each of `partEnds`.
    private static func zstd(
        _ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, partEnds: [Int]
    ) throws -> Int {
        func failure(_ code: Int) -> FirePackError {
            FirePackError(.ioFailure, "zstd compression failed: \(String(cString: ZSTD_getErrorName(code)))")
        }
        guard let context = ZSTD_createCCtx() else { throw FirePackError(.ioFailure, "zstd: no compression context") }
        defer { ZSTD_freeCCtx(context) }
        var parameters = [(ZSTD_c_compressionLevel, zstdLevel)]
        if data.count >= zstdMinMatchFrom { parameters.append((ZSTD_c_minMatch, zstdMinMatch)) }
        for (parameter, value) in parameters {
            let status = ZSTD_CCtx_setParameter(context, parameter, value)
            guard ZSTD_isError(status) == 0 else { throw failure(status) }
        }
        // The content size goes into the frame's header, which readers check before decompressing (§8).
        let pledged = ZSTD_CCtx_setPledgedSrcSize(context, UInt64(data.count))
        guard ZSTD_isError(pledged) == 0 else { throw failure(pledged) }
        var out = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        try forEachPart(of: data.count, ending: partEnds) { part, last in
            var input = ZSTD_inBuffer(
                src: data.baseAddress.map { $0 + part.lowerBound }, size: part.count, pos: 0)
            while true {
                let before = (input.pos, out.pos)
                let remaining = ZSTD_compressStream2(context, &out, &input, last ? ZSTD_e_end : ZSTD_e_flush)
                guard ZSTD_isError(remaining) == 0 else { throw failure(remaining) }
                if remaining == 0 { break }
                // A bound too small would leave the call with nothing to do: refused rather than looped on.
                guard (input.pos, out.pos) != before else {
                    throw FirePackError(.ioFailure, "zstd compression needs more than \(output.count) bytes")
                }
            }
        }
        return out.pos
    }

    /// Calls `body` with each part of `count` bytes that `partEnds` (increasing) cut, and whether it is the last: the
    /// part after the last end within `count` is the last.
    private static func forEachPart(
        of count: Int, ending partEnds: [Int], _ body: (Range<Int>, Bool) throws -> Void
    ) rethrows {
        var start = 0
        for end in partEnds where end < count {
            precondition(end >= start, "parts end in order")
            try body(start..<end, false)
            start = end
        }
        try body(start..<count, true)
    }

    /// Decompresses `stored` into `output`, which must be filled exactly: the block header says how many bytes its
    /// data holds, and data that gives more or fewer is damaged. Never writes past `output`.
    func decompress(_ stored: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> String? {
        switch self {
        case .none:
            guard stored.count == output.count else {
                return "the block stores \(stored.count) bytes of data where its header says \(output.count)"
            }
            if stored.count > 0 { output.baseAddress!.copyMemory(from: stored.baseAddress!, byteCount: stored.count) }
            return nil
        case .deflate:
            return Self.inflate(stored, into: output)
        case .zstd:
            // One frame, then skippable frames only (checked first: zstd's decoder would also take more frames). A
            // header that states its content size (the writer's `ZSTD_compress` writes it) is checked before
            // decompressing, so a frame that claims more than the block's size is refused without work; a frame
            // written by a streaming compressor may leave it out, and is then decompressed into the block's size at
            // most (zstd stops with an error where the frame holds more).
            if let problem = Self.checkZstdFrames(stored) { return problem }
            let claimed = ZSTD_getFrameContentSize(stored.baseAddress, stored.count)
            if claimed == ZSTD_CONTENTSIZE_ERROR { return "the zstd frame's header is damaged" }
            guard claimed == UInt64(output.count) || claimed == ZSTD_CONTENTSIZE_UNKNOWN else {
                return "the zstd frame holds \(claimed) bytes where the block header says \(output.count)"
            }
            let written = ZSTD_decompress(output.baseAddress, output.count, stored.baseAddress, stored.count)
            if ZSTD_isError(written) != 0 {
                return "zstd: \(String(cString: ZSTD_getErrorName(written)))"
            }
            return written == output.count
                ? nil : "the zstd frame gives \(written) bytes where the block header says \(output.count)"
        }
    }

    /// Nil when `stored` is one zstd frame followed by nothing but skippable frames (magic `0x184D2A50` to
    /// `0x184D2A5F`, RFC 8878 §3.1.2), each whole; else what is wrong. Walks the frames' headers and block headers
    /// (`ZSTD_findFrameCompressedSize`), not their contents.
    private static func checkZstdFrames(_ stored: UnsafeRawBufferPointer) -> String? {
        guard let base = stored.baseAddress, stored.count > 0 else { return "the block stores no zstd frame" }
        var offset = 0
        while offset < stored.count {
            let rest = stored.count - offset
            if offset > 0 {
                let magic = rest >= 4 ? stored.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian : 0
                guard magic & ~0xF == 0x184D_2A50 else {
                    return "the zstd frame is followed by \(rest) bytes that are not skippable frames"
                }
            }
            let size = ZSTD_findFrameCompressedSize(base + offset, rest)
            if ZSTD_isError(size) != 0 {
                let name = String(cString: ZSTD_getErrorName(size))
                return "zstd: \(name) (the frame at byte \(offset) of the stored data)"
            }
            offset += size
        }
        return nil
    }

    /// Raw deflate of `data` (zlib at level 6, into `deflateBound` bytes; a block is far below zlib's 32-bit
    /// lengths), a block ended at each of `partEnds` (`Z_BLOCK`) and the stream at the end (`Z_FINISH`).
    private static func deflate(
        _ data: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, partEnds: [Int]
    ) throws -> Int {
        precondition(data.count < Int(UInt32.max) && output.count < Int(UInt32.max), "a block fits zlib's lengths")
        var stream = z_stream()
        let status = deflateInit2_(
            &stream, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw FirePackError(.ioFailure, "zlib deflateInit failed (\(status))") }
        defer { deflateEnd(&stream) }
        stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.avail_out = uInt(output.count)
        var empty: UInt8 = 0
        try forEachPart(of: data.count, ending: partEnds) { part, last in
            let result = withUnsafeMutablePointer(to: &empty) { empty in
                stream.next_in =
                    data.baseAddress.map {
                        UnsafeMutablePointer(mutating: ($0 + part.lowerBound).assumingMemoryBound(to: Bytef.self))
                    } ?? empty
                stream.avail_in = uInt(part.count)
                return CZlib.deflate(&stream, last ? Z_FINISH : Z_BLOCK)
            }
            guard result == (last ? Z_STREAM_END : Z_OK), stream.avail_in == 0 else {
                throw FirePackError(.ioFailure, "zlib deflate failed (\(result))")
            }
        }
        return output.count - Int(stream.avail_out)
    }

    /// Raw inflate of `stored` into `output`, which the data must fill exactly and end at its end marker.
    private static func inflate(_ stored: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> String?
    {
        // Raw deflate data holds at least its final block; none at all is refused before zlib sees a null pointer.
        guard stored.count > 0, let storedBase = stored.baseAddress else { return "the block holds no deflate data" }
        var stream = z_stream()
        guard inflateInit2_(&stream, -15, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return "zlib inflateInit failed"
        }
        defer { inflateEnd(&stream) }
        // One spare byte of output: data that would give more than the header says is told from data that fits.
        var spare: UInt8 = 0
        var consumed = 0
        var produced = 0
        while true {
            let input = min(stored.count - consumed, Int(UInt32.max))
            stream.next_in = UnsafeMutablePointer(mutating: (storedBase + consumed).assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input)
            let room = min(output.count - produced, Int(UInt32.max))
            let result: Int32
            if room > 0 {
                stream.next_out = output.baseAddress!.advanced(by: produced).assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(room)
                result = CZlib.inflate(&stream, Z_NO_FLUSH)
                produced += room - Int(stream.avail_out)
            } else {
                result = withUnsafeMutablePointer(to: &spare) { spare in
                    stream.next_out = spare
                    stream.avail_out = 1
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                if stream.avail_out == 0 {
                    return "the deflate data gives more bytes than the block header says (\(output.count))"
                }
            }
            consumed += input - Int(stream.avail_in)
            switch result {
            case Z_STREAM_END:
                guard produced == output.count else {
                    return "the deflate data gives \(produced) bytes where the block header says \(output.count)"
                }
                return consumed == stored.count ? nil : "bytes follow the deflate data's end marker"
            case Z_OK:
                continue
            case Z_BUF_ERROR where consumed == stored.count:
                return "the deflate data ends before its end marker"
            case Z_BUF_ERROR:
                continue
            default:
                return "the deflate data is damaged (zlib \(result))"
            }
        }
    }
}
