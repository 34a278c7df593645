@_spi(Wire) import FirePack

/// The block a version-3 reader is handing out record by record (Docs/FORMAT.md §8): its data decompressed into
/// memory the reader owns, which stays valid until the next block is opened, so a record's payload does too.
struct OpenBlock {
    var data: UnsafeMutableRawPointer?
    var capacity = 0
    /// A block's data in the columns form, decompressed, before its rows are rebuilt into `data`.
    var columns: UnsafeMutableRawPointer?
    var columnsCapacity = 0
    /// The block's marker offset, what its records report as theirs.
    var offset = 0
    /// The stream offset of the data's first byte when the block is stored as it is; nil when decompressed.
    var dataOffset: Int?
    /// Where the next record's document and its length are inside `data`, and the end of the lengths.
    var documentCursor = 0
    var lengthCursor = 0
    var size = 0
    /// Records not handed out yet.
    var remaining = 0

    /// `data`, holding `size` bytes at least (reallocated when it holds fewer).
    mutating func dataBuffer(size: Int) -> UnsafeMutableRawPointer {
        Self.buffer(&data, capacity: &capacity, size: size)
    }

    /// `columns`, holding `size` bytes at least (reallocated when it holds fewer).
    mutating func columnsBuffer(size: Int) -> UnsafeMutableRawPointer {
        Self.buffer(&columns, capacity: &columnsCapacity, size: size)
    }

    private static func buffer(_ buffer: inout UnsafeMutableRawPointer?, capacity: inout Int, size: Int)
        -> UnsafeMutableRawPointer
    {
        if size > capacity || buffer == nil {
            buffer?.deallocate()
            capacity = max(size, 1 << 16)
            buffer = .allocate(byteCount: capacity, alignment: 16)
        }
        return buffer!
    }
}

extension DocumentStreamReader {
    /// A block's header fields (Docs/FORMAT.md §8).
    typealias BlockHeader = (
        codec: BlockCodec, columns: Bool, numberedKeys: Bool, count: Int, first: Int, size: Int, documents: Int,
        dataStart: Int
    )

    /// Opens the block whose body (CRC-32 checked) is `body`, at `blockOffset`: reads its header, decompresses its
    /// data and checks that its lengths add up. Returns false when the block is invalid or past the expansion limit
    /// (reported as a problem, `invalidBlock` or `limitExceeded`, at the block's marker; its records are lost, and
    /// counted as such once a later block's header says how many came before it).
    func open(block body: UnsafeRawBufferPointer, at blockOffset: Int) throws -> Bool {
        let header: BlockHeader
        let unpacked: Result<BlockHeader, InvalidBlock>
        if let readAhead,
            let taken = readAhead.take(
                body, at: blockOffset, maxExpansion: maxBlockExpansion, swappingWith: &openBlock)
        {
            unpacked = taken
        } else {
            unpacked = unpack(block: body, at: blockOffset)
        }
        switch unpacked {
        case .success(let unpacked): header = unpacked
        case .failure(let problem):
            if let needed = problem.expansionNeeded {
                blocksPastExpansion += 1
                blockExpansionNeeded = Swift.max(blockExpansionNeeded, needed)
            }
            try report(blockOffset, problem.code, problem.reason)
            return false
        }
        if listsBlocks { blockList.append((blockOffset, header.count)) }
        // Numbers come from the block's `first`, so the records a damaged block took are counted (damage counted
        // one record until now), but never go back below the intact blocks before it (FORMAT.md §8).
        try reportMissingRecords(before: header.first, at: blockOffset)
        if numbersFromStreamStart {
            nextNumber = Swift.max(header.first, intactEnd)
        } else {
            // A range numbers from its own first record, but knows the stream's numbers from the blocks it read.
            blockNumbersEnd = Swift.max(header.first, blockNumbersEnd ?? 0) + header.count
        }
        intactEnd = nextNumber + header.count
        openBlock.offset = blockOffset
        openBlock.dataOffset =
            header.codec == .none && !header.columns
            ? blockOffset + DocumentStreamFormat.recordHeaderLength + header.dataStart : nil
        openBlock.documentCursor = 0
        openBlock.lengthCursor = header.documents
        openBlock.size = header.size
        openBlock.remaining = header.count
        if let readAhead { startReadingAhead(readAhead) }
        return true
    }

    /// Starts unpacking the next block on `readAhead`'s thread when its bytes are in the buffer. From a source that
    /// never waits (`ByteSource.readsWithoutWaiting`: a file, memory) they are read now rather than when the reader
    /// reaches them, which moves nothing the reader has settled (the open block's records are in its own memory);
    /// what the source throws then is left for the read that needs the bytes, which asks again. From any other
    /// source nothing is read early: a pipe's reader gets a block's records without waiting for the next block.
    private func startReadingAhead(_ readAhead: BlockReadAhead) {
        let header = DocumentStreamFormat.recordHeaderLength
        guard bufferOffset + start < rangeEnd else { return }
        let readsEarly = source.readsWithoutWaiting
        if readsEarly { try? fill(atLeast: header) }
        guard end - start >= header, matchesMarker(at: start) else { return }
        let length = Int(load32(at: start + 4))
        guard length <= maxRecordLength else { return }
        if readsEarly { try? fill(atLeast: header + length) }
        guard end - start - header >= length else { return }
        readAhead.start(
            UnsafeRawBufferPointer(start: storage + start + header, count: length), at: bufferOffset + start,
            maxSize: maxRecordLength, maxExpansion: maxBlockExpansion)
    }

    /// Why a block whose CRC-32 checks out is not read: invalid (`invalidBlock`), or past what the reader allows
    /// (`limitExceeded`: `maxBlockExpansion`), which a reader allowing more reads.
    struct InvalidBlock: Error {
        let reason: String
        var code = FirePackError.Code.invalidBlock
        /// Past the expansion limit: how much reading the block needs (at least).
        var expansionNeeded: Int?
    }

    /// Reads the header of the block whose body is `body`, decompresses its data into `openBlock.data` and checks
    /// that its lengths add up; nothing is reported. Both the block a reader opens and the block a range reader stops
    /// at go through it, so that a range reports a gap before a block only when a reader that opens it would.
    func unpack(block body: UnsafeRawBufferPointer, at blockOffset: Int) -> Result<BlockHeader, InvalidBlock> {
        Self.unpack(
            block: body, at: blockOffset, maxSize: maxRecordLength, maxExpansion: maxBlockExpansion, into: &openBlock)
    }

    /// `unpack(block:at:)` into `openBlock`, for a block whose records may be `maxSize` bytes and whose unpacking may
    /// give `maxExpansion` bytes per byte of it in the stream: the reader's own, or the next block's on a thread that
    /// reads ahead (`BlockReadAhead`).
    static func unpack(
        block body: UnsafeRawBufferPointer, at blockOffset: Int, maxSize maxRecordLength: Int, maxExpansion: Int,
        into openBlock: inout OpenBlock
    ) -> Result<BlockHeader, InvalidBlock> {
        let bodyOffset = blockOffset + DocumentStreamFormat.recordHeaderLength
        var header: BlockHeader
        do throws(FirePackError) {
            header = try Self.blockHeader(body, maxSize: maxRecordLength)
        } catch {
            return .failure(
                InvalidBlock(
                    reason: "invalid block header at byte \(bodyOffset + (error.offset ?? 0)): \(error.message)"))
        }
        // What unpacking may give (§8, "Expansion"), checked before each step that gives it: decompressing `size`
        // bytes, then rebuilding the rows of the columns form (compared with what `size` leaves of the allowance, so
        // that no sum can overflow).
        let inStream = body.count + DocumentStreamFormat.recordHeaderLength
        let (product, overflow) = inStream.multipliedReportingOverflow(by: maxExpansion)
        let allowance = overflow ? Int.max : product
        // Past the reader's limit, refused before it is unpacked: a stream that FirePack wrote before the rule, or
        // another writer's, may hold such blocks, and a reader allowing as much as the message says (at least)
        // reads them. What they need (`needing` bytes unpacked) counts, in the columns form, the rows too: when only
        // `size` was checked, at least the documents and a byte of length each.
        func sum(_ a: Int, _ b: Int) -> Int {
            let (sum, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : sum
        }
        func expansion(_ what: String, _ bytes: String, needing: Int) -> InvalidBlock {
            let needed = needing / inStream + (needing % inStream == 0 ? 0 : 1)
            return InvalidBlock(
                reason:
                    "a \(header.codec) block whose \(what) (\(bytes) bytes) would be more than \(maxExpansion) times its \(inStream) bytes in the stream: past the block-expansion limit, refused before it was unpacked (reading it needs a limit of at least \(needed))",
                code: .limitExceeded, expansionNeeded: needed)
        }
        guard header.size <= allowance else {
            let least = header.columns ? sum(header.size, sum(header.documents, header.count)) : header.size
            return .failure(expansion("data", "\(header.size)", needing: least))
        }
        let stored = UnsafeRawBufferPointer(rebasing: body[header.dataStart...])
        if header.columns {
            // Decompressed into a buffer of its own, then the rows rebuilt into the block's data.
            let columns = openBlock.columnsBuffer(size: header.size)
            let form = UnsafeMutableRawBufferPointer(start: columns, count: header.size)
            if let problem = header.codec.decompress(stored, into: form) {
                return .failure(
                    InvalidBlock(reason: "a \(header.codec) block whose data does not decompress: \(problem)"))
            }
            do throws(FirePackError) {
                let rows = try BlockColumns.rowsSize(
                    UnsafeRawBufferPointer(form), count: header.count, documents: header.documents,
                    maxSize: maxRecordLength)
                guard rows <= allowance - header.size else {
                    return .failure(
                        expansion(
                            "data and the rows rebuilt from it", "\(header.size) + \(rows)",
                            needing: sum(header.size, rows)))
                }
                let data = openBlock.dataBuffer(size: rows)
                try BlockColumns.join(
                    UnsafeRawBufferPointer(form), count: header.count, documents: header.documents,
                    numberedKeys: header.numberedKeys, into: UnsafeMutableRawBufferPointer(start: data, count: rows))
                header.size = rows
            } catch {
                return .failure(
                    InvalidBlock(
                        reason:
                            "the block's columns do not give its documents back (byte \(error.offset ?? 0) of its data): \(error.message)"
                    ))
            }
        } else {
            let data = openBlock.dataBuffer(size: header.size)
            if let problem = header.codec.decompress(
                stored, into: UnsafeMutableRawBufferPointer(start: data, count: header.size))
            {
                return .failure(
                    InvalidBlock(reason: "a \(header.codec) block whose data does not decompress: \(problem)"))
            }
        }
        // The lengths, after the documents: `count` varints that end exactly at the data's end and add up to the
        // documents' bytes (in the columns form, checked by `rowsSize` before the rows were rebuilt).
        if !header.columns, let problem = Self.checkLengths(openBlock.data!, of: header) {
            return .failure(problem)
        }
        return .success(header)
    }

    /// Nil when the lengths of the block `header` describes, after its documents in `data`, add up to them and end
    /// exactly at the data's end; else why not.
    private static func checkLengths(_ data: UnsafeMutableRawPointer, of header: BlockHeader) -> InvalidBlock? {
        do throws(FirePackError) {
            let end = try BlockLengths.end(
                in: data, from: header.documents, limit: header.size, count: header.count, documents: header.documents)
            guard end == header.size else {
                throw FirePackError(.lengthMismatch, offset: end, "\(header.size - end) bytes follow the last length")
            }
        } catch {
            return InvalidBlock(
                reason:
                    "the block's record lengths do not match its documents (byte \(error.offset ?? 0) of its data): \(error.message)"
            )
        }
        return nil
    }

    /// `missingRecords` at the intact block at `blockOffset` whose header says `first` records came before it, when
    /// that is more than the stream's number after the last intact block (`streamNumber`), with nothing damaged
    /// between (damage takes a number): FORMAT.md §8, for a whole-stream reader and a range alike (Docs/ARROW.md,
    /// "Splits"). Numbered as the reader's other problems are.
    func reportMissingRecords(before first: Int, at blockOffset: Int) throws {
        guard let expected = streamNumber, first > expected, nextNumber == intactEnd else { return }
        try report(
            blockOffset, .missingRecords,
            "records \(expected)–\(first - 1) are missing: the block says \(first) came before it, and no damaged record or block lies between",
            number: nextNumber)
    }

    /// The open block's next record (its lengths were checked when it was opened).
    func nextInBlock() -> StreamRecord {
        let data = UnsafeRawPointer(openBlock.data!)
        let (length, next) = try! Varint.get(data, at: openBlock.lengthCursor, limit: openBlock.size)
        let payload = UnsafeRawBufferPointer(start: data + openBlock.documentCursor, count: length)
        let payloadOffset = openBlock.dataOffset.map { $0 + openBlock.documentCursor }
        openBlock.documentCursor += length
        openBlock.lengthCursor = next
        openBlock.remaining -= 1
        let number = nextNumber
        nextNumber += 1
        return StreamRecord(number: number, offset: openBlock.offset, payload: payload, payloadOffset: payloadOffset)
    }

    /// A block header: codec byte, then record count, records before the block, data size and documents' size as
    /// varints, checked against each other and the limit. Offsets in errors are inside `body`.
    static func blockHeader(_ body: UnsafeRawBufferPointer, maxSize: Int) throws(FirePackError) -> BlockHeader {
        guard let base = body.baseAddress, body.count > 0 else {
            throw FirePackError(.truncated, offset: 0, "an empty block")
        }
        let codecByte = base.load(as: UInt8.self)
        let columns = codecByte & BlockColumns.flag != 0
        let numberedKeys = codecByte & BlockColumns.numberedKeysFlag != 0
        guard let codec = BlockCodec(rawValue: codecByte & ~(BlockColumns.flag | BlockColumns.numberedKeysFlag)),
            columns || !numberedKeys
        else {
            throw FirePackError(
                .unsupportedVersion, offset: 0,
                "codec byte 0x\(String(codecByte, radix: 16)) (this reader knows 00 none, 01 deflate, 02 zstd, each with 10 for columns or 30 for columns with numbered keys)"
            )
        }
        let (count, afterCount) = try Varint.get(base, at: 1, limit: body.count)
        let (first, afterFirst) = try Varint.get(base, at: afterCount, limit: body.count)
        let (size, afterSize) = try Varint.get(base, at: afterFirst, limit: body.count)
        let (documents, dataStart) = try Varint.get(base, at: afterSize, limit: body.count)
        guard count >= 1 else { throw FirePackError(.lengthMismatch, offset: 1, "a block holds at least one record") }
        // Record numbers stay far from overflow whatever a crafted header claims (FORMAT.md §8).
        guard first <= DocumentStreamFormat.maxRecordNumber - count else {
            throw FirePackError(
                .limitExceeded, offset: afterCount,
                "records up to \(first) + \(count), past the \(DocumentStreamFormat.maxRecordNumber) a stream may number"
            )
        }
        guard size <= maxSize else {
            throw FirePackError(
                .limitExceeded, offset: afterFirst, "data of \(size) bytes, past the limit of \(maxSize)")
        }
        // Each record's length takes at least one byte after the documents (in the columns form, before its keys and
        // columns, which leave out bytes of the documents: their rows, rebuilt, are held to the limit).
        guard columns ? documents <= maxSize && count <= size : documents <= size && count <= size - documents else {
            throw FirePackError(
                .lengthMismatch, offset: afterSize,
                "\(count) records with \(documents) bytes of documents do not fit in \(size) bytes of data")
        }
        return (codec, columns, numberedKeys, count, first, size, documents, dataStart)
    }

    /// Checks and passes over an index (version 3) met while reading in order: its blocks were or will be read
    /// themselves. A damaged index is reported, as a close record is, without a record number of its own; one the
    /// stream ends inside (the writer stopped while closing) loses no record: the stream is not closed.
    func skipIndex(at indexOffset: Int) throws {
        guard end - start >= DocumentStreamFormat.recordHeaderLength else {
            (tornClosing, tornClosingOffset) = ("an index", indexOffset)
            start = end
            return
        }
        guard let index = try checkedPayload(at: indexOffset, unit: "index", number: nextNumber) else { return }
        start += DocumentStreamFormat.recordHeaderLength + index.count
    }
}
