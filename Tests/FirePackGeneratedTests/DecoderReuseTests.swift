import FirePack
import FirePackTestSupport
import Foundation
import Synchronization
import Testing

/// A decoder keeps the decoding context of a finished call for the next one: nothing of one call may reach the next.
@Suite struct DecoderReuseTests {
    /// Decodes `bytes` through a long-lived decoder and through a new one, on both paths and through both entry points
    /// (the overload for generated types and the `Decodable` one), and expects one outcome.
    static func expectSameAsNew<T: Codable & FirePackDecodable>(_ type: T.Type, _ bytes: [UInt8], in reference: DocumentReference?,
                                                                 longLived: [Bool: FirePackDecoder],
                                                                 sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        func decodable<U: Decodable>(_ decoder: FirePackDecoder, _ type: U.Type) throws -> U {
            try decoder.decode(type, from: bytes, in: reference)
        }
        let expected = Outcome { try fingerprint(Paths.decoder(generated: true).decode(T.self, from: bytes, in: reference)) }
        for generated in [true, false] {
            let specialized = Outcome { try fingerprint(longLived[generated]!.decode(T.self, from: bytes, in: reference)) }
            let dynamic = Outcome { try fingerprint(decodable(longLived[generated]!, T.self)) }
            #expect(specialized == expected, "\(T.self), generated: \(generated)", sourceLocation: sourceLocation)
            #expect(dynamic == expected, "\(T.self) as Decodable, generated: \(generated)", sourceLocation: sourceLocation)
        }
        return expected
    }

    /// Small and large inputs (large ones resolve key references through a memo), wide maps (their entries are
    /// cached), damaged inputs (calls that throw midway, deep in a coding path) and documents, one after another
    /// through the same two decoders: every call gives what a new decoder gives.
    @Test func aLongLivedDecoderDecodesAsANewOne() throws {
        let longLived = [true: Paths.decoder(generated: true), false: Paths.decoder(generated: false)]
        var generator = ModelGenerator(seed: 0xF12E_0200)
        var rng = SeededGenerator(seed: 0xF12E_0201)
        var failures = 0, successes = 0
        for round in 0..<400 {
            let reference = round % 3 == 0 ? try DocumentReference(path: "books/b\(round)") : nil
            let encoder = Paths.encoder(generated: false, deterministic: round % 2 == 0)
            var inputs: [(bytes: [UInt8], check: ([UInt8]) -> Outcome)] = []
            func add<T: Codable & FirePackDecodable>(_ value: T) throws {
                // (A random `Everything` may hold a UInt64 above Int64.max, which does not encode.)
                guard let bytes = try? encoder.encodeToBytes(value) else { return }
                inputs.append((bytes, { Self.expectSameAsNew(T.self, $0, in: reference, longLived: longLived) }))
            }
            try add(generator.book())
            try add((0..<generator.count(0...40)).map { _ in generator.bookWithTags() })
            try add(generator.everything())
            try add([generator.article(), generator.article()])
            for input in inputs {
                let bytes = round % 4 == 3 ? ByteMutation.mutated(input.bytes, using: &rng) : input.bytes
                if input.check(bytes).isFailure { failures += 1 } else { successes += 1 }
            }
        }
        #expect(failures > 50)
        #expect(successes > 1_000)
    }

    /// A type's `init(from:)` may keep the `Decoder` it was given; that decoder is then not used for the next call.
    @Test func aDecoderATypeKeepsIsNotReused() throws {
        let decoder = FirePackDecoder()
        let bytes = try FirePackEncoder().encodeToBytes(["x": 1])
        _ = try decoder.decode(Keeper.self, from: bytes)
        let first = try #require(Keeper.kept.withLock { $0 })
        _ = try decoder.decode(Keeper.self, from: bytes)
        let second = try #require(Keeper.kept.withLock { $0 })
        #expect(ObjectIdentifier(first.object) != ObjectIdentifier(second.object))
        #expect(first.codingPath.isEmpty && second.codingPath.isEmpty)
    }

    /// Many tasks decoding through one decoder at once each get their own context: every value decodes right.
    @Test func concurrentCallsThroughOneDecoder() async throws {
        let decoder = FirePackDecoder()
        var generator = ModelGenerator(seed: 0xF12E_0202)
        let values = (0..<16).map { _ in (0..<generator.count(1...30)).map { _ in generator.bookWithTags() } }
        let encoded = try values.map { try FirePackEncoder().encodeToBytes($0) }
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for index in 0..<300 {
                        let which = (task * 7 + index) % values.count
                        let decoded = index.isMultiple(of: 2)
                            ? try decoder.decode([BookWithTags].self, from: encoded[which])
                            : try Self.decodeAsDecodable(decoder, [BookWithTags].self, encoded[which])
                        if decoded != values[which] { mismatches += 1 }
                    }
                    return mismatches
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    static func decodeAsDecodable<T: Decodable>(_ decoder: FirePackDecoder, _ type: T.Type, _ bytes: [UInt8]) throws -> T {
        try decoder.decode(type, from: bytes)
    }
}

/// Keeps the last `Decoder` it was decoded with.
private struct Keeper: Decodable {
    struct Kept: @unchecked Sendable {
        let object: AnyObject
        let codingPath: [any CodingKey]
    }
    static let kept = Mutex<Kept?>(nil)

    init(from decoder: any Decoder) throws {
        _ = try decoder.container(keyedBy: AnyKey.self)
        Self.kept.withLock { $0 = Kept(object: decoder as AnyObject, codingPath: decoder.codingPath) }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
