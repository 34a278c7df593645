import Benchmark
import FirePack
import GuideModels
import FirePackInterop
import Foundation

/// The guide's models through every path, each encode and decode, in one run.
///
/// package-benchmark runs every benchmark in a process of its own, and each process registers all of them: inputs are
/// therefore built lazily, in the `setup` of the one benchmark that reads them (building every model at every size
/// with every encoder in every process took most of an hour before the first measurement).
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    for count in smoke ? [1, 1_000] : [1, 1_000, 100_000] {
        // One document is about the harness's own cost per sample (1 µs and 16 mallocs, measured on the hand-written
        // encode into a reused writer, which allocates nothing): a thousand calls per sample, results per call.
        Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
                                               timeUnits: .nanoseconds,
                                               scalingFactor: count == 1 ? .kilo : .one,
                                               maxDuration: smoke ? .milliseconds(50) : .seconds(2), maxIterations: smoke ? 2 : 1_000)
        let books = Inputs { (0..<count).map(makeBook) }
        let tagged = Inputs { (0..<count).map(makeBookWithTags) }
        register("\(count) Book", books)
        register("\(count) BookWithTags", tagged)
        register("\(count) ProgrammingLanguage", Inputs { (0..<count).map(makeLanguage) })
        register("\(count) Office", Inputs { (0..<count).map(makeOffice) })
        register("\(count) Article", Inputs { (0..<count).map(makeArticle) })

        let writer = FirePackWriter()
        Benchmark("Encode \(count) Book/hand-written FirePack", closure: { benchmark in
            let values = books.values
            for _ in benchmark.scaledIterations {
                handWrittenEncode(values, into: writer)
                blackHole(writer.writerIndex)
                writer.clear()
            }
        }, setup: { _ = books.values })
        Benchmark("Decode \(count) Book/hand-written FirePack", closure: { benchmark in
            let bytes = books.firePack
            for _ in benchmark.scaledIterations { blackHole(try handWrittenDecode(bytes)) }
        }, setup: { _ = books.firePack })
        Benchmark("Encode \(count) BookWithTags/hand-written FirePack", closure: { benchmark in
            let values = tagged.values
            for _ in benchmark.scaledIterations {
                handWrittenEncode(values, into: writer)
                blackHole(writer.writerIndex)
                writer.clear()
            }
        }, setup: { _ = tagged.values })
        Benchmark("Decode \(count) BookWithTags/hand-written FirePack", closure: { benchmark in
            let bytes = tagged.firePack
            for _ in benchmark.scaledIterations { blackHole(try handWrittenDecodeTagged(bytes)) }
        }, setup: {
            let handWritten = try handWrittenDecodeTagged(tagged.firePack)
            let decoded = try FirePackDecoder().decode([BookWithTags].self, from: tagged.firePack)
            precondition(handWritten == decoded,
                         "the hand-written decoder reads what FirePackDecoder reads")
        })
    }
    orderBenchmarks()
}

/// The Firestore-shaped order, for one and 5,000 documents, and the same bytes read by the model that evolved
/// (`EvolvingOrder`: an alias, defaults, a bag): what those cost against the plain model.
let orderBenchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    for count in [1, 5_000] {
        Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
                                               timeUnits: .nanoseconds,
                                               scalingFactor: count == 1 ? .kilo : .one,
                                               maxDuration: smoke ? .milliseconds(50) : .seconds(2), maxIterations: smoke ? 2 : 1_000)
        let orders = Inputs { (0..<count).map(makeOrder) }
        register("\(count) Order", orders)
        let decoder = FirePackDecoder()
        Benchmark("Decode \(count) Order/FirePackDecoder @FirePackCodable, evolved model", closure: { benchmark in
            let bytes = orders.firePack
            for _ in benchmark.scaledIterations { blackHole(try decoder.decode([EvolvingOrder].self, from: bytes)) }
        }, setup: {
            let evolved = try FirePackDecoder().decode([EvolvingOrder].self, from: orders.firePack)
            precondition(evolved.map(\.id) == orders.values.map(\.id) && evolved.allSatisfy(\.unknownFields.isEmpty),
                         "the evolved model reads every order, its bag empty")
        })
        // What the evolution attributes cost, as a ratio measured within each sample: the plain and the evolved model
        // decode the same bytes back to back (in turns, so that neither always runs first), and the sample records
        // evolved ÷ plain in thousandths. Two rows measured seconds apart move apart with the machine (on the 2-core
        // reference host whole seconds run 30-50% slower at times: the rows' ratio read 0.94 and 1.24 in two full runs
        // of one build); the two halves of a sample are milliseconds apart and slow down together.
        let plainDecoder = FirePackDecoder(), evolvedDecoder = FirePackDecoder()
        let repeats = count == 1 ? 1_000 : 1
        let pairedMetric = BenchmarkMetric.custom("evolved per mille of plain", useScalingFactor: false)
        Benchmark("Decode \(count) Order/evolved model ÷ plain model, paired",
                  configuration: .init(metrics: [pairedMetric], timeUnits: .nanoseconds, scalingFactor: .one,
                                       maxDuration: smoke ? .milliseconds(50) : .seconds(4), maxIterations: smoke ? 2 : 1_000),
                  closure: { benchmark in
            let bytes = orders.firePack
            let clock = ContinuousClock()
            // The closure runs once per sample (a scaling factor of one): the sample's number decides the turn.
            let evolvedFirst = benchmark.currentIteration.isMultiple(of: 2)
            for _ in benchmark.scaledIterations {
                var plain = Duration.zero, evolved = Duration.zero
                for evolvedTurn in evolvedFirst ? [true, false] : [false, true] {
                    let start = clock.now
                    for _ in 0..<repeats {
                        if evolvedTurn {
                            blackHole(try evolvedDecoder.decode([EvolvingOrder].self, from: bytes))
                        } else {
                            blackHole(try plainDecoder.decode([Order].self, from: bytes))
                        }
                    }
                    if evolvedTurn { evolved = clock.now - start } else { plain = clock.now - start }
                }
                benchmark.measurement(pairedMetric, Int((evolved / plain * 1_000).rounded()))
            }
        }, setup: { _ = orders.firePack })
    }
}

/// One workload's values and their encoded forms, each built on first use.
final class Inputs<T: Codable & FirePackDecodable & FirePackEncodable>: @unchecked Sendable {
    private let make: () -> [T]
    /// The values themselves.
    lazy var values: [T] = make()
    /// FirePackEncoder's bytes of `values`.
    lazy var firePack: [UInt8] = try! FirePackEncoder().encodeToBytes(values)
    /// JSONEncoder's bytes of `values`.
    lazy var json: Data = try! JSONEncoder().encode(values)
    /// DictionaryEncoder's `[Any]` of `values`.
    lazy var dictionary: Any = try! DictionaryEncoder().encodeToAny(values)
    /// PropertyListEncoder's binary property list of `values`.
    lazy var plist: Data = {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try! encoder.encode(values)
    }()
    /// Firestore protobuf bytes of `values`; nil where a value has no protobuf form (a pending server timestamp).
    lazy var proto: [UInt8]? = try? FirePackEncoder().encodeToValue(values).firestoreProtoBytes()

    init(_ make: @escaping () -> [T]) { self.make = make }
}

/// Encode and decode the workload through each path; each benchmark builds only the inputs it reads. `T`'s generated
/// coding is known here, as at a user's call site with a concrete type, so the coders' calls resolve to the overloads
/// specialized for it (what a call where `T` is only `Codable` would not).
func register<T: Codable & FirePackDecodable & FirePackEncodable>(_ name: String, _ inputs: Inputs<T>) {
    let firePackEncoder = FirePackEncoder(), firePackDecoder = FirePackDecoder()
    // The same coders with generated coding off: every type through its Codable conformance.
    let codableEncoder = FirePackEncoder(), codableDecoder = FirePackDecoder()
    codableEncoder.usesGeneratedCoding = false
    codableDecoder.usesGeneratedCoding = false
    let jsonEncoder = JSONEncoder(), jsonDecoder = JSONDecoder()
    let dictionaryEncoder = DictionaryEncoder(), dictionaryDecoder = DictionaryDecoder()
    let jsonTextDictionaryDecoder = DictionaryDecoder()
    jsonTextDictionaryDecoder.dateDecodingStrategy = .deferredToDate   // JSONEncoder's default
    let plistEncoder = PropertyListEncoder()
    plistEncoder.outputFormat = .binary
    let plistDecoder = PropertyListDecoder()
    let writer = FirePackWriter()

    Benchmark("Encode \(name)/FirePackEncoder @FirePackCodable", closure: { benchmark in
        let values = inputs.values
        for _ in benchmark.scaledIterations {
            try firePackEncoder.encode(values, into: writer)
            writer.clear()
        }
    }, setup: { _ = inputs.values })
    Benchmark("Decode \(name)/FirePackDecoder @FirePackCodable", closure: { benchmark in
        let bytes = inputs.firePack
        for _ in benchmark.scaledIterations { blackHole(try firePackDecoder.decode([T].self, from: bytes)) }
    }, setup: { _ = inputs.firePack })
    Benchmark("Encode \(name)/FirePackEncoder Codable", closure: { benchmark in
        let values = inputs.values
        for _ in benchmark.scaledIterations {
            try codableEncoder.encode(values, into: writer)
            writer.clear()
        }
    }, setup: { _ = inputs.values })
    Benchmark("Decode \(name)/FirePackDecoder Codable", closure: { benchmark in
        let bytes = inputs.firePack
        for _ in benchmark.scaledIterations { blackHole(try codableDecoder.decode([T].self, from: bytes)) }
    }, setup: { _ = inputs.firePack })
    Benchmark("Encode \(name)/JSONEncoder", closure: { benchmark in
        let values = inputs.values
        for _ in benchmark.scaledIterations { blackHole(try jsonEncoder.encode(values)) }
    }, setup: { _ = inputs.values })
    Benchmark("Decode \(name)/JSONDecoder", closure: { benchmark in
        let json = inputs.json
        for _ in benchmark.scaledIterations { blackHole(try jsonDecoder.decode([T].self, from: json)) }
    }, setup: { _ = inputs.json })
    Benchmark("Encode \(name)/DictionaryEncoder", closure: { benchmark in
        let values = inputs.values
        for _ in benchmark.scaledIterations { blackHole(try dictionaryEncoder.encodeToAny(values)) }
    }, setup: { _ = inputs.values })
    Benchmark("Decode \(name)/DictionaryDecoder", closure: { benchmark in
        let dictionary = inputs.dictionary
        for _ in benchmark.scaledIterations { blackHole(try dictionaryDecoder.decode([T].self, from: dictionary)) }
    }, setup: { _ = inputs.dictionary })
    // JSONEncoder's text as JSONSerialization reads it, decoded with the date strategy that text was written with.
    // Left out where the dictionary path cannot read that text: Article's reference and Office's and Order's GeoPoint
    // are maps or strings in JSON, which the dictionary path does not read as a reference or a geopoint.
    if T.self != Article.self && T.self != Office.self && T.self != Order.self {
        Benchmark("Decode \(name)/JSONSerialization + DictionaryDecoder", closure: { benchmark in
            let json = inputs.json
            for _ in benchmark.scaledIterations {
                blackHole(try jsonTextDictionaryDecoder.decode([T].self, from: try JSONSerialization.jsonObject(with: json)))
            }
        }, setup: { _ = inputs.json })
    }
    Benchmark("Encode \(name)/PropertyListEncoder binary", closure: { benchmark in
        let values = inputs.values
        for _ in benchmark.scaledIterations { blackHole(try plistEncoder.encode(values)) }
    }, setup: { _ = inputs.values })
    Benchmark("Decode \(name)/PropertyListDecoder binary", closure: { benchmark in
        let plist = inputs.plist
        for _ in benchmark.scaledIterations { blackHole(try plistDecoder.decode([T].self, from: plist)) }
    }, setup: { _ = inputs.plist })
    // Pending server timestamps have no protobuf form (Article): the model's values say so without being built.
    guard T.self != Article.self else { return }
    Benchmark("Encode \(name)/FirePack protobuf transcoder", closure: { benchmark in
        let values = inputs.values
        for _ in benchmark.scaledIterations { blackHole(try (firePackEncoder.encodeToValue(values)).firestoreProtoBytes()) }
    }, setup: { _ = inputs.values })
    Benchmark("Decode \(name)/FirePack protobuf transcoder", closure: { benchmark in
        let proto = inputs.proto!
        for _ in benchmark.scaledIterations { blackHole(try firePackDecoder.decode([T].self, from: Value(firestoreProto: proto))) }
    }, setup: { _ = inputs.proto! })
}
