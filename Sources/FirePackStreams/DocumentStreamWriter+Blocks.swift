@_spi(Wire) import FirePack

// Version-3 blocks (Docs/FORMAT.md §8): documents gathered in `block`, written out as one framed block — marker,
// length, CRC-32, then the block header and the data as `codec` stores it — and listed for the index.
extension DocumentStreamWriter {
    /// The most data (documents and their lengths) one block holds: the record limit, less room for the block
    /// header, so that a block stored as it is (`BlockCodec.none`) stays within the limit too.
    static var maxBlockData: Int { DocumentStreamFormat.defaultMaxRecordLength - 64 }

    /// Adds the document that `block` holds from `start` on to the open block, or drops it (throwing) when readers
    /// would refuse it; closes the block once it reaches `blockSize`.
    func finishBlockRecord(from start: Int) throws {
        guard let block else { return }
        if let violation = block.limitViolation {
            block.resetLimitViolation()
            block.discardCompleted(from: start)
            throw refusal(violation)
        }
        let length = block.writerIndex - start
        let lengthBytes = Varint.encodedSize(UInt64(length))
        guard length + lengthBytes <= Self.maxBlockData else {
            block.discardCompleted(from: start)
            throw oversized(length)
        }
        if start > 0 && block.writerIndex + blockLengthBytes + lengthBytes > Self.maxBlockData {
            // The block would pass the limit with this document: the block goes out without it, and it starts the
            // next one (a copy, only for documents of tens of MiB).
            let document = block.withUnsafeWrittenBytes(from: start) { [UInt8]($0) }
            block.discardCompleted(from: start)
            try writeBlock()
            // `writeBlock()` may have handed `block` to the compressor: the next block is `self.block`.
            self.block?.writeFraming(document)
        }
        blockLengths.append(length)
        blockLengthBytes += lengthBytes
        recordCount += 1
        if self.block?.writerIndex ?? 0 >= blockSize { try writeBlock() }
    }

    /// Writes the open block, if it holds a record: its lengths after its documents, then the framed block into the
    /// output, stored as `storeBlock` stores it. A compressed
    /// block is handed to the `BlockCompressor` and reaches the output when the next block does, or at `flush()`,
    /// `close()` or deinit (`writeCompressedBlock()`).
    func writeBlock() throws {
        guard let block, !blockLengths.isEmpty else { return }
        // The oldest block in flight goes out first when two are: if the sink refuses it, the open block is still
        // whole (as in place).
        if storesInBackground {
            if let compressor, compressor.isFull { try writeOldestCompressedBlock() }
        } else {
            // Blocks handed to the thread before it was turned off go out before this one.
            try writeCompressedBlock()
        }
        let documents = block.writerIndex
        var lengths = [UInt8](repeating: 0, count: blockLengthBytes)
        lengths.withUnsafeMutableBufferPointer { buffer in
            var index = 0
            for length in blockLengths { index += Varint.write(UInt64(length), to: buffer.baseAddress! + index) }
        }
        block.writeFraming(lengths)
        let count = blockLengths.count
        let first = existingRecords + recordCount - count
        blockLengths.removeAll(keepingCapacity: true)
        blockLengthBytes = 0
        if storesInBackground {
            let compressor = self.compressor ?? BlockCompressor(codec: codec, spare: Self.blockBuffer(like: block))
            self.compressor = compressor
            self.block = compressor.start(block, count: count, first: first, documents: documents)
            return
        }

        var body: [UInt8] = []
        let bodyCount = try block.withUnsafeWrittenBytes(from: 0) { data in
            try Self.storeBlock(
                data, codec: codec, count: count, first: first, documents: documents, into: &body,
                layout: blockLayout)
        }
        block.clear()
        let unitStart = writer.writerIndex
        writer.writeFraming(DocumentStreamFormat.recordHeaderTemplate)  // length and CRC are set below
        let bodyStart = writer.writerIndex
        body.withUnsafeBytes { stored in
            writer.writeFraming(atMost: bodyCount) { output in
                output.baseAddress!.copyMemory(from: stored.baseAddress!, byteCount: bodyCount)
                return bodyCount
            }
        }
        try finishUnit(from: unitStart, bodyStart: bodyStart, count: count)
    }

    /// Whether blocks are stored by the `BlockCompressor`, on threads of their own (a layout for tests is stored in
    /// place).
    var storesInBackground: Bool { storesBlocksInBackground && blockLayout == .automatic }

    /// Writes into `body` (from its start, growing it as needed) a block's body as stored: its header, then its
    /// data — `data`, `count` documents of `documents` bytes and their lengths — in the columns form with numbered
    /// keys when the columns give the rows back and are worth it (`BlockColumns.split`: few paths for the values;
    /// with codec `none`, smaller than the rows), compressed with `codec`; or the rows as they are when compressing
    /// does not make them smaller (already compressed data, tiny blocks); a body shorter than readers allow for
    /// what it unpacks into (`leastBody`) made up to it. Returns the body's size. The background
    /// compressor and the writer's own thread store blocks alike, through here. A `layout` for tests (`.rows`, or
    /// with codec `none` the columns whenever the documents split) overrides the choice.
    static func storeBlock(
        _ data: UnsafeRawBufferPointer, codec: BlockCodec, count: Int, first: Int, documents: Int,
        into body: inout [UInt8], splitter: ColumnSplitter? = nil, layout: BlockLayout = .automatic
    ) throws -> Int {
        // A splitter of the call's own only when none is kept.
        lazy var columnSplitter = splitter ?? ColumnSplitter()
        let numbersKeys = layout != .columnsWithKeysAsWritten
        let columnsFlags = numbersKeys ? BlockColumns.numberedForm : BlockColumns.flag
        if codec == .none && layout != .rows
            && columnSplitter.split(
                data, count: count, documents: documents,
                valuesPerColumn: layout == .automatic ? BlockColumns.valuesPerColumn : 1, numbersKeys: numbersKeys)
            && columnSplitter.columns.count <= maxBlockData
            && (layout != .automatic || columnSplitter.columns.count < data.count)
            && columnSplitter.columns.count >= leastBody(unpacking: columnSplitter.columns.count + data.count)
        {
            let header = blockHeader(
                codec: columnsFlags, count: count, first: first, size: columnSplitter.columns.count,
                documents: documents)
            return columnSplitter.columns.withUnsafeBytes { store(header, $0, into: &body) }
        }
        if codec != .none {
            let split =
                layout != .rows
                && columnSplitter.split(data, count: count, documents: documents, numbersKeys: numbersKeys)
                && columnSplitter.columns.count <= maxBlockData
            /// The block's header and its columns (or its rows) compressed, into `body`; their size, and the header's.
            func compressed(columns: Bool) throws -> (body: Int, header: Int) {
                try columnSplitter.columns.withUnsafeBytes { columnsData in
                    let payload = columns ? columnsData : data
                    let header = blockHeader(
                        codec: codec.rawValue | (columns ? columnsFlags : 0), count: count, first: first,
                        size: payload.count, documents: documents)
                    let partEnds = columns ? columnSplitter.partEnds : []
                    let needed = header.count + codec.compressBound(payload.count, parts: partEnds.count)
                    if body.count < needed { body = [UInt8](repeating: 0, count: needed) }
                    return try body.withUnsafeMutableBytes { output in
                        output.copyBytes(from: header)
                        let written = try codec.compress(
                            payload, into: UnsafeMutableRawBufferPointer(rebasing: output[header.count...]),
                            partEnds: partEnds)
                        return (header.count + written, header.count)
                    }
                }
            }
            // The fewest bytes the body may have for what the block unpacks into (§8, "Expansion"): a zstd body
            // short of it is made up with a skippable frame, which readers pass over; a deflate body gives way to
            // the rows compressed (the columns' rows rebuilt from few bytes: documents repeating long keys), and
            // those to the rows as they are (deflate gives at most about 1,032 bytes per byte: megabytes of a run).
            var least = Self.leastBody(unpacking: data.count + (split ? columnSplitter.columns.count : 0))
            var (stored, header) = try compressed(columns: split)
            if stored < least && codec == .zstd {
                let written = stored
                stored = Swift.max(least, written + BlockCodec.skippableFrameHeader)
                if body.count < stored { body += [UInt8](repeating: 0, count: stored - body.count) }
                body.withUnsafeMutableBytes {
                    BlockCodec.writeSkippableFrame(into: UnsafeMutableRawBufferPointer(rebasing: $0[written..<stored]))
                }
            } else if stored < least && split {
                least = Self.leastBody(unpacking: data.count)
                (stored, header) = try compressed(columns: false)
            }
            // Stored when compressing made the data smaller than the rows (padding included).
            if stored - header < data.count && stored >= least { return stored }
        }
        let header = blockHeader(
            codec: BlockCodec.none.rawValue, count: count, first: first, size: data.count, documents: documents)
        return store(header, data, into: &body)
    }

    /// The fewest bytes a block's body may have when the block unpacks into `unpacked` bytes (its data, and in the
    /// columns form its rows): what readers allow per byte of it in the stream (Docs/FORMAT.md §8, "Expansion").
    static func leastBody(unpacking unpacked: Int) -> Int {
        let perByte = DocumentStreamFormat.maxBlockExpansion
        return (unpacked + perByte - 1) / perByte - DocumentStreamFormat.recordHeaderLength
    }

    /// Writes `header` and then `data`, stored as it is, into `body` (from its start, growing it as needed); returns
    /// their size.
    private static func store(_ header: [UInt8], _ data: UnsafeRawBufferPointer, into body: inout [UInt8]) -> Int {
        let needed = header.count + data.count
        if body.count < needed { body = [UInt8](repeating: 0, count: needed) }
        body.withUnsafeMutableBytes { output in
            output.copyBytes(from: header)
            if data.count > 0 {
                (output.baseAddress! + header.count).copyMemory(from: data.baseAddress!, byteCount: data.count)
            }
        }
        return needed
    }

    /// Writes the blocks the `BlockCompressor` holds, if any, in order, once each is stored: the output then has
    /// every block given so far.
    func writeCompressedBlock() throws {
        while let compressor, !compressor.isEmpty { try writeOldestCompressedBlock() }
    }

    /// Writes the oldest block the `BlockCompressor` holds, once it is stored.
    func writeOldestCompressedBlock() throws {
        try compressor?.finishOldest { body, count in
            let unitStart = writer.writerIndex
            writer.writeFraming(DocumentStreamFormat.recordHeaderTemplate)  // length and CRC are set below
            let bodyStart = writer.writerIndex
            writer.writeFraming(atMost: body.count) { output in
                output.baseAddress!.copyMemory(from: body.baseAddress!, byteCount: body.count)
                return body.count
            }
            try finishUnit(from: unitStart, bodyStart: bodyStart, count: count)
        }
    }

    /// Fills in the length and CRC-32 of the block written from `unitStart` (its body from `bodyStart`), holding
    /// `count` records, and lists it for the index.
    private func finishUnit(from unitStart: Int, bodyStart: Int, count: Int) throws {
        let bodyLength = writer.writerIndex - bodyStart
        writer.setFraming(UInt32(bodyLength), at: unitStart + 4)
        writer.setFraming(writer.withUnsafeWrittenBytes(from: bodyStart) { crc32($0) }, at: unitStart + 8)
        blocks.append((streamOffset, count))
        streamOffset += writer.writerIndex - unitStart
        try writer.flushIfNeeded()
    }

    /// An empty buffer for a block, with `block`'s options.
    static func blockBuffer(like block: FirePackWriter) -> FirePackWriter {
        FirePackWriter(options: block.options)
    }

    /// A block header: the codec byte (`BlockCodec` and `BlockColumns.flag`), then record count, records before the
    /// block, data size and documents' size as varints.
    static func blockHeader(codec: UInt8, count: Int, first: Int, size: Int, documents: Int) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 41)
        header[0] = codec
        var index = 1
        header.withUnsafeMutableBufferPointer { buffer in
            for value in [count, first, size, documents] {
                index += Varint.write(UInt64(value), to: buffer.baseAddress! + index)
            }
        }
        return Array(header[..<index])
    }

    /// Writes the index of every block (marker, length, CRC-32, then the block count and, per block, its offset
    /// after the previous block's and its record count, as varints); returns its offset, or 0 when the stream has
    /// no block or the index would pass the record limit (readers then scan).
    func writeIndex() -> Int {
        guard !blocks.isEmpty else { return 0 }
        var body = [UInt8](repeating: 0, count: 10 + 20 * blocks.count)
        var index = 0
        body.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            index += Varint.write(UInt64(blocks.count), to: base)
            var previous = 0
            for block in blocks {
                index += Varint.write(UInt64(block.offset - previous), to: base + index)
                index += Varint.write(UInt64(block.count), to: base + index)
                previous = block.offset
            }
        }
        guard index <= DocumentStreamFormat.defaultMaxRecordLength else { return 0 }
        body.removeSubrange(index...)
        let offset = streamOffset
        var record = DocumentStreamFormat.indexMarker
        withUnsafeBytes(of: UInt32(body.count).littleEndian) { record += $0 }
        withUnsafeBytes(of: body.withUnsafeBytes { crc32($0) }.littleEndian) { record += $0 }
        writer.writeFraming(record + body)
        streamOffset += record.count + body.count
        return offset
    }
}

/// How a writer lays out a block's documents (Docs/FORMAT.md §8, "Columns").
enum BlockLayout {
    /// The columns form with numbered keys where it pays (a compressed block: few paths for the values; one stored
    /// as it is: smaller than the rows as well), otherwise the rows: what every writer writes.
    case automatic
    /// The rows, always (tests that look at them).
    case rows
    /// With codec `none`, the columns form with numbered keys whenever the documents split (tests and fuzzing).
    case columns
    /// With codec `none`, the columns form with the keys as written (codec byte `10`), whenever the documents
    /// split: what writers wrote before numbered keys, kept readable (tests and fuzzing).
    case columnsWithKeysAsWritten
}
