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
        register("\(count) Book", (0..<count).map(makeBook), message: \.message, model: Book.init(message:))
        register("\(count) BookWithTags", (0..<count).map(makeBookWithTags), message: \.message, model: BookWithTags.init(message:))
    }
}

func register<T: Equatable>(_ name: String, _ values: [T], message: @escaping (T) -> Google_Firestore_V1_Value,
                 model: @escaping (Google_Firestore_V1_Value) throws -> T) {
    let encode = { () throws -> [UInt8] in try Google_Firestore_V1_Value(values: values.map(message)).serializedBytes() }
    let bytes = try! encode()
    // The mapping round-trips exactly (checked once, outside the timing).
    precondition(try! Google_Firestore_V1_Value(serializedBytes: bytes).values("books").map(model) == values, "the protobuf mapping lost data")
    Benchmark("Encode \(name)/swift-protobuf generated messages") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try encode()) }
    }
    Benchmark("Decode \(name)/swift-protobuf generated messages") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try Google_Firestore_V1_Value(serializedBytes: bytes).values("books").map(model))
        }
    }
}
