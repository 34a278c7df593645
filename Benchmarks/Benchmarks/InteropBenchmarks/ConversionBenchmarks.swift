import Benchmark
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// `DocumentConversion` between JSON lines and a `.fpks` stream (zstd blocks) in memory, on one thread and on two:
/// twitter.json's statuses, each a line named by `__name__`, 24 times over (about 11 MB of JSON lines). The ratio of
/// the two is guarded (`Benchmarks/Thresholds/guarded.json`): the workers must pay for themselves on two cores.
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

    for workers in [1, 2] {
        let label = workers == 1 ? "1 thread" : "2 threads"
        Benchmark(
            "Convert JSON lines to fpks/\(label)",
            configuration: .init(metrics: [.wallClock, .throughput], maxDuration: smoke ? .milliseconds(50) : .seconds(3))
        ) { benchmark in
            for _ in benchmark.scaledIterations {
                let sink = MemorySink()
                let conversion = DocumentConversion(
                    from: JSONLinesReader(MemorySource(lines), naming: naming()),
                    to: try DocumentStreamWriter(sink: sink), workers: workers)
                blackHole(try conversion.run())
            }
        }
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
