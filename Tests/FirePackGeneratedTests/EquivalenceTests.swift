import FirePack
import FirePackTestSupport
import Foundation
import Testing

/// The generated path is a faster way to the same bytes: same encodings, same decoded values, same errors.
@Suite struct EquivalenceTests {
    /// One random instance of each model, as a closure that checks it both ways.
    static func models(_ generator: inout ModelGenerator) -> [(name: String, encoded: [UInt8], check: ([UInt8], DocumentReference?) -> Outcome)] {
        // Every other instance is encoded with sorted keys: read in declaration order, its keys are found out of order
        // (searches wrap around; wide maps through the entries they located before).
        let sorted = generator.chance(50)
        func entry<T: Codable>(_ value: T) -> (String, [UInt8], ([UInt8], DocumentReference?) -> Outcome) {
            expectSameEncoding(value)
            let encoded = (try? Paths.encoder(generated: false, deterministic: sorted).encodeToBytes(value)) ?? []
            return ("\(T.self)", encoded, { bytes, reference in expectSameDecoding(T.self, bytes, in: reference) })
        }
        // Types with generated coding: also through the overloads specialized for them.
        func generated<T: Codable & FirePackDecodable & FirePackEncodable>(_ value: T) -> (String, [UInt8], ([UInt8], DocumentReference?) -> Outcome) {
            expectSameEncodingSpecialized(value)
            let encoded = (try? Paths.encoder(generated: false, deterministic: sorted).encodeToBytes(value)) ?? []
            return ("\(T.self)", encoded, { bytes, reference in expectSameDecodingSpecialized(T.self, bytes, in: reference) })
        }
        return [
            generated(generator.book()), generated(generator.bookWithTags()), generated(generator.language()),
            generated(generator.office()), generated(generator.article()), generated(generator.shelf()),
            generated(generator.everything()), entry(generator.holder()), generated(generator.measurements()),
            generated((0..<generator.count()).map { _ in generator.bookWithTags() }),
            entry(["a": generator.book(), "b": generator.book()]),
            generated([generator.everything()] as [Everything?]),
            generated(Genre.allCases[generator.count(0...3)]), generated(Priority.allCases[generator.count(0...2)]),
        ]
    }

    @Test func randomInstancesEncodeToTheSameBytesAndDecodeToTheSameValues() throws {
        var generator = ModelGenerator(seed: 0xF12E_0001)
        var checked = 0
        for _ in 0..<150 {
            for model in Self.models(&generator) where !model.encoded.isEmpty {
                let reference = try DocumentReference(path: "books/b\(checked % 7)")
                let outcome = model.check(model.encoded, checked % 2 == 0 ? nil : reference)
                #expect(!outcome.isFailure, "\(model.name) did not decode: \(outcome)")
                checked += 1
            }
        }
        #expect(checked > 1_500)
    }

    /// Arrays of integers and doubles together (as JSON written by JavaScript holds them) are packed in form `81`;
    /// both paths read them as the tagged arrays, and the mutations of them fail or succeed the same way.
    @Test func integersAmongDoublesDecodeTheSameWay() throws {
        let doubles: [Value] = (0..<40).map { .double(Double($0) + 1.0 / 3) }
        let mixed = doubles + [.integer(-70), .integer(12)]
        func document(_ ring: [Value], _ series: [Value]) -> Value {
            .map([
                "ring": .array(stride(from: 0, to: ring.count - 1, by: 2).map { .array([ring[$0], ring[$0 + 1]]) }),
                "series": .array(series), "floats": [1, 2.5], "counts": [1, 2], "small": [3, 4], "samples": [[1, 2]],
                "optionals": .array(series), "values": .array(series),
            ])
        }
        let packed = document(mixed, mixed).firePackBytes()
        let pairs = zip(packed, packed.dropFirst()).map { [$0, $1] }
        #expect(pairs.contains([0xD9, 0x81]) && pairs.count(where: { $0 == [0xD8, 0x81] }) == 3)
        let tagged = document(mixed, mixed).firePackBytes(formatVersion: 1)
        #expect(tagged.count > packed.count)
        let outcome = expectSameDecodingSpecialized(Measurements.self, packed)
        #expect(outcome == expectSameDecodingSpecialized(Measurements.self, tagged))
        #expect(!outcome.isFailure, "\(outcome)")
        let measurements = try FirePackDecoder().decode(Measurements.self, from: packed)
        #expect(measurements.ring.last == [-70, 12] && measurements.series.last == 12)
        #expect(measurements.values == mixed)
        var rng = SeededGenerator(seed: 0xF12E_0081)
        for _ in 0..<1_000 { expectSameDecodingSpecialized(Measurements.self, ByteMutation.mutated(packed, using: &rng)) }
    }

    /// At least 100,000 damaged inputs (truncated, bit-flipped, inserted, deleted, overwritten, duplicated): both paths
    /// throw the same error or return equal values.
    @Test func mutatedInputsFailOrSucceedTheSameWay() throws {
        var generator = ModelGenerator(seed: 0xF12E_0002)
        var bases: [(name: String, encoded: [UInt8], check: ([UInt8], DocumentReference?) -> Outcome)] = []
        for _ in 0..<12 { bases += Self.models(&generator).filter { !$0.encoded.isEmpty } }
        var rng = SeededGenerator(seed: 0xF12E_0003)
        let reference = try DocumentReference(path: "shelves/s1/books/b2")
        var failures = 0, successes = 0
        for index in 0..<100_000 {
            let base = bases[index % bases.count]
            let damaged = ByteMutation.mutated(base.encoded, using: &rng)
            if base.check(damaged, index % 3 == 0 ? reference : nil).isFailure { failures += 1 } else { successes += 1 }
        }
        // Both kinds of outcome were compared, in numbers.
        #expect(failures > 10_000)
        #expect(successes > 1_000)
    }

    @Test func encodingErrorsAreTheSame() throws {
        var generator = ModelGenerator(seed: 0xF12E_0004)
        var everything = generator.everything()
        everything.uint64 = .max
        expectSameEncoding(everything)
        expectSameEncoding(PlainHolder(label: "x", book: generator.book(), articles: [], everything: everything))
        let outcome = Outcome { try Paths.encoder(generated: true).encodeToBytes([everything]).description }
        #expect(outcome.description.contains("path [0].uint64"), "\(outcome)")

        everything.uint64 = 1
        everything.double = .nan
        for generated in [true, false] {
            let encoder = Paths.encoder(generated: generated)
            encoder.nonConformingFloatEncodingStrategy = .throw
            let outcome = Outcome { try encoder.encodeToBytes(["k": everything]).description }
            #expect(outcome.description.contains("path .k.double"), "\(outcome)")
        }
    }
}
