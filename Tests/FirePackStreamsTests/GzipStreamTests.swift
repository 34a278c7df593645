import FirePack
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackStreams

/// A `.fpks.gz` cut short (a download stopped early) reads as a torn stream, and zero bytes after the last gzip
/// member are padding, as gzip(1) takes them.
@Suite("Streams: gzip input cut short or padded")
struct GzipStreamTests {
    let helper = BlockStreamTests()

    func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let memory = MemorySink()
        let sink = try GzipSink(memory)
        try bytes.withUnsafeBytes { try sink.write($0) }
        try sink.finish()
        return memory.bytes
    }

    @Test func aCutGzipStreamGivesItsIntactRecordsAndSaysItIsCut() throws {
        let documents = try helper.helper.documents(600)
        let stream = try helper.blocks(documents, codec: .none, blockSize: 2048)
        let compressed = try gzip(stream)
        for fraction in [0.3, 0.6, 0.9] {
            let cut = Array(compressed.prefix(Int(Double(compressed.count) * fraction)))
            let reader = try DocumentStreamReader(source: GzipSource(MemorySource(cut)))
            var read: [Document] = []
            while let (_, _, document) = try reader.next() { read.append(document) }
            #expect(!read.isEmpty && read.count < documents.count, "\(fraction): \(read.count)")
            #expect(read == Array(documents.prefix(read.count)))
            // The cut itself is said apart (`sourceCut`); a block it tears is one torn unit, as in a file cut there.
            #expect(reader.sourceCut?.code == .truncated, "\(reader.problems)")
            #expect(reader.problems.count <= 1 && reader.problems.allSatisfy { $0.code == .truncated }, "\(reader.problems)")
            #expect(reader.completion == .notClosed(recordCount: reader.recordsFound))
        }
        // Whole, with zero bytes after it: every record, no problem.
        let padded = try DocumentStreamReader(source: GzipSource(MemorySource(compressed + Array(repeating: 0, count: 512))))
        var count = 0
        while try padded.next() != nil { count += 1 }
        #expect(count == documents.count && padded.problems.isEmpty && padded.completion == .closed(recordCount: 600))
        #expect(padded.sourceCut == nil)
        // Cut in its gzip trailer only: every record and the close record are there; the cut is said, nothing lost.
        let trailerCut = try DocumentStreamReader(source: GzipSource(MemorySource(Array(compressed.dropLast(4)))))
        var all = 0
        while try trailerCut.next() != nil { all += 1 }
        #expect(all == 600 && trailerCut.problems.isEmpty && trailerCut.sourceCut != nil)
        #expect(trailerCut.completion == .closed(recordCount: 600))
    }

    @Test func zeroBytesAfterTheLastMemberArePaddingAndAnythingAfterThemIsNot() throws {
        let original = Array((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let member = try gzip(original)
        for zeros in [1, 511, 70_000] {
            #expect(try FirePackStreams.readAll(GzipSource(MemorySource(member + Array(repeating: 0, count: zeros)))) == original)
        }
        let error = #expect(throws: FirePackError.self) {
            try FirePackStreams.readAll(GzipSource(MemorySource(member + Array(repeating: 0, count: 100) + [0x41])))
        }
        #expect(error?.offset == member.count + 100, "\(String(describing: error))")
        // Two members with nothing between still read as one stream.
        #expect(try FirePackStreams.readAll(GzipSource(MemorySource(member + member))) == original + original)
    }
}
