import FirePack
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackInterop

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

    /// `text` converted into a stream with `workers` threads (0: line by line) in batches of `batchBytes`; the
    /// stream's bytes (closed after the last record written), the conversion, and the error it stopped at.
    func convert(
        _ text: String, workers: Int, batchBytes: Int = 2_000, idField: String? = "id", deterministic: Bool = true
    ) throws -> (bytes: [UInt8], records: Int, paths: [String], error: FirePackError?) {
        let naming = DocumentNaming(
            collection: "events", idField: idField, generatesMissingIDs: true, deterministic: deterministic)
        let reader = JSONLinesReader(MemorySource(Array(text.utf8)), naming: naming)
        let sink = MemorySink()
        let stream = try DocumentStreamWriter(sink: sink, codec: .zstd, blockSize: 8_192)
        let parallel = workers > 0 ? ParallelJSONLines(reader: reader, stream: stream, workers: workers, batchBytes: batchBytes) : nil
        var paths: [String] = []
        var stopped: FirePackError?
        do {
            while try parallel?.appendNext() ?? reader.appendNext(to: stream) {
                paths.append("\(reader.lastLineNumber) \(reader.lastPath)")
            }
        } catch let error as FirePackError {
            stopped = error
        }
        #expect(naming.recordCount == paths.count && stream.recordCount == paths.count)
        try stream.close()
        return (sink.bytes, paths.count, paths, stopped)
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
            #expect(parallel.records == expected.records)
            #expect(parallel.bytes == expected.bytes)
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
}
