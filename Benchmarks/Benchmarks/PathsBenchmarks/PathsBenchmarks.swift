import Benchmark
import FirePack
import GuideModels
import FirePackInterop
import Foundation

/// The guide's models through every path, each encode and decode, in one run.
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
                                           maxDuration: smoke ? .milliseconds(50) : .seconds(2), maxIterations: smoke ? 2 : 1_000)
    for count in smoke ? [1, 1_000] : [1, 1_000, 100_000] {
        let books = (0..<count).map(makeBook)
        let tagged = (0..<count).map(makeBookWithTags)
        register("\(count) Book", books)
        register("\(count) BookWithTags", tagged)
        register("\(count) ProgrammingLanguage", (0..<count).map(makeLanguage))
        register("\(count) Office", (0..<count).map(makeOffice))
        register("\(count) Article", (0..<count).map(makeArticle))

        let writer = FirePackWriter()
        Benchmark("Encode \(count) Book/hand-written FirePack") { benchmark in
            for _ in benchmark.scaledIterations {
                handWrittenEncode(books, into: writer)
                blackHole(writer.writerIndex)
                writer.clear()
            }
        }
        let bytes = try! FirePackEncoder().encodeToBytes(books)
        Benchmark("Decode \(count) Book/hand-written FirePack") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try handWrittenDecode(bytes)) }
        }
        Benchmark("Encode \(count) BookWithTags/hand-written FirePack") { benchmark in
            for _ in benchmark.scaledIterations {
                handWrittenEncode(tagged, into: writer)
                blackHole(writer.writerIndex)
                writer.clear()
            }
        }
        let taggedBytes = try! FirePackEncoder().encodeToBytes(tagged)
        precondition(try! handWrittenDecodeTagged(taggedBytes) == FirePackDecoder().decode([BookWithTags].self, from: taggedBytes),
                     "the hand-written decoder reads what FirePackDecoder reads")
        Benchmark("Decode \(count) BookWithTags/hand-written FirePack") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try handWrittenDecodeTagged(taggedBytes)) }
        }
    }
}

/// Encode and decode `values` through each path.
func register<T: Codable>(_ name: String, _ values: [T]) {
    let firePackEncoder = FirePackEncoder(), firePackDecoder = FirePackDecoder()
    // The same coders with generated coding off: every type through its Codable conformance.
    let codableEncoder = FirePackEncoder(), codableDecoder = FirePackDecoder()
    codableEncoder.usesGeneratedCoding = false
    codableDecoder.usesGeneratedCoding = false
    let jsonEncoder = JSONEncoder(), jsonDecoder = JSONDecoder()
    let dictionaryEncoder = DictionaryEncoder(), dictionaryDecoder = DictionaryDecoder()
    let plistEncoder = PropertyListEncoder()
    plistEncoder.outputFormat = .binary
    let plistDecoder = PropertyListDecoder()
    let writer = FirePackWriter()

    let firePack = try! firePackEncoder.encodeToBytes(values)
    let json = try! jsonEncoder.encode(values)
    let dictionary = try! dictionaryEncoder.encodeToAny(values)
    let plist = try! plistEncoder.encode(values)
    // Pending server timestamps have no protobuf form (Article): that path is left out for such values.
    let proto = try? (firePackEncoder.encodeToValue(values)).firestoreProtoBytes()

    Benchmark("Encode \(name)/FirePackEncoder @FirePackCodable") { benchmark in
        for _ in benchmark.scaledIterations {
            try firePackEncoder.encode(values, into: writer)
            writer.clear()
        }
    }
    Benchmark("Decode \(name)/FirePackDecoder @FirePackCodable") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try firePackDecoder.decode([T].self, from: firePack)) }
    }
    Benchmark("Encode \(name)/FirePackEncoder Codable") { benchmark in
        for _ in benchmark.scaledIterations {
            try codableEncoder.encode(values, into: writer)
            writer.clear()
        }
    }
    Benchmark("Decode \(name)/FirePackDecoder Codable") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try codableDecoder.decode([T].self, from: firePack)) }
    }
    Benchmark("Encode \(name)/JSONEncoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try jsonEncoder.encode(values)) }
    }
    Benchmark("Decode \(name)/JSONDecoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try jsonDecoder.decode([T].self, from: json)) }
    }
    Benchmark("Encode \(name)/DictionaryEncoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try dictionaryEncoder.encodeToAny(values)) }
    }
    Benchmark("Decode \(name)/DictionaryDecoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try dictionaryDecoder.decode([T].self, from: dictionary)) }
    }
    Benchmark("Decode \(name)/JSONSerialization + DictionaryDecoder") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try dictionaryDecoder.decode([T].self, from: try JSONSerialization.jsonObject(with: json)))
        }
    }
    Benchmark("Encode \(name)/PropertyListEncoder binary") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try plistEncoder.encode(values)) }
    }
    Benchmark("Decode \(name)/PropertyListDecoder binary") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try plistDecoder.decode([T].self, from: plist)) }
    }
    guard let proto else { return }
    Benchmark("Encode \(name)/FirePack protobuf transcoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try (firePackEncoder.encodeToValue(values)).firestoreProtoBytes()) }
    }
    Benchmark("Decode \(name)/FirePack protobuf transcoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try firePackDecoder.decode([T].self, from: Value(firestoreProto: proto))) }
    }
}
