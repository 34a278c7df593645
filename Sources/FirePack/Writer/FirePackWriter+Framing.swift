extension FirePackWriter {
    /// Appends raw framing bytes between root values (a stream's record header, a file header): they count as
    /// complete, so `flush()` sends them with the values around them. Only at depth 0.
    ///
    /// Takes `[UInt8]`, not a generic collection: unspecialized across modules, a generic byte loop cost a tuple
    /// metadata lookup per byte (guarded by `Stream JSON lines to fpks`).
    package func writeFraming(_ bytes: [UInt8]) {
        precondition(depth == 0, "framing goes between root values, not inside one")
        reserve(bytes.count)
        bytes.withUnsafeBytes { appendRaw($0) }
        completedEnd = writerIndex
    }

    /// Appends framing bytes that `body` writes into the `maximum` bytes of space it is given (a compressor's
    /// output), keeping the `count` it returns. Only at depth 0.
    package func writeFraming(atMost maximum: Int, _ body: (UnsafeMutableRawBufferPointer) throws -> Int) rethrows {
        precondition(depth == 0, "framing goes between root values, not inside one")
        reserve(maximum)
        let count = try body(UnsafeMutableRawBufferPointer(start: storage + writerIndex, count: maximum))
        precondition(count >= 0 && count <= maximum, "framing writes inside the space it was given")
        writerIndex += count
        completedEnd = writerIndex
    }

    /// Overwrites four framing bytes at `index` (inside the complete bytes still buffered) with `value`, little-endian.
    package func setFraming(_ value: UInt32, at index: Int) {
        precondition(index >= 0 && index + 4 <= completedEnd, "framing is set inside the complete, buffered bytes")
        storeLittleEndian(value, at: index)
    }

    /// Replaces one byte of framing already written (a block header's codec) at `index`.
    package func setFraming(byte value: UInt8, at index: Int) {
        precondition(index >= 0 && index < completedEnd, "framing is set inside the complete, buffered bytes")
        storage[index] = value
    }

    /// Runs `body` over the complete bytes from `start` (a buffer index, as `writerIndex` gives) to the end.
    package func withUnsafeWrittenBytes<R>(from start: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    {
        precondition(start >= 0 && start <= completedEnd, "the start lies inside the complete, buffered bytes")
        return try body(UnsafeRawBufferPointer(start: storage + start, count: completedEnd - start))
    }

    /// Drops the complete bytes from `index` on (a record that turned out too large), as if never written.
    package func discardCompleted(from index: Int) {
        precondition(depth == 0 && index >= 0 && index <= completedEnd, "only complete bytes at depth 0 can be dropped")
        writerIndex = index
        completedEnd = index
        resetKeys()
    }
}
