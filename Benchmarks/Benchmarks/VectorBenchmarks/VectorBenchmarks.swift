import Benchmark
import FirePack
import FirePackMacros
import Foundation

/// A document with an embedding, as Firestore's vector search stores them.
@FirePackCodable
struct Embedded: Codable {
    var id: String
    var embedding: VectorValue
}

/// Vectors at memory speed (BENCHMARKS.md, "Vectors"): a 1M-element vector decoded from each form beside a memory
/// copy of its 8 MiB of doubles, the bulk decode beside reading the elements one by one, and 10,000 documents with a
/// 768-dimension embedding each in format versions 1 (binary64) and 3 (packed), and as JSON.
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,  // every digit the histogram keeps: milliseconds made 11 ms against 12 a ratio of 1.09
        maxDuration: smoke ? .milliseconds(50) : .seconds(2),
        maxIterations: smoke ? 3 : 1_000
    )
    let count = 1 << 20
    // Float32 embeddings, and embeddings printed with six decimals (the two packed forms); every run the same data.
    func unit(_ index: Int) -> Double { sin(Double(index) * 0.618_033_988_7) }
    let float32 = (0..<count).map { Double(Float(unit($0))) }
    let sixDecimals = (0..<count).map { Double(Int(unit($0) * 999_999)) / 1e6 }
    func bytes(_ elements: [Double], version: Int) -> [UInt8] {
        Value.vector(VectorValue(elements)).firePackBytes(formatVersion: version)
    }
    let binary64 = bytes(float32, version: 1), binary32 = bytes(float32, version: 3)
    let decimal = bytes(sixDecimals, version: 3)
    precondition(binary64[0] == 0xD2 && binary32[0] == 0xD6 && binary32[1] == 0x80 && decimal[1] == 0x26)
    let decoder = FirePackDecoder()

    for (name, input) in [("binary64 (D2)", binary64), ("binary32 (D6)", binary32), ("decimal, 6 places (D6)", decimal)] {
        Benchmark("Vector 1M decode/\(name)") { benchmark in
            for _ in benchmark.scaledIterations { blackHole(try decoder.decode(VectorValue.self, from: input)) }
        }
    }
    // Element by element through the zero-copy view: one call and one form switch per element.
    Benchmark("Vector 1M decode/binary32 (D6), element by element through VectorView") { benchmark in
        for _ in benchmark.scaledIterations {
            try binary32.withUnsafeBytes { raw in
                let view = try FirePackReader(bytes: raw).root.vector()
                blackHole(VectorValue(Array(view)))
            }
        }
    }
    // The floor: copying the 8 MiB of doubles into a new array, as a decode into `[Double]` must.
    Benchmark("Vector 1M decode/memcpy of 8 MiB") { benchmark in
        for _ in benchmark.scaledIterations {
            let copy = [Double](unsafeUninitializedCapacity: count) { buffer, initialized in
                float32.withUnsafeBytes { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: $0) }
                initialized = count
            }
            blackHole(copy)
        }
    }

    // 10,000 documents with a 768-dimension float32 embedding each.
    let documents = (0..<10_000).map { index in
        Embedded(id: "doc\(index)", embedding: VectorValue((0..<768).map { Double(Float(unit(index * 768 + $0))) }))
    }
    let version1 = FirePackEncoder()
    version1.formatVersion = 1
    let documentsV1 = try! version1.encodeToBytes(documents)
    let documentsV3 = try! FirePackEncoder().encodeToBytes(documents)
    let documentsJSON = try! JSONEncoder().encode(documents)
    Benchmark("Embeddings 10,000 × 768/decode, version 3 (packed)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try decoder.decode([Embedded].self, from: documentsV3)) }
    }
    Benchmark("Embeddings 10,000 × 768/decode, version 1 (binary64)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try decoder.decode([Embedded].self, from: documentsV1)) }
    }
    Benchmark("Embeddings 10,000 × 768/JSONDecoder") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try JSONDecoder().decode([Embedded].self, from: documentsJSON)) }
    }
}
