@_spi(Wire) import FirePack
import FirePackTestSupport
import Foundation
import Testing

@_spi(Fuzzing) @testable import FirePackStreams

/// The columns form of version-3 blocks (Docs/FORMAT.md §8, "Columns"): byte for byte the rows back, chosen by the
/// writer where it pays, and hostile columns refused with their offset in linear time.
@Suite("Block columns (version 3)")
struct BlockColumnsTests {
    let helper = DocumentStreamTests()

    /// The row form of one block holding `documents` (a stream written with codec `none` in one block): its data,
    /// record count and documents' size.
    /// The rows of a block of `documents` as the stream writer writes them (no key references, Docs/FORMAT.md §8),
    /// or with `keyReferences` each document as a writer with references writes it alone (§3), as readers accept.
    func rows(_ documents: [Document], keyReferences: Bool = false) throws -> (data: [UInt8], count: Int, documents: Int) {
        if keyReferences {
            let encoded = documents.map { $0.firePackBytes() }
            let data = encoded.flatMap { $0 }
            return (data + encoded.flatMap { varint($0.count) }, documents.count, data.count)
        }
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, codec: .none, blockSize: 32 << 20)
        writer.blockLayout = .rows
        for document in documents { try writer.append(document) }
        try writer.close()
        let bytes = sink.bytes
        let body = Array(bytes[18...])
        let header = try body.withUnsafeBytes { try DocumentStreamReader.blockHeader($0, maxSize: 64 << 20) }
        #expect(header.codec == .none && !header.columns && header.count == documents.count)
        return (Array(body[header.dataStart..<(header.dataStart + header.size)]), header.count, header.documents)
    }

    /// The rows rebuilt from `columns`, a block's data in the columns form with numbered keys or keys as written.
    func join(_ columns: [UInt8], count: Int, documents: Int, numberedKeys: Bool = true) throws -> [UInt8] {
        try joinCounting(columns, count: count, documents: documents, numberedKeys: numberedKeys).rows
    }

    /// The rows rebuilt from `columns`, and how many documents were written in two passes.
    func joinCounting(_ columns: [UInt8], count: Int, documents: Int, numberedKeys: Bool = true) throws
        -> (rows: [UInt8], twoPasses: Int)
    {
        try columns.withUnsafeBytes { stored in
            let size = try BlockColumns.rowsSize(stored, count: count, documents: documents, maxSize: 64 << 20)
            var output = [UInt8](repeating: 0xEE, count: size)
            let twoPasses = try output.withUnsafeMutableBytes { rows in
                try BlockColumns.join(
                    stored, count: count, documents: documents, numberedKeys: numberedKeys, into: rows)
            }
            return (output, twoPasses)
        }
    }

    func split(
        _ rows: (data: [UInt8], count: Int, documents: Int), valuesPerColumn: Int = BlockColumns.valuesPerColumn,
        numbersKeys: Bool = true
    ) -> [UInt8]? {
        rows.data.withUnsafeBytes {
            BlockColumns.split(
                $0, count: rows.count, documents: rows.documents, valuesPerColumn: valuesPerColumn,
                numbersKeys: numbersKeys)
        }
    }

    func varint(_ value: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 10)
        let count = bytes.withUnsafeMutableBufferPointer { Varint.write(UInt64(value), to: $0.baseAddress!) }
        return Array(bytes[..<count])
    }

    /// GitHub-event-like documents: one shape, nested maps, arrays of maps (whose repeated keys are key references),
    /// timestamps, geopoints, bytes, vectors and packed arrays.
    static func events(_ count: Int, seed: UInt64 = 1) throws -> [Document] {
        var random = SeededGenerator(seed: seed)
        return try (0..<count).map { index in
            let commits: [Value] = (0..<Int.random(in: 0..<4, using: &random)).map { commit in
                .map([
                    "sha": .string(String(UInt64.random(in: 0...UInt64.max, using: &random), radix: 16)),
                    "message": .string("commit \(commit) of \(index)"), "distinct": .boolean(commit % 2 == 0),
                ])
            }
            let fields: MapValue = [
                "type": .string(["PushEvent", "WatchEvent", "IssuesEvent"][index % 3]),
                "createdAt": .timestamp(Timestamp(seconds: 1_500_000_000 + Int64(index) * 37, nanoseconds: Int32(index % 1000))),
                "actor": .map(["id": .integer(Int64.random(in: 0..<100_000, using: &random)), "login": .string("user\(index % 97)")]),
                "payload": .map(["size": .integer(Int64(commits.count)), "commits": .array(commits)]),
                "location": .geoPoint(GeoPoint(latitude: Double(index % 90), longitude: -Double(index % 180) / 7)),
                "signature": .bytes(Data((0..<8).map { _ in UInt8.random(in: 0...255, using: &random) })),
                "embedding": .vector(VectorValue((0..<4).map { _ in Double(Int.random(in: -1000...1000, using: &random)) / 1000 })),
                "scores": .array((0..<3).map { _ in .double(Double(Int.random(in: 0...99_999, using: &random)) / 100) }),
                "org": index % 5 == 0 ? .null : .map(["id": .integer(Int64(index % 400))]),
            ]
            return Document(reference: try DocumentReference(path: "events/e\(index)"), fields: fields)
        }
    }

    @Test("columns give the rows back byte for byte: documents of one shape, and random documents of every type")
    func roundTrip() throws {
        for count in [1, 2, 7, 300] {
            let block = try rows(try Self.events(count, seed: UInt64(count)))
            let columns = try #require(split(block, valuesPerColumn: 1), "documents the writer wrote split")
            #expect(try join(columns, count: block.count, documents: block.documents) == block.data)
        }
        // Deep documents whose bodies pass 127 bytes at every level: each moved up once per level in one pass would
        // cost the document's length per level, so they are written in two passes (and the shallow one in one).
        let deep = try [40, 3, 12].map { levels in
            var value = Value.string(String(repeating: "x", count: 300))
            for level in 0..<levels { value = .map(["level\(level)": value, "n": .integer(Int64(level))]) }
            return Document(reference: try DocumentReference(path: "deep/d\(levels)"), fields: ["v": value])
        }
        let deepBlock = try rows(deep)
        let deepColumns = try #require(split(deepBlock, valuesPerColumn: 1))
        let (deepRows, twoPasses) = try joinCounting(deepColumns, count: deepBlock.count, documents: deepBlock.documents)
        #expect(deepRows == deepBlock.data)
        #expect(twoPasses == 2, "the 40- and 12-level documents start over, the 3-level one does not")
        var splits = 0
        for seed in 1...60 as ClosedRange<UInt64> {
            var random = RandomValues(seed: seed)
            let documents = try (0..<random.int(1..<40)).map { index in
                // A repeated shape half the time, so that blocks with every type of value reach the columns form.
                let fields: MapValue =
                    seed % 2 == 0
                    ? random.map(depth: 1)
                    : ["a": random.value(depth: 2), "b": .array([random.value(depth: 2), random.value(depth: 2)]), "c": .integer(Int64(index))]
                return Document(reference: try DocumentReference(path: "r/\(index)"), fields: fields)
            }
            let block = try rows(documents)
            guard let columns = split(block, valuesPerColumn: 1) else { continue }
            splits += 1
            #expect(try join(columns, count: block.count, documents: block.documents) == block.data, "seed \(seed)")
        }
        #expect(splits == 60, "every block a writer writes can be split")
    }

    @Test("the writer stores blocks of one shape in columns, smaller once compressed, and reads them back")
    func theWriterStoresColumns() throws {
        let documents = try Self.events(3000)
        for codec in [BlockCodec.zstd, .deflate] {
            let sink = MemorySink()
            let writer = try DocumentStreamWriter(sink: sink, codec: codec, blockSize: 64 << 10)
            for document in documents { try writer.append(document) }
            try writer.close()
            let offsets = helper.recordOffsets(sink.bytes)
            #expect(offsets.count > 5)
            // The last block may hold too few documents for eight values per path.
            #expect(
                offsets.dropLast().allSatisfy { sink.bytes[$0 + 12] == codec.rawValue | BlockColumns.numberedForm },
                "\(codec)")
            let reader = try DocumentStreamReader(source: MemorySource(sink.bytes))
            var read: [Document] = []
            while let (_, _, document) = try reader.next() { read.append(document) }
            #expect(read == documents && reader.problems.isEmpty)
        }
        // The reason for the form: the same block compresses smaller in columns.
        let block = try rows(Array(documents.prefix(600)))
        let columns = try #require(split(block))
        func zstd(_ bytes: [UInt8]) throws -> Int {
            var output = [UInt8](repeating: 0, count: BlockCodec.zstd.compressBound(bytes.count))
            return try bytes.withUnsafeBytes { input in
                try output.withUnsafeMutableBytes { try BlockCodec.zstd.compress(input, into: $0) }
            }
        }
        #expect(try zstd(columns) < (try zstd(block.data)) * 9 / 10)
    }

    @Test(
        "a block's columns each get entropy tables of their own: one frame or stream, smaller, and any parts fit the bound",
        arguments: [BlockCodec.zstd, .deflate])
    func columnsCompressedApart(codec: BlockCodec) throws {
        let block = try rows(try Self.events(600))
        let splitter = ColumnSplitter()
        #expect(block.data.withUnsafeBytes { splitter.split($0, count: block.count, documents: block.documents) })
        let columns = splitter.columns
        let partEnds = splitter.partEnds
        #expect(partEnds.count > 10 && partEnds.last == columns.count && partEnds == partEnds.sorted())
        func compressed(_ bytes: [UInt8], _ ends: [Int]) throws -> [UInt8] {
            var output = [UInt8](repeating: 0, count: codec.compressBound(bytes.count, parts: ends.count))
            let written = try bytes.withUnsafeBytes { input in
                try output.withUnsafeMutableBytes { try codec.compress(input, into: $0, partEnds: ends) }
            }
            return Array(output[..<written])
        }
        func decompressed(_ stored: [UInt8], count: Int) -> [UInt8]? {
            var output = [UInt8](repeating: 0, count: count)
            let problem = stored.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { codec.decompress(input, into: $0) }
            }
            return problem == nil ? output : nil
        }
        // The reader's own check (one zstd frame holding its content size, or one deflate stream) reads it back.
        let whole = try compressed(columns, [])
        let apart = try compressed(columns, partEnds)
        #expect(decompressed(apart, count: columns.count) == columns)
        #expect(apart.count * 100 < whole.count * (codec == .zstd ? 92 : 99), "\(apart.count) against \(whole.count)")
        // The worst case for the bound: a part per byte, of bytes that do not compress.
        var random = SeededGenerator(seed: 5)
        let noise = (0..<3000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let everyByte = try compressed(noise, Array(1...noise.count))
        #expect(decompressed(everyByte, count: noise.count) == noise)
    }

    @Test("rows stay rows: a path per value, and documents the columns could not give back byte for byte")
    func rowsAreKept() throws {
        // Maps keyed by identifiers: a column per value pays a length each and gains nothing.
        let keyed = try (0..<50).map { index in
            Document(reference: try DocumentReference(path: "k/\(index)"), fields: ["user\(index)": .integer(1)])
        }
        #expect(split(try rows(keyed)) == nil)
        let block = try rows(try Self.events(20))
        // A document whose map length is not its body's, or not a minimal varint: nothing the writer writes.
        var wrongLength = block.data
        #expect(wrongLength[0] & 0xF0 == 0xB0)
        let (length, after) = try wrongLength.withUnsafeBytes { try Varint.get($0.baseAddress!, at: 1, limit: $0.count) }
        #expect(after == 3 && length > 127)
        wrongLength[1] &+= 1
        #expect(split((wrongLength, block.count, block.documents)) == nil)
        var notMinimal = block.data
        notMinimal.replaceSubrange(1..<3, with: [notMinimal[1] | 0x80, notMinimal[2] | 0x80, 0x00])
        #expect(split((notMinimal, block.count, block.documents + 1)) == nil)
    }

    /// `columns` with its byte at `index` replaced.
    func replacing(_ columns: [UInt8], at index: Int, with bytes: [UInt8], count: Int = 1) -> [UInt8] {
        var copy = columns
        copy.replaceSubrange(index..<(index + count), with: bytes)
        return copy
    }

    @Test("hostile columns: each defect refused with its code and offset")
    func hostileColumns() throws {
        // Two documents {"n": 1} and {"n": 2}: lengths, 5 columns (root, name, fields, n), keys, columns.
        let block = try rows([
            Document(reference: try DocumentReference(path: "books/a"), fields: ["n": 1]),
            Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 2]),
        ])
        let columns = try #require(split(block, valuesPerColumn: 1))
        #expect(try join(columns, count: 2, documents: block.documents) == block.data)
        let directory = 2  // after the two lengths
        #expect(columns[directory] == 4, "root, name, fields and fields.n")
        func refusal(_ bytes: [UInt8], documents: Int? = nil) -> FirePackError? {
            do {
                _ = try join(bytes, count: 2, documents: documents ?? block.documents)
                return nil
            } catch { return error as? FirePackError }
        }
        // No columns; more columns than bytes.
        #expect(refusal(replacing(columns, at: directory, with: [0]))?.code == .lengthMismatch)
        #expect(refusal(replacing(columns, at: directory, with: [0x7F]))?.offset == directory)
        // A column that reaches past the data.
        let column0 = directory + 1
        let past = refusal(replacing(columns, at: column0, with: [0x7F]))
        #expect(past?.code == .lengthOutOfBounds && past?.offset == column0)
        // Fewer columns than paths: the last path has no column (its bytes become the keys' tail, left over).
        let fewer = replacing(columns, at: directory, with: [3])
        #expect(refusal(fewer) != nil)
        // A root value longer than its document: the document's length says one byte less.
        let shorter = replacing(columns, at: 0, with: [columns[0] - 1])
        #expect(refusal(shorter, documents: block.documents - 1)?.code == .lengthMismatch)
        // Bytes no document uses at the end of the last column.
        let extra = replacing(columns, at: directory + 4, with: [columns[directory + 4] + 1]) + [0x01]
        #expect(refusal(extra)?.code == .trailingBytes)
        // A value that is not one (a key table's tag) where the last column's value belongs.
        let lastValue = columns.count - 1
        #expect(refusal(replacing(columns, at: lastValue, with: [0xD3]))?.code == .unknownTag)
    }

    @Test("numbered keys: each key once per block, the rows back byte for byte, and the keys as written still read")
    func numberedKeys() throws {
        for seed in 0..<20 as Range<UInt64> {
            let block = try rows(try Self.events(80, seed: seed))
            let numbered = try #require(split(block, valuesPerColumn: 1))
            let asWritten = try #require(split(block, valuesPerColumn: 1, numbersKeys: false))
            #expect(try join(numbered, count: block.count, documents: block.documents) == block.data)
            #expect(
                try join(asWritten, count: block.count, documents: block.documents, numberedKeys: false) == block.data)
            // The same columns; the keys shrink to a byte each once their path has been met.
            #expect(numbered.count < asWritten.count * 3 / 4, "seed \(seed): \(numbered.count) of \(asWritten.count)")
            #expect(numbered.count < block.data.count)
        }
    }

    @Test("documents with key tables (written with key references) rebuild byte for byte beside documents without")
    func documentsWithKeyTables() throws {
        // A document's key table names its key literals by where they are in its rows; the rebuilder records them
        // from the block's first document that has one (walked again) on, and bodies moved up move them along.
        for seed in 0..<6 as Range<UInt64> {
            let documents = try Self.events(60, seed: seed)
            let withTables = documents.filter { $0.firePackBytes().contains(0xD3) }.count
            #expect(withTables > 0 && withTables < documents.count, "seed \(seed): a mix of documents with and without")
            let block = try rows(documents, keyReferences: true)
            let columns = try #require(split(block, valuesPerColumn: 1))
            #expect(try join(columns, count: block.count, documents: block.documents) == block.data, "seed \(seed)")
        }
        // Deep documents with repeated keys at every level: written in two passes, and walked again for the table.
        let deep = try [40, 12].map { levels in
            var value = Value.string(String(repeating: "x", count: 300))
            for level in 0..<levels { value = .map(["level\(level)": value, "n": .integer(Int64(level)), "k": ["n": 1]]) }
            return Document(reference: try DocumentReference(path: "deep/d\(levels)"), fields: ["v": value])
        }
        let block = try rows(deep, keyReferences: true)
        let columns = try #require(split(block, valuesPerColumn: 1))
        let (rebuilt, twoPasses) = try joinCounting(columns, count: block.count, documents: block.documents)
        #expect(rebuilt == block.data)
        #expect(twoPasses == 3, "the first document starts over on both of its walks, the second on its one")
    }

    @Test("hostile numbered keys: a number past the paths met, of another map's key or of an element, is refused")
    func hostileNumberedKeys() throws {
        // {"n": 1, "m": {"n": 2}} twice: paths root 0, name 1, fields 2, fields.n 3, fields.m 4, fields.m.n 5.
        let document = { (name: String) in
            Document(reference: try DocumentReference(path: name), fields: ["n": 1, "m": ["n": 2]])
        }
        let block = try rows([try document("books/a"), try document("books/b")], keyReferences: true)
        let columns = try #require(split(block, valuesPerColumn: 1))
        #expect(try join(columns, count: 2, documents: block.documents) == block.data)
        // The second document's keys are the numbers 2 3 4 5 6 (name, fields, n, m, m.n): find them.
        let second: [UInt8] = [2, 3, 4, 5, 6]
        let at = try #require(
            (0...(columns.count - second.count)).last { Array(columns[$0..<($0 + second.count)]) == second })
        func refusal(_ bytes: [UInt8]) -> FirePackError? {
            do {
                _ = try join(bytes, count: 2, documents: block.documents)
                return nil
            } catch { return error as? FirePackError }
        }
        // A number past the paths met so far.
        let past = refusal(replacing(columns, at: at + 2, with: [0x7F]))
        #expect(past?.code == .badKeyReference && past?.offset == at + 2)
        // fields.m.n's number where fields.n's belongs (the key of a map of another path).
        let other = refusal(replacing(columns, at: at + 2, with: [6]))
        #expect(other?.code == .badKeyReference && other?.offset == at + 2)
        // The root's number (a path with no key).
        let root = refusal(replacing(columns, at: at, with: [1]))
        #expect(root?.code == .badKeyReference && root?.offset == at)
        // A number cut short.
        let cut = refusal(replacing(columns, at: at + 4, with: [0x86]))
        #expect(cut != nil)
        // A key given again as written (0, then the key) where its number belongs: the same rows.
        let again = replacing(columns, at: at, with: [0, 0x08] + Array("name".utf8))
        #expect(try join(again, count: 2, documents: block.documents) == block.data)
        // The key table by ordinals: D3, one entry of one byte, the literal `n` (name 0, fields 1, n 2, m 3).
        #expect(Array(columns[(at + 5)..<(at + 9)]) == [0xD3, 0x01, 0x01, 0x02])
        for (index, byte, reason) in [
            (at + 5, UInt8(0xD4), "no D3"), (at + 7, 0x00, "a width of 0"), (at + 7, 0x02, "a size other than the tail's"),
            (at + 8, 0x04, "an ordinal past the literals"),
        ] {
            let table = refusal(replacing(columns, at: index, with: [byte]))
            #expect(table?.code == .badKeyTable, "\(reason)")
        }
        // Another literal's ordinal: rows that differ from the writer's, but rows all the same (the table is then
        // the rebuilt document's to check, as a reader checks any key table).
        let otherLiteral = try join(replacing(columns, at: at + 8, with: [0x03]), count: 2, documents: block.documents)
        #expect(otherLiteral != block.data && otherLiteral.count == block.data.count)
    }

    @Test("hostile columns cost time linear in their bytes: counts, nesting and lengths claimed, never held")
    func hostileClaims() throws {
        // One document of 8 bytes whose root is an array claiming 2^62 elements (D0, count in the column): the
        // column ends after its one element.
        func columnsForm(length: Int, columns: [[UInt8]], keys: [UInt8] = []) -> [UInt8] {
            var form = varint(length) + varint(columns.count) + columns.flatMap { varint($0.count) }
            form += keys
            for column in columns { form += column }
            return form
        }
        let claimed = columnsForm(length: 8, columns: [[0xD0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40], [0x01]])
        #expect(throws: FirePackError.self) { try join(claimed, count: 1, documents: 8) }
        // Nesting past any reader's depth: 1,200 arrays of one element, each in a column of its own (a path each), in a
        // document long enough to hold them: refused at the depth, not followed.
        var nested: [[UInt8]] = (0..<1200).map { _ in [0xA1] }
        nested.append([0x00])
        let deep = columnsForm(length: 2401, columns: nested)
        #expect(throws: FirePackError.self) { try join(deep, count: 1, documents: 2401) }
        do {
            _ = try join(deep, count: 1, documents: 2401)
        } catch {
            #expect((error as? FirePackError)?.code == .depthLimitExceeded)
        }
        // Random damage to real columns: refused or rebuilt, never a crash, in bounded time.
        let block = try rows(try Self.events(40))
        let columns = try #require(split(block))
        var random = SeededGenerator(seed: 11)
        var refused = 0
        for _ in 0..<3000 {
            let damaged = ByteMutation.mutated(columns, using: &random)
            do {
                let rebuilt = try join(damaged, count: block.count, documents: block.documents)
                #expect(rebuilt.count >= block.documents)
            } catch {
                refused += 1
                #expect(error is FirePackError)
            }
        }
        #expect(refused > 1500)
    }

    /// A closed version-3 stream of one block whose body is `codec`, `count`, first 0, then `data` as it is, with
    /// `documents` bytes of documents.
    func oneBlock(codec: UInt8, count: Int, documents: Int, data: [UInt8]) -> [UInt8] {
        let body = DocumentStreamWriter.blockHeader(
            codec: codec, count: count, first: 0, size: data.count, documents: documents) + data
        var bytes: [UInt8] = [0x89, 0x46, 0x50, 0x53, 0x03, 0x00, 0xF3, 0x50, 0x52, 0x1E]
        bytes += withUnsafeBytes(of: UInt32(body.count).littleEndian, Array.init)
        bytes += withUnsafeBytes(of: body.withUnsafeBytes { crc32($0) }.littleEndian, Array.init)
        return bytes + body
    }

    func problems(_ bytes: [UInt8]) throws -> [StreamProblem] {
        let reader = try DocumentStreamReader(source: MemorySource(bytes))
        while try reader.next() != nil {}
        return reader.problems
    }

    @Test("lengths that would overflow when added, in rows and in columns, are refused, not trapped")
    func lengthsThatOverflow() throws {
        // Two documents: 1 byte, then Int.max bytes.
        let lengths: [UInt8] = [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]
        let rows = oneBlock(codec: 0x00, count: 2, documents: 1, data: [0xC0] + lengths)
        let columns = oneBlock(codec: BlockColumns.flag, count: 2, documents: 1, data: lengths)
        for bytes in [rows, columns] {
            let found = try problems(bytes)
            #expect(found.first?.code == .invalidBlock && found.first?.offset == 6)
        }
    }

    @Test("a directory claiming columns its bytes do not hold is refused before anything is kept per column")
    func columnsClaimed() throws {
        // One document; a directory of 100,000 columns of no bytes (each would be a path with no value).
        var data: [UInt8] = [0x02] + varint(100_000) + [UInt8](repeating: 0, count: 100_000) + [0xA0, 0x00]
        #expect(throws: FirePackError.self) { try join(data, count: 1, documents: 2) }
        do { _ = try join(data, count: 1, documents: 2) } catch {
            #expect((error as? FirePackError)?.code == .lengthMismatch)
        }
        // Columns of a byte each, more than the paths: refused at the end, as belonging to no path.
        data = [0x02] + varint(3) + [1, 1, 1] + [0xA0, 0x00, 0x00]
        #expect(throws: FirePackError.self) { try join(data, count: 1, documents: 2) }
    }

    @Test("keys that share their first bytes cost linear time in the path table")
    func keysSharingPrefixes() throws {
        // One document with 20,000 fields whose keys share their first eight bytes (header and "field_0"), against
        // one whose keys differ from the first byte: both split and rebuild in about the same time.
        func document(_ key: (Int) -> String) throws -> Document {
            var fields = MapValue()
            for index in 0..<20_000 { fields[key(index)] = .integer(Int64(index % 100)) }
            return Document(reference: try DocumentReference(path: "wide/w"), fields: fields)
        }
        let shared = try rows([try document { "field_0" + String(100_000 + $0) }])
        let distinct = try rows([try document { String(100_000 + $0) + "_field_0" }])
        func run(_ block: (data: [UInt8], count: Int, documents: Int)) throws {
            let columns = try #require(split(block, valuesPerColumn: 1))
            #expect(try join(columns, count: block.count, documents: block.documents) == block.data)
        }
        let measured = try CostMeasurement.ratio(hostile: { try run(shared) }, benign: { try run(distinct) })
        #expect(measured.ratio < 3, "shared prefixes \(measured.hostile) s, distinct \(measured.benign) s")
    }

    @Test("keys that collide under the path table's quick hash switch it to the seeded one, numbers unchanged")
    func collidingKeys() throws {
        // Keys (a literal's header and 7 bytes) whose quick hashes share their low 12 bits, found by search: each
        // lands in one probe chain until the table switches.
        var paths = ColumnPaths()
        func prefix(_ key: [UInt8]) -> UInt64 {
            key.enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        }
        var colliding: [[UInt8]] = []
        var candidate = 0
        let target = paths.hash(parent: 0, prefix: prefix([0x0E] + Array("k000000".utf8)), rest: nil) & 0xFFF
        while colliding.count < 200 {
            let key = [0x0E] + Array(String(format: "k%06d", candidate).utf8)
            if paths.hash(parent: 0, prefix: prefix(key), rest: nil) & 0xFFF == target { colliding.append(key) }
            candidate += 1
        }
        var numbers: [Int32] = []
        for key in colliding { numbers.append(key.withUnsafeBytes { paths.child(of: 0, key: $0) }) }
        #expect(paths.isSeeded, "a chain of 200 colliding keys passes the longest probe")
        #expect(numbers == Array(1...200).map(Int32.init), "numbered in the order met, one each")
        paths.startDocument()
        for (key, number) in zip(colliding, numbers).reversed() {
            #expect(key.withUnsafeBytes { paths.child(of: 0, key: $0) } == number)
        }
        #expect(paths.count == 201)
    }

    @Test("a damaged block in columns is reported as invalidBlock at its marker, and costs only itself")
    func damagedColumnsBlock() throws {
        let documents = try Self.events(400)
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink, codec: .deflate, blockSize: 8 << 10)
        for document in documents { try writer.append(document) }
        try writer.close()
        var bytes = sink.bytes
        let offsets = helper.recordOffsets(bytes)
        #expect(offsets.count > 4 && bytes[offsets[1] + 12] == BlockCodec.deflate.rawValue | BlockColumns.numberedForm)
        // The second block's data, rebuilt wrongly: its first column's length one less, its CRC made to match.
        let body = offsets[1] + 12
        let length = Int(bytes[offsets[1] + 4]) | Int(bytes[offsets[1] + 5]) << 8 | Int(bytes[offsets[1] + 6]) << 16
        let header = try Array(bytes[body..<(body + length)]).withUnsafeBytes {
            try DocumentStreamReader.blockHeader($0, maxSize: 64 << 20)
        }
        let stored = Array(bytes[(body + header.dataStart)..<(body + length)])
        var data = [UInt8](repeating: 0, count: header.size)
        let problem = stored.withUnsafeBytes { input in
            data.withUnsafeMutableBytes { BlockCodec.deflate.decompress(input, into: $0) }
        }
        #expect(problem == nil)
        var lengthsEnd = 0
        for _ in 0..<header.count {
            lengthsEnd = try data.withUnsafeBytes { try Varint.get($0.baseAddress!, at: lengthsEnd, limit: $0.count).next }
        }
        data[lengthsEnd + 1] -= 1
        var recompressed = [UInt8](repeating: 0, count: BlockCodec.deflate.compressBound(data.count))
        let written = try data.withUnsafeBytes { input in
            try recompressed.withUnsafeMutableBytes { try BlockCodec.deflate.compress(input, into: $0) }
        }
        let newBody = Array(bytes[body..<(body + header.dataStart)]) + recompressed.prefix(written)
        bytes.replaceSubrange(body..<(body + length), with: newBody)
        bytes.replaceSubrange((offsets[1] + 4)..<(offsets[1] + 8), with: withUnsafeBytes(of: UInt32(newBody.count).littleEndian, Array.init))
        bytes.replaceSubrange((offsets[1] + 8)..<(offsets[1] + 12), with: withUnsafeBytes(of: newBody.withUnsafeBytes { crc32($0) }.littleEndian, Array.init))
        let reader = try DocumentStreamReader(source: MemorySource(bytes))
        var read: [Document] = []
        while let (_, _, document) = try reader.next() { read.append(document) }
        #expect(reader.problems.count == 1)
        #expect(reader.problems.first?.code == .invalidBlock && reader.problems.first?.offset == offsets[1])
        #expect(reader.problems.first?.reason.contains("columns") == true)
        #expect(read.count == documents.count - header.count)
        #expect(read == Array(documents[..<header.first]) + Array(documents[(header.first + header.count)...]))
    }

    @Test(
        "columns stored as they are (codec byte 30, and 10 with keys as written) read back, and damage to them costs only their block",
        arguments: [true, false])
    func columnsAsTheyAre(numberedKeys: Bool) throws {
        let documents = try Self.events(200)
        let bytes = try columnsStreamBytes(documents, blockSize: 4096, numberedKeys: numberedKeys)
        let offsets = helper.recordOffsets(bytes)
        let form = numberedKeys ? BlockColumns.numberedForm : BlockColumns.flag
        #expect(offsets.count > 5 && offsets.allSatisfy { bytes[$0 + 12] == form })
        func readAll(_ bytes: [UInt8]) throws -> (documents: [Document], problems: [StreamProblem]) {
            let reader = try DocumentStreamReader(source: MemorySource(bytes))
            var read: [Document] = []
            while let (_, _, document) = try reader.next() { read.append(document) }
            return (read, reader.problems)
        }
        let (read, problems) = try readAll(bytes)
        #expect(read == documents && problems.isEmpty)
        // A byte of the columns changed, the CRC made to match: the block is refused (or, rarely, gives other
        // documents that are still documents), the others are read.
        var random = SeededGenerator(seed: 3)
        var refused = 0
        for _ in 0..<400 {
            let block = offsets[Int.random(in: 0..<(offsets.count - 1), using: &random)]
            let length = Int(bytes[block + 4]) + Int(bytes[block + 5]) * 256
            var damaged = bytes
            let at = block + 12 + Int.random(in: 8..<length, using: &random)
            damaged[at] = UInt8.random(in: 0...255, using: &random)
            let crc = damaged[(block + 12)..<(block + 12 + length)].withUnsafeBytes { crc32($0) }
            damaged.replaceSubrange((block + 8)..<(block + 12), with: withUnsafeBytes(of: crc.littleEndian, Array.init))
            let (read, problems) = try readAll(damaged)
            #expect(problems.allSatisfy { $0.offset == block })
            if problems.contains(where: { $0.code == .invalidBlock }) { refused += 1 }
            #expect(read.count >= documents.count - 60)
        }
        // Keys as written fill much of a block, and a changed key is a path no column holds. Numbered keys take
        // little room, so most changed bytes are values'; a changed number names another key or none.
        #expect(refused > (numberedKeys ? 60 : 200))
    }

    @Test func theKeyTableByOrdinalsIsFormatMDsExample() throws {
        let document = { (name: String) in
            Document(reference: try DocumentReference(path: name), fields: ["n": 1, "m": ["n": 2]])
        }
        let block = try rows([try document("books/a"), try document("books/b")], keyReferences: true)
        let columns = try #require(split(block, valuesPerColumn: 1))
        let format = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/FORMAT.md"), encoding: .utf8)
        #expect(format.contains(helper.hexString(block.data)), "FORMAT.md §8 shows the rows: \(helper.hexString(block.data))")
        #expect(format.contains(helper.hexString(columns)), "FORMAT.md §8 shows the columns: \(helper.hexString(columns))")
    }

    @Test func theColumnsFormIsFormatMDsExample() throws {
        let block = try rows([
            Document(reference: try DocumentReference(path: "books/a"), fields: ["n": 1]),
            Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 2]),
        ])
        let columns = try #require(split(block, valuesPerColumn: 1))
        let format = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/FORMAT.md"), encoding: .utf8)
        #expect(format.contains(helper.hexString(block.data)), "FORMAT.md §8 shows the rows: \(helper.hexString(block.data))")
        #expect(format.contains(helper.hexString(columns)), "FORMAT.md §8 shows the columns: \(helper.hexString(columns))")
    }
}
