import Benchmark
@_spi(Benchmarks) import FirePack
import FirePackStreams
import Foundation
import GuideModels

/// What hostile input costs beside benign input of the same size, and what whole-input validation costs beside the
/// lazy decode (BENCHMARKS.md, "Hostile input"; the bounds themselves are tested in HostileInputTests).
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        maxDuration: smoke ? .milliseconds(50) : .seconds(2),
        maxIterations: smoke ? 3 : 1_000
    )

    // The writer's key table: 10,000 keys of one map, random against colliding in the fast hash's low bits.
    let colliding = KeyFlood.collidingKeys(count: 10_000)
    var generator = SystemRandomNumberGenerator()
    let random = colliding.map { key in String((0..<key.utf8.count).map { _ in Character(Unicode.Scalar(UInt8.random(in: 97...122, using: &generator))) }) }
    let writer = FirePackWriter(options: .init(initialCapacity: 1 << 20))
    func writeKeys(_ keys: [String]) {
        writer.beginMap()
        for key in keys { writer.writeKey(key); writer.writeNull() }
        writer.endMap()
        blackHole(writer.writerIndex)
        writer.clear()
    }
    Benchmark("Writer keys/random (10,000)") { benchmark in
        for _ in benchmark.scaledIterations { writeKeys(random) }
    }
    Benchmark("Writer keys/colliding (10,000)") { benchmark in
        for _ in benchmark.scaledIterations { writeKeys(colliding) }
    }
    // {"k0": {"k1": 0}, "k1": {"k2": 0}, …} against the same shape with inner keys never repeated.
    func writeChain(repeating: Bool) {
        writer.beginMap()
        for index in 0..<20_000 {
            writer.writeKey("k\(index)")
            writer.beginMap()
            writer.writeKey(repeating ? "k\(index + 1)" : "j\(index + 1)")
            writer.writeInteger(0)
            writer.endMap()
        }
        writer.endMap()
        blackHole(writer.writerIndex)
        writer.clear()
    }
    Benchmark("Writer keys/repeated from closed maps (20,000)") { benchmark in
        for _ in benchmark.scaledIterations { writeChain(repeating: true) }
    }
    Benchmark("Writer keys/distinct in closed maps (20,000)") { benchmark in
        for _ in benchmark.scaledIterations { writeChain(repeating: false) }
    }

    // A stream reader over 8 MiB: record headers claiming 1 MiB every 4 KiB, against zeros.
    var fake = DocumentStreamFormat.header
    while fake.count + 4096 <= 8 << 20 {
        let record = fake.count
        fake += DocumentStreamFormat.syncMarker + [0, 0, 0x10, 0] + [0, 0, 0, 0]
        fake += [UInt8](repeating: 0, count: record + 4096 - fake.count)
    }
    let zeros = DocumentStreamFormat.header + [UInt8](repeating: 0, count: fake.count - 6)
    func readStream(_ bytes: [UInt8]) throws {
        let reader = try DocumentStreamReader(source: MemorySource(bytes), maxRecordLength: 1 << 20)
        while try reader.nextRecord() != nil {}
        blackHole(reader.problemCount)
    }
    Benchmark("Stream reader/8 MiB of records claiming 1 MiB", configuration: .init(scalingFactor: .one)) { benchmark in
        for _ in benchmark.scaledIterations { try readStream(fake) }
    }
    Benchmark("Stream reader/8 MiB of zeros", configuration: .init(scalingFactor: .one)) { benchmark in
        for _ in benchmark.scaledIterations { try readStream(zeros) }
    }

    // Decoding 1,000 BookWithTags: the lazy path (trusted bytes) against the whole input checked first.
    let books = (0..<1_000).map(makeBookWithTags)
    let bytes = try! FirePackEncoder().encodeToBytes(books)
    let lazy = FirePackDecoder()
    lazy.inputValidation = .lazy
    let complete = FirePackDecoder()
    complete.inputValidation = .complete
    Benchmark("Decode 1,000 BookWithTags/lazy") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try lazy.decode([BookWithTags].self, from: bytes)) }
    }
    Benchmark("Decode 1,000 BookWithTags/whole input checked") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try complete.decode([BookWithTags].self, from: bytes)) }
    }
    Benchmark("Verify 1,000 BookWithTags (no decode)") { benchmark in
        for _ in benchmark.scaledIterations { try FirePackReader.verify(bytes) }
    }
}
