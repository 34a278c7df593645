import FirePack
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackStreams

/// A stream written before the expansion rule (Docs/FORMAT.md §8, "Expansion"): every reader refuses its block as
/// past a limit, not as damage, says what reading it needs, and reads it when allowed that much — whole, by byte
/// range, by record number through the index, asynchronously — and appending to it loses none of its blocks.
@Suite("Block expansion: streams written before the rule")
struct BlockExpansionReaderTests {
    let folder = TemporaryFolder("expansion")

    /// The documents `reader` gives and the codes of its problems.
    func read(_ reader: DocumentStreamReader) throws -> (documents: [Document], codes: [FirePackError.Code]) {
        var documents: [Document] = []
        while let (_, _, document) = try reader.next() { documents.append(document) }
        return (documents, reader.problems.map(\.code))
    }

    @Test("refused as past the limit (limitExceeded), with what reading it needs, which reads it exactly")
    func refusedWithWhatItNeeds() throws {
        let old = try StreamBeforeTheExpansionRule()
        #expect(old.expansionNeeded > 1024)
        let refusing = try DocumentStreamReader(source: MemorySource(old.bytes))
        let (documents, codes) = try read(refusing)
        #expect(documents == [old.small] && codes == [.limitExceeded])
        let problem = try #require(refusing.problems.first)
        #expect(problem.offset == old.longBlockOffset && problem.recordNumber == 1)
        #expect(problem.reason.contains("past the block-expansion limit"), "\(problem.reason)")
        #expect(problem.reason.contains("reading it needs a limit of at least \(old.expansionNeeded))"), "\(problem.reason)")
        #expect(refusing.blocksPastExpansion == 1 && refusing.blockExpansionNeeded == old.expansionNeeded)
        #expect(refusing.completion == .closed(recordCount: 2))
        // What the message says is enough, and one less is not, with the next block unpacked on another thread too.
        for (limit, reads) in [(old.expansionNeeded, true), (old.expansionNeeded - 1, false)] {
            for ahead in [false, true] {
                let reader = try DocumentStreamReader(source: MemorySource(old.bytes), maxBlockExpansion: limit)
                reader.readsBlocksAhead = ahead
                let (documents, codes) = try read(reader)
                #expect(documents == (reads ? [old.small, old.long] : [old.small]), "\(limit), \(ahead)")
                #expect(codes == (reads ? [] : [.limitExceeded]) && reader.blocksPastExpansion == (reads ? 0 : 1))
            }
        }
        // Stopping at the first error, it is thrown as such.
        let stopping = try DocumentStreamReader(source: MemorySource(old.bytes), mode: .stopAtFirstError)
        let error = #expect(throws: StreamProblem.self) { try read(stopping) }
        #expect(error?.code == .limitExceeded && error?.offset == old.longBlockOffset, "\(String(describing: error))")
    }

    @Test("byte ranges and asynchronous streams take the limit")
    func rangesAndAsyncStreamsTakeTheLimit() async throws {
        let old = try StreamBeforeTheExpansionRule()
        let path = folder.path("old.fpks")
        try Data(old.bytes).write(to: URL(fileURLWithPath: path))
        // Two ranges split at the long block: the second reads it only when allowed.
        let first = try DocumentStreamReader.reading(path: path, offset: 0, length: old.longBlockOffset)
        #expect(try read(first).documents == [old.small])
        for (limit, expected) in [(1024, [Document]()), (old.expansionNeeded, [old.long])] {
            let second = try DocumentStreamReader.reading(
                path: path, offset: old.longBlockOffset, length: nil, maxBlockExpansion: limit)
            let (documents, codes) = try read(second)
            #expect(documents == expected && codes == (expected.isEmpty ? [.limitExceeded] : []), "\(limit)")
        }
        for (limit, expected) in [(1024, [old.small]), (old.expansionNeeded, [old.small, old.long])] {
            let stream = AsyncDocumentStream(chunks: CountedChunks(old.bytes, size: 7), maxBlockExpansion: limit)
            var documents: [Document] = []
            for try await document in stream { documents.append(document) }
            #expect(documents == expected, "\(limit)")
            #expect(stream.problems.map(\.code) == (expected.count == 1 ? [.limitExceeded] : []))
        }
    }

    @Test("appending counts every block, and the index it writes lets a reader allowing it seek to the old block")
    func appendingKeepsTheOldBlocksInTheIndex() throws {
        let old = try StreamBeforeTheExpansionRule()
        let path = folder.path("appended.fpks")
        try Data(old.bytes).write(to: URL(fileURLWithPath: path))
        let added = Document(reference: try DocumentReference(path: "books/added"), fields: ["n": 3])
        let writer = try DocumentStreamWriter.appending(toPath: path)
        try writer.append(added)
        try writer.close()

        let blocks = try #require(try DocumentStreamReader.blockIndex(path: path))
        #expect(blocks.map(\.firstRecord) == [0, 1, 2] && blocks[1].offset == old.longBlockOffset)
        let seeking = try DocumentStreamReader.reading(
            path: path, fromRecord: 1, maxBlockExpansion: old.expansionNeeded)
        let found = try #require(try seeking.next())
        #expect(found.number == 1 && found.document == old.long)
        // Without the limit raised, the record is refused where the index leads, and the next one follows.
        let refusing = try DocumentStreamReader.reading(path: path, fromRecord: 1)
        let next = try #require(try refusing.next())
        #expect(next.number == 2 && next.document == added)
        #expect(refusing.problems.map(\.code) == [.limitExceeded] && refusing.blockExpansionNeeded == old.expansionNeeded)
        let whole = try DocumentStreamReader(source: FileSource(path: path), maxBlockExpansion: old.expansionNeeded)
        #expect(try read(whole).documents == [old.small, old.long, added] && whole.completion == .closed(recordCount: 3))
    }
}
