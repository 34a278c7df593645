#if FirePackNIO
public import FirePack
public import NIOCore

extension ByteBuffer {
    /// Encodes `value` with FirePack straight into the buffer's storage at the writer index.
    ///
    /// On success the writer index moves past the bytes written, and their number is returned. On failure the
    /// buffer's indices and readable bytes are as they were (bytes past the writer index may have been overwritten).
    ///
    /// The value is encoded in place in the buffer's writable bytes (at least `minimumWritableBytes`, more when the
    /// buffer already has them); only a value that outgrows them is finished in the encoder's own memory and copied
    /// in once. Reserve capacity first (`reserveCapacity(minimumWritableBytes:)`) to keep large values in place.
    /// Types with `@FirePackCodable` take the generated path, as with `FirePackEncoder.encode(_:)`.
    @discardableResult
    public mutating func writeFirePack<T: Encodable>(
        _ value: T, encoder: FirePackEncoder = FirePackEncoder(),
        minimumWritableBytes: Int = 1024
    ) throws -> Int {
        var spilled: FirePackWriter?
        let written = try writeWithUnsafeMutableBytes(minimumWritableBytes: minimumWritableBytes) { space in
            let writer = try encoder.encode(value, borrowing: space)
            guard writer.isWritingInBorrowedMemory else {
                spilled = writer
                return 0
            }
            return writer.writerIndex
        }
        guard let spilled else { return written }
        return spilled.withUnsafeWrittenBytes { writeBytes($0) }
    }

    /// Decodes a value from the `length` readable bytes at the reader index, without copying them.
    ///
    /// On success the reader index moves past the `length` bytes. If fewer than `length` bytes are readable, returns
    /// nil and leaves the reader index where it was; if the bytes do not decode, throws the decoder's
    /// `DecodingError` (whose byte offsets count from the reader index) and leaves the reader index where it was.
    public mutating func readFirePack<T: Decodable>(
        _ type: T.Type, decoder: FirePackDecoder = FirePackDecoder(),
        length: Int
    ) throws -> T? {
        guard let value = try getFirePack(type, at: readerIndex, length: length, decoder: decoder) else { return nil }
        moveReaderIndex(forwardBy: length)
        return value
    }

    /// Decodes a value from all the readable bytes, without copying them (an HTTP body, a framed message).
    ///
    /// Bytes from a network are checked whole, skipped fields included, unless the decoder's `inputValidation` is
    /// `.lazy` (as for every method here): a body `firepack validate` refuses is refused here too.
    ///
    /// On success the reader index moves to the writer index. On failure it throws the decoder's `DecodingError`
    /// (byte offsets count from the reader index) and leaves the reader index where it was.
    public mutating func readFirePack<T: Decodable>(_ type: T.Type, decoder: FirePackDecoder = FirePackDecoder()) throws
        -> T
    {
        let length = readableBytes
        let value = try withUnsafeReadableBytes { try decoder.decode(type, fromUntrusted: $0) }
        moveReaderIndex(forwardBy: length)
        return value
    }

    /// Decodes a value from the `length` bytes at `index`, without copying them or moving the reader index.
    ///
    /// The bytes must lie within the readable bytes (`readerIndex ..< writerIndex`); otherwise returns nil. If they do
    /// not decode, throws the decoder's `DecodingError`, whose byte offsets count from `index`.
    public func getFirePack<T: Decodable>(
        _ type: T.Type, at index: Int, length: Int,
        decoder: FirePackDecoder = FirePackDecoder()
    ) throws -> T? {
        guard index >= readerIndex, length >= 0, index <= writerIndex, length <= writerIndex - index else { return nil }
        return try withUnsafeReadableBytes { readable in
            let start = index - readerIndex
            return try decoder.decode(
                type, fromUntrusted: UnsafeRawBufferPointer(rebasing: readable[start..<start + length]))
        }
    }
}
#endif
