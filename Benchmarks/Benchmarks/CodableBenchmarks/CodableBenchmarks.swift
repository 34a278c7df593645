import Benchmark
import FirePack
import GuideModels
import Foundation

/// FirePackEncoder/FirePackDecoder against JSONEncoder/JSONDecoder on the same values, in the same run.
let benchmarks: @Sendable () -> Void = {
    // FIREPACK_BENCHMARK_SMOKE=1 (CI): a few iterations of each, to prove the suite still builds and runs.
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        maxDuration: smoke ? .milliseconds(50) : .seconds(2),
        maxIterations: smoke ? 3 : 100_000
    )
    let bookWithTags = makeBookWithTags(1)
    let books = (0..<1_000).map(makeBook)
    let firePackEncoder = FirePackEncoder()
    let firePackDecoder = FirePackDecoder()
    let jsonEncoder = JSONEncoder()
    let jsonDecoder = JSONDecoder()
    let bookWithTagsFirePack = try! firePackEncoder.encodeToBytes(bookWithTags)
    let bookWithTagsJSON = try! jsonEncoder.encode(bookWithTags)
    let booksFirePack = try! firePackEncoder.encodeToBytes(books)
    let booksJSON = try! jsonEncoder.encode(books)
    let writer = FirePackWriter()

    Benchmark("Encode BookWithTags/FirePack (reused writer)") { benchmark in
        for _ in benchmark.scaledIterations {
            try firePackEncoder.encode(bookWithTags, into: writer)
            writer.clear()
        }
    }
    Benchmark("Encode BookWithTags/FirePack (Data)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try firePackEncoder.encode(bookWithTags)) }
    }
    Benchmark("Encode BookWithTags/JSONEncoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try jsonEncoder.encode(bookWithTags)) }
    }
    Benchmark("Decode BookWithTags/FirePack") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try firePackDecoder.decode(BookWithTags.self, from: bookWithTagsFirePack)) }
    }
    Benchmark("Decode BookWithTags/JSONDecoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try jsonDecoder.decode(BookWithTags.self, from: bookWithTagsJSON)) }
    }
    Benchmark("Encode 1000 Books/FirePack (reused writer)") { benchmark in
        for _ in benchmark.scaledIterations {
            try firePackEncoder.encode(books, into: writer)
            writer.clear()
        }
    }
    Benchmark("Encode 1000 Books/JSONEncoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try jsonEncoder.encode(books)) }
    }
    Benchmark("Decode 1000 Books/FirePack") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try firePackDecoder.decode([Book].self, from: booksFirePack)) }
    }
    Benchmark("Decode 1000 Books/JSONDecoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try jsonDecoder.decode([Book].self, from: booksJSON)) }
    }
}
