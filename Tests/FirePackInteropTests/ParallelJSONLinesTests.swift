import FirePack
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackInterop
@testable import FirePackStreams

/// JSON lines into a stream on several threads (`ParallelJSONLines`): the same bytes, names, reports and errors as
/// line by line, whatever the batch size and the number of workers.
@Suite("JSON lines encoded on several threads")
struct ParallelJSONLinesTests {
    /// Seeded JSON lines of every kind the direct path and its tree fallback see: named by `__name__`, by the ID
    /// field, with a new ID; nested maps and arrays, numeric arrays that pack, doubles, large text, markers, blank
    /// lines, a first key that may be a marker, the ID field before `__name__`.
    func lines(_ count: Int, seed: UInt64) -> String {
        var random = SeededGenerator(seed: seed)
        var text = ""
        for index in 0..<count {
            let kind = Int.random(in: 0..<10, using: &random)
            let value = Double(Int.random(in: -100_000...100_000, using: &random)) / 100
            let name: String =
                switch kind % 3 {
                case 0: #""__name__": "events/e\#(index)", "#
                case 1: #""id": "i\#(index % 50)", "#
                default: ""
                }
            switch kind {
            case 7: text += "\n  \n"
            case 8: text += #"{"__time__": "2024-01-01T00:00:00Z", "id": "t\#(index)"}"# + "\n"
            case 9: text += #"{"id": "x\#(index)", "__name__": "events/n\#(index)", "a": 1}"# + "\n"
            default:
                let points = (0..<Int.random(in: 0..<6, using: &random)).map { "[\($0).5, \(value)]" }
                let body = String(repeating: "w", count: Int.random(in: 0..<400, using: &random))
                text +=
                    #"{\#(name)"type": "push", "n": \#(index), "price": \#(value), "tags": ["a", "b\#(index % 7)"], "#
                    + #""actor": {"login": "u\#(index % 13)", "score": \#(value * 3)}, "ring": [\#(points.joined(separator: ", "))], "#
                    + #""at": {"__time__": "2024-03-0\#(1 + index % 9)T10:00:00.5Z"}, "body": "\#(body)"}"# + "\n"
            }
        }
        return text
    }

    /// A source of `bytes` whose reads fail once, when they reach `failingAt` (then go on).
    final class FailingOnceSource: ByteSource {
        let bytes: [UInt8]
        var position = 0
        var failingAt: Int?
        init(_ bytes: [UInt8], failingAt: Int?) { (self.bytes, self.failingAt) = (bytes, failingAt) }
        func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            var end = Swift.min(bytes.count, position + buffer.count, position + 1_000)
            if let failing = failingAt {
                if position >= failing {
                    failingAt = nil
                    throw FirePackError(.ioFailure, "the source failed at byte \(position)")
                }
                end = Swift.min(end, failing)
            }
            let count = end - position
            bytes[position..<end].withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
            position = end
            return count
        }
    }

    /// `text` converted into a stream with `workers` threads (0: line by line) in batches of `batchBytes`; the
    /// stream's bytes (closed after the last record written), the records and paths, the naming's counts, and the
    /// error it stopped at — or, `continuing`, every error, the conversion going on after each (as a caller that
    /// skips bad lines does).
    func convert(
        _ text: String, workers: Int, batchBytes: Int = 2_000, idField: String? = "id", deterministic: Bool = true,
        continuing: Bool = false, failingAt: Int? = nil
    ) throws -> (bytes: [UInt8], records: Int, paths: [String], counts: [Int], error: FirePackError?, errors: [String]) {
        let naming = DocumentNaming(
            collection: "events", idField: idField, generatesMissingIDs: true, deterministic: deterministic)
        let reader = JSONLinesReader(FailingOnceSource(Array(text.utf8), failingAt: failingAt), naming: naming)
        let sink = MemorySink()
        let stream = try DocumentStreamWriter(sink: sink, codec: .zstd, blockSize: 8_192)
        let parallel = workers > 0 ? ParallelJSONLines(reader: reader, stream: stream, workers: workers, batchBytes: batchBytes) : nil
        var paths: [String] = []
        var stopped: FirePackError?
        var errors: [String] = []
        while errors.count < 50 {
            do {
                guard try parallel?.appendNext() ?? reader.appendNext(to: stream) else { break }
                // In parallel, the path as the worker noted it, unless the line was appended on this thread.
                let path = parallel?.lastPath.map { parallel!.text(of: $0) } ?? reader.lastPath
                #expect(parallel?.lastPath.map { $0.fingerprint == DuplicatePaths.fingerprint(of: path) } ?? true)
                paths.append("\(reader.lastLineNumber) \(path)")
            } catch {
                stopped = stopped ?? error as? FirePackError
                errors.append("\(error)")
                if !continuing { break }
            }
        }
        #expect(stream.recordCount == paths.count)
        try stream.close()
        return (sink.bytes, paths.count, paths, [naming.recordCount, naming.generatedCount], stopped, errors)
    }

    @Test("the stream, names, line numbers and counts are line by line's for any batch size and worker count")
    func sameOutput() throws {
        let text = lines(600, seed: 42)
        let expected = try convert(text, workers: 0)
        #expect(expected.error == nil && expected.records > 400)
        for (workers, batch) in [(1, 1), (2, 2_000), (3, 700), (4, 1 << 20)] {
            let parallel = try convert(text, workers: workers, batchBytes: batch)
            #expect(parallel.error == nil)
            #expect(parallel.paths == expected.paths, "workers \(workers), batch \(batch)")
            #expect(parallel.bytes == expected.bytes, "workers \(workers), batch \(batch)")
        }
        // New random IDs differ from run to run, but not in number or in where they are.
        let random = try convert(text, workers: 2, deterministic: false)
        #expect(random.records == expected.records)
        func named(_ paths: [String]) -> [String] {
            paths.filter { $0.range(of: #"events/(i|e|n)\d+$"#, options: .regularExpression) != nil }
        }
        #expect(named(random.paths) == named(expected.paths) && named(expected.paths).count > 200)
    }

    @Test("a bad line stops the conversion with line by line's error, after the same records",
          arguments: [
            #"{"n": 1, "x": [1, 2,}"#,  // invalid JSON: line, column and byte offset
            #"[1, 2, 3]"#,  // not an object
            #"{"__name__": "events", "a": 1}"#,  // not a document path
            #"{"__name__": 5}"#,  // not a path at all
            #"{"id": {"no": 1}, "a": 1}"#,  // an ID that is neither string nor integer
            #"{"a": "\#u{FFFF}\#\ud800"}"#,  // a lone surrogate escape
            String(repeating: #"{"a": "#, count: 120) + "1" + String(repeating: "}", count: 120),  // past the depth limit
          ])
    func sameError(bad: String) throws {
        var text = lines(300, seed: 7).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        text.insert(bad, at: 211)
        let joined = text.joined(separator: "\n")
        let expected = try convert(joined, workers: 0)
        let error = try #require(expected.error)
        #expect(error.message.hasPrefix("line 212"), "\(error.message)")
        for (workers, batch) in [(1, 1), (2, 1_500), (3, 300)] {
            let parallel = try convert(joined, workers: workers, batchBytes: batch)
            #expect(parallel.error?.code == error.code)
            #expect(parallel.error?.offset == error.offset)
            #expect(parallel.error?.message == error.message)
            #expect(parallel.records == expected.records && parallel.counts == expected.counts)
            #expect(parallel.bytes == expected.bytes)
        }
    }

    @Test("a caller that goes on after bad lines gets line by line's errors, records, names and counts")
    func goingOnAfterErrors() throws {
        var text = lines(500, seed: 11).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Lines that fail before their name is sought (bad JSON, not an object), and after (a bad ID, a bad path).
        for (at, bad) in [(40, #"{"n": 1,"#), (41, #"{"id": {"no": 1}}"#), (200, "[1]"), (201, #"{"__name__": "x"}"#),
                          (202, #"{"n": 2,"#), (450, #"{"id": [1]}"#)] {
            text.insert(bad, at: at)
        }
        let joined = text.joined(separator: "\n")
        let expected = try convert(joined, workers: 0, deterministic: true, continuing: true)
        #expect(expected.errors.count == 6)
        for (workers, batch) in [(1, 1), (2, 1_500), (3, 40_000)] {
            let parallel = try convert(joined, workers: workers, batchBytes: batch, continuing: true)
            #expect(parallel.errors == expected.errors, "workers \(workers), batch \(batch)")
            #expect(parallel.paths == expected.paths && parallel.counts == expected.counts)
            #expect(parallel.bytes == expected.bytes)
        }
    }

    @Test("a source that fails part way: the lines before it are written first, and the conversion can go on")
    func aFailingSource() throws {
        let text = lines(400, seed: 13)
        for failingAt in [0, 5_000, 60_000, text.utf8.count - 10] {
            for continuing in [false, true] {
                let expected = try convert(text, workers: 0, continuing: continuing, failingAt: failingAt)
                #expect(expected.errors.count == 1 && expected.errors[0].contains("the source failed"))
                for (workers, batch) in [(1, 1), (2, 1_500), (3, 40_000)] {
                    let parallel = try convert(
                        text, workers: workers, batchBytes: batch, continuing: continuing, failingAt: failingAt)
                    #expect(parallel.errors == expected.errors, "at \(failingAt), workers \(workers), batch \(batch)")
                    #expect(parallel.paths == expected.paths && parallel.bytes == expected.bytes)
                }
            }
        }
    }

    @Test("the conversion API takes the threads and reports repeated paths by line, as line by line")
    func conversionReports() throws {
        let text = lines(400, seed: 3)
        func run(workers: Int) throws -> ([UInt8], DocumentConversion) {
            let sink = MemorySink()
            let naming = DocumentNaming(collection: "events", idField: "id", generatesMissingIDs: true, deterministic: true)
            let conversion = DocumentConversion(
                from: JSONLinesReader(MemorySource(Array(text.utf8)), naming: naming),
                to: try DocumentStreamWriter(sink: sink), workers: workers)
            try conversion.run()
            return (sink.bytes, conversion)
        }
        let (one, sequential) = try run(workers: 1)
        let (two, parallel) = try run(workers: 2)
        #expect(one == two)
        #expect(sequential.records == parallel.records)
        #expect(sequential.repeatedPaths.total > 10, "IDs repeat every 50 lines")
        #expect(parallel.repeatedPaths.total == sequential.repeatedPaths.total)
        #expect(parallel.repeatedPaths.examples == sequential.repeatedPaths.examples)
    }

    @Test("a caller that goes on after bad lines gets the same repeated paths, also for lines appended on this thread")
    func conversionReportsGoingOn() throws {
        // Several batches of the default size (1 MiB), with bad lines among repeats: the lines read ahead of each
        // are appended on this thread, their paths read there; then batches start again.
        var text = lines(12_000, seed: 5).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(text.reduce(0) { $0 + $1.utf8.count } > 3 << 20)
        for at in [60, 61, 230, 9_000] { text.insert(#"{"id": "i1", "n": 1,"#, at: at) }
        let joined = text.joined(separator: "\n")
        func run(workers: Int) throws -> (errors: [String], report: ProblemReport, records: Int) {
            let naming = DocumentNaming(collection: "events", idField: "id", generatesMissingIDs: true, deterministic: true)
            let conversion = DocumentConversion(
                from: JSONLinesReader(MemorySource(Array(joined.utf8)), naming: naming),
                to: try DocumentStreamWriter(sink: MemorySink()), maxExamples: 1_000, workers: workers)
            var errors: [String] = []
            while true {
                do {
                    guard try conversion.step() else { break }
                } catch {
                    errors.append("\(error)")
                }
            }
            return (errors, conversion.repeatedPaths, conversion.records)
        }
        let sequential = try run(workers: 1)
        #expect(sequential.errors.count == 4 && sequential.report.total > 1_000)
        for workers in [2, 3] {
            let parallel = try run(workers: workers)
            #expect(parallel.errors == sequential.errors && parallel.records == sequential.records)
            #expect(parallel.report.total == sequential.report.total)
            #expect(parallel.report.examples == sequential.report.examples, "workers \(workers)")
        }
    }

    @Test("batches hold 1 MiB by default, less on many cores: at most 16 MiB of input in flight, at least 256 KiB each")
    func batchSizes() {
        #expect([1, 2, 8, 16, 32, 64, 1_000].map { WorkerQueues.batchBytes(workers: $0) >> 10 } == [1_024, 1_024, 1_024, 512, 256, 256, 256])
    }

    // MARK: - A stream into JSON lines

    /// Documents of several shapes: plain fields, nested maps and arrays, numbers that pack, timestamps, and a field
    /// named like the path member (which the direct path leaves to the tree).
    func documents(_ count: Int, seed: UInt64) throws -> [Document] {
        var random = SeededGenerator(seed: seed)
        return try (0..<count).map { index in
            let fields: MapValue = [
                "n": .integer(Int64(index)), "price": .double(Double(Int.random(in: 0...99_999, using: &random)) / 100),
                "tags": ["a", .string("b\(index % 5)")], "ring": [[1.5, 2.5], [3.5, 4.5]],
                "at": .timestamp(Timestamp(seconds: Int64(1_700_000_000 + index), nanoseconds: 0)),
                "text": .string(String(repeating: "x", count: Int.random(in: 0..<300, using: &random))),
            ]
            // A create time: the tree path writes the document (its time a member of its own).
            let time = index % 11 == 0 ? Timestamp(seconds: Int64(1_600_000_000 + index), nanoseconds: 5) : nil
            return Document(reference: try DocumentReference(path: "docs/d\(index)"), fields: fields, createTime: time)
        }
    }

    /// A version-2 stream of `payloads` as they are: a record each, with its CRC (wrong for `damaged`), and a close
    /// record.
    func framedStream(_ payloads: [[UInt8]], damaged: Set<Int>) -> [UInt8] {
        var bytes = DocumentStreamFormat.header(version: 2)
        for (index, payload) in payloads.enumerated() {
            bytes += DocumentStreamFormat.syncMarker
            bytes += withUnsafeBytes(of: UInt32(payload.count).littleEndian, Array.init)
            let crc = payload.withUnsafeBytes { crc32($0) } ^ (damaged.contains(index) ? 1 : 0)
            bytes += withUnsafeBytes(of: crc.littleEndian, Array.init)
            bytes += payload
        }
        return bytes + DocumentStreamFormat.closeRecord(recordCount: payloads.count)
    }

    /// `bytes` (a stream) into JSON lines with `workers` threads (0: record by record): the text, each line's path,
    /// the reader's problems and completion, and the error that stopped it.
    func lines(
        from bytes: [UInt8], workers: Int, batchBytes: Int = 3_000, mode: DocumentStreamReader.ErrorMode = .skipAndReport,
        keptProblems: Int = 1_000, continuing: Bool = false
    ) throws -> (text: [UInt8], paths: [String], problems: [String], counts: Int, completion: StreamCompletion?, error: String?, errors: [String]) {
        let reader = try DocumentStreamReader(source: MemorySource(bytes), mode: mode)
        reader.maxKeptProblems = keptProblems
        let sink = MemorySink()
        let writer = JSONLinesWriter(sink, naming: DocumentNaming(collection: "docs", idField: nil))
        let parallel = workers > 0 ? ParallelStreamLines(reader: reader, writer: writer, workers: workers, batchBytes: batchBytes) : nil
        var paths: [String] = []
        var stopped: String?
        var errors: [String] = []
        while errors.count < 50 {
            do {
                guard try parallel?.appendNext() ?? writer.appendNext(from: reader) else { break }
                // In parallel, the path as the worker noted it.
                let path = parallel.map { $0.text(of: $0.lastPath) } ?? writer.lastPath
                #expect(parallel.map { $0.lastPath.fingerprint == DuplicatePaths.fingerprint(of: path) } ?? true)
                paths.append(path)
            } catch {
                stopped = stopped ?? "\(error)"
                errors.append("\(error)")
                if !continuing { break }
            }
        }
        try writer.finish()
        return (
            sink.bytes, paths, reader.problems.map(\.description), reader.problemCount, reader.completion, stopped, errors
        )
    }

    @Test("a stream into JSON lines: the text, paths, problems and completion are record by record's")
    func streamIntoLines() throws {
        let originals = try documents(700, seed: 17)
        for (version, codec) in [(UInt8(3), BlockCodec.zstd), (3, .none), (2, .zstd)] {
            let sink = MemorySink()
            let stream = try DocumentStreamWriter(sink: sink, version: version, codec: codec, blockSize: 4_096)
            for document in originals { try stream.append(document) }
            try stream.close()
            var bytes = sink.bytes
            // Damage: two records' (or blocks') bytes flipped, one far into the stream.
            for at in [bytes.count / 3, bytes.count * 3 / 4] { bytes[at] ^= 0x5A }
            let expected = try lines(from: bytes, workers: 0)
            #expect(expected.error == nil && expected.paths.count > 500 && !expected.problems.isEmpty)
            for (workers, batch) in [(1, 1), (2, 3_000), (3, 1 << 20)] {
                let parallel = try lines(from: bytes, workers: workers, batchBytes: batch)
                #expect(parallel.text == expected.text, "version \(version) \(codec), workers \(workers), batch \(batch)")
                #expect(parallel.paths == expected.paths)
                #expect(parallel.problems == expected.problems && parallel.completion == expected.completion)
                #expect(parallel.error == nil)
            }
        }
    }

    @Test("a stream into JSON lines through the conversion API: repeated paths by record, as record by record")
    func streamConversionReports() throws {
        // Every seventh document repeats an earlier path; some go through the tree (a create time).
        // Several batches of the default size (1 MiB).
        let originals = try documents(15_000, seed: 29).enumerated().map { index, document in
            guard index % 7 == 6 else { return document }
            return Document(
                reference: try DocumentReference(path: "docs/d\(index / 3)"), fields: document.fields,
                createTime: document.createTime)
        }
        let sink = MemorySink()
        let stream = try DocumentStreamWriter(sink: sink, codec: .zstd, blockSize: 4_096)
        for document in originals { try stream.append(document) }
        try stream.close()
        func run(workers: Int) throws -> ([UInt8], DocumentConversion) {
            let output = MemorySink()
            let conversion = DocumentConversion(
                from: StreamDocuments(try DocumentStreamReader(source: MemorySource(sink.bytes))),
                to: JSONLinesWriter(output, naming: DocumentNaming(collection: "docs", idField: nil)), maxExamples: 1_000,
                workers: workers)
            try conversion.run()
            return (output.bytes, conversion)
        }
        let (one, sequential) = try run(workers: 1)
        var seen = Set<String>()
        let repeats = originals.filter { !seen.insert($0.reference.path).inserted }.count
        #expect(repeats > 1_000 && sequential.repeatedPaths.total == repeats)
        #expect(originals.reduce(0) { $0 + $1.firePackBytes().count } > 2 << 20)
        #expect(sequential.repeatedPaths.examples.contains("record 6 repeats the path of record 2: docs/d2"))
        for workers in [2, 3] {
            let (text, parallel) = try run(workers: workers)
            #expect(text == one && parallel.records == sequential.records)
            #expect(parallel.repeatedPaths.total == sequential.repeatedPaths.total)
            #expect(parallel.repeatedPaths.examples == sequential.repeatedPaths.examples, "workers \(workers)")
        }
    }

    @Test("records that are no document are reported in stream order, among damaged ones read after them")
    func invalidDocumentsInOrder() throws {
        let originals = try documents(200, seed: 23)
        var payloads = originals.map { $0.firePackBytes() }
        let extra = Value.map(["name": .reference(try DocumentReference(path: "docs/x")), "fields": [:], "extra": 1])
        for index in [5, 6, 40, 41, 150] { payloads[index] = extra.firePackBytes() }
        let bytes = framedStream(payloads, damaged: [7, 42, 43, 120, 199])
        let expected = try lines(from: bytes, workers: 0)
        #expect(expected.problems.count == 10 && expected.paths.count == 190)
        for (workers, batch) in [(1, 1), (2, 2_000), (3, 50_000)] {
            let parallel = try lines(from: bytes, workers: workers, batchBytes: batch)
            #expect(parallel.problems == expected.problems, "workers \(workers), batch \(batch)")
            #expect(parallel.text == expected.text && parallel.paths == expected.paths)
        }
        // Only the first four kept: the same four, and all ten counted.
        let few = try lines(from: bytes, workers: 0, keptProblems: 4)
        let fewParallel = try lines(from: bytes, workers: 2, batchBytes: 50_000, keptProblems: 4)
        #expect(few.problems == Array(expected.problems.prefix(4)) && fewParallel.problems == few.problems)
        #expect(fewParallel.counts == 10 && few.counts == 10)
        // Stopping at the first problem: the same lines before it, the same error.
        let stopping = try lines(from: bytes, workers: 0, mode: .stopAtFirstError)
        #expect(stopping.error != nil && stopping.paths.count == 5)
        for (workers, batch) in [(1, 1), (2, 50_000)] {
            let parallel = try lines(from: bytes, workers: workers, batchBytes: batch, mode: .stopAtFirstError)
            #expect(parallel.error == stopping.error && parallel.text == stopping.text)
        }
        // Going on after the problem thrown: as record by record.
        let goingOn = try lines(from: bytes, workers: 0, mode: .stopAtFirstError, continuing: true)
        // Stopped at the first problem, a reader throws it again on every later read: going on writes nothing more.
        #expect(Set(goingOn.errors).count == 1 && goingOn.errors.count == 50 && goingOn.paths.count == 5)
        for (workers, batch) in [(1, 1), (2, 2_000), (3, 50_000)] {
            let parallel = try lines(
                from: bytes, workers: workers, batchBytes: batch, mode: .stopAtFirstError, continuing: true)
            #expect(parallel.errors == goingOn.errors, "workers \(workers), batch \(batch)")
            #expect(parallel.text == goingOn.text && parallel.paths == goingOn.paths)
            #expect(parallel.completion == goingOn.completion)
        }
    }
}
