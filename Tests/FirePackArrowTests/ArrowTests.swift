import CArrowABI
import FirePack
@testable import FirePackArrow
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

/// Writes `documents` as a stream file `name` in `folder` (of `version`; version 3 in blocks of `blockSize` bytes)
/// and returns its path.
func writeStream(
    _ documents: [Document], name: String, in folder: TemporaryFolder, version: UInt8 = 3,
    blockSize: Int = DocumentStreamFormat.defaultBlockSize
) throws -> String {
    let path = folder.path(name)
    let writer = try DocumentStreamWriter.creatingAtomically(atPath: path, version: version, blockSize: blockSize)
    for document in documents { try writer.append(document) }
    try writer.close()
    return path
}

/// Random documents whose fields are random values (every type, NaN payloads, extreme integers, deep nesting).
func randomDocuments(count: Int, seed: UInt64) throws -> [Document] {
    var random = RandomValues(seed: seed)
    random.maxDepth = 3
    return try (0..<count).map { index in
        var fields = MapValue()
        for key in ["a", "b", "c", "nested", "list"] where random.chance(80) {
            fields[key] = random.value(depth: 1)
        }
        return Document(reference: try DocumentReference(path: "docs/d\(index)"), fields: fields,
                        createTime: random.chance(50) ? Timestamp(seconds: Int64(index) * 1000, nanoseconds: Int32(index)) : nil)
    }
}

/// The rows of every batch `reader` gives, each batch released.
func rowCount(_ reader: ArrowBatchReader) throws -> Int {
    var rows = 0
    var batch = ArrowArray()
    while try reader.nextBatch(into: &batch) {
        rows += Int(batch.length)
        batch.release?(&batch)
    }
    return rows
}

/// Reads every batch of `path` and writes them back through the Arrow writer, returning the copy's path.
func arrowCopy(of path: String, options: ArrowBatchReader.Options = .init()) throws -> String {
    let reader = try ArrowBatchReader(path: path, options: options)
    let copy = path + ".copy.fpks"
    let writer = try ArrowStreamWriter(path: copy)
    var schema = ArrowSchema()
    reader.exportSchema(into: &schema)
    defer { schema.release?(&schema) }
    let imported = try ArrowDocumentSchema(importing: &schema)
    #expect(imported == reader.schema)
    var batch = ArrowArray()
    while try reader.nextBatch(into: &batch) {
        try writer.write(batch: &batch, schema: imported)
        batch.release?(&batch)
        #expect(batch.release == nil)
    }
    try writer.close()
    return copy
}

func readDocuments(_ path: String) throws -> [Document] {
    let reader = try DocumentStreamReader(source: FileSource(path: path), mode: .stopAtFirstError)
    var documents: [Document] = []
    while let (_, _, document) = try reader.next() { documents.append(document) }
    return documents
}

/// `value` with every map's keys in sorted order (at every depth).
func sortedKeys(_ value: Value) -> Value {
    switch value {
    case .map(let map):
        var sorted = MapValue()
        for key in map.keys.sorted() { sorted[key] = sortedKeys(map[key]!) }
        return .map(sorted)
    case .array(let elements): return .array(elements.map(sortedKeys))
    default: return value
    }
}

@Suite("FirePack ↔ Arrow")
struct ArrowTests {
    let folder = TemporaryFolder("arrow")
    @Test("random documents go through Arrow and come back equal, keys in the schema's order", arguments: [1, 2, 3] as [UInt64])
    func randomRoundTrip(seed: UInt64) throws {
        let documents = try randomDocuments(count: 300, seed: seed)
        let path = try writeStream(documents, name: "random.fpks", in: folder)
        var options = ArrowBatchReader.Options()
        options.batchSize = 37
        let copy = try arrowCopy(of: path, options: options)
        // Arrow has one column order per schema: documents whose keys came in another order come back in the
        // schema's (Firestore maps have no order; Docs/ARROW.md). Everything else is exact: types, bits, nulls.
        let original = try readDocuments(path), copied = try readDocuments(copy)
        #expect(original.count == documents.count && copied.count == documents.count)
        for (before, after) in zip(original, copied) {
            #expect(before.reference == after.reference && before.createTime == after.createTime)
            #expect(sortedKeys(.map(before.fields)) == sortedKeys(.map(after.fields)), "\(before.reference.path)")
        }
    }

    @Test("documents whose keys come in one order go through Arrow byte for byte")
    func byteForByte() throws {
        var random = RandomValues(seed: 11)
        random.maxDepth = 3
        let documents = try (0..<200).map { index in
            var fields = MapValue()
            for key in ["a", "b", "c", "nested", "list"] { fields[key] = random.value(depth: 1) }
            return Document(reference: try DocumentReference(path: "docs/d\(index)"), fields: fields)
        }
        let path = try writeStream(documents, name: "ordered.fpks", in: folder)
        let copy = try arrowCopy(of: path)
        #expect(try readDocuments(copy) == documents)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test("packed arrays and arrays of packed rows become list columns of numbers and come back packed, byte for byte")
    func packedArrays() throws {
        let documents = try (0..<50).map { index in
            let base = Double(index)
            let fields: MapValue = [
                "series": .array((0..<8).map { .double(base + Double($0) / 4) }),
                "ring": .array((0..<5).map { .array([.double(base - 65.613617), .double(Double($0) + 43.420273)]) }),
                "counts": .array((0..<6).map { .integer(Int64(index * 1_000 + $0)) }),
                // Every form of doubles a list<float64> column reads in one pass, and arrays it reads element by
                // element (tagged: short, or empty).
                "forms": .array(
                    index % 5 == 0 ? (0..<6).map { .double(base + Double($0) + 1.0 / 3) }  // binary64
                        : index % 5 == 1 ? (0..<6).map { .double(Double(Float(base) + Float($0) / 3)) }  // binary32
                        : index % 5 == 2 ? [.double(.nan), .double(-0.0), .double(.infinity), 1.5, 2.5, 3.5]
                        : index % 5 == 3 ? [.double(base + 0.5)] : []),
            ]
            return Document(reference: try DocumentReference(path: "shapes/s\(index)"), fields: fields)
        }
        let encoded = Value.map(documents[0].fields).firePackBytes()
        #expect(encoded.contains(0xD8) && encoded.contains(0xD9))
        let path = try writeStream(documents, name: "packed.fpks", in: folder)
        let reader = try ArrowBatchReader(path: path)
        let types = Dictionary(uniqueKeysWithValues: reader.schema.columns.map { ($0.name, $0.type) })
        guard case .list(let series)? = types["series"], case .list(let ring)? = types["ring"],
            case .list(let counts)? = types["counts"], case .list(let point) = ring.type
        else {
            Issue.record("not list columns: \(reader.schema.columns)")
            return
        }
        #expect(series.type == .float64 && counts.type == .int64 && point.type == .float64)
        guard case .list(let forms)? = types["forms"] else {
            Issue.record("forms: \(String(describing: types["forms"]))")
            return
        }
        #expect(forms.type == .float64)
        let copy = try arrowCopy(of: path)
        #expect(try readDocuments(copy) == documents)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test("int64 and timestamp columns hold the values in place, with a validity bitmap only when there are nulls")
    func columnBuffers() throws {
        let documents = try (0..<10).map { index in
            Document(reference: try DocumentReference(path: "n/\(index)"),
                     fields: index == 3 ? ["t": .timestamp(Timestamp(seconds: -1, nanoseconds: 5))] : ["n": .integer(Int64(index) * 1_000_000_007), "t": .timestamp(Timestamp(seconds: 1_700_000_000, nanoseconds: 123_456_789))])
        }
        let reader = try ArrowBatchReader(path: try writeStream(documents, name: "numbers.fpks", in: folder))
        #expect(reader.schema.columns.map(\.name) == ["__name__", "n", "t"])
        var batch = ArrowArray()
        #expect(try reader.nextBatch(into: &batch))
        defer { batch.release?(&batch) }
        #expect(batch.length == 10 && batch.n_children == 3 && batch.null_count == 0)
        let n = batch.children[1]!.pointee, t = batch.children[2]!.pointee
        #expect(n.null_count == 1 && n.buffers[0] != nil)
        #expect(t.null_count == 0 && t.buffers[0] == nil)
        let values = n.buffers[1]!.assumingMemoryBound(to: Int64.self)
        #expect(values[9] == 9_000_000_063)
        let times = t.buffers[1]!.assumingMemoryBound(to: Int64.self)
        #expect(times[0] == 1_700_000_000_123_456_789 && times[3] == -999_999_995)
        #expect(try !reader.nextBatch(into: &batch) || batch.length == 0)
    }

    @Test("a field of several types is kept as JSON text, with the reason in the metadata")
    func exactColumn() throws {
        let documents = try [Value.integer(1), .double(1.5), .string("x")].enumerated().map { index, value in
            Document(reference: try DocumentReference(path: "m/\(index)"), fields: ["v": value])
        }
        let path = try writeStream(documents, name: "mixed.fpks", in: folder)
        let (schema, reasons) = try DocumentProfile.of(paths: [path], sample: nil).schema()
        #expect(schema.columns.last == ArrowColumn(name: "v", type: .exact))
        #expect(reasons["v"]?.contains("several types") == true)
        let copy = try arrowCopy(of: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

@Suite("The exported C stream")
struct ExportedStreamTests {
    let folder = TemporaryFolder("arrow")
    @Test("after an error, every later get_next fails too: no batch of stale rows follows a failed one")
    func errorsAreSticky() throws {
        let documents = try (0..<5).map { index in
            Document(reference: try DocumentReference(path: "c/\(index)"), fields: ["v": index == 3 ? .string("x") : .integer(1)])
        }
        let path = try writeStream(documents, name: "sticky.fpks", in: folder)
        var options = ArrowBatchReader.Options()
        options.schema = ArrowDocumentSchema(columns: [ArrowColumn(name: "__name__", type: .reference), ArrowColumn(name: "v", type: .int64)])
        options.batchSize = 2
        let reader = try ArrowBatchReader(path: path, options: options)
        var stream = ArrowArrayStream()
        reader.exportStream(into: &stream)
        defer { stream.release?(&stream) }
        var batch = ArrowArray()
        #expect(stream.get_next(&stream, &batch) == 0 && batch.length == 2)
        batch.release?(&batch)
        #expect(stream.get_next(&stream, &batch) != 0)   // record 3 holds a string
        let message = String(cString: stream.get_last_error(&stream)!)
        #expect(message.contains("record 3") && message.contains("$.v"), "\(message)")
        #expect(stream.get_next(&stream, &batch) != 0)
        #expect(stream.get_next(&stream, &batch) != 0)
    }
}

@Suite("Splits: every record read once, every damaged record reported once")
struct SplitTests {
    let folder = TemporaryFolder("arrow")
    /// The records (by offset) and problems (by offset) of one reader.
    func read(_ reader: DocumentStreamReader) throws -> (records: [Int], problems: [Int]) {
        var records: [Int] = []
        while let record = try reader.nextRecord() { records.append(record.offset) }
        return (records, reader.problems.map(\.offset))
    }

    /// Version 2 (a record per document) and version 3 in blocks of 2 KiB (a few records each): a range holds the
    /// records, or blocks, whose sync marker starts inside it.
    @Test("adjacent ranges of any size agree with one whole read, damage included",
          arguments: [1, 13, 100, 977, 4096, 1 << 20], [UInt8(2), 3])
    func ranges(size: Int, version: UInt8) throws {
        let documents = try randomDocuments(count: 120, seed: 9)
        let path = try writeStream(documents, name: "ranges.fpks", in: folder, version: version, blockSize: 2048)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        // A flipped payload byte (CRC mismatch), a destroyed sync marker, and a run of garbage inside a record.
        var rng = SeededGenerator(seed: 4)
        let third = bytes.count / 3
        bytes[third] ^= 0x5A
        bytes[DocumentStreamFormat.header.count + 12 + 3] ^= 0x5A   // the first record: reported by the range at 0 alone
        if let marker = (2 * third..<bytes.count - 4).first(where: { bytes[$0...$0 + 3].elementsEqual(DocumentStreamFormat.syncMarker) }) {
            bytes[marker + 1] = 0
        }
        for index in (bytes.count - 900)..<(bytes.count - 700) { bytes[index] = UInt8.random(in: 0...255, using: &rng) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let whole = try read(DocumentStreamReader(source: FileSource(path: path)))
        #expect(whole.problems.count >= 2)
        var records: [Int] = [], problems: [Int] = []
        var offset = 0
        while offset < bytes.count {
            let part = try read(DocumentStreamReader.reading(path: path, offset: offset, length: size))
            #expect(part.records.allSatisfy { $0 >= offset && $0 < offset + size } || offset <= DocumentStreamFormat.header.count)
            records += part.records
            problems += part.problems
            offset += size
        }
        #expect(records == whole.records)
        #expect(problems.sorted() == whole.problems.sorted())
    }

    @Test("records by number: the copy of a range holds exactly those documents, through the index or a scan",
          arguments: [UInt8(2), 3])
    func recordsByNumber(version: UInt8) throws {
        let documents = try randomDocuments(count: 90, seed: 5)
        let path = try writeStream(documents, name: "numbered.fpks", in: folder, version: version, blockSize: 1024)
        for range in [0..<1, 10..<55, 89..<90, 40..<40, 80..<500] {
            var options = ArrowBatchReader.Options()
            options.records = range
            let copy = try arrowCopy(of: path, options: options)
            let expected = Array(documents[min(range.lowerBound, 90)..<min(range.upperBound, 90)])
            #expect(try readDocuments(copy).map(\.reference) == expected.map(\.reference), "\(range)")
        }
        var both = ArrowBatchReader.Options()
        both.records = 0..<5
        both.offset = 6
        #expect(throws: FirePackError.self) { try ArrowBatchReader(path: path, options: both) }
    }

    @Test("split ranges cover the file; gzip and .fpk files are one range")
    func splitRanges() throws {
        let path = try writeStream(try randomDocuments(count: 20, seed: 2), name: "split.fpks", in: folder)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        let ranges = try StreamSplits.ranges(path: path, targetBytes: 1000)
        #expect(ranges.first?.offset == 0 && ranges.map(\.length).reduce(0, +) == size)
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.offset + $0.length == $1.offset })
        let gzip = path + ".gz"
        let sink = try GzipSink(FileSink(path: gzip))
        try Data(contentsOf: URL(fileURLWithPath: path)).withUnsafeBytes { try sink.write($0) }
        try sink.finish()
        #expect(try StreamSplits.ranges(path: gzip, targetBytes: 10).count == 1)
        #expect(throws: FirePackError.self) { try StreamSplits.ranges(path: path, targetBytes: 0) }
    }
}
