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
///
/// package-benchmark runs every benchmark in a process of its own, and each process registers all of them: the inputs
/// are built in the `setup` of the benchmarks that read them (built at registration, they cost every process of this
/// target about 10 s, the JSON of the embeddings most of it), as in PathsBenchmarks.
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        timeUnits: .nanoseconds,  // every digit the histogram keeps: milliseconds made 11 ms against 12 a ratio of 1.09
        maxDuration: smoke ? .milliseconds(50) : .seconds(2),
        maxIterations: smoke ? 3 : 1_000
    )
    let inputs = VectorInputs()
    let decoder = FirePackDecoder()

    let forms: [(String, @Sendable () -> [UInt8])] = [
        ("binary64 (D2)", { inputs.binary64 }), ("binary32 (D6)", { inputs.binary32 }),
        ("decimal, 6 places (D6)", { inputs.decimal }),
    ]
    for (name, form) in forms {
        Benchmark("Vector 1M decode/\(name)", closure: { benchmark in
            let input = form()
            for _ in benchmark.scaledIterations { blackHole(try decoder.decode(VectorValue.self, from: input)) }
        }, setup: { _ = form() })
    }
    // Element by element through the zero-copy view: one call and one form switch per element.
    Benchmark("Vector 1M decode/binary32 (D6), element by element through VectorView", closure: { benchmark in
        let input = inputs.binary32
        for _ in benchmark.scaledIterations {
            try input.withUnsafeBytes { raw in
                let view = try FirePackReader(bytes: raw).root.vector()
                blackHole(VectorValue(Array(view)))
            }
        }
    }, setup: { _ = inputs.binary32 })
    // The floor: copying the 8 MiB of doubles into a new array, as a decode into `[Double]` must.
    Benchmark("Vector 1M decode/memcpy of 8 MiB", closure: { benchmark in
        let float32 = inputs.float32, count = float32.count
        for _ in benchmark.scaledIterations {
            let copy = [Double](unsafeUninitializedCapacity: count) { buffer, initialized in
                float32.withUnsafeBytes { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: $0) }
                initialized = count
            }
            blackHole(copy)
        }
    }, setup: { _ = inputs.float32 })

    // 10,000 documents with a 768-dimension float32 embedding each.
    Benchmark("Embeddings 10,000 × 768/decode, version 3 (packed)", closure: { benchmark in
        let input = inputs.documentsV3
        for _ in benchmark.scaledIterations { blackHole(try decoder.decode([Embedded].self, from: input)) }
    }, setup: { _ = inputs.documentsV3 })
    Benchmark("Embeddings 10,000 × 768/decode, version 1 (binary64)", closure: { benchmark in
        let input = inputs.documentsV1
        for _ in benchmark.scaledIterations { blackHole(try decoder.decode([Embedded].self, from: input)) }
    }, setup: { _ = inputs.documentsV1 })
    Benchmark("Embeddings 10,000 × 768/JSONDecoder", closure: { benchmark in
        let input = inputs.documentsJSON
        for _ in benchmark.scaledIterations { blackHole(try JSONDecoder().decode([Embedded].self, from: input)) }
    }, setup: { _ = inputs.documentsJSON })
}

/// The vectors and documents the benchmarks read, each built on first use; every run the same data.
final class VectorInputs: @unchecked Sendable {
    /// Elements of a unit-range wave, deterministic.
    private static func unit(_ index: Int) -> Double { sin(Double(index) * 0.618_033_988_7) }
    private static let count = 1 << 20

    /// Float32 embeddings: 1M doubles that are each exactly a `Float`.
    lazy var float32: [Double] = (0..<Self.count).map { Double(Float(Self.unit($0))) }
    /// Embeddings printed with six decimals (the decimal packed form).
    lazy var sixDecimals: [Double] = (0..<Self.count).map { Double(Int(Self.unit($0) * 999_999)) / 1e6 }
    /// `float32` as a version-1 vector (binary64 elements, tag D2).
    lazy var binary64: [UInt8] = checked(float32, version: 1) { $0[0] == 0xD2 }
    /// `float32` as a version-3 vector (packed binary32).
    lazy var binary32: [UInt8] = checked(float32, version: 3) { $0[0] == 0xD6 && $0[1] == 0x80 }
    /// `sixDecimals` as a version-3 vector (packed decimals).
    lazy var decimal: [UInt8] = checked(sixDecimals, version: 3) { $0[1] == 0x26 }

    /// 10,000 documents with a 768-dimension float32 embedding each.
    lazy var documents: [Embedded] = (0..<10_000).map { index in
        Embedded(id: "doc\(index)", embedding: VectorValue((0..<768).map { Double(Float(Self.unit(index * 768 + $0))) }))
    }
    /// `documents` in format version 1.
    lazy var documentsV1: [UInt8] = {
        let encoder = FirePackEncoder()
        encoder.formatVersion = 1
        return try! encoder.encodeToBytes(documents)
    }()
    /// `documents` in format version 3.
    lazy var documentsV3: [UInt8] = try! FirePackEncoder().encodeToBytes(documents)
    /// `documents` as JSONEncoder writes them.
    lazy var documentsJSON: Data = try! JSONEncoder().encode(documents)

    /// A vector's bytes in `version`, checked to take the form the benchmark names.
    private func checked(_ elements: [Double], version: Int, form: ([UInt8]) -> Bool) -> [UInt8] {
        let bytes = Value.vector(VectorValue(elements)).firePackBytes(formatVersion: version)
        precondition(form(bytes), "the vector was not written in the form the benchmark names")
        return bytes
    }
}
