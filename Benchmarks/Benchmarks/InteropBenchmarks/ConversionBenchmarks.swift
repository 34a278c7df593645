import Benchmark
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// `DocumentConversion` between JSON lines and a `.fpks` stream (zstd blocks) in memory, on one thread and on two:
/// twitter.json's statuses, each a line named by `__name__`, 24 times over (about 11 MB of JSON lines). The ratio of
/// two threads to the work done on one thread is guarded (`Benchmarks/Thresholds/guarded.json`): the second core must pay
/// for itself.
func conversionBenchmarks(twitter: Data, smoke: Bool) {
    guard case .map(let root) = try! Value(json: twitter), case .array(let statuses)? = root["statuses"] else { return }
    var lines: [UInt8] = []
    for copy in 0..<(smoke ? 2 : 24) {
        for (index, status) in statuses.enumerated() {
            guard case .map(var fields) = status else { continue }
            fields["__name__"] = .string("statuses/s\(copy)-\(index)")
            lines += Value.map(fields).jsonBytes()
            lines.append(0x0A)
        }
    }
    let naming = { DocumentNaming(collection: "statuses", idField: nil) }
    let stream = MemorySink()
    let conversion = DocumentConversion(
        from: JSONLinesReader(MemorySource(lines), naming: naming()), to: try! DocumentStreamWriter(sink: stream))
    try! conversion.run()
    let streamBytes = stream.bytes

    // "1 thread" stores blocks on the writer's thread of its own (`storesBlocksInBackground`, the default); "1
    // thread, blocks in turn" does everything on one, which is what the 2 threads are guarded against: the second
    // core must pay for itself, whichever part of the work it takes.
    for (label, workers, inBackground) in [("1 thread, blocks in turn", 1, false), ("1 thread", 1, true), ("2 threads", 2, true)] {
        Benchmark(
            "Convert JSON lines to fpks/\(label)",
            configuration: .init(metrics: [.wallClock, .throughput], maxDuration: smoke ? .milliseconds(50) : .seconds(3))
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                let sink = MemorySink()
                let stream = try DocumentStreamWriter(sink: sink)
                stream.storesBlocksInBackground = inBackground
                let conversion = DocumentConversion(
                    from: JSONLinesReader(MemorySource(lines), naming: naming()), to: stream, workers: workers)
                blackHole(try conversion.run())
            }
        }
        // Reading blocks ahead comes with more than one worker: the 1-thread reader does everything on one.
        guard inBackground else { continue }
        Benchmark(
            "Convert fpks to JSON lines/\(label)",
            configuration: .init(metrics: [.wallClock, .throughput], maxDuration: smoke ? .milliseconds(50) : .seconds(3))
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                let conversion = DocumentConversion(
                    from: StreamDocuments(try DocumentStreamReader(source: MemorySource(streamBytes))),
                    to: JSONLinesWriter(MemorySink(), naming: naming()), workers: workers)
                blackHole(try conversion.run())
            }
        }
    }
}
