import Benchmark
import FirePack
import FirePackInterop
import Foundation

/// Each interop path in each direction on the shared corpus, next to JSONSerialization on the same input.
/// Throughput in MB/s is the size of the text or bytes on the encoded side divided by the wall-clock time.
///
/// Unlike the other targets' inputs, these are made at registration, in every process, on purpose: the guard of two
/// conversion threads against one (ConversionBenchmarks) depends on the heap the process built before it. Made only
/// in the `setup` of the benchmarks that read them, two threads converted `.fpks` to JSON lines at 0.87-1.14x the
/// speed of one (2026-12-02), and at 1.44x with glibc's mmap and trim thresholds raised (`GLIBC_TUNABLES`): on a lean
/// heap, memory freed between blocks goes back to the system and each thread faults it in again.
let benchmarks: @Sendable () -> Void = {
    let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus")
    guard FileManager.default.fileExists(atPath: corpus.appendingPathComponent("twitter.json").path) else {
        print("../shared/corpus is absent: interop benchmarks skipped")
        return
    }
    // FIREPACK_BENCHMARK_SMOKE=1 (CI): a few iterations of each, to prove the suite still builds and runs.
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal],
        timeUnits: .nanoseconds,  // every digit the histogram keeps (Thresholds/guarded.json compares these)
        maxDuration: smoke ? .milliseconds(50) : .seconds(2),
        maxIterations: smoke ? 3 : 200
    )
    for name in ["twitter", "citm_catalog", "canada"] {
        let json = try! Data(contentsOf: corpus.appendingPathComponent("\(name).json"))
        let value = try! Value(json: json)
        let any = value.anyValue
        let rest = try! value.firestoreJSONBytes()
        let proto = try! value.firestoreProtoBytes()

        Benchmark("JSONSerialization parse/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try JSONSerialization.jsonObject(with: json)) }
        }
        let foundationObject = try! JSONSerialization.jsonObject(with: json)
        Benchmark("JSONSerialization write/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try JSONSerialization.data(withJSONObject: foundationObject)) }
        }
        Benchmark("JSON parse to Value/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try Value(json: json)) }
        }
        Benchmark("JSON write from Value/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(value.jsonBytes()) }
        }
        Benchmark("Dictionary Value to Any/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(value.anyValue) }
        }
        Benchmark("Dictionary Any to Value/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try Value(any: any)) }
        }
        Benchmark("REST JSON parse/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try Value(firestoreJSON: rest)) }
        }
        Benchmark("REST JSON write/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try value.firestoreJSONBytes()) }
        }
        Benchmark("Protobuf decode/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try Value(firestoreProto: proto)) }
        }
        Benchmark("Protobuf encode/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try value.firestoreProtoBytes()) }
        }
    }
    conversionBenchmarks(twitter: try! Data(contentsOf: corpus.appendingPathComponent("twitter.json")), smoke: smoke)
}
