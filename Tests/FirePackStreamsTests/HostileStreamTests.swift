import Foundation
import Testing
import FirePack
@testable import FirePackStreams
import FirePackTestSupport

/// A stream reader costs time in proportion to the stream and holds one record (plus a bounded list of problems),
/// whatever the records claim: each case compares a hostile stream with a benign one of the same size in the same run.
@Suite("Hostile streams: linear time, one record held")
struct HostileStreamTests {
    static let maximumRatio = 3.0

    /// A reader over `bytes` that reads to the end; returns it for its counters.
    @discardableResult
    func readAll(_ bytes: [UInt8], maxRecordLength: Int) throws -> DocumentStreamReader {
        let reader = try DocumentStreamReader(source: MemorySource(bytes), maxRecordLength: maxRecordLength)
        while try reader.nextRecord() != nil {}
        return reader
    }

    /// Record headers that each claim the record limit, every 4 KiB: each one makes the reader look that far ahead and
    /// could make it check the CRC-32 of all of it. Both once cost a rescan of the rest per header (moving the unread
    /// bytes to the front, and checking claims that overlap); now the bytes move at most once per pass and failed
    /// checking is bounded by the stream's size (FORMAT.md §8, "Bounded work").
    @Test func recordsClaimingTheLimitCostLinearTime() throws {
        let limit = 1 << 20, spacing = 4 << 10, size = 8 << 20
        var hostile = DocumentStreamFormat.header
        while hostile.count + spacing <= size {
            let record = hostile.count
            hostile += DocumentStreamFormat.syncMarker + [0, 0, 0x10, 0] + [0, 0, 0, 0]   // claims 1 MiB
            hostile += [UInt8](repeating: 0, count: record + spacing - hostile.count)
        }
        let benign = DocumentStreamFormat.header + [UInt8](repeating: 0, count: hostile.count - 6)
        var reader: DocumentStreamReader?
        let measured = try CostMeasurement.ratio(hostile: { reader = try readAll(hostile, maxRecordLength: limit) },
                                                  benign: { try readAll(benign, maxRecordLength: limit) })
        #expect(measured.ratio < Self.maximumRatio, "hostile \(measured.hostile) s, benign \(measured.benign) s")
        let damaged = try #require(reader)
        // Every fake header is reported (none silently dropped), and the buffer stays within twice a record.
        #expect(damaged.problemCount == (size - 6) / spacing)
        #expect(damaged.problemCounts[.badChecksum, default: 0] > 0 && damaged.problemCounts[.limitExceeded, default: 0] > 0)
        #expect(damaged.capacity <= 2 * (limit + DocumentStreamFormat.recordHeaderLength) + (1 << 17))
    }

    /// A million damaged records in a few KiB of gzip must not become a million kept descriptions: the reader keeps
    /// the first `maxKeptProblems` and counts the rest, by kind.
    @Test func damagedRecordsAreCountedNotHeld() throws {
        let damaged = 200_000
        var bytes = DocumentStreamFormat.header
        bytes.reserveCapacity(6 + damaged * 12)
        for _ in 0..<damaged { bytes += DocumentStreamFormat.syncMarker + [0, 0, 0, 0] + [1, 0, 0, 0] }   // CRC of nothing is 0
        let reader = try readAll(bytes, maxRecordLength: DocumentStreamFormat.defaultMaxRecordLength)
        #expect(reader.problemCount == damaged)
        #expect(reader.problems.count == reader.maxKeptProblems)
        #expect(reader.problemCounts[.badChecksum] == damaged)
        #expect(reader.problems.first?.offset == 6 && reader.problems.last?.recordNumber == reader.maxKeptProblems - 1)
        #expect(reader.completion == .notClosed(recordCount: damaged))
    }
}


/// What FirePack writes, FirePack reads back: writers refuse, before any byte leaves them, what readers refuse
/// (FORMAT.md §6), with the error a reader would give.
@Suite("Writers enforce the readers' limits")
struct WriterLimitTests {
    /// A value nested `depth` arrays deep around an integer.
    func nested(_ depth: Int) -> Value {
        var value: Value = 1
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    /// A value larger than the readers' input limit (2 GiB by default; here a small one), counting a `.fpk` file's
    /// 5-byte header, is a violation the writer notes, as readers with the same limits refuse it; one within it is not.
    @Test func aValuePastTheInputLimitIsAViolation() throws {
        let limits = ReaderLimits(maxInputSize: 100)
        for (value, past) in [(Value.string(String(repeating: "x", count: 92)), false),
                              (.string(String(repeating: "x", count: 200)), true),
                              (.array((0..<40).map { .string("k\($0)") }), true)] {
            let writer = FirePackWriter(options: .init(limits: limits))
            writer.write(value)
            let bytes = writer.writtenBytes
            #expect((writer.limitViolation?.code == .limitExceeded) == past, "\(bytes.count) bytes")
            let read = try? Value(firePackBytes: bytes, limits: limits)
            #expect(past ? read == nil : read == value, "\(bytes.count) bytes")
        }
    }

    @Test func aStreamWriterDropsARecordReadersWouldRefuseAndGoesOn() throws {
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, version: 2)
        let reference = try DocumentReference(path: "c/deep")
        try writer.append(Document(reference: reference, fields: ["ok": nested(98)]))   // depth 99 with the fields map
        let tooDeep = #expect(throws: FirePackError.self) {
            try writer.append(Document(reference: reference, fields: ["deep": nested(100)]))
        }
        #expect(tooDeep?.code == .depthLimitExceeded, "\(String(describing: tooDeep))")
        // A record over the record limit (64 MiB) is refused too, with nothing of it written.
        let huge = Value.bytes(Data(repeating: 7, count: DocumentStreamFormat.defaultMaxRecordLength))
        let tooLarge = #expect(throws: FirePackError.self) {
            try writer.append(Document(reference: reference, fields: ["blob": huge]))
        }
        #expect(tooLarge?.code == .limitExceeded && tooLarge?.message.contains("record limit") == true)
        try writer.append(Document(reference: reference, fields: ["after": 1]))
        try writer.close()
        // Everything written reads back, in order, and the stream is closed.
        let reader = try DocumentStreamReader(source: MemorySource(sink.bytes), mode: .stopAtFirstError)
        var names: [String] = []
        while let (_, _, document) = try reader.next() { names.append(document.fields.keys[0]) }
        #expect(names == ["ok", "after"] && reader.completion == .closed(recordCount: 2))
    }

    @Test func theEncoderAndTheWriterRefuseWhatReadersRefuse() throws {
        // The Codable encoder: an EncodingError whose underlying error is the reader's, nothing left in the writer.
        let writer = FirePackWriter()
        #expect(throws: EncodingError.self) { try FirePackEncoder().encode(nested(101), into: writer) }
        #expect(writer.writerIndex == 0 && writer.limitViolation == nil)
        try FirePackEncoder().encode(nested(100), into: writer)
        #expect(try Value(firePackBytes: writer.takeBytes()) == nested(100))
        // The streaming writer with a sink: flush refuses to hand over a value past the limits.
        var sent = 0
        let limited = FirePackWriter(options: .init(limits: ReaderLimits(maxElementCount: 3)), sink: .init { sent += $0.count })
        limited.beginArray()
        for index in 0..<4 { limited.writeInteger(Int64(index)) }
        limited.endArray()
        let violation = #expect(throws: FirePackError.self) { try limited.flush() }
        #expect(violation?.code == .limitExceeded && violation?.offset == 0 && sent == 0)
        // Readers with the same limits refuse the same bytes, with the same code at the same offset.
        let refused = #expect(throws: FirePackError.self) {
            try Value(firePackBytes: limited.writtenBytes, limits: ReaderLimits(maxElementCount: 3))
        }
        #expect(refused?.code == violation?.code && refused?.offset == violation?.offset)
        limited.clear()
        try limited.flush()
        #expect(sent == 0)
    }
}
