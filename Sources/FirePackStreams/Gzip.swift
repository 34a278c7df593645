import CFirePackCRC32
import CZlib
import FirePack

/// Decompresses gzip (or zlib) data from another source as it is read, chunk by chunk; concatenated gzip members
/// are read one after another, as gunzip does.
public final class GzipSource: ByteSource {
    let upstream: ByteSource
    /// The compressed source's: decompressing never waits but for its bytes.
    public var readsWithoutWaiting: Bool { upstream.readsWithoutWaiting }
    var stream = z_stream()
    var input = [UInt8](repeating: 0, count: 1 << 16)
    var inputEnded = false
    var finished = false
    /// Whether a gzip member has ended (so input may cleanly end before another begins).
    var memberEnded = false
    /// The compressed bytes of the members before the current one, so that an error's offset is the input's.
    var membersBefore = 0

    /// Decompresses `upstream`.
    public init(_ upstream: ByteSource) throws {
        self.upstream = upstream
        let status = inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw FirePackError(.ioFailure, "zlib inflateInit failed (\(status))") }
    }

    deinit { inflateEnd(&stream) }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        return try input.withUnsafeMutableBytes { inputBuffer in
            while true {
                if stream.avail_in == 0 && !inputEnded {
                    let count = try upstream.read(into: inputBuffer)
                    if count == 0 { inputEnded = true }
                    stream.next_in = inputBuffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_in = uInt(count)
                }
                // buffer.count > 0 (guard above)
                stream.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
                let offered = min(buffer.count, Int(UInt32.max))  // zlib's lengths are 32-bit
                stream.avail_out = uInt(offered)
                let status = inflate(&stream, Z_NO_FLUSH)
                let produced = offered - Int(stream.avail_out)
                switch status {
                case Z_STREAM_END:
                    // Zero bytes after a member (padding to a block size, as tape and some tools write) end the data,
                    // as gzip(1) takes them; anything else that follows must be another member.
                    if try skipsTrailingZeros(inputBuffer) {
                        finished = true
                        return produced
                    }
                    // Another gzip member may follow.
                    if stream.avail_in > 0 || !inputEnded {
                        // `inflateReset` sets `total_in` back to 0: the members before count toward error offsets.
                        membersBefore += Int(stream.total_in)
                        inflateReset(&stream)
                        memberEnded = true
                    } else {
                        finished = true
                    }
                    if produced > 0 || finished { return produced }
                case Z_OK, Z_BUF_ERROR:
                    if produced > 0 { return produced }
                    if inputEnded && stream.avail_in == 0 {
                        // At a member boundary (reset, nothing of a next member read) the end of input is clean.
                        if memberEnded && stream.total_in == 0 {
                            finished = true
                            return 0
                        }
                        throw FirePackError(
                            .truncated, offset: membersBefore + Int(stream.total_in),
                            "gzip data ends before its end marker")
                    }
                default:
                    let message = stream.msg.map { String(cString: $0) } ?? "status \(status)"
                    throw FirePackError(
                        .invalidValue, offset: membersBefore + Int(stream.total_in), "corrupt gzip data: \(message)")
                }
            }
        }
    }
}

extension GzipSource {
    /// After a member: whether only zero bytes follow to the end of the input (read on to find out, in `buffer`);
    /// false, having consumed nothing of it, when the next byte is not zero. A non-zero byte after zeros is an error:
    /// neither padding nor a member.
    func skipsTrailingZeros(_ buffer: UnsafeMutableRawBufferPointer) throws -> Bool {
        if stream.avail_in == 0 && !inputEnded {
            let count = try upstream.read(into: buffer)
            if count == 0 { inputEnded = true }
            stream.next_in = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(count)
        }
        guard stream.avail_in > 0, stream.next_in[0] == 0 else { return false }
        var offset = membersBefore + Int(stream.total_in)
        while true {
            for index in 0..<Int(stream.avail_in) where stream.next_in[index] != 0 {
                throw FirePackError(
                    .invalidValue, offset: offset + index,
                    "corrupt gzip data: a byte other than zero after the zero bytes that follow the last member")
            }
            offset += Int(stream.avail_in)
            stream.avail_in = 0
            guard !inputEnded else { return true }
            let count = try upstream.read(into: buffer)
            if count == 0 { return true }
            stream.next_in = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(count)
        }
    }
}

/// Compresses into gzip format as bytes are written, chunk by chunk.
public final class GzipSink: ByteSink {
    let downstream: ByteSink
    var stream = z_stream()
    var output = [UInt8](repeating: 0, count: 1 << 16)

    /// Compresses into `downstream` at `level` (0 … 9; 6 is zlib's default).
    public init(_ downstream: ByteSink, level: Int32 = 6) throws {
        self.downstream = downstream
        let status = deflateInit2_(
            &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)
        )
        guard status == Z_OK else { throw FirePackError(.ioFailure, "zlib deflateInit failed (\(status))") }
    }

    deinit { deflateEnd(&stream) }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress else { return }
        // zlib takes a 32-bit length: larger buffers go through in pieces (`uInt(count)` would trap past 4 GiB).
        var offset = 0
        while offset < bytes.count {
            let piece = min(bytes.count - offset, Int(UInt32.max))
            stream.next_in = UnsafeMutablePointer(mutating: (base + offset).assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(piece)
            try pump(flush: Z_NO_FLUSH)
            offset += piece
        }
    }

    public func finish() throws {
        stream.avail_in = 0
        try pump(flush: Z_FINISH)
        try downstream.finish()
    }

    private func pump(flush: Int32) throws {
        try output.withUnsafeMutableBytes { out in
            repeat {
                stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(out.count)
                let status = deflate(&stream, flush)
                guard status != Z_STREAM_ERROR else { throw FirePackError(.ioFailure, "zlib deflate failed") }
                let produced = out.count - Int(stream.avail_out)
                if produced > 0 { try downstream.write(UnsafeRawBufferPointer(rebasing: out[..<produced])) }
                if flush == Z_FINISH && status == Z_STREAM_END { return }
            } while stream.avail_out == 0 || (flush == Z_FINISH)
        }
    }
}

/// zlib's CRC-32 (the checksum of stream records): by carry-less multiplication where the CPU has it
/// (`CFirePackCRC32`), for the longest multiple of 16 bytes from 64 on, and zlib's `crc32` for the rest.
package func crc32(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress else { return 0 }
    var crc: UInt32 = 0
    var offset = 0
    if bytes.count >= 64 && firepack_crc32_fold_available() == 1 {
        let folded = bytes.count & ~15
        crc = firepack_crc32_fold(crc, base.assumingMemoryBound(to: UInt8.self), folded)
        offset = folded
    }
    return zlibCRC32(crc, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
}

/// zlib's table-driven CRC-32 of `bytes`, continuing `crc`.
package func zlibCRC32(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
    guard let base = bytes.baseAddress else { return crc }
    // zlib takes a 32-bit length: larger buffers go through in pieces (`uInt(count)` would trap past 4 GiB).
    var crc = uLong(crc)
    var offset = 0
    while offset < bytes.count {
        let piece = min(bytes.count - offset, Int(UInt32.max))
        crc = CZlib.crc32(crc, (base + offset).assumingMemoryBound(to: Bytef.self), uInt(piece))
        offset += piece
    }
    return UInt32(crc)
}
