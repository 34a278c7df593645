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

    let inputs = HostileInputs()
    // The writer's key table: 10,000 keys of one map, random against colliding in the fast hash's low bits.
    let writer = FirePackWriter(options: .init(initialCapacity: 1 << 20))
    func writeKeys(_ keys: [String]) {
        writer.beginMap()
        for key in keys { writer.writeKey(key); writer.writeNull() }
        writer.endMap()
        blackHole(writer.writerIndex)
        writer.clear()
    }
    Benchmark("Writer keys/random (10,000)", closure: { benchmark in
        let random = inputs.random
        for _ in benchmark.scaledIterations { writeKeys(random) }
    }, setup: { _ = inputs.random })
    Benchmark("Writer keys/colliding (10,000)", closure: { benchmark in
        let colliding = inputs.colliding
        for _ in benchmark.scaledIterations { writeKeys(colliding) }
    }, setup: { _ = inputs.colliding })
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
    func readStream(_ bytes: [UInt8]) throws {
        let reader = try DocumentStreamReader(source: MemorySource(bytes), maxRecordLength: 1 << 20)
        while try reader.nextRecord() != nil {}
        blackHole(reader.problemCount)
    }
    Benchmark("Stream reader/8 MiB of records claiming 1 MiB", configuration: .init(scalingFactor: .one), closure: { benchmark in
        let fake = inputs.fakeRecords
        for _ in benchmark.scaledIterations { try readStream(fake) }
    }, setup: { _ = inputs.fakeRecords })
    Benchmark("Stream reader/8 MiB of zeros", configuration: .init(scalingFactor: .one), closure: { benchmark in
        let zeros = inputs.zeros
        for _ in benchmark.scaledIterations { try readStream(zeros) }
    }, setup: { _ = inputs.zeros })

    // Decoding 1,000 BookWithTags: the lazy path (trusted bytes) against the whole input checked first.
    let lazy = FirePackDecoder()
    lazy.inputValidation = .lazy
    let complete = FirePackDecoder()
    complete.inputValidation = .complete
    Benchmark("Decode 1,000 BookWithTags/lazy", closure: { benchmark in
        let bytes = inputs.books
        for _ in benchmark.scaledIterations { blackHole(try lazy.decode([BookWithTags].self, from: bytes)) }
    }, setup: { _ = inputs.books })
    Benchmark("Decode 1,000 BookWithTags/whole input checked", closure: { benchmark in
        let bytes = inputs.books
        for _ in benchmark.scaledIterations { blackHole(try complete.decode([BookWithTags].self, from: bytes)) }
    }, setup: { _ = inputs.books })
    Benchmark("Verify 1,000 BookWithTags (no decode)", closure: { benchmark in
        let bytes = inputs.books
        for _ in benchmark.scaledIterations { try FirePackReader.verify(bytes) }
    }, setup: { _ = inputs.books })
}

/// The inputs, each made when a benchmark first reads it (in its `setup`): package-benchmark runs every benchmark in
/// a process of its own, and each process registers all of them (made at registration, the colliding keys most of
/// it, they cost every process of this target almost a second).
final class HostileInputs: @unchecked Sendable {
    /// 10,000 keys colliding in the fast hash's low bits for this process's seed.
    lazy var colliding: [String] = KeyFlood.collidingKeys(count: 10_000)
    /// Random keys of the same lengths.
    lazy var random: [String] = colliding.map { key in
        var generator = SystemRandomNumberGenerator()
        return String((0..<key.utf8.count).map { _ in Character(Unicode.Scalar(UInt8.random(in: 97...122, using: &generator))) })
    }
    /// 8 MiB of stream whose record headers claim 1 MiB every 4 KiB.
    lazy var fakeRecords: [UInt8] = {
        var fake = DocumentStreamFormat.header
        while fake.count + 4096 <= 8 << 20 {
            let record = fake.count
            fake += DocumentStreamFormat.syncMarker + [0, 0, 0x10, 0] + [0, 0, 0, 0]
            fake += [UInt8](repeating: 0, count: record + 4096 - fake.count)
        }
        return fake
    }()
    /// The stream header, then zeros, as long as `fakeRecords`.
    lazy var zeros: [UInt8] = DocumentStreamFormat.header + [UInt8](repeating: 0, count: fakeRecords.count - 6)
    /// 1,000 BookWithTags.
    lazy var books: [UInt8] = try! FirePackEncoder().encodeToBytes((0..<1_000).map(makeBookWithTags))
}
