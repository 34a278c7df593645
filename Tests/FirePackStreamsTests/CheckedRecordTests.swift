import Foundation
import Testing
import FirePack
@testable import FirePackStreams
import FirePackTestSupport

/// `nextCheckedRecord()` checks a record from its bytes as `next()` checks it by building the document: the same
/// records, names and problems (code, offset, record number), on every one-byte change of a record that its stream's
/// checksum still covers.
@Suite("Streams: records checked without a tree")
struct CheckedRecordTests {
    /// What a reader gave: each record's number and name, then its problems.
    struct Outcome: Equatable {
        var records: [String] = []
        var problems: [StreamProblem] = []
    }

    static func read(_ bytes: [UInt8], checked: Bool) throws -> Outcome {
        let reader = try DocumentStreamReader(source: MemorySource(bytes))
        var outcome = Outcome()
        if checked {
            while let (record, reference) = try reader.nextCheckedRecord() {
                outcome.records.append("\(record.number) \(reference.path)")
            }
        } else {
            while let (number, _, document) = try reader.next() {
                outcome.records.append("\(number) \(document.reference.path)")
            }
        }
        outcome.problems = reader.problems
        return outcome
    }

    /// A stream of `version` with an intact document either side of `payload`, written as it is (its checksum
    /// covers it).
    static func stream(version: UInt8, around payload: [UInt8], intact: Document) throws -> [UInt8] {
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, version: version, codec: .none)
        writer.blockLayout = .rows
        try writer.append(intact)
        try payload.withUnsafeBytes { try writer.append(encodedDocument: $0) }
        try writer.append(intact)
        try writer.close()
        return sink.bytes
    }

    @Test("every one-byte change of a record gives the same records and problems checked or built")
    func sameOutcomeOnEveryMutation() throws {
        let intact = Document(reference: try DocumentReference(path: "c/intact"), fields: ["n": 1])
        let fields: MapValue = [
            "title": "Dune", "tags": ["x", "y"], "nested": ["a": 1.5, "b": .null, "c": ["a": true]],
            "rows": [[1, 2], [3, 4]], "doubles": [1.5, 65.66, -0.25], "at": .timestamp(Timestamp(seconds: 5, nanoseconds: 7)),
        ]
        let document = Document(
            reference: try DocumentReference(path: "books/dune"), fields: fields,
            createTime: Timestamp(seconds: 1, nanoseconds: 0))
        var compared = 0, refused = 0
        for version: UInt8 in [2, 3] {
            // As the stream's writer writes a record: version 2 with key references in format version 1, version 3
            // without them.
            let writer = FirePackWriter(options: .init(keyReferences: version < 3, formatVersion: version < 3 ? 1 : 3))
            document.write(to: writer)
            let payload = writer.takeBytes()
            for index in payload.indices {
                for replacement: UInt8 in [0x00, 0x7F, 0xC0, 0xFF, payload[index] ^ 0x01] where replacement != payload[index] {
                    var mutated = payload
                    mutated[index] = replacement
                    let bytes = try Self.stream(version: version, around: mutated, intact: intact)
                    let built = try Self.read(bytes, checked: false), checked = try Self.read(bytes, checked: true)
                    #expect(checked == built, "version \(version), byte \(index) = \(replacement)")
                    compared += 1
                    if built.records.count < 3 { refused += 1 }
                }
            }
        }
        // Most changes make the record invalid; the comparison covers those problems, not only intact records.
        #expect(compared > 500 && refused > compared / 2, "\(refused) of \(compared)")
    }
}
