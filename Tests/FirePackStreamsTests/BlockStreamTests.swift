@_spi(Wire) import FirePack
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackStreams

/// Version-3 streams (Docs/FORMAT.md §8): blocks compressed on their own, an index, damage that costs one block.
@Suite("Block streams (version 3)")
struct BlockStreamTests {
    let helper = DocumentStreamTests()

    /// `documents` as a closed version-3 stream in blocks of `blockSize` bytes stored with `codec`.
    func blocks(
        _ documents: [Document], codec: BlockCodec = .zstd, blockSize: Int = 4096, layout: BlockLayout = .automatic
    ) throws -> [UInt8] {
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, flushThreshold: 4096, codec: codec, blockSize: blockSize)
        writer.blockLayout = layout
        for document in documents { try writer.append(document) }
        try writer.close()
        return sink.bytes
    }

    /// Every intact record: its number, block offset, payload offset and document; and the reader.
    func read(_ bytes: [UInt8]) throws -> (records: [(number: Int, offset: Int, payloadOffset: Int?, document: Document)], reader: DocumentStreamReader) {
        let reader = try DocumentStreamReader(source: MemorySource(bytes))
        var records: [(Int, Int, Int?, Document)] = []
        while let (record, document) = try reader.nextDocumentRecord() {
            records.append((record.number, record.offset, record.payloadOffset, document))
        }
        return (records, reader)
    }

    /// The offsets of the blocks, read from their framing.
    func blockOffsets(_ bytes: [UInt8]) -> [Int] { helper.recordOffsets(bytes) }

    let folder = TemporaryFolder("blocks")

    /// A new file in the test's folder holding `bytes`.
    func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = folder.path("\(UUID().uuidString).fpks")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("every codec round-trips, blocks close at the block size, records carry their block's offset",
          arguments: BlockCodec.allCases)
    func roundTrip(codec: BlockCodec) throws {
        let originals = try helper.documents(500)
        let bytes = try blocks(originals, codec: codec)
        #expect(Array(bytes[0..<6]) == [0x89, 0x46, 0x50, 0x53, 0x03, 0x00])
        let (records, reader) = try read(bytes)
        #expect(records.map(\.document) == originals)
        #expect(records.map(\.number) == Array(0..<500))
        #expect(reader.problems.isEmpty && reader.completion == .closed(recordCount: 500))
        let offsets = blockOffsets(bytes)
        #expect(offsets.count > 5, "500 documents of ~60 bytes in 4 KiB blocks")
        #expect(Set(records.map(\.offset)) == Set(offsets))
        // A block of rows stored as it is gives each document's place in the file; a decompressed one, or one whose
        // rows are rebuilt from columns, cannot. Codec `none` stores these alike documents in columns (smaller).
        #expect(records.allSatisfy { ($0.payloadOffset != nil) == (bytes[$0.offset + 12] == BlockCodec.none.rawValue) })
        #expect(offsets.allSatisfy { bytes[$0 + 12] & 0x0F == codec.rawValue || bytes[$0 + 12] == 0 })
        if codec == .none {
            #expect(offsets.allSatisfy { bytes[$0 + 12] == BlockColumns.numberedForm })
            let rows = try blocks(originals, codec: .none, layout: .rows)
            #expect(bytes.count < rows.count * 3 / 4, "keys once per block, not once per document")
            let (rowRecords, _) = try read(rows)
            #expect(rowRecords.map(\.document) == originals)
            #expect(rowRecords.allSatisfy { record in
                record.payloadOffset.map { at in
                    Array(rows[at..<(at + record.document.firePackBytes().count)]) == record.document.firePackBytes()
                } ?? false
            })
        } else {
            #expect(bytes.count < (try blocks(originals, codec: .none)).count / 2)
        }
    }

    @Test func theLayoutIsFormatMDsExample() throws {
        let document = Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 1])
        let bytes = try blocks([document], codec: .none)
        let payload = document.firePackBytes()
        // Header; block: marker, body length, CRC; body: codec 00, count 1, first 0, size, documents; data.
        #expect(Array(bytes[0..<10]) == [0x89, 0x46, 0x50, 0x53, 0x03, 0x00, 0xF3, 0x50, 0x52, 0x1E])
        let body = [0, 1, 0, UInt8(payload.count + 1), UInt8(payload.count)] + payload + [UInt8(payload.count)]
        #expect(Array(bytes[10..<14]) == withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init))
        #expect(Array(bytes[14..<18]) == withUnsafeBytes(of: body.withUnsafeBytes { crc32($0) }.littleEndian, Array.init))
        #expect(Array(bytes[18..<(18 + body.count)]) == body)
        // The index (one block at offset 6 holding one record) and the close record pointing at it.
        let indexAt = 18 + body.count
        let index: [UInt8] = [1, 6, 1]
        #expect(Array(bytes[indexAt..<(indexAt + 15)]) == [0xF3, 0x50, 0x52, 0x49, 3, 0, 0, 0]
            + withUnsafeBytes(of: index.withUnsafeBytes { crc32($0) }.littleEndian, Array.init) + index)
        let close = Array(bytes.suffix(24))
        let closeBody = withUnsafeBytes(of: UInt64(1).littleEndian, Array.init) + withUnsafeBytes(of: UInt64(indexAt).littleEndian, Array.init)
        #expect(close == [0xF3, 0x50, 0x52, 0x45] + closeBody + withUnsafeBytes(of: closeBody.withUnsafeBytes { crc32($0) }.littleEndian, Array.init))
        #expect(bytes.count == indexAt + 15 + 24)
        let format = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/FORMAT.md"), encoding: .utf8)
        #expect(format.contains(helper.hexString(bytes)), "FORMAT.md §8 shows this version-3 stream byte for byte")
    }

    @Test func theIndexFindsEveryRecordAndAStreamWithoutOneIsScanned() throws {
        let originals = try helper.documents(300)
        let bytes = try blocks(originals)
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let index = try #require(try DocumentStreamReader.blockIndex(path: path))
        #expect(index.map(\.offset) == blockOffsets(bytes))
        #expect(index.first?.firstRecord == 0 && index.map(\.recordCount).reduce(0, +) == 300)
        #expect(zip(index, index.dropFirst()).allSatisfy { $0.firstRecord + $0.recordCount == $1.firstRecord })
        for number in [0, 1, 57, 149, 150, 298, 299] {
            let reader = try DocumentStreamReader.reading(path: path, fromRecord: number)
            let (record, document) = try #require(try reader.nextDocumentRecord())
            #expect(record.number == number && document == originals[number])
            #expect(reader.problems.isEmpty)
        }
        #expect(try DocumentStreamReader.reading(path: path, fromRecord: 300).nextRecord() == nil)

        // Not closed (no close record, so no index): the same answers by a scan.
        let torn = try temporaryFile(Array(bytes.prefix(blockOffsets(bytes).last!)))
        defer { try? FileManager.default.removeItem(atPath: torn) }
        #expect(try DocumentStreamReader.blockIndex(path: torn) == nil)
        let scanned = try DocumentStreamReader.reading(path: torn, fromRecord: 150)
        #expect(try scanned.nextDocumentRecord()?.document == originals[150])
        // A damaged index is not used either.
        var damagedIndex = bytes
        damagedIndex[bytes.count - 24 - 2] ^= 1
        let noIndex = try temporaryFile(damagedIndex)
        defer { try? FileManager.default.removeItem(atPath: noIndex) }
        #expect(try DocumentStreamReader.blockIndex(path: noIndex) == nil)
        #expect(try DocumentStreamReader.reading(path: noIndex, fromRecord: 299).nextDocumentRecord()?.document == originals[299])
        // Read in order, a damaged index costs no record: it is reported, without a record number of its own.
        let reader = try DocumentStreamReader(source: MemorySource(damagedIndex))
        var read: [Document] = []
        while let (_, _, document) = try reader.next() { read.append(document) }
        #expect(read == originals)
        #expect(reader.problems.count == 1)
        #expect(reader.problems.first?.code == .badChecksum && reader.problems.first?.recordNumber == 300)
        #expect(reader.problems.first?.reason.contains("CRC-32 mismatch (the index is damaged; no record is lost)") == true)
        // A stream that ends inside its index or its close record (the writer stopped while closing it) has lost
        // nothing: every record, no problem, not closed — in the default mode too, which stops at a problem.
        let indexStart = Int(UInt64(littleEndian: bytes.withUnsafeBytes {
            $0.loadUnaligned(fromByteOffset: bytes.count - 24 + 12, as: UInt64.self)
        }))
        for cut in [indexStart + 4, indexStart + 11, indexStart + 12, bytes.count - 24 - 2, bytes.count - 24 + 4, bytes.count - 1] {
            for mode in [DocumentStreamReader.ErrorMode.skipAndReport, .stopAtFirstError] {
                let reader = try DocumentStreamReader(source: MemorySource(Array(bytes.prefix(cut))), mode: mode)
                var read: [Document] = []
                while let (_, _, document) = try reader.next() { read.append(document) }
                #expect(read == originals && reader.problems.isEmpty, "cut at \(cut): \(reader.problems)")
                #expect(reader.completion == .notClosed(recordCount: 300), "cut at \(cut)")
                #expect(reader.tornClosing == (cut < bytes.count - 24 ? "an index" : "a close record"), "cut at \(cut)")
            }
        }
        // Version 2 has no blocks: scanned.
        let v2 = try temporaryFile(try streamBytes(originals, version: 2))
        defer { try? FileManager.default.removeItem(atPath: v2) }
        #expect(try DocumentStreamReader.blockIndex(path: v2) == nil)
        #expect(try DocumentStreamReader.reading(path: v2, fromRecord: 77).nextDocumentRecord()?.document == originals[77])
    }

    /// An index whose CRCs check out but whose numbers do not is not used: the reader finds the record by a scan.
    /// Each body is checked as the index is read, before any sum of its deltas can overflow.
    @Test func anIndexWhoseNumbersDoNotHoldIsNotUsed() throws {
        let originals = try helper.documents(300)
        let bytes = try blocks(originals)
        let offsets = blockOffsets(bytes)
        #expect(offsets.count >= 2)
        let closeAt = bytes.count - 24
        let oldIndexAt = Int(UInt64(littleEndian: bytes.withUnsafeBytes {
            $0.loadUnaligned(fromByteOffset: closeAt + 12, as: UInt64.self)
        }))
        /// The stream with its index body replaced by `body`, the index's and the close record's CRCs made right.
        func withIndex(_ body: [UInt8]) -> [UInt8] {
            var stream = Array(bytes[..<oldIndexAt]) + [0xF3, 0x50, 0x52, 0x49]
            stream += withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init)
            stream += withUnsafeBytes(of: body.withUnsafeBytes { crc32($0) }.littleEndian, Array.init) + body
            let closeBody = Array(bytes[(closeAt + 4)..<(closeAt + 12)])
                + withUnsafeBytes(of: UInt64(oldIndexAt).littleEndian, Array.init)
            return stream + [0xF3, 0x50, 0x52, 0x45] + closeBody
                + withUnsafeBytes(of: closeBody.withUnsafeBytes { crc32($0) }.littleEndian, Array.init)
        }
        let maxVarint: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]  // 2^63 − 1
        let first = UInt8(offsets[0])
        for (body, what) in [
            ([2, first, 1] + maxVarint + [1], "a second delta of 2^63 − 1, whose sum overflows"),
            ([1] + maxVarint + [1], "a first delta of 2^63 − 1"),
            ([2, first, 1, 0, 1], "a block at the offset of the one before"),
            ([1, first, 0], "a block of no records"),
        ] {
            let path = try temporaryFile(withIndex(body))
            defer { try? FileManager.default.removeItem(atPath: path) }
            #expect(try DocumentStreamReader.blockIndex(path: path) == nil, "\(what)")
            let reader = try DocumentStreamReader.reading(path: path, fromRecord: 299)
            #expect(try reader.nextDocumentRecord()?.document == originals[299], "\(what)")
        }
        // The same replacement with the real index body: used (the rewriting itself is right).
        let realBody = Array(bytes[(oldIndexAt + 12)..<closeAt])
        let path = try temporaryFile(withIndex(realBody))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let blocks = try #require(try DocumentStreamReader.blockIndex(path: path))
        #expect(blocks.map(\.offset) == offsets)
        // An index that holds together but names offsets a byte past the blocks (from the second on): seeking finds
        // no block there and reads the stream from its start, finding every record and no damage.
        let shifted = varintBytes(blocks.count) + blocks.enumerated().flatMap { index, block in
            varintBytes(index == 0 ? block.offset : block.offset - blocks[index - 1].offset + (index == 1 ? 1 : 0))
                + varintBytes(block.recordCount)
        }
        let misplaced = try temporaryFile(withIndex(shifted))
        defer { try? FileManager.default.removeItem(atPath: misplaced) }
        #expect(try DocumentStreamReader.blockIndex(path: misplaced)?.dropFirst().map(\.offset) == offsets.dropFirst().map { $0 + 1 })
        for number in [0, 100, 299] {
            let reader = try DocumentStreamReader.reading(path: misplaced, fromRecord: number)
            let (record, document) = try #require(try reader.nextDocumentRecord())
            #expect(record.number == number && document == originals[number])
            #expect(reader.problems.isEmpty, "\(reader.problems)")
        }
        // An index that leaves a block out, its CRCs right (an appender's after damage leaves the damaged one out):
        // a byte range does not start by it where the block before the one it names does not end there, so no range
        // passes over the block left out.
        let kept = blocks.enumerated().filter { $0.offset != 1 }.map(\.element)
        let omitting = varintBytes(kept.count) + kept.enumerated().flatMap { index, block in
            varintBytes(index == 0 ? block.offset : block.offset - kept[index - 1].offset) + varintBytes(block.recordCount)
        }
        let omitted = try temporaryFile(withIndex(omitting))
        defer { try? FileManager.default.removeItem(atPath: omitted) }
        #expect(try DocumentStreamReader.blockIndex(path: omitted)?.count == blocks.count - 1)
        // Byte ranges over either stream give every record once: an index offset with no block there is not followed.
        for path in [misplaced, omitted] {
            for size in [97, 1_000, 5_000] {
                var read: [Document] = []
                var offset = 0
                while offset < bytes.count {
                    let range = try DocumentStreamReader.reading(path: path, offset: offset, length: size)
                    while let (_, _, document) = try range.next() { read.append(document) }
                    offset += size
                }
                #expect(read == originals, "ranges of \(size) of \(path == misplaced ? "misplaced" : "omitting") index")
            }
        }
    }

    /// The index names the block: a reader sent to a record in a late block never reads the damaged first one.
    @Test func seekingReadsOnlyTheBlockItNeeds() throws {
        let originals = try helper.documents(300)
        var bytes = try blocks(originals)
        let offsets = blockOffsets(bytes)
        bytes[offsets[0] + 30] ^= 0x40
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try DocumentStreamReader.reading(path: path, fromRecord: 299)
        #expect(try reader.nextDocumentRecord()?.document == originals[299])
        #expect(reader.problems.isEmpty)
        #expect(try read(bytes).reader.problems.map(\.code) == [.badChecksum])
    }

    @Test func aDamagedBlockCostsItsRecordsAndTheNumbersStayTheStreams() throws {
        let originals = try helper.documents(300)
        var bytes = try blocks(originals)
        let offsets = blockOffsets(bytes)
        let (intact, _) = try read(bytes)
        let firstOfBlock = { (block: Int) in intact.first { $0.offset == offsets[block] }!.number }
        bytes[offsets[2] + 40] ^= 0x40
        let (records, reader) = try read(bytes)
        let lost = Set(firstOfBlock(2)..<firstOfBlock(3))
        #expect(records.map(\.number) == Array(0..<300).filter { !lost.contains($0) })
        #expect(records.map(\.document) == originals.enumerated().filter { !lost.contains($0.offset) }.map(\.element))
        #expect(reader.problems.count == 1)
        #expect(reader.problems.first?.code == .badChecksum && reader.problems.first?.offset == offsets[2])
        #expect(reader.problems.first?.recordNumber == firstOfBlock(2))
        #expect(reader.completion == .closed(recordCount: 300))
    }

    @Test func blocksWhoseBytesCheckOutButDoNotHoldRecordsAreInvalid() throws {
        let document = Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 1])
        let payload = document.firePackBytes()
        /// A stream of one block whose body is `body` (with a correct CRC), then a good block of record 1.
        func stream(body: [UInt8]) throws -> [UInt8] {
            var bytes = DocumentStreamFormat.header + DocumentStreamFormat.syncMarker
            bytes += withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init)
            bytes += withUnsafeBytes(of: body.withUnsafeBytes { crc32($0) }.littleEndian, Array.init)
            let good = [0, 1, 1, UInt8(payload.count + 1), UInt8(payload.count)] + payload + [UInt8(payload.count)]
            bytes += body + DocumentStreamFormat.syncMarker
            bytes += withUnsafeBytes(of: UInt32(good.count).littleEndian, Array.init)
            bytes += withUnsafeBytes(of: good.withUnsafeBytes { crc32($0) }.littleEndian, Array.init)
            return bytes + good
        }
        let size = UInt8(payload.count + 1), documents = UInt8(payload.count)
        let cases: [(String, [UInt8])] = [
            ("unknown codec", [7, 1, 0, size, documents] + payload + [documents]),
            ("no records", [0, 0, 0, size, documents] + payload + [documents]),
            ("lengths that do not add up", [0, 1, 0, size, documents] + payload + [documents - 1]),
            ("data shorter than its size", [0, 1, 0, size + 1, documents] + payload + [documents]),
            ("a size past the limit", [0, 1, 0, 0x80, 0x80, 0x80, 0x40, documents] + payload + [documents]),
            ("a cut header", [0, 1]),
            ("deflate data that is not deflate", [1, 1, 0, size, documents] + payload + [documents]),
            ("no deflate data at all", [1, 1, 0, size, documents]),
            // A whole frame (one empty last raw block) whose single-segment header claims 255 bytes.
            ("a zstd frame that claims more than the size", [2, 1, 0, 2, 1, 0x28, 0xB5, 0x2F, 0xFD, 0x20, 0xFF, 1, 0, 0]),
        ]
        for (name, body) in cases {
            let (records, reader) = try read(try stream(body: body))
            #expect(reader.problems.map(\.code) == [.invalidBlock], "\(name): \(reader.problems)")
            #expect(reader.problems.first?.offset == 6 && reader.problems.first?.recordNumber == 0, "\(name)")
            if name.hasPrefix("a zstd frame that claims") {
                // Refused by the size its header claims, before decompressing.
                #expect(reader.problems.first?.reason.contains("holds 255 bytes where the block header says 2") == true)
            }
            // The next block's header says it starts at record 1: the lost block took record 0.
            #expect(records.map(\.number) == [1] && records.first?.document == document, "\(name)")
        }

        // A zstd frame that leaves its content size out, as a streaming compressor writes it (RFC 8878: no
        // single-segment flag, a 1 KiB window, one raw last block): read when it holds `size` bytes, refused when it
        // holds fewer or more.
        func unsizedFrame(_ data: [UInt8]) -> [UInt8] {
            let blockHeader = UInt32(data.count) << 3 | 1
            return [0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x00]
                + withUnsafeBytes(of: blockHeader.littleEndian) { Array($0.prefix(3)) } + data
        }
        let data = payload + [documents]
        let (unsized, unsizedReader) = try read(try stream(body: [2, 1, 0, size, documents] + unsizedFrame(data)))
        #expect(unsizedReader.problems.isEmpty, "\(unsizedReader.problems)")
        #expect(unsized.map(\.number) == [0, 1] && unsized.allSatisfy { $0.document == document })
        for (name, frame) in [("fewer", unsizedFrame(data.dropLast())), ("more", unsizedFrame(data + [0]))] {
            let (records, reader) = try read(try stream(body: [2, 1, 0, size, documents] + frame))
            #expect(reader.problems.map(\.code) == [.invalidBlock], "\(name): \(reader.problems)")
            #expect(records.map(\.number) == [1], "\(name)")
        }
    }

    @Test("numbers come from the next intact block after damage, never go back, and a gap without damage is reported")
    func recordNumbersFollowTheBlocksFirst() throws {
        let documents = try (0..<6).map { Document(reference: try DocumentReference(path: "books/b\($0)"), fields: ["n": .integer(Int64($0))]) }
        let payloads = documents.map { $0.firePackBytes() }
        /// A framed block of `payloads[range]` whose header says `first` records came before it.
        func block(_ range: Range<Int>, first: UInt8, checksum: UInt32? = nil) -> [UInt8] {
            let data = range.flatMap { payloads[$0] }
            let lengths = range.map { UInt8(payloads[$0].count) }
            let body = [0, UInt8(range.count), first, UInt8(data.count + lengths.count), UInt8(data.count)] + data + lengths
            return DocumentStreamFormat.syncMarker + withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init)
                + withUnsafeBytes(of: (checksum ?? body.withUnsafeBytes { crc32($0) }).littleEndian, Array.init) + body
        }
        let header = DocumentStreamFormat.header
        let garbage = [UInt8](repeating: 0, count: 9)
        let cases: [(name: String, bytes: [UInt8], numbers: [Int], problems: [String], found: Int)] = [
            // Garbage took a number; the next block's first (2) says it held no record.
            ("garbage, then first", header + block(0..<2, first: 0) + garbage + block(2..<4, first: 2), [0, 1, 2, 3],
             ["2 badSyncMarker"], 4),
            // A damaged block held two records: the next block's first counts them.
            ("damaged block", header + block(0..<2, first: 0) + block(2..<4, first: 2, checksum: 0) + block(4..<6, first: 4),
             [0, 1, 4, 5], ["2 badChecksum"], 6),
            // After damage, a first below the intact blocks' records is numbered on from them.
            ("damage, then first goes back", header + block(0..<2, first: 0) + garbage + block(2..<4, first: 1),
             [0, 1, 2, 3], ["2 badSyncMarker"], 4),
            ("first goes back", header + block(0..<2, first: 0) + block(2..<4, first: 0), [0, 1, 2, 3], [], 4),
            // No damage, yet records 2–4 are not there: reported, the block still read.
            ("a gap", header + block(0..<2, first: 0) + block(2..<4, first: 5), [0, 1, 5, 6], ["2 missingRecords"], 7),
            ("a gap at the start", header + block(0..<2, first: 3), [3, 4], ["0 missingRecords"], 5),
        ]
        for (name, bytes, numbers, problems, found) in cases {
            let (records, reader) = try read(bytes)
            #expect(records.map(\.number) == numbers, "\(name)")
            #expect(reader.problems.map { "\($0.recordNumber) \($0.code)" } == problems, "\(name)")
            #expect(reader.recordsFound == found, "\(name)")
        }
        // The gap's problem is at the block's marker.
        let gap = header + block(0..<2, first: 0) + block(2..<4, first: 5)
        #expect(try read(gap).reader.problems.first?.offset == 6 + block(0..<2, first: 0).count)
        // A block whose CRC checks out but whose lengths do not add up is invalid, not a witness to a gap: a range
        // that stops at it reports no gap either, wherever the file is split.
        var invalid = block(2..<4, first: 5)
        invalid.removeLast(12)  // its body: lengths gone, size and CRC made to match below
        var body = Array(invalid[12...])
        body[3] = UInt8(body.count - 5)
        invalid = Array(invalid[..<4]) + withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init)
            + withUnsafeBytes(of: body.withUnsafeBytes { crc32($0) }.littleEndian, Array.init) + body
        let spliced = header + block(0..<2, first: 0) + invalid + block(4..<6, first: 7)
        let whole = try read(spliced).reader
        #expect(whole.problems.map(\.code) == [.invalidBlock], "\(whole.problems)")
        let path = try temporaryFile(spliced)
        defer { try? FileManager.default.removeItem(atPath: path) }
        for split in 0...spliced.count {
            var codes: [FirePackError.Code] = []
            for (offset, length) in [(0, split), (split, spliced.count - split)] {
                let reader = try DocumentStreamReader.reading(path: path, offset: offset, length: length)
                while try reader.nextRecord() != nil {}
                codes += reader.problems.map(\.code)
            }
            #expect(codes == [.invalidBlock], "split at \(split): \(codes)")
        }
    }

    /// Blocks cut out cleanly are reported by byte ranges too (Docs/ARROW.md, "Splits"), each gap by exactly one range
    /// wherever the boundaries fall: inside a range, between a range's last block and the next range's first (by the
    /// range that stops there), before the first block (by the range at 0), and before the close record (by the range
    /// that read the last block). A gap behind damage is not a gap.
    @Test func rangesReportBlocksCutOutOnceWhereverTheyAreSplit() throws {
        let bytes = try blocks(try helper.documents(80), codec: .none, blockSize: 512)
        let offsets = blockOffsets(bytes)
        #expect(offsets.count > 8)
        /// The stream without the blocks numbered `blocksToCut` (the index and close record kept, now stale).
        func cut(_ blocksToCut: [Int], damaging damaged: Int? = nil) -> [UInt8] {
            var kept = Array(bytes[..<offsets[0]])
            // A block ends where the next begins; the last one after its 12-byte frame header and its body.
            let last = offsets.last!
            let lastLength = bytes[last + 4..<last + 8].reversed().reduce(0) { $0 << 8 | Int($1) }
            let ends = Array(offsets.dropFirst()) + [last + 12 + lastLength]
            for (index, offset) in offsets.enumerated() where !blocksToCut.contains(index) {
                var block = Array(bytes[offset..<ends[index]])
                if index == damaged { block[20] ^= 0x40 }
                kept += block
            }
            return kept + bytes[ends.last!...]
        }
        let cases: [(name: String, bytes: [UInt8], gaps: Int)] = [
            ("the first block, one in the middle and two after it", cut([0, 3, 6, 7]), 3),
            ("a block behind a damaged one", cut([4], damaging: 5), 0),
            // Only the close record's count says the last blocks are gone.
            ("the last two blocks", cut([offsets.count - 2, offsets.count - 1]), 1),
            ("nothing", bytes, 0),
        ]
        for (name, stream, gaps) in cases {
            let whole = try read(stream)
            let missing = whole.reader.problems.filter { $0.code == .missingRecords }.map(\.offset)
            #expect(missing.count == gaps, "\(name): \(whole.reader.problems)")
            let path = try temporaryFile(stream)
            defer { try? FileManager.default.removeItem(atPath: path) }
            let streamOffsets = blockOffsets(stream)
            // Every way to cut the file in two near a block's marker, and splits of several sizes.
            var splits = streamOffsets.flatMap { [$0 - 1, $0, $0 + 1] }.map { [(0, $0), ($0, stream.count)] }
            splits += [7, 97, 511, 1_000].map { size in
                stride(from: 0, to: stream.count, by: size).map { ($0, $0 + size) }
            }
            for ranges in splits {
                var found: [Int] = [], documents = 0
                for (start, end) in ranges {
                    let reader = try DocumentStreamReader.reading(path: path, offset: start, length: end - start)
                    while try reader.nextDocumentRecord() != nil { documents += 1 }
                    found += reader.problems.filter { $0.code == .missingRecords }.map(\.offset)
                }
                #expect(found.sorted() == missing.sorted(), "\(name), ranges \(ranges.prefix(3))…")
                #expect(documents == whole.records.count, "\(name), ranges \(ranges.prefix(3))…")
            }
        }
    }

    /// An index written by an appender after damage lists the intact blocks only, so it counts fewer records before a
    /// block than the block's own `first` does: seeking still finds every record, by the numbers a whole read gives.
    @Test func seekingAfterAnAppendToADamagedStreamFindsEveryRecord() throws {
        let all = try helper.documents(160)
        var bytes = try blocks(Array(all.prefix(100)), codec: .none, blockSize: 1024)
        let offsets = blockOffsets(bytes)
        #expect(offsets.count > 6)
        bytes[offsets[2] + 30] ^= 0x40  // a damaged block in the middle
        bytes.removeLast(24)  // the close record and most of the index gone: a crash
        bytes = Array(bytes.prefix(offsets.last! + 40))  // and a torn last block
        let path = try temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let writer = try DocumentStreamWriter.appending(toPath: path, codec: .none, blockSize: 1024)
        for document in all.suffix(60) { try writer.append(document) }
        try writer.close()
        let whole = try read([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        // The torn block runs into the appended bytes: damaged, like the one in the middle.
        #expect(whole.reader.problems.map(\.code) == [.badChecksum, .badChecksum])
        #expect(!whole.reader.problems.contains { $0.code == .missingRecords })
        let index = try #require(try DocumentStreamReader.blockIndex(path: path))
        #expect(index.map(\.recordCount).reduce(0, +) < whole.reader.recordsFound)  // the index counts fewer
        // Every fifth record, and each one next to a block boundary.
        let boundaries = Set(zip(whole.records, whole.records.dropFirst()).filter { $0.0.offset != $0.1.offset }
            .flatMap { [$0.0.number, $0.1.number] })
        for (number, _, _, document) in whole.records where number % 5 == 0 || boundaries.contains(number) {
            let reader = try DocumentStreamReader.reading(path: path, fromRecord: number)
            let found = try #require(try reader.nextDocumentRecord(), "record \(number)")
            #expect(found.record.number == number && found.document == document, "record \(number)")
            #expect(reader.problems.isEmpty, "record \(number): \(reader.problems)")
        }
    }

    @Test func aFirstNearOverflowIsAnInvalidBlockNotACrash() throws {
        let payload = Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 1]).firePackBytes()
        func stream(first: UInt64) -> [UInt8] {
            var firstBytes = [UInt8](repeating: 0, count: 10)
            let firstCount = firstBytes.withUnsafeMutableBufferPointer { Varint.write(first, to: $0.baseAddress!) }
            let body: [UInt8] = [0, 1] + firstBytes.prefix(firstCount)
                + [UInt8(payload.count + 1), UInt8(payload.count)] + payload + [UInt8(payload.count)]
            var bytes = DocumentStreamFormat.header + DocumentStreamFormat.syncMarker
            bytes += withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init)
            bytes += withUnsafeBytes(of: body.withUnsafeBytes { crc32($0) }.littleEndian, Array.init)
            return bytes + body + [0, 0]  // and a damaged tail, which takes a number
        }
        for first in [UInt64(1) << 62, UInt64(Int64.max) - 1, UInt64(Int64.max)] {
            let (records, reader) = try read(stream(first: first))
            #expect(records.isEmpty)
            #expect(reader.problems.map(\.code) == [.invalidBlock, .badSyncMarker], "\(first)")
        }
        let (records, _) = try read(stream(first: (UInt64(1) << 62) - 1))
        #expect(records.map(\.number) == [(1 << 62) - 1])
    }

    @Test("a tail shorter than a record header is a torn record when it starts a marker, else no marker at all")
    func shortTails() throws {
        let closed = try blocks(try helper.documents(3), codec: .none)
        let unclosed = Array(closed.dropLast(24))
        let tails: [([UInt8], FirePackError.Code)] = [
            ([0xF3], .truncated), ([0xF3, 0x50, 0x52], .truncated), ([0xF3, 0x50, 0x52, 0x1E, 1, 2, 3], .truncated),
            ([0x00], .badSyncMarker), ([0xF3, 0x51], .badSyncMarker), ([0xF3, 0x50, 0x52, 0x1F, 1], .badSyncMarker),
        ]
        for (tail, code) in tails {
            let (records, reader) = try read(unclosed + tail)
            #expect(records.count == 3)
            #expect(reader.problems.map(\.code) == [code], "\(tail)")
            #expect(reader.problems.first?.offset == unclosed.count, "\(tail)")
        }
    }

    @Test func aTornLastBlockIsReportedAndTheRestReads() throws {
        let originals = try helper.documents(200)
        let bytes = try blocks(originals)
        let offsets = blockOffsets(bytes)
        let (intact, _) = try read(bytes)
        let torn = Array(bytes.prefix(offsets.last! + 20))
        let (records, reader) = try read(torn)
        #expect(records.map(\.document) == Array(originals.prefix(intact.first { $0.offset == offsets.last! }!.number)))
        #expect(reader.problems.map(\.code) == [.truncated] && reader.problems.first?.offset == offsets.last!)
        if case .notClosed = reader.completion {} else { Issue.record("\(String(describing: reader.completion))") }
    }

    @Test func appendingAddsBlocksAndAnIndexOfAll() throws {
        let all = try helper.documents(120)
        let path = try temporaryFile(try blocks(Array(all.prefix(70))))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let before = try #require(try DocumentStreamReader.blockIndex(path: path))
        let writer = try DocumentStreamWriter.appending(toPath: path, codec: .deflate, blockSize: 2048)
        for document in all.suffix(50) { try writer.append(document) }
        try writer.close()
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let (records, reader) = try read(bytes)
        #expect(records.map(\.document) == all && records.map(\.number) == Array(0..<120))
        #expect(reader.problems.isEmpty && reader.completion == .closed(recordCount: 120))
        let index = try #require(try DocumentStreamReader.blockIndex(path: path))
        #expect(Array(index.prefix(before.count)) == before && index.count > before.count)
        #expect(index.map(\.recordCount).reduce(0, +) == 120)
        #expect(try DocumentStreamReader.reading(path: path, fromRecord: 100).nextDocumentRecord()?.document == all[100])

        // A version-2 stream stays version 2; asking for another version is refused.
        let v2 = try temporaryFile(try streamBytes(Array(all.prefix(3)), version: 2))
        defer { try? FileManager.default.removeItem(atPath: v2) }
        let appender = try DocumentStreamWriter.appending(toPath: v2)
        #expect(appender.version == 2)
        try appender.append(all[3])
        try appender.close()
        let grown = [UInt8](try Data(contentsOf: URL(fileURLWithPath: v2)))
        // Four records, each its own (version-2 records have offsets of their own, blocks would share one).
        let grownOffsets = Set(try read(grown).records.map(\.offset))
        #expect(grown[4] == 2 && grownOffsets.count == 4)
        #expect(throws: FirePackError.self) { try DocumentStreamWriter.appending(toPath: v2, version: 3) }
    }

    @Test func incompressibleBlocksAreStoredAsTheyAre() throws {
        var random = SeededGenerator(seed: 11)
        let noise = (0..<40).map { index in
            Document(reference: try! DocumentReference(path: "n/\(index)"),
                     fields: ["bytes": .bytes(Data((0..<3000).map { _ in UInt8.random(in: 0...255, using: &random) }))])
        }
        let bytes = try blocks(noise, codec: .zstd, blockSize: 8192)
        let offsets = blockOffsets(bytes)
        #expect(offsets.allSatisfy { bytes[$0 + 12] == BlockCodec.none.rawValue })
        #expect(try read(bytes).records.map(\.document) == noise)
    }

    /// Documents of mixed sizes and compressibility: text that repeats, random bytes, and one that fills blocks alone.
    func mixedDocuments(_ count: Int, seed: UInt64) throws -> [Document] {
        var random = SeededGenerator(seed: seed)
        return try (0..<count).map { index in
            let size = [10, 300, 5000, 20_000][Int.random(in: 0..<4, using: &random)]
            let fields: MapValue =
                index % 3 == 0
                ? ["bytes": .bytes(Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &random) }))]
                : ["text": .string(String(repeating: "record \(index) ", count: size / 10)), "n": .integer(Int64(index))]
            return Document(reference: try DocumentReference(path: "mixed/\(index)"), fields: fields)
        }
    }

    @Test("compressing blocks on the compressor's thread writes the bytes compressing in place writes",
          arguments: [BlockCodec.deflate, .zstd])
    func backgroundCompressionWritesTheSameBytes(codec: BlockCodec) throws {
        let documents = try mixedDocuments(300, seed: codec == .zstd ? 5 : 6)
        func write(background: Bool) throws -> [UInt8] {
            let sink = MemorySink()
            let writer = try DocumentStreamWriter(sink: sink, flushThreshold: 4096, codec: codec, blockSize: 16_384)
            writer.storesBlocksInBackground = background
            for (index, document) in documents.enumerated() {
                try writer.append(document)
                // A flush writes the block in flight as well as the open one.
                if index % 97 == 0 {
                    try writer.flush()
                    let (records, _) = try read(sink.bytes)
                    #expect(records.map(\.document) == Array(documents[...index]), "after a flush at \(index)")
                }
            }
            try writer.close()
            #expect(writer.compressor == nil || background, "in place, no compressor is made")
            return sink.bytes
        }
        let background = try write(background: true)
        #expect(background == (try write(background: false)))
        let (records, reader) = try read(background)
        #expect(records.map(\.document) == documents)
        #expect(reader.problems.isEmpty && reader.completion == .closed(recordCount: documents.count))
        #expect(blockOffsets(background).count > 20)
        // Some blocks compress, and the random ones are stored as they are: both stored forms went through the thread.
        // (Compressed blocks of many small documents are stored in columns, the others in rows.)
        let codecs = Set(blockOffsets(background).map { background[$0 + 12] })
        #expect(codecs.contains(BlockCodec.none.rawValue) && codecs.count >= 2)
        #expect(codecs.isSubset(of: [BlockCodec.none.rawValue, codec.rawValue, codec.rawValue | BlockColumns.numberedForm]))
    }

    @Test("storing blocks in the background turned off and on between blocks writes the same bytes")
    func backgroundStoringToggled() throws {
        let documents = try mixedDocuments(300, seed: 7)
        func write(toggling: Bool) throws -> [UInt8] {
            let sink = MemorySink()
            let writer = try DocumentStreamWriter(sink: sink, flushThreshold: 4096, codec: .zstd, blockSize: 8_192)
            for (index, document) in documents.enumerated() {
                // Off while two blocks are in flight: both must reach the sink before the next one stored in place.
                if toggling && index % 40 == 39 { writer.storesBlocksInBackground.toggle() }
                try writer.append(document)
            }
            try writer.close()
            return sink.bytes
        }
        let toggled = try write(toggling: true)
        #expect(toggled == (try write(toggling: false)))
        let (records, reader) = try read(toggled)
        #expect(records.map(\.document) == documents)
        #expect(reader.problems.isEmpty && reader.completion == .closed(recordCount: documents.count))
        #expect(blockOffsets(toggled).count > 20)
    }

    /// A sink whose `failing`-th write fails (writing nothing); the others are kept.
    final class FailingOnceSink: ByteSink {
        var bytes: [UInt8] = []
        var writes = 0
        let failing: Int
        init(failing: Int) { self.failing = failing }
        func write(_ chunk: UnsafeRawBufferPointer) throws {
            writes += 1
            if writes == failing { throw FirePackError(.ioFailure, "the sink failed once") }
            bytes += chunk
        }
        func finish() throws {}
    }

    @Test("a sink that fails once loses no record, whether blocks are compressed in place or on their thread",
          arguments: [true, false])
    func aSinkThatFailsOnce(background: Bool) throws {
        let documents = try mixedDocuments(300, seed: 12)
        for failing in [1, 2, 5] {
            let sink = FailingOnceSink(failing: failing)
            let writer = try DocumentStreamWriter(sink: sink, flushThreshold: 4096, codec: .zstd, blockSize: 16_384)
            writer.storesBlocksInBackground = background
            var thrown = 0
            for document in documents {
                do { try writer.append(document) } catch { thrown += 1 }
            }
            do { try writer.close() } catch { thrown += 1; try writer.close() }
            #expect(thrown == 1, "the failure is reported once (write \(failing))")
            let (records, reader) = try read(sink.bytes)
            #expect(records.map(\.document) == documents, "write \(failing)")
            #expect(reader.problems.isEmpty && reader.completion == .closed(recordCount: documents.count))
        }
    }

    @Test func aWriterReleasedUnclosedWritesTheBlockInFlight() throws {
        let documents = try mixedDocuments(120, seed: 9)
        let sink = MemorySink()
        do {
            let writer = try DocumentStreamWriter(sink: sink, flushThreshold: 4096, codec: .zstd, blockSize: 16_384)
            for document in documents { try writer.append(document) }
            #expect(writer.compressor != nil)
        }
        let (records, reader) = try read(sink.bytes)
        #expect(records.map(\.document) == documents)
        #expect(reader.completion == .notClosed(recordCount: documents.count))
    }

    @Test func writingRefusesWhatReadersWouldRefuse() throws {
        #expect(throws: FirePackError.self) { try DocumentStreamWriter(sink: MemorySink(), version: 1) }
        #expect(throws: FirePackError.self) { try DocumentStreamWriter(sink: MemorySink(), version: 4) }
        #expect(throws: FirePackError.self) { try DocumentStreamWriter(sink: MemorySink(), blockSize: 0) }
        #expect(BlockCodec(name: "zstd") == .zstd && BlockCodec(name: "gzip") == nil)
    }
}
