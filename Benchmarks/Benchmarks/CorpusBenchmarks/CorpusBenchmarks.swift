import Benchmark
import CorpusModels
import FirePack
import FirePackInterop
import Foundation

/// Codable models of every field of the corpus files, through each Codable path.
///
/// package-benchmark runs every benchmark in a process of its own, and each process registers all of them: the inputs
/// are made in the `setup` of the benchmarks that read them (`CorpusInputs`), as in PathsBenchmarks and
/// VectorBenchmarks. Made at registration (three files decoded and encoded five ways, canada twice), they cost every
/// process of this target about a second.
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
    register(CorpusInputs<Twitter>("twitter", in: corpus))
    register(CorpusInputs<CitmCatalog>("citm_catalog", in: corpus))
    let canada = CorpusInputs<Canada>("canada", in: corpus)
    register(canada)

    // Hand-written rows for one corpus model: the limit generated coding is measured against.
    let writer = FirePackWriter()
    Benchmark("Encode canada model/hand-written FirePack", closure: { benchmark in
        let value = canada.value
        for _ in benchmark.scaledIterations {
            handWrittenEncode(value, into: writer)
            blackHole(writer.writerIndex)
            writer.clear()
        }
    }, setup: { _ = canada.value })
    Benchmark("Decode canada model/hand-written FirePack", closure: { benchmark in
        let bytes = canada.firePack
        for _ in benchmark.scaledIterations { blackHole(try handWrittenDecodeCanada(bytes)) }
    }, setup: {
        precondition(try! handWrittenDecodeCanada(canada.firePack).features.count == canada.value.features.count)
    })
    // What the model itself costs to build: the same value made by a plain loop from its doubles laid out in one
    // array, every array of it allocated and filled (a `[Double]` per point, 55,563 of them), nothing parsed or
    // checked. A decoder into `[[[Double]]]` cannot do much less (#26 asked canada's decode to be 3× faster).
    let coordinates = Lazy { flatCoordinates(canada.value) }
    Benchmark("Decode canada model/a plain loop building its arrays from its doubles", closure: { benchmark in
        let (value, flat) = (canada.value, coordinates.value)
        for _ in benchmark.scaledIterations { blackHole(rebuilt(value, from: flat)) }
    }, setup: { _ = coordinates.value })
}

/// One corpus model's value and its encodings, each made when a benchmark first reads it (in its `setup`).
final class CorpusInputs<T: Codable & FirePackEncodable>: @unchecked Sendable {
    /// The file's name in the corpus, without `.json`.
    let name: String
    let file: URL
    init(_ name: String, in corpus: URL) { (self.name, file) = (name, corpus.appendingPathComponent("\(name).json")) }

    lazy var json: Data = try! Data(contentsOf: file)
    lazy var value: T = try! JSONDecoder().decode(T.self, from: json)
    lazy var firePack: [UInt8] = try! FirePackEncoder().encodeToBytes(value)
    lazy var dictionary: Any = try! DictionaryEncoder().encodeToAny(value)
    lazy var plist: Data = try! Self.plistEncoder.encode(value)

    /// Binary property lists, as the benchmarks encode them.
    static var plistEncoder: PropertyListEncoder {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return encoder
    }
}

/// A value made when it is first read.
final class Lazy<Made>: @unchecked Sendable {
    private let make: () -> Made
    lazy var value: Made = make()
    init(_ make: @escaping () -> Made) { self.make = make }
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
/// Each benchmark reads its inputs before its loop, having made them in its `setup`.
func register<T: Codable & FirePackDecodable & FirePackEncodable>(_ inputs: CorpusInputs<T>) {
    let name = inputs.name
    let jsonDecoder = JSONDecoder(), jsonEncoder = JSONEncoder()
    let firePackEncoder = FirePackEncoder(), firePackDecoder = FirePackDecoder()
    // The same coders with generated coding off: every type through its Codable conformance.
    let codableEncoder = FirePackEncoder(), codableDecoder = FirePackDecoder()
    codableEncoder.usesGeneratedCoding = false
    codableDecoder.usesGeneratedCoding = false
    let dictionaryEncoder = DictionaryEncoder(), dictionaryDecoder = DictionaryDecoder()
    let plistEncoder = CorpusInputs<T>.plistEncoder
    let writer = FirePackWriter()

    Benchmark("Decode \(name) model/FirePackDecoder @FirePackCodable", closure: { benchmark in
        let firePack = inputs.firePack
        for _ in benchmark.scaledIterations { blackHole(try firePackDecoder.decode(T.self, from: firePack)) }
    }, setup: { _ = inputs.firePack })
    Benchmark("Encode \(name) model/FirePackEncoder @FirePackCodable", closure: { benchmark in
        let value = inputs.value
        for _ in benchmark.scaledIterations {
            try firePackEncoder.encode(value, into: writer)
            writer.clear()
        }
    }, setup: { _ = inputs.value })
    Benchmark("Decode \(name) model/FirePackDecoder Codable", closure: { benchmark in
        let firePack = inputs.firePack
        for _ in benchmark.scaledIterations { blackHole(try codableDecoder.decode(T.self, from: firePack)) }
    }, setup: { _ = inputs.firePack })
    Benchmark("Encode \(name) model/FirePackEncoder Codable", closure: { benchmark in
        let value = inputs.value
        for _ in benchmark.scaledIterations {
            try codableEncoder.encode(value, into: writer)
            writer.clear()
        }
    }, setup: { _ = inputs.value })
    Benchmark("Decode \(name) model/JSONSerialization + DictionaryDecoder", closure: { benchmark in
        let json = inputs.json
        for _ in benchmark.scaledIterations {
            blackHole(try dictionaryDecoder.decode(T.self, from: try JSONSerialization.jsonObject(with: json)))
        }
    }, setup: { _ = inputs.json })
    Benchmark("Decode \(name) model/JSONDecoder", closure: { benchmark in
        let json = inputs.json
        for _ in benchmark.scaledIterations { blackHole(try jsonDecoder.decode(T.self, from: json)) }
    }, setup: { _ = inputs.json })
    Benchmark("Encode \(name) model/JSONEncoder", closure: { benchmark in
        let value = inputs.value
        for _ in benchmark.scaledIterations { blackHole(try jsonEncoder.encode(value)) }
    }, setup: { _ = inputs.value })
    Benchmark("Decode \(name) model/DictionaryDecoder", closure: { benchmark in
        let dictionary = inputs.dictionary
        for _ in benchmark.scaledIterations { blackHole(try dictionaryDecoder.decode(T.self, from: dictionary)) }
    }, setup: { _ = inputs.dictionary })
    Benchmark("Encode \(name) model/DictionaryEncoder", closure: { benchmark in
        let value = inputs.value
        for _ in benchmark.scaledIterations { blackHole(try dictionaryEncoder.encodeToAny(value)) }
    }, setup: { _ = inputs.value })
    Benchmark("Decode \(name) model/PropertyListDecoder binary", closure: { benchmark in
        let plist = inputs.plist
        for _ in benchmark.scaledIterations { blackHole(try PropertyListDecoder().decode(T.self, from: plist)) }
    }, setup: { _ = inputs.plist })
    Benchmark("Encode \(name) model/PropertyListEncoder binary", closure: { benchmark in
        let value = inputs.value
        for _ in benchmark.scaledIterations { blackHole(try plistEncoder.encode(value)) }
    }, setup: { _ = inputs.value })
}
