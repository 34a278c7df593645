import Benchmark
import FirePack
import FirePackInterop
import Foundation

/// The reader and writer on the shared corpus (../shared/corpus), converted from JSON through `Value`.
let benchmarks: @Sendable () -> Void = {
    let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus")
    guard FileManager.default.fileExists(atPath: corpus.appendingPathComponent("twitter.json").path) else {
        print("../shared/corpus is absent: corpus benchmarks skipped")
        return
    }
    // FIREPACK_BENCHMARK_SMOKE=1 (CI): a few iterations of each, to prove the suite still builds and runs.
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        maxDuration: smoke ? .milliseconds(50) : .seconds(3),
        maxIterations: smoke ? 3 : 1_000
    )
    for name in ["twitter", "citm_catalog", "canada"] {
        let json = try! Data(contentsOf: corpus.appendingPathComponent("\(name).json"))
        let value = try! Value(json: json)
        let packed = value.firePackBytes()

        Benchmark("Reader materialize Value/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try Value(firePackBytes: packed)) }
        }
        Benchmark("Reader cursor full scan/\(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                try FirePackReader.withReader(packed) { reader in blackHole(try scan(&reader)) }
            }
        }
        Benchmark("Reader skip every element/\(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                try FirePackReader.withReader(packed) { reader in blackHole(try skipElements(&reader)) }
            }
        }
        let writer = FirePackWriter(options: .init(initialCapacity: packed.count * 2))
        Benchmark("Writer encode Value/\(name)") { benchmark in
            for _ in benchmark.scaledIterations {
                writer.write(value)
                blackHole(writer.writerIndex)
                writer.clear()
            }
        }
        let question: ((inout FirePackReader) throws -> Any)? = switch name {
        case "canada": { try sumOfCoordinates(&$0) }
        case "twitter": { try retweetedStatuses(&$0) }
        default: { try eventsPerTopic(&$0) }
        }
        if let question {
            Benchmark("Reader one question, zero copy/\(name)") { benchmark in
                for _ in benchmark.scaledIterations { try FirePackReader.withReader(packed) { blackHole(try question(&$0)) } }
            }
        }
        Benchmark("JSON parse to Value/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try Value(json: json)) }
        }
    }
}

/// Visits every value with the cursor, reading each scalar (strings validated) without building anything.
func scan(_ reader: inout FirePackReader) throws -> Int {
    var checksum = 0
    switch try reader.peekType() {
    case .array, .map:
        let isMap = try reader.peekType() == .map
        let container = isMap ? try reader.enterMap() : try reader.enterArray()
        for _ in 0..<container.count {
            if isMap { checksum &+= try reader.readKey().count }
            checksum &+= try scan(&reader)
        }
        try container.isMap ? reader.exitMap(container) : reader.exitArray(container)
    case .string: checksum &+= try reader.readString().count
    case .integer: checksum &+= Int(truncatingIfNeeded: try reader.readInteger())
    case .double: checksum &+= Int(try reader.readDouble().bitPattern & 0xFF)
    case .boolean: checksum &+= try reader.readBoolean() ? 1 : 0
    case .null: _ = try reader.readNull()
    default: try reader.skipValue()
    }
    return checksum
}

/// Enters the root and every container directly inside it, skipping each of their elements in O(1).
func skipElements(_ reader: inout FirePackReader) throws -> Int {
    let root = try reader.root.type == .map ? reader.enterMap() : reader.enterArray()
    var skipped = 0
    for _ in 0..<root.count {
        if root.isMap { _ = try reader.readKey() }
        let type = try reader.peekType()
        if type == .array || type == .map {
            let inner = type == .map ? try reader.enterMap() : try reader.enterArray()
            for _ in 0..<inner.count {
                if inner.isMap { _ = try reader.readKey() }
                try reader.skipValue()
                skipped += 1
            }
            try inner.isMap ? reader.exitMap(inner) : reader.exitArray(inner)
        } else {
            try reader.skipValue()
        }
    }
    try root.isMap ? reader.exitMap(root) : reader.exitArray(root)
    return skipped
}
