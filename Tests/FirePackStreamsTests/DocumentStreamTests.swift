import Foundation
import Testing
import FirePackTestSupport
import FirePack
@testable import FirePackStreams

/// `documents` written as a closed stream of `version` (2 unless asked: record by record, the layout these tests
/// damage at known offsets), flushed every 4 KiB.
func streamBytes(_ documents: [Document], version: UInt8 = 2) throws -> [UInt8] {
    let sink = MemorySink()
    let writer = try DocumentStreamWriter(sink: sink, flushThreshold: 4096, version: version)
    for document in documents { try writer.append(document) }
    try writer.close()
    return sink.bytes
}

@Suite("Document streams")
struct DocumentStreamTests {
    func documents(_ count: Int) throws -> [Document] {
        try (0..<count).map { index in
            Document(reference: try DocumentReference(path: "books/b\(index)"),
                     fields: ["index": .integer(Int64(index)), "title": .string("Book \(index)"), "tags": ["a", "b"]],
                     updateTime: Timestamp(seconds: Int64(index), nanoseconds: 0))
        }
    }

    func stream(_ documents: [Document]) throws -> [UInt8] { try streamBytes(documents) }

    func readAll(_ bytes: [UInt8], mode: DocumentStreamReader.ErrorMode = .skipAndReport) throws -> (documents: [Document], problems: [StreamProblem]) {
        let reader = try DocumentStreamReader(source: MemorySource(bytes), mode: mode)
        var documents: [Document] = []
        while let (_, _, document) = try reader.next() { documents.append(document) }
        return (documents, reader.problems)
    }

    /// Offsets of each record's sync marker (not of the close record).
    func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        var offset = DocumentStreamFormat.header.count
        while offset + 12 <= bytes.count && bytes[offset + 3] == DocumentStreamFormat.syncMarker[3] {
            offsets.append(offset)
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            offset += 12 + length
        }
        return offsets
    }

    /// Records cut out of a closed version-2 stream at their boundaries leave every frame intact: only the close
    /// record's count says they are gone, and the reader says so (`missingRecords` at the close record), whole or
    /// as the range at byte 0; after damage just before the close record the count may differ for that reason, and
    /// only `validate` names it.
    @Test func recordsCutOutBeforeTheCloseRecordAreReported() throws {
        let bytes = try stream(try documents(6))
        let offsets = recordOffsets(bytes)
        let cut = Array(bytes[..<offsets[2]] + bytes[offsets[4]...])  // records 2 and 3
        let close = cut.count - 16
        let whole = try DocumentStreamReader(source: MemorySource(cut))
        while try whole.next() != nil {}
        #expect(whole.problems.map { "\($0.recordNumber) \($0.offset) \($0.code)" } == ["4 \(close) missingRecords"])
        #expect(whole.problems.first?.reason.hasPrefix("records 4–5 are missing") == true)
        #expect(whole.completion == .closed(recordCount: 6) && whole.reportedMissingAtClose)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cut-\(UUID().uuidString).fpks").path
        try Data(cut).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for (offset, length) in [(0, nil), (0, 3), (3, nil), (offsets[1], nil)] as [(Int, Int?)] {
            let range = try DocumentStreamReader.reading(path: path, offset: offset, length: length)
            while try range.next() != nil {}
            // Only the range at byte 0 knows the stream's numbers in version 2 (and only it reads to the end here).
            let expected = offset == 0 && length == nil ? 1 : 0
            #expect(range.problems.filter { $0.code == .missingRecords }.count == expected, "\(offset) \(String(describing: length))")
        }
        // Garbage just before the close record took a number: the count's disagreement may be its doing.
        let damaged = Array(cut[..<close]) + [UInt8](repeating: 0, count: 9) + cut[close...]
        let (documents, problems) = try readAll(damaged)
        #expect(documents.count == 4 && problems.map(\.code) == [.badSyncMarker])
        // A stream missing nothing reports nothing.
        #expect(try readAll(bytes).problems.isEmpty)
    }

    @Test func recordLayoutMatchesTheSpec() throws {
        let document = Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 1])
        let bytes = try stream([document])
        #expect(Array(bytes[0..<6]) == [0x89, 0x46, 0x50, 0x53, 0x02, 0x00])
        #expect(Array(bytes[6..<10]) == [0xF3, 0x50, 0x52, 0x1E])
        let payload = Array(bytes[18..<(bytes.count - 16)])
        // The close record: its marker, the record count (1) and the CRC-32 of the count.
        let count: [UInt8] = [1, 0, 0, 0, 0, 0, 0, 0]
        #expect(Array(bytes.suffix(16)) == [0xF3, 0x50, 0x52, 0x45] + count + withUnsafeBytes(of: count.withUnsafeBytes { crc32($0) }.littleEndian, Array.init))
        #expect(payload == document.firePackBytes())
        #expect(Array(bytes[10..<14]) == withUnsafeBytes(of: UInt32(payload.count).littleEndian, Array.init))
        #expect(Array(bytes[14..<18]) == withUnsafeBytes(of: payload.withUnsafeBytes { crc32($0) }.littleEndian, Array.init))
        let format = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/FORMAT.md"), encoding: .utf8)
        #expect(format.contains(hexString(bytes)), "FORMAT.md §8 shows this stream byte for byte")
    }

    func hexString(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02X", $0) }.joined(separator: " ") }

    @Test func writeAndReadBack() throws {
        let originals = try documents(1_000)
        let (documents, problems) = try readAll(try stream(originals))
        #expect(documents == originals)
        #expect(problems.isEmpty)
    }

    @Test func aDamagedPayloadCostsOnlyItsRecord() throws {
        let originals = try documents(100)
        var bytes = try stream(originals)
        let offsets = recordOffsets(bytes)
        bytes[offsets[50] + 20] ^= 0x40
        let (documents, problems) = try readAll(bytes)
        #expect(documents == originals.enumerated().filter { $0.offset != 50 }.map(\.element))
        #expect(problems.count == 1)
        #expect(problems.first?.recordNumber == 50 && problems.first?.offset == offsets[50])
        #expect(problems.first?.reason.contains("CRC") == true)
    }

    @Test func aDamagedLengthIsRecoveredFromBySyncMarker() throws {
        let originals = try documents(100)
        var bytes = try stream(originals)
        let offsets = recordOffsets(bytes)
        bytes[offsets[30] + 6] = 0x7F   // the length now runs far past the end
        bytes[offsets[60] + 5] ^= 0x01  // and this one is merely wrong
        let (documents, problems) = try readAll(bytes)
        #expect(documents == originals.enumerated().filter { $0.offset != 30 && $0.offset != 60 }.map(\.element))
        #expect(problems.map(\.offset) == [offsets[30], offsets[60]])
    }

    @Test func aTornLastRecordIsDetectedAndAppendingGoesOn() throws {
        let originals = try documents(10)
        var bytes = try stream(originals)
        bytes.removeLast(DocumentStreamFormat.closeRecordLength + 7)
        var (documents, problems) = try readAll(bytes)
        #expect(documents == Array(originals.prefix(9)))
        #expect(problems.count == 1 && problems[0].isTruncated && problems[0].recordNumber == 9)

        // A crash mid-append, then more records appended: everything intact comes back.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fpks-\(UUID().uuidString).fpks")
        defer { try? FileManager.default.removeItem(at: url) }
        try Data(bytes).write(to: url)
        let more = try self.documents(13).suffix(3)
        let writer = try DocumentStreamWriter.appending(toPath: url.path)
        for document in more { try writer.append(document) }
        try writer.close()
        (documents, problems) = try readAll([UInt8](try Data(contentsOf: url)))
        #expect(documents == Array(originals.prefix(9)) + more)
        #expect(problems.count == 1 && !problems[0].isTruncated)
    }

    @Test func stopAtFirstErrorThrowsTheProblem() throws {
        var bytes = try stream(try documents(5))
        bytes[recordOffsets(bytes)[2] + 15] ^= 1
        do {
            _ = try readAll(bytes, mode: .stopAtFirstError)
            Issue.record("read a damaged stream without an error")
        } catch let problem as StreamProblem {
            #expect(problem.recordNumber == 2)
        }
    }

    @Test func sequences() throws {
        let originals = try documents(20)
        var bytes = try stream(originals)
        bytes[recordOffsets(bytes)[7] + 14] ^= 1
        let skipping = try DocumentStreamReader(source: MemorySource(bytes))
        #expect(Array(skipping.documents) == originals.enumerated().filter { $0.offset != 7 }.map(\.element))
        #expect(skipping.problems.count == 1 && skipping.stoppedBy == nil)
        let stopping = try DocumentStreamReader(source: MemorySource(bytes), mode: .stopAtFirstError)
        #expect(Array(stopping.documents) == Array(originals.prefix(7)))
        #expect((stopping.stoppedBy as? StreamProblem)?.recordNumber == 7)
    }

    @Test func notAStream() {
        #expect(throws: FirePackError.self) { _ = try DocumentStreamReader(source: MemorySource([0x89, 0x46, 0x50, 0x4B, 0x01, 0xC0])) }
        #expect(throws: FirePackError.self) { _ = try DocumentStreamReader(source: MemorySource([0x89, 0x46, 0x50, 0x53, 0x09, 0x00])) }
    }

    struct Book: Codable, Equatable {
        @DocumentID var id: String?
        var title: String
    }

    @Test func encodableValuesWithReferences() throws {
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, version: 2)
        for index in 0..<3 { try writer.append(Book(id: nil, title: "T\(index)"), reference: try DocumentReference(path: "books/b\(index)")) }
        try writer.close()
        let reader = try DocumentStreamReader(source: MemorySource(sink.bytes))
        var books: [Book] = []
        while let (_, book) = try reader.next(as: Book.self) { books.append(book) }
        #expect(books == (0..<3).map { Book(id: "b\($0)", title: "T\($0)") })
        let again = try DocumentStreamReader(source: MemorySource(sink.bytes))
        #expect(Array(again.values(as: Book.self)) == books)
    }

    @Test func randomCorruptionNeverCrashesAndKeepsMostRecords() throws {
        let originals = try documents(200)
        let clean = try stream(originals)
        var rng = SeededGenerator(seed: 99)
        for _ in 0..<200 {
            var bytes = clean
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let position = Int.random(in: 6..<bytes.count, using: &rng)
                bytes[position] = UInt8.random(in: 0...255, using: &rng)
            }
            let (documents, problems) = try readAll(bytes)
            #expect(documents.count + problems.count >= 196, "every record is either read or reported")
            #expect(Set(documents.map(\.reference)).isSubset(of: Set(originals.map(\.reference))))
        }
    }
}

@Suite("gzip")
struct GzipTests {
    @Test func roundTripInChunks() throws {
        let original = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
        let memory = MemorySink()
        let sink = try GzipSink(memory)
        for start in stride(from: 0, to: original.count, by: 7_000) {
            try original[start..<min(start + 7_000, original.count)].withUnsafeBytes { try sink.write($0) }
        }
        try sink.finish()
        #expect(memory.bytes.count < original.count)
        #expect(Array(memory.bytes.prefix(2)) == [0x1F, 0x8B])
        #expect(try FirePackStreams.readAll(GzipSource(MemorySource(memory.bytes))) == original)
        // Two members one after another read as one stream, as gunzip does.
        #expect(try FirePackStreams.readAll(GzipSource(MemorySource(memory.bytes + memory.bytes))) == original + original)
        // A cut-off file is an error, not a silent short read.
        #expect(throws: FirePackError.self) { try FirePackStreams.readAll(GzipSource(MemorySource(Array(memory.bytes.dropLast(20))))) }
        #expect(throws: FirePackError.self) { try FirePackStreams.readAll(GzipSource(MemorySource([0x1F, 0x8B, 0x08, 0x00, 0xFF, 0xFF, 0xFF]))) }
    }

    /// An error in a later member is at its offset in the input, not in its member (zlib counts from each member).
    @Test func errorsInALaterMemberAreAtTheirOffsetInTheInput() throws {
        let memory = MemorySink()
        let sink = try GzipSink(memory)
        try Array(repeating: UInt8(7), count: 5_000).withUnsafeBytes { try sink.write($0) }
        try sink.finish()
        let member = memory.bytes
        for (input, offset) in [(member + member + [0x58, 0x59, 0x5A], 2 * member.count + 2),
                                (member + Array(member.dropLast(4)), member.count + member.count - 4)] {
            let error = #expect(throws: FirePackError.self) { try FirePackStreams.readAll(GzipSource(MemorySource(input))) }
            #expect(error?.offset.map { abs($0 - offset) <= 2 } == true, "\(String(describing: error)), near \(offset)")
            #expect((error?.offset ?? 0) > member.count, "past the first member: \(String(describing: error))")
        }
    }
}


/// The stream rules of Docs/FORMAT.md §8 that a second reader must agree on: header bytes, problem codes, offsets.
@Suite("Document stream rules")
struct DocumentStreamRuleTests {
    let helper = DocumentStreamTests()

    @Test func theHeaderIsVersionTwoWithNoFlags() throws {
        let valid = try helper.stream(try helper.documents(1))
        for (index, byte, code) in [(4, UInt8(0), FirePackError.Code.unsupportedVersion), (4, 4, .unsupportedVersion),
                                    (5, 1, .unsupportedVersion), (5, 0x80, .unsupportedVersion), (0, 0x88, .badMagic),
                                    (2, 0x51, .badMagic), (3, 0x4B, .badMagic)] {
            var bytes = valid
            bytes[index] = byte
            do {
                _ = try DocumentStreamReader(source: MemorySource(bytes))
                Issue.record("header byte \(index) = \(byte) accepted")
            } catch let error as FirePackError {
                #expect(error.code == code && error.offset == index, "\(error)")
            }
        }
        // A header cut short while its bytes match is `truncated` at its first byte; the version comes before it.
        for (cut, code, offset) in [(0, FirePackError.Code.truncated, 0), (3, .truncated, 0), (5, .truncated, 0)] {
            do {
                _ = try DocumentStreamReader(source: MemorySource(Array(valid[..<cut])))
                Issue.record("a header of \(cut) bytes accepted")
            } catch let error as FirePackError {
                #expect(error.code == code && error.offset == offset, "\(error)")
            }
        }
        do {
            _ = try DocumentStreamReader(source: MemorySource([0x89, 0x46, 0x50, 0x53, 0x09]))
            Issue.record("version 9 accepted")
        } catch let error as FirePackError {
            #expect(error.code == .unsupportedVersion && error.offset == 4, "\(error)")
        }
    }

    @Test func problemsCarryACodeAndAStreamOffset() throws {
        let originals = try helper.documents(4)
        let bytes = try helper.stream(originals)
        let offsets = helper.recordOffsets(bytes)

        var damaged = bytes
        damaged[offsets[1] + 20] ^= 0x40                                      // inside record 1's payload: CRC
        var (_, problems) = try helper.readAll(damaged)
        #expect(problems.map(\.code) == [.badChecksum] && problems[0].offset == offsets[1])

        var unmarked = bytes
        unmarked[offsets[1]] = 0
        (_, problems) = try helper.readAll(unmarked)
        #expect(problems.map(\.code) == [.badSyncMarker] && problems[0].offset == offsets[1])

        var long = bytes
        long[offsets[2] + 7] = 0x7F                                          // record 2's length: about 2 GiB
        (_, problems) = try helper.readAll(long)
        #expect(problems.map(\.code) == [.limitExceeded] && problems[0].offset == offsets[2])

        var pastTheEnd = bytes
        pastTheEnd[offsets[2] + 6] = 0x10                                    // 1 MiB more: past the end, record 3 follows
        (_, problems) = try helper.readAll(pastTheEnd)
        #expect(problems.map(\.code) == [.lengthOutOfBounds] && problems[0].offset == offsets[2])

        var torn = bytes
        torn.removeLast(DocumentStreamFormat.closeRecordLength + 3)
        (_, problems) = try helper.readAll(torn)
        #expect(problems.map(\.code) == [.truncated] && problems[0].offset == offsets[3])

        // A record whose CRC checks out but whose payload is not a document (an extra key): the offset names the
        // extra key's header, counted from the start of the stream.
        let payload = Value.map(["name": .reference(try DocumentReference(path: "books/x")), "fields": [:], "extra": 1]).firePackBytes()
        var framed = DocumentStreamFormat.header(version: 2) + DocumentStreamFormat.syncMarker
        framed += withUnsafeBytes(of: UInt32(payload.count).littleEndian, Array.init)
        framed += withUnsafeBytes(of: payload.withUnsafeBytes { crc32($0) }.littleEndian, Array.init)
        framed += payload
        (_, problems) = try helper.readAll(framed)
        let extraKey = try #require(payload.indices.first { payload[$0] == 0x0A && payload[$0 + 1] == UInt8(ascii: "e") })
        #expect(problems.map(\.code) == [.invalidDocument])
        #expect(problems.first?.offset == DocumentStreamFormat.header.count + 12 + extraKey)
        #expect(problems.first?.reason.contains("at byte \(DocumentStreamFormat.header.count + 12 + extraKey)") == true)
    }
}

/// Streams that know whether they are complete: the close record of Docs/FORMAT.md §8.
@Suite("Stream completion")
struct StreamCompletionTests {
    let helper = DocumentStreamTests()

    func completion(_ bytes: [UInt8]) throws -> (StreamCompletion?, [StreamProblem], Int) {
        let reader = try DocumentStreamReader(source: MemorySource(bytes))
        var count = 0
        while try reader.next() != nil { count += 1 }
        return (reader.completion, reader.problems, count)
    }

    @Test func aClosedStreamSaysSo() throws {
        let (completion, problems, count) = try completion(try helper.stream(try helper.documents(5)))
        #expect(completion == .closed(recordCount: 5) && problems.isEmpty && count == 5)
        #expect(try self.completion(try helper.stream([])).0 == .closed(recordCount: 0))
    }

    @Test func aStreamCutAtARecordBoundaryIsNotClosed() throws {
        let bytes = try helper.stream(try helper.documents(5))
        let offsets = helper.recordOffsets(bytes)
        // Without its close record, and cut after record 2: every intact record reads, no problem, not closed.
        for (cut, records) in [(bytes.count - DocumentStreamFormat.closeRecordLength, 5), (offsets[3], 3), (6, 0)] {
            let (completion, problems, count) = try completion(Array(bytes[..<cut]))
            #expect(completion == .notClosed(recordCount: records) && problems.isEmpty && count == records, "cut at \(cut)")
        }
        // A stream that ends inside its close record (the writer stopped while closing it) lost nothing: not closed,
        // no problem. Fewer bytes than a marker cannot be told from a torn record, and are one.
        let (completion, problems, count) = try completion(Array(bytes.dropLast(5)))
        #expect(completion == .notClosed(recordCount: 5) && problems.isEmpty && count == 5)
        let (_, cutMarker, _) = try self.completion(Array(bytes.dropLast(DocumentStreamFormat.closeRecordLength - 3)))
        #expect(cutMarker.map(\.code) == [.truncated] && cutMarker[0].offset == bytes.count - DocumentStreamFormat.closeRecordLength)
        // A damaged close record is a checksum problem, at its marker.
        var damaged = bytes
        damaged[bytes.count - 10] ^= 1
        let (damagedCompletion, damagedProblems, _) = try self.completion(damaged)
        #expect(damagedCompletion == .notClosed(recordCount: 5))
        #expect(damagedProblems.map(\.code) == [.badChecksum] && damagedProblems[0].offset == bytes.count - 16)
    }

    @Test func appendingSupersedesTheCloseRecord() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fpks-\(UUID().uuidString).fpks")
        defer { try? FileManager.default.removeItem(at: url) }
        let all = try helper.documents(8)
        try Data(try helper.stream(Array(all.prefix(5)))).write(to: url)
        let writer = try DocumentStreamWriter.appending(toPath: url.path)
        for document in all.suffix(3) { try writer.append(document) }
        try writer.close()
        let bytes = [UInt8](try Data(contentsOf: url))
        let reader = try DocumentStreamReader(source: MemorySource(bytes))
        var documents: [Document] = []
        while let (_, _, document) = try reader.next() { documents.append(document) }
        #expect(documents == all && reader.problems.isEmpty)
        #expect(reader.completion == .closed(recordCount: 8))
    }

    @Test func aWriterDroppedWithoutCloseKeepsItsRecords() throws {
        let sink = MemorySink()
        do {
            let writer = try DocumentStreamWriter(sink: sink, flushThreshold: 1 << 20, version: 2)
            for document in try helper.documents(3) { try writer.append(document) }
            #expect(sink.bytes.isEmpty)   // still buffered
        }
        let (completion, problems, count) = try completion(sink.bytes)
        #expect(count == 3 && problems.isEmpty && completion == .notClosed(recordCount: 3))
    }

    @Test func anAtomicWriterChangesTheDestinationOnlyOnClose() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("out.fpks").path
        let old = try helper.stream(try helper.documents(2))
        try Data(old).write(to: URL(fileURLWithPath: path))
        do {
            let writer = try DocumentStreamWriter.creatingAtomically(atPath: path)
            for document in try helper.documents(50) { try writer.append(document) }
            try writer.flush()
            #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == old)   // not yet
        }
        // Released unclosed: the job did not finish, the old file stays and no temporary file is left.
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.fpks"])
        let writer = try DocumentStreamWriter.creatingAtomically(atPath: path)
        for document in try helper.documents(50) { try writer.append(document) }
        try writer.close()
        #expect(try completion([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))).0 == .closed(recordCount: 50))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.fpks"])
    }

    @Test func versionOneStreamsStillRead() throws {
        var bytes = try helper.stream(try helper.documents(3))
        bytes.removeLast(DocumentStreamFormat.closeRecordLength)
        bytes[4] = 1
        let (completion, problems, count) = try completion(bytes)
        #expect(completion == .unknown && problems.isEmpty && count == 3)
    }

    struct Book: Codable, Equatable {
        @DocumentID var id: String?
        var title: String
    }

    /// `values(as:)` never ends silently: a record that does not decode is a problem with its number and offset.
    @Test func recordsThatDoNotDecodeAreReported() throws {
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, version: 2)
        try writer.append(Book(title: "One"), reference: try DocumentReference(path: "books/1"))
        try writer.append(Document(reference: try DocumentReference(path: "books/2"), fields: ["title": 2]))
        try writer.append(Book(title: "Three"), reference: try DocumentReference(path: "books/3"))
        try writer.close()
        let offsets = helper.recordOffsets(sink.bytes)

        let skipping = try DocumentStreamReader(source: MemorySource(sink.bytes))
        #expect(Array(skipping.values(as: Book.self)).map(\.title) == ["One", "Three"])
        #expect(skipping.problems.map(\.code) == [.decodingFailed])
        #expect(skipping.problems.first?.recordNumber == 1 && skipping.problems.first?.offset == offsets[1])
        #expect(skipping.problems.first?.reason.contains("books/2") == true)
        #expect(skipping.completion == .closed(recordCount: 3))

        let stopping = try DocumentStreamReader(source: MemorySource(sink.bytes), mode: .stopAtFirstError)
        #expect(try stopping.next(as: Book.self)?.value.title == "One")
        do {
            _ = try stopping.next(as: Book.self)
            Issue.record("a record that does not decode was not thrown")
        } catch let problem as StreamProblem {
            #expect(problem.code == .decodingFailed && problem.recordNumber == 1 && problem.offset == offsets[1])
        }
    }
}

@Suite("Byte sources")
struct ByteSourceTests {
    @Test func emptySourcesAndBuffersReadNothing() throws {
        var storage = [UInt8](repeating: 0, count: 4)
        let empty = MemorySource([])
        #expect(try storage.withUnsafeMutableBytes { try empty.read(into: $0) } == 0)
        let source = MemorySource([1, 2, 3])
        #expect(try source.read(into: UnsafeMutableRawBufferPointer(start: nil, count: 0)) == 0)
        #expect(try storage.withUnsafeMutableBytes { try source.read(into: $0) } == 3 && storage.prefix(3) == [1, 2, 3])
        #expect(try storage.withUnsafeMutableBytes { try source.read(into: $0) } == 0)
        #expect(crc32(UnsafeRawBufferPointer(start: nil, count: 0)) == 0)
        #expect([UInt8]("123456789".utf8).withUnsafeBytes { crc32($0) } == 0xCBF4_3926)   // the CRC-32 check value
    }
}
