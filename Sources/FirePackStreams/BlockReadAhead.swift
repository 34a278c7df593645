import Dispatch
import FirePack

/// A version-3 block unpacked — decompressed, its rows rebuilt from columns, its lengths checked — on a thread of
/// its own while the reader hands out the records of the block before it (`DocumentStreamReader.readsBlocksAhead`).
///
/// Unpacking is a function of a block's bytes and the reader's limits alone
/// (`DocumentStreamReader.unpack(block:at:maxSize:maxExpansion:into:)`), which reports nothing: the reader still
/// opens every block itself, reports what it reports in order, and takes the result from here only for the same bytes
/// at the same offset under the same limits (`take`), so reading ahead changes when the work is done, never what is
/// read. The block is copied as stored (a fraction of its records' bytes when compressed), since
/// the reader's buffer moves on.
///
/// The reader's thread is the only caller.
final class BlockReadAhead: @unchecked Sendable {
    // @unchecked: `copy`, `block` and `result` belong to the reader's thread except between `start` and the `wait()`
    // in `take` or `finish`, when they belong to the job on `queue`; `done` orders the two.
    private let queue = DispatchQueue(label: "FirePackStreams.BlockReadAhead")
    private let done = DispatchSemaphore(value: 0)
    /// Whether a job was started and not yet waited for.
    private var running = false
    /// The block as stored, copied, and its stream offset.
    private var copy: UnsafeMutableRawPointer?
    private var copyCapacity = 0
    private var count = 0
    private var offset = -1
    /// The expansion the block was unpacked under (`DocumentStreamReader.maxBlockExpansion`).
    private var expansion = 0
    /// The unpacked block's buffers (exchanged with the reader's when taken) and what unpacking it gave.
    private var block = OpenBlock()
    private var result: Result<DocumentStreamReader.BlockHeader, DocumentStreamReader.InvalidBlock>?
    /// How many blocks were taken from here (for tests: that reading ahead took place).
    private(set) var taken = 0

    deinit {
        finish()
        copy?.deallocate()
        block.data?.deallocate()
        block.columns?.deallocate()
    }

    /// Starts unpacking the block whose body (as stored, not yet checked against its CRC-32) is `body`, at stream
    /// offset `blockOffset`, for records of up to `maxSize` bytes and `maxExpansion` bytes unpacked per byte in the
    /// stream.
    func start(_ body: UnsafeRawBufferPointer, at blockOffset: Int, maxSize: Int, maxExpansion: Int) {
        finish()
        if body.count > copyCapacity || copy == nil {
            copy?.deallocate()
            copyCapacity = Swift.max(body.count, 1 << 16)
            copy = .allocate(byteCount: copyCapacity, alignment: 16)
        }
        if let base = body.baseAddress { copy!.copyMemory(from: base, byteCount: body.count) }
        (count, offset, expansion, result, running) = (body.count, blockOffset, maxExpansion, nil, true)
        queue.async { [self] in
            result = DocumentStreamReader.unpack(
                block: UnsafeRawBufferPointer(start: copy, count: count), at: blockOffset, maxSize: maxSize,
                maxExpansion: maxExpansion, into: &block)
            done.signal()
        }
    }

    /// What unpacking the block gave when it is `body` (checked against its CRC-32 by the reader) at `blockOffset`,
    /// unpacked under `maxExpansion`, with its buffers exchanged for `openBlock`'s (whose records are no longer valid
    /// once the reader opens another block); nil, exchanging nothing, for any other block.
    func take(
        _ body: UnsafeRawBufferPointer, at blockOffset: Int, maxExpansion: Int, swappingWith openBlock: inout OpenBlock
    ) -> Result<DocumentStreamReader.BlockHeader, DocumentStreamReader.InvalidBlock>? {
        finish()
        guard let result, blockOffset == offset, body.count == count, maxExpansion == expansion, let copy,
            count == 0 || ByteComparison.equal(copy, body.baseAddress!, count: count)
        else { return nil }
        self.result = nil
        offset = -1
        taken += 1
        swap(&openBlock.data, &block.data)
        swap(&openBlock.capacity, &block.capacity)
        swap(&openBlock.columns, &block.columns)
        swap(&openBlock.columnsCapacity, &block.columnsCapacity)
        return result
    }

    /// Waits for the job started last, if it is still running.
    func finish() {
        guard running else { return }
        done.wait()
        running = false
    }
}
