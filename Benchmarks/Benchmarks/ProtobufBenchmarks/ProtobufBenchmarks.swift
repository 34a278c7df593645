import Benchmark
import FirestoreProtos
import Foundation
import GuideModels
import SwiftProtobuf

/// swift-protobuf 1.39.0 with generated google.firestore.v1 messages, plus the mapping to the models: an array of
/// map values, as FirePack and JSON encode the same collection.
let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["FIREPACK_BENCHMARK_SMOKE"] != nil
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput, .mallocCountTotal],
                                           maxDuration: smoke ? .milliseconds(50) : .seconds(2), maxIterations: smoke ? 2 : 1_000)
    for count in smoke ? [1, 1_000] : [1, 1_000, 100_000] {
        register("\(count) Book", { (0..<count).map(makeBook) }, message: \.message, model: Book.init(message:))
        register("\(count) BookWithTags", { (0..<count).map(makeBookWithTags) }, message: \.message,
                 model: BookWithTags.init(message:))
    }
}

/// Registers the encode and decode of `make()`'s values. package-benchmark runs every benchmark in a process of its
/// own, and each process registers all of them: the values and their bytes are built in the `setup` of the benchmark
/// that reads them (built at registration, 100,000 books cost every process of this target about 8 s).
func register<T: Equatable>(_ name: String, _ make: @escaping () -> [T], message: @escaping (T) -> Google_Firestore_V1_Value,
                 model: @escaping (Google_Firestore_V1_Value) throws -> T) {
    let inputs = ProtobufInputs(make, message: message, model: model)
    Benchmark("Encode \(name)/swift-protobuf generated messages", closure: { benchmark in
        let values = inputs.values
        for _ in benchmark.scaledIterations {
            blackHole(try Google_Firestore_V1_Value(values: values.map(message)).serializedBytes() as [UInt8])
        }
    }, setup: { _ = inputs.values })
    Benchmark("Decode \(name)/swift-protobuf generated messages", closure: { benchmark in
        let bytes = inputs.bytes
        for _ in benchmark.scaledIterations {
            blackHole(try Google_Firestore_V1_Value(serializedBytes: bytes).values("books").map(model))
        }
    }, setup: { _ = inputs.bytes })
}

/// One workload's values and their protobuf bytes, each built on first use.
final class ProtobufInputs<T: Equatable>: @unchecked Sendable {
    private let make: () -> [T]
    private let message: (T) -> Google_Firestore_V1_Value
    private let model: (Google_Firestore_V1_Value) throws -> T
    /// The values themselves.
    lazy var values: [T] = make()
    /// The values as one array of map values, serialized; the mapping round-trips exactly (checked once, outside the
    /// timing).
    lazy var bytes: [UInt8] = {
        let bytes: [UInt8] = try! Google_Firestore_V1_Value(values: values.map(message)).serializedBytes()
        precondition(try! Google_Firestore_V1_Value(serializedBytes: bytes).values("books").map(model) == values,
                     "the protobuf mapping lost data")
        return bytes
    }()

    init(_ make: @escaping () -> [T], message: @escaping (T) -> Google_Firestore_V1_Value,
         model: @escaping (Google_Firestore_V1_Value) throws -> T) {
        (self.make, self.message, self.model) = (make, message, model)
    }
}
