import Benchmark
import CorpusModels
import FirePack
import FirePackInterop
import Foundation

/// Codable models of every field of the corpus files, through each Codable path.
let benchmarks: @Sendable () -> Void = {
    let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/corpus")
    guard FileManager.default.fileExists(atPath: corpus.appendingPathComponent("twitter.json").path) else {
        print("../shared/corpus is absent: corpus benchmarks skipped")
        return
    }
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal], timeUnits: .nanoseconds,
                                           maxDuration: smoke ? .milliseconds(50) : .seconds(2), maxIterations: smoke ? 2 : 500)
    register("twitter", Twitter.self, corpus)
    register("citm_catalog", CitmCatalog.self, corpus)
    register("canada", Canada.self, corpus)

    // Hand-written rows for one corpus model: the limit generated coding is measured against.
    let canada = try! JSONDecoder().decode(Canada.self, from: Data(contentsOf: corpus.appendingPathComponent("canada.json")))
    let canadaBytes = try! FirePackEncoder().encodeToBytes(canada)
    precondition(try! handWrittenDecodeCanada(canadaBytes).features.count == canada.features.count)
    let writer = FirePackWriter()
    Benchmark("Encode canada model/hand-written FirePack") { benchmark in
        for _ in benchmark.scaledIterations {
            handWrittenEncode(canada, into: writer)
            blackHole(writer.writerIndex)
            writer.clear()
        }
    }
    Benchmark("Decode canada model/hand-written FirePack") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try handWrittenDecodeCanada(canadaBytes)) }
    }
    // What the model itself costs to build: the same value made by a plain loop from its doubles laid out in one
    // array, every array of it allocated and filled (a `[Double]` per point, 55,563 of them), nothing parsed or
    // checked. A decoder into `[[[Double]]]` cannot do much less (#26 asked canada's decode to be 3× faster).
    let coordinates = flatCoordinates(canada)
    Benchmark("Decode canada model/a plain loop building its arrays from its doubles") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(rebuilt(canada, from: coordinates)) }
    }
}

/// `canada` laid out as a decoder meets it, front to back: its doubles in order, and for each ring its points'
/// sizes (each point's count of doubles).
func flatCoordinates(_ canada: Canada) -> (doubles: [Double], rings: [[Int]]) {
    let rings = canada.features.flatMap { $0.geometry.coordinates }
    return (rings.flatMap { $0.flatMap { $0 } }, rings.map { $0.map(\.count) })
}

/// A copy of `canada` that shares no array storage with it: each array allocated at its size and filled by a memory
/// copy from `flat` (`flatCoordinates`), in loops without closures; only the features' few fields read from `canada`.
@inline(never)
func rebuilt(_ canada: Canada, from flat: (doubles: [Double], rings: [[Int]])) -> Canada {
    var features: [Feature] = []
    features.reserveCapacity(canada.features.count)
    var next = 0, nextRing = 0
    flat.doubles.withUnsafeBufferPointer { doubles in
        for feature in canada.features {
            var rings: [[[Double]]] = []
            rings.reserveCapacity(feature.geometry.coordinates.count)
            for _ in 0..<feature.geometry.coordinates.count {
                let sizes = flat.rings[nextRing]
                nextRing += 1
                var points: [[Double]] = []
                points.reserveCapacity(sizes.count)
                for count in sizes {
                    points.append(
                        [Double](unsafeUninitializedCapacity: count) { buffer, initialized in
                            buffer.baseAddress!.initialize(from: doubles.baseAddress! + next, count: count)
                            initialized = count
                        })
                    next += count
                }
                rings.append(points)
            }
            features.append(
                Feature(
                    type: feature.type, properties: feature.properties,
                    geometry: Geometry(type: feature.geometry.type, coordinates: rings)))
        }
    }
    return Canada(type: canada.type, features: features)
}

/// Each path for one corpus model. `T`'s generated coding is known here, as at a user's call site with a concrete type,
/// so the coders' calls resolve to the overloads specialized for it (what a call where `T` is only `Codable` would not).
func register<T: Codable & FirePackDecodable & FirePackEncodable>(_ name: String, _ type: T.Type, _ corpus: URL) {
    let json = try! Data(contentsOf: corpus.appendingPathComponent("\(name).json"))
    let jsonDecoder = JSONDecoder(), jsonEncoder = JSONEncoder()
    let value = try! jsonDecoder.decode(T.self, from: json)
    let firePackEncoder = FirePackEncoder(), firePackDecoder = FirePackDecoder()
    // The same coders with generated coding off: every type through its Codable conformance.
    let codableEncoder = FirePackEncoder(), codableDecoder = FirePackDecoder()
    codableEncoder.usesGeneratedCoding = false
    codableDecoder.usesGeneratedCoding = false
    let firePack = try! firePackEncoder.encodeToBytes(value)
    let dictionaryEncoder = DictionaryEncoder(), dictionaryDecoder = DictionaryDecoder()
    let dictionary = try! dictionaryEncoder.encodeToAny(value)
    let plistEncoder = PropertyListEncoder()
    plistEncoder.outputFormat = .binary
    let plist = try! plistEncoder.encode(value)
    let writer = FirePackWriter()

    Benchmark("Decode \(name) model/FirePackDecoder @FirePackCodable") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try firePackDecoder.decode(T.self, from: firePack)) }
    }
    Benchmark("Encode \(name) model/FirePackEncoder @FirePackCodable") { benchmark in
        for _ in benchmark.scaledIterations {
            try firePackEncoder.encode(value, into: writer)
            writer.clear()
        }
    }
    Benchmark("Decode \(name) model/FirePackDecoder Codable") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try codableDecoder.decode(T.self, from: firePack)) }
    }
    Benchmark("Encode \(name) model/FirePackEncoder Codable") { benchmark in
        for _ in benchmark.scaledIterations {
            try codableEncoder.encode(value, into: writer)
            writer.clear()
        }
    }
    Benchmark("Decode \(name) model/JSONSerialization + DictionaryDecoder") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try dictionaryDecoder.decode(T.self, from: try JSONSerialization.jsonObject(with: json)))
        }
    }
    Benchmark("Decode \(name) model/JSONDecoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try jsonDecoder.decode(T.self, from: json)) }
    }
    Benchmark("Encode \(name) model/JSONEncoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try jsonEncoder.encode(value)) }
    }
    Benchmark("Decode \(name) model/DictionaryDecoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try dictionaryDecoder.decode(T.self, from: dictionary)) }
    }
    Benchmark("Encode \(name) model/DictionaryEncoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try dictionaryEncoder.encodeToAny(value)) }
    }
    Benchmark("Decode \(name) model/PropertyListDecoder binary") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try PropertyListDecoder().decode(T.self, from: plist)) }
    }
    Benchmark("Encode \(name) model/PropertyListEncoder binary") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try plistEncoder.encode(value)) }
    }
}
