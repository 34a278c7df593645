import Foundation
import Testing
import FirePack
@testable import FirePackInterop
import FirePackTestSupport
import FirePackStreams

/// JSON writers write no more than FirePack's JSON readers take (a document: `JSONTextLimits.document`), and
/// stop early: a key written once and referenced in every map of a value is one byte per repeat in FirePack and the
/// whole key in JSON, so 120 KB of `.fpk` can be 300 MB of text.
@Suite struct JSONTextLimitTests {
    /// `{"items": [{K: 0}, {K: 1}, …]}` with a 100 KB key K in each of `count` maps: the repeats are references, as
    /// a writer without the default limit on what they stand for writes them (`ReaderLimits.maxKeyExpansion`).
    static func amplified(count: Int) throws -> (value: Value, bytes: [UInt8]) {
        let key = String(repeating: "k", count: 100_000)
        let value: Value = .map(["items": .array((0..<count).map { .map([key: .integer(Int64($0))]) })])
        let limits = ReaderLimits(maxKeyExpansion: .max)
        let writer = FirePackWriter(options: .init(limits: limits))
        writer.write(value)
        let bytes = writer.takeBytes()
        return (try Value(firePackBytes: bytes, limits: limits), bytes)
    }

    /// Past its limit the tree writer writes no more keys, so the text ends near the limit, not at 300 MB; the
    /// caller refuses it with what it is and the limit.
    @Test func theTreeWriterStopsAtItsLimit() throws {
        let (value, bytes) = try Self.amplified(count: 3_000)  // 300 MB of text
        #expect(bytes.count < 120_000)
        let limit = 1 << 20
        let text = JSONTextWriter.text(options: JSONOptions()) { writer in
            writer.limitingText(to: limit)
            writer.write(value)
        }
        #expect(text.count > limit && text.count < limit + 200_000, "\(text.count) bytes")
        let error = #expect(throws: FirePackError.self) {
            try value.jsonBytes(options: JSONOptions(), maxLength: limit, what: "document c/a")
        }
        #expect(error?.code == .limitExceeded, "\(String(describing: error))")
        #expect(error?.message.contains("document c/a would be more than 1048576 bytes") == true, "\(String(describing: error))")
        // Under the limit, the text is the text.
        let (small, _) = try Self.amplified(count: 5)
        #expect(try small.jsonBytes(options: JSONOptions(), maxLength: limit, what: "") == small.jsonBytes())
    }

    /// The direct path (from a record's bytes) stops as soon as it passes the limit and leaves the output as it
    /// was, so that the tree path refuses the document with its name.
    @Test func theDirectPathDeclinesPastItsLimit() throws {
        let (_, bytes) = try Self.amplified(count: 50)
        let output = ByteOutput()
        output.append(contentsOf: Array("before".utf8))
        let written = bytes.withUnsafeBytes { raw -> Bool in
            guard let reader = try? FirePackReader(bytes: raw) else { return false }
            return JSONTranscoding.appendObject(
                reader, appending: AddedMembers(name: ("__name__", "c/a")), options: JSONOptions(), to: output, maxLength: 1 << 20)
        }
        #expect(!written)
        #expect(output.bytes == Array("before".utf8))
        let (small, smallBytes) = try Self.amplified(count: 5)
        let smallWritten = smallBytes.withUnsafeBytes { raw -> Bool in
            guard let reader = try? FirePackReader(bytes: raw) else { return false }
            return JSONTranscoding.appendObject(
                reader, appending: AddedMembers(name: ("__name__", "c/a")), options: JSONOptions(), to: output, maxLength: 1 << 20)
        }
        #expect(smallWritten && output.count > 500_000)
        #expect(small["items"] != nil)
    }

    /// A document whose line would pass the readers' limit is refused by the JSON-lines writer, naming it, instead
    /// of written where no FirePack reader reads it back (`JSONLinesReader` takes lines of 256 MiB at most).
    @Test func aDocumentPastTheLineLimitIsRefused() throws {
        let (value, _) = try Self.amplified(count: 2_700)  // 270 MB of text
        guard case .map(let fields) = value else { throw FirePackError(.invalidValue, "not a map") }
        let document = Document(reference: try DocumentReference(path: "c/a"), fields: fields)
        let sink = MemorySink()
        let writer = JSONLinesWriter(sink, naming: DocumentNaming(collection: "c", idField: nil))
        let error = #expect(throws: FirePackError.self) { try writer.write(document) }
        #expect(error?.code == .limitExceeded && error?.message.contains("document c/a") == true, "\(String(describing: error))")
        try writer.finish()
        #expect(sink.bytes.isEmpty)
        let reader = JSONLinesReader(MemorySource([UInt8]()), naming: DocumentNaming(collection: "c", idField: nil))
        #expect(JSONTextLimits.document == reader.lines.maxLineLength - 1)
    }

    /// The protobuf writer likewise: a document message is at most what `FirestoreProtoReader` takes (the record
    /// limit, 64 MiB), refused by name before it is written whole.
    @Test func aProtobufDocumentPastTheReadersLimitIsRefused() throws {
        let (value, _) = try Self.amplified(count: 700)  // 70 MB of keys
        guard case .map(let fields) = value else { throw FirePackError(.invalidValue, "not a map") }
        let document = Document(reference: try DocumentReference(path: "c/a"), fields: fields)
        let error = #expect(throws: FirePackError.self) { try document.firestoreProtoBytes() }
        #expect(error?.code == .limitExceeded && error?.message.contains("more than 67108864 bytes") == true, "\(String(describing: error))")
        var delimited: [UInt8] = []
        #expect(throws: FirePackError.self) { try document.appendFirestoreProtoDelimited(to: &delimited) }
        #expect(delimited.isEmpty)
        // Under it, the message reads back.
        let (small, _) = try Self.amplified(count: 5)
        guard case .map(let smallFields) = small else { throw FirePackError(.invalidValue, "not a map") }
        let smallDocument = Document(reference: try DocumentReference(path: "c/a"), fields: smallFields)
        #expect(try Document(firestoreProto: smallDocument.firestoreProtoBytes()) == smallDocument)
    }

    /// `{"s": S, "m": {r0: null, …, r39: null}}` where S repeats `C2 80 10` and five digits, and entry `i` points at
    /// the `i`th repeat: 40 different keys of 131 KB inside S (a crafted input, which whole-input checks refuse).
    static func overlappingMap() -> [UInt8] {
        let units = 18_000
        let string: [UInt8] = (0..<units).flatMap { unit -> [UInt8] in
            [0xC2, 0x80, 0x10] + Array(String(format: "%05d", unit).utf8)
        }
        let entries: [UInt8] = (0..<40).flatMap { index -> [UInt8] in varintBytes(2 * index + 1) + [0xC0] }
        let map: [UInt8] = [0xD1] + varintBytes(varintBytes(40).count + entries.count) + varintBytes(40) + entries
        let sEntry: [UInt8] = [0x02, 0x73, 0xCD] + varintBytes(string.count) + string
        let body = sEntry + [0x02, 0x6D] + map
        let root: [UInt8] = [0xD1] + varintBytes(varintBytes(2).count + body.count) + varintBytes(2) + body
        let stringStart = 1 + varintBytes(varintBytes(2).count + body.count).count + 1 + 3 + varintBytes(string.count).count
        var table: [UInt8] = [0xD3] + varintBytes(40) + [3]
        for index in 0..<40 {
            let target = stringStart + 8 * index
            table += [UInt8(target & 0xFF), UInt8((target >> 8) & 0xFF), UInt8(target >> 16)]
        }
        return root + table
    }

    /// The direct path checks a large map's keys for repeats before writing it: it hashes them where they are,
    /// counts the long keys references resolve to as validation does, and stops as soon as the keys alone pass the
    /// room the limit leaves (it copied every key first: 40 keys of 131 KB here, 655 MB with 5,000).
    @Test func aLargeMapsKeysAreCheckedWithinTheLimit() throws {
        let bytes = Self.overlappingMap()
        #expect(bytes.count < 200_000)
        try bytes.withUnsafeBytes { raw in
            // The reader at the map of "m" (after "s").
            var reader = try FirePackReader(bytes: raw)
            _ = try reader.enterMap()
            _ = try reader.readKey()
            try reader.skipValue()
            _ = try reader.readKey()
            let output = ByteOutput()
            var unlimited = JSONTextWriter(options: JSONOptions(), output: output)
            let error = #expect(throws: FirePackError.self) { try unlimited.checkUnique(reader) }
            #expect(error?.code == .badKeyReference, "\(String(describing: error))")
        }
        // Forty different keys of 40 KB, none a reference: past a limit of 1 MB, refused before the map is written.
        let wide = Value.map(MapValue((0..<40).map { (String(repeating: "k", count: 40_000) + "\($0)", .null) }))
        let wideBytes = wide.firePackBytes()
        try wideBytes.withUnsafeBytes { raw in
            let output = ByteOutput()
            var writer = JSONTextWriter(options: JSONOptions(), output: output)
            writer.limitingText(to: 1 << 20)
            let error = #expect(throws: FirePackError.self) { try writer.checkUnique(try FirePackReader(bytes: raw)) }
            #expect(error?.code == .limitExceeded, "\(String(describing: error))")
            var unlimited = JSONTextWriter(options: JSONOptions(), output: output)
            try unlimited.checkUnique(try FirePackReader(bytes: raw))
        }
        // Whole-input checks refuse it (its entries overlap); so does the direct path, which wrote its 5 MB of keys.
        #expect(throws: FirePackError.self) { try FirePackReader.verify(bytes) }
        let output = ByteOutput()
        let written = bytes.withUnsafeBytes { raw -> Bool in
            guard let reader = try? FirePackReader(bytes: raw) else { return false }
            return JSONTranscoding.appendObject(reader, appending: AddedMembers(name: ("__name__", "c/a")), options: JSONOptions(), to: output)
        }
        #expect(!written && output.count == 0)
    }
}
