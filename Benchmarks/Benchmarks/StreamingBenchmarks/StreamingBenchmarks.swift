import Benchmark
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// Streaming on a generated stream of at least 1 GB (8 MB in smoke mode), written to a temporary file in setup and
/// removed in teardown: throughput and peak memory of writing it, and of converting it to JSON lines.
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    let target = smoke ? 8 << 20 : 1 << 30
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .peakMemoryResident, .mallocCountTotal],
                                           maxDuration: .seconds(1), maxIterations: smoke ? 1 : 2)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("firepack-streaming-\(getpid())")
    let stream = directory.appendingPathComponent("books.fpks").path
    let output = directory.appendingPathComponent("books.jsonl").path

    Benchmark("Stream write ≥1 GB of documents/fpks",
              closure: { benchmark in
                  for _ in benchmark.scaledIterations { blackHole(try writeStream(to: stream, atLeast: target)) }
              },
              setup: { try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) },
              teardown: { try? FileManager.default.removeItem(at: directory) })
    Benchmark("Stream convert ≥1 GB fpks to JSON lines",
              closure: { benchmark in
                  for _ in benchmark.scaledIterations { blackHole(try convertToJSONLines(stream, output)) }
              },
              setup: {
                  try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                  _ = try? writeStream(to: stream, atLeast: target)
              },
              teardown: { try? FileManager.default.removeItem(at: directory) })
}

/// Writes generated book documents until the file holds at least `bytes`; returns the document count.
func writeStream(to path: String, atLeast bytes: Int) throws -> Int {
    let sink = try FileSink(path: path)
    let writer = try DocumentStreamWriter(sink: sink)
    var count = 0, written = 0
    let words = ["galaxy", "towel", "desert", "spice", "river", "garden", "mirror", "signal"]
    while written < bytes {
        let document = Document(reference: try DocumentReference(path: "books/book-\(count)"), fields: [
            "title": .string("\(words[count % 8].capitalized) \(words[(count / 8) % 8].capitalized) \(count)"),
            "numberOfPages": .integer(Int64(40 + count % 1_300)), "author": .string("Author \(count % 5_000)"),
            "rating": .double(Double(count % 500) / 100), "inPrint": .boolean(count % 3 != 0),
            "tags": .array([["title": .string(words[count % 8]), "color": "#FF6600FF"]]),
            "published": .timestamp(Timestamp(seconds: Int64(count) * 86_400 % 2_000_000_000, nanoseconds: 0)),
        ])
        try writer.append(document)
        count += 1
        if count % 16_384 == 0 {
            // The real size on disk, not an estimate.
            try writer.flush()
            written = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        }
    }
    try writer.close()
    return count
}

/// Reads the stream document by document and writes each as one JSON line.
func convertToJSONLines(_ input: String, _ output: String) throws -> Int {
    let reader = try DocumentStreamReader(source: FileSource(path: input))
    let sink = try FileSink(path: output)
    var buffer: [UInt8] = []
    var count = 0
    while let (_, _, document) = try reader.next() {
        var fields = document.fields
        fields["__name__"] = .string(document.reference.path)
        buffer += Value.map(fields).jsonBytes()
        buffer.append(0x0A)
        if buffer.count >= 1 << 20 {
            try buffer.withUnsafeBytes { try sink.write($0) }
            buffer.removeAll(keepingCapacity: true)
        }
        count += 1
    }
    try buffer.withUnsafeBytes { try sink.write($0) }
    try sink.finish()
    return count
}
