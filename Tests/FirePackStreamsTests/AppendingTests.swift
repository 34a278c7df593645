@_spi(Wire) import FirePack
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackStreams

/// Appending to a stream that was damaged or torn, seeking in one whose header is not version 3's, and damage that
/// looks like a closing: what was lost stays counted, and what was not lost never reads as damage.
@Suite("Streams: appending and seeking after damage")
struct AppendingTests {
    let blocks = BlockStreamTests()

    /// A stream of 100 documents in blocks of 1 KB, and its block offsets.
    func stream() throws -> (bytes: [UInt8], offsets: [Int], documents: [Document]) {
        let documents = try blocks.helper.documents(130)
        let bytes = try blocks.blocks(Array(documents.prefix(100)), codec: .none, blockSize: 1024)
        return (bytes, blocks.blockOffsets(bytes), documents)
    }

    /// Appends the last 30 documents to `bytes` written to a file; the file's bytes read back, and the file.
    func appended(to bytes: [UInt8], documents: [Document]) throws -> (bytes: [UInt8], path: String) {
        let path = try blocks.temporaryFile(bytes)
        let writer = try DocumentStreamWriter.appending(toPath: path, codec: .none, blockSize: 1024)
        for document in documents.suffix(30) { try writer.append(document) }
        try writer.close()
        return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), path)
    }

    @Test func recordsLostInAClosedStreamStayCountedAfterAnAppend() throws {
        var (bytes, offsets, documents) = try stream()
        // The last block damaged: its records (more than one) are lost, and the close record counts 100.
        let last = offsets[offsets.count - 2]
        bytes[last + 30] ^= 0x40
        let before = try blocks.read(bytes)
        let lost = 100 - before.records.count
        #expect(lost > 1)
        let after = try blocks.read(try appended(to: bytes, documents: documents).bytes)
        #expect(after.records.count == before.records.count + 30)
        // The appended records are numbered on from the close record's count: 100 to 129, not from what was found.
        #expect(after.records.suffix(30).map(\.number) == Array(100..<130))
        #expect(after.records.suffix(30).map(\.document) == Array(documents.suffix(30)))
        guard case .closed(let counted)? = after.reader.completion else {
            Issue.record("\(String(describing: after.reader.completion))")
            return
        }
        #expect(counted == 130 && after.reader.problems.contains { $0.code == .badChecksum })
    }

    @Test func aStreamTornInsideItsClosingTakesAppendsWithoutDamage() throws {
        let (bytes, offsets, documents) = try stream()
        // The close record (the last 24 bytes) holds the index's offset at its byte 12.
        let indexStart = bytes.suffix(24).dropFirst(12).prefix(8).reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(indexStart > offsets.last! && indexStart < bytes.count - 24)
        // Cut inside the index (its header, its body) and inside the close record: the writer stopped while closing.
        for cut in [indexStart + 6, indexStart + 20, bytes.count - 14] {
            let torn = Array(bytes.prefix(cut))
            let tornRead = try blocks.read(torn)
            #expect(tornRead.records.count == 100 && tornRead.reader.problems.isEmpty && tornRead.reader.tornClosing != nil,
                    "cut at \(cut) of \(bytes.count), units at \(offsets.suffix(3)): \(tornRead.records.count), \(tornRead.reader.problems), \(String(describing: tornRead.reader.tornClosing))")
            let (after, path) = try appended(to: torn, documents: documents)
            let read = try blocks.read(after)
            #expect(read.reader.problems.isEmpty, "cut at \(cut): \(read.reader.problems)")
            #expect(read.records.count == 130 && read.records.map(\.document) == documents, "cut at \(cut)")
            #expect(read.reader.completion == .closed(recordCount: 130))
            let index = try #require(try DocumentStreamReader.blockIndex(path: path))
            #expect(index.map(\.recordCount).reduce(0, +) == 130)
        }
    }

    /// A block whose marker's last byte became a close record's or an index's reads as a damaged closing only where a
    /// closing can be: anywhere else it is a damaged block, whose records are lost and counted.
    @Test func aBlockWhoseMarkerReadsAsAClosingIsDamage() throws {
        let (bytes, offsets, _) = try stream()
        for marker: UInt8 in [0x45, 0x49] {
            var damaged = bytes
            damaged[offsets[3] + 3] = marker
            let read = try blocks.read(damaged)
            #expect(read.records.count < 100, "\(marker)")
            #expect(read.reader.damagedClosingCount == 0 && read.reader.problemCount >= 1,
                    "\(marker): \(read.reader.problems)")
        }
        // The real closing, damaged: no record lost, counted apart.
        var closing = bytes
        closing[bytes.count - 24 + 6] ^= 0x10
        let read = try blocks.read(closing)
        #expect(read.records.count == 100 && read.reader.damagedClosingCount == 1 && read.reader.problemCount == 1)
        // It costs no record, so it stops nothing: read in `.stopAtFirstError` mode, every record, then not closed.
        let stopping = try DocumentStreamReader(source: MemorySource(closing), mode: .stopAtFirstError)
        var count = 0
        while try stopping.next() != nil { count += 1 }
        #expect(count == 100 && stopping.damagedClosingCount == 1 && stopping.problems.count == 1)
        guard case .notClosed? = stopping.completion else {
            Issue.record("\(String(describing: stopping.completion))")
            return
        }
        // A damaged block still stops it.
        var block = bytes
        block[offsets[3] + 30] ^= 0x40
        let stopped = try DocumentStreamReader(source: MemorySource(block), mode: .stopAtFirstError)
        #expect(throws: StreamProblem.self) { while try stopped.next() != nil {} }
    }

    /// An unclosed stream is blamed on a damaged closing only when that closing is the last thing in it: a superseded
    /// one, damaged, with records appended after it, says nothing about why the stream's end is missing.
    @Test func aDamagedClosingIsBlamedOnlyWhenNothingFollowsIt() throws {
        let (bytes, _, documents) = try stream()
        let (after, _) = try appended(to: bytes, documents: documents)
        let finalIndex = after.suffix(24).dropFirst(12).prefix(8).reversed().reduce(0) { $0 << 8 | Int($1) }
        // The superseded close record damaged, and the appended stream cut where its own index begins.
        var damaged = Array(after.prefix(finalIndex))
        damaged[bytes.count - 24 + 6] ^= 0x10
        let read = try blocks.read(damaged)
        #expect(read.records.count == 130 && read.reader.damagedClosingCount == 1)
        guard case .notClosed? = read.reader.completion else {
            Issue.record("\(String(describing: read.reader.completion))")
            return
        }
        #expect(!read.reader.endsAtDamagedClosing, "\(read.reader.problems)")
        // The appended stream's own close record damaged: that is what its reader met last.
        var closing = after
        closing[after.count - 24 + 6] ^= 0x10
        let last = try blocks.read(closing)
        #expect(last.records.count == 130 && last.reader.damagedClosingCount == 1 && last.reader.endsAtDamagedClosing)
    }

    @Test func seekingChecksTheHeaderAsReadingItWhole() throws {
        let (bytes, _, _) = try stream()
        #expect(try DocumentStreamReader.reading(path: blocks.temporaryFile(bytes), fromRecord: 50).next()?.number == 50)
        for (index, byte, code) in [(4, UInt8(4), FirePackError.Code.unsupportedVersion), (5, 1, .unsupportedVersion),
                                    (0, UInt8(ascii: "J"), .badMagic), (3, 0, .badMagic)] {
            var changed = bytes
            changed[index] = byte
            let path = try blocks.temporaryFile(changed)
            #expect(try DocumentStreamReader.blockIndex(path: path) == nil)
            do {
                _ = try DocumentStreamReader.reading(path: path, fromRecord: 50)
                Issue.record("byte \(index) = \(byte) read")
            } catch let error as FirePackError {
                #expect(error.code == code && error.offset == index, "\(error)")
            }
        }
    }
}
