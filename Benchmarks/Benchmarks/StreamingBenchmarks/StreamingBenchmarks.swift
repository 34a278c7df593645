import Benchmark
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// Streaming on a generated stream of at least 1 GB (8 MB in smoke mode), written to a temporary file in setup and
/// removed in teardown: throughput and peak memory of writing it, and of converting it to JSON lines. Then what users
/// run: `firepack convert` (the main package's release build) between JSON lines and `.fpks` on ≥ 512 MB, with the
/// tool's own peak memory; with `FIREPACK_BASELINE_FIREPACK=<binary>` the same conversions of an earlier build too,
/// as "before" rows of the same run.
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

    // Record N of the stream by its index (version 3): the close record, the index, one block. The count of records
    // comes from setup; each iteration opens the file anew, as `firepack inspect --record` does.
    let recordCount = ManagedCount()
    Benchmark("Stream seek to the last record of ≥1 GB fpks",
              configuration: .init(metrics: [.wallClock, .mallocCountTotal], maxDuration: .seconds(1), maxIterations: smoke ? 10 : 1_000),
              closure: { benchmark in
                  for _ in benchmark.scaledIterations {
                      let reader = try DocumentStreamReader.reading(path: stream, fromRecord: recordCount.value - 1)
                      blackHole(try reader.nextRecord()?.number)
                  }
              },
              setup: {
                  try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                  recordCount.value = (try? writeStream(to: stream, atLeast: target)) ?? 1
              },
              teardown: { try? FileManager.default.removeItem(at: directory) })

    // firepack convert, each way; the input's size and the tool's peak resident memory as custom metrics.
    let tool = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/release/firepack").path
    guard FileManager.default.isExecutableFile(atPath: tool) else {
        print("\(tool) is absent (swift build -c release --product firepack): firepack convert benchmarks skipped")
        return
    }
    let toolTarget = smoke ? 8 << 20 : 512 << 20
    let jsonLines = directory.appendingPathComponent("input.jsonl").path
    // The output goes to memory (tmpfs, where the machine has a /dev/shm with room for it), so that the rows measure
    // the conversion: on this machine's disk, syncing 1.2 GB of JSON lines took 6.8-20 s for the same binary (a
    // slower disk than the conversion). One row writes to the temporary folder's disk as well, as information. Room:
    // the JSON lines are about 2.3 times the stream, held twice while the tool replaces its previous output.
    let memoryFolder = URL(fileURLWithPath: "/dev/shm").appendingPathComponent("firepack-streaming-\(getpid())")
    let memoryRoom = (try? FileManager.default.attributesOfFileSystem(forPath: "/dev/shm")[.systemFreeSize] as? NSNumber)?.intValue ?? 0
    let inMemory = FileManager.default.isWritableFile(atPath: "/dev/shm") && memoryRoom > 6 * toolTarget
    let converted = (inMemory ? memoryFolder : directory).appendingPathComponent("converted").path
    let convertedOnDisk = directory.appendingPathComponent("converted").path
    var binaries = [("firepack convert", tool, converted)]
    if inMemory { binaries.append(("firepack convert, to disk", tool, convertedOnDisk)) }
    if let baseline = ProcessInfo.processInfo.environment["FIREPACK_BASELINE_FIREPACK"] { binaries.append(("firepack convert, before", baseline, converted)) }
    // Sizes in KiB: the JSON side of each conversion (its input or its output) gives the rate both directions share.
    let toolConfiguration = Benchmark.Configuration(metrics: [.wallClock, .custom("input KiB"), .custom("output KiB"), .custom("tool peak memory MB")],
                                                    maxDuration: .seconds(1), maxIterations: smoke ? 1 : 3)
    for (label, binary, converted) in binaries {
        for (name, input, format) in [("JSON lines to fpks", jsonLines, "fpks"), ("fpks to JSON lines", stream, "jsonl")] {
            // To disk, only the direction whose output is large (1.2 GB of JSON lines; the other writes 34 MB).
            if label.hasSuffix(", to disk") && format == "fpks" { continue }
            Benchmark("Stream \(name) ≥512 MB/\(label)", configuration: toolConfiguration,
                      closure: { benchmark in
                          var peak = 0
                          for _ in benchmark.scaledIterations { peak = max(peak, try runTool(binary, ["convert", input, converted, "--to", format, "--quiet"])) }
                          func size(_ path: String) -> Int { ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0 }
                          benchmark.measurement(.custom("input KiB"), size(input) >> 10)
                          benchmark.measurement(.custom("output KiB"), size(converted) >> 10)
                          benchmark.measurement(.custom("tool peak memory MB"), peak >> 10)
                      },
                      setup: {
                          try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                          if inMemory { try FileManager.default.createDirectory(at: memoryFolder, withIntermediateDirectories: true) }
                          _ = try writeStream(to: stream, atLeast: toolTarget)
                          try runTool(tool, ["convert", stream, jsonLines, "--quiet"])
                      },
                      teardown: {
                          try? FileManager.default.removeItem(at: directory)
                          try? FileManager.default.removeItem(at: memoryFolder)
                      })
        }
    }
}

/// A count set in a benchmark's setup and read by its closure.
final class ManagedCount: @unchecked Sendable {
    var value = 1
}

/// Runs the tool and waits; returns its peak resident memory in KiB (from wait4). A failure fails the benchmark.
@discardableResult
func runTool(_ binary: String, _ arguments: [String]) throws -> Int {
    var pid: pid_t = 0
    let argv = ([binary] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    guard posix_spawn(&pid, binary, nil, nil, argv, environ) == 0 else { throw CocoaError(.executableNotLoadable) }
    var status: Int32 = 0
    var usage = rusage()
    guard wait4(pid, &status, 0, &usage) == pid, status == 0 else { throw CocoaError(.fileWriteUnknown) }
    return usage.ru_maxrss
}

/// Writes generated book documents until the file holds at least `bytes`; returns the document count. Blocks are
/// stored as they are, so that the file's size is the documents': compressed (the writer's default, zstd), a file of
/// 1 GB holds some 25 GB of these repetitive books, and converting it wrote JSON lines until the disk was full.
/// Conversions of compressed streams are measured by scripts/measure/stream-sizes.py.
func writeStream(to path: String, atLeast bytes: Int) throws -> Int {
    let sink = try FileSink(path: path)
    let writer = try DocumentStreamWriter(sink: sink, codec: .none)
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
