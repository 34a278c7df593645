import Foundation
import Testing
import FirePackFuzzTargets
import FirePackTestSupport

/// Seeded mutations of every input format, through the fuzz targets (the same parsers and invariants the fuzzers
/// check): each damaged input must be accepted or rejected with an error inside its bounds, never crash or break an
/// invariant. The FirePack-bytes mutations are in FirePackTests/MutationTests.
@Suite("Mutations of every format")
struct FormatMutationTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures").path

    /// Cases per target: 25,000 for each text and protobuf format, fewer for the slower stream, gzip and export readers.
    static let cases: [(target: String, count: Int)] = [
        ("json", 25_000), ("rest-json", 25_000), ("proto", 25_000), ("stream", 10_000), ("gzip", 5_000), ("decoder", 10_000),
        ("export", 10_000),
    ]

    @Test(arguments: cases)
    func mutatedInputsAreAcceptedOrRejected(target name: String, count: Int) throws {
        let target = try #require(FuzzTarget.named(name))
        let seeds = FuzzSeeds.seeds(for: target, fixtures: Self.fixtures)
        try #require(!seeds.isEmpty)
        var rng = SeededGenerator(seed: 0x9_F022 &+ UInt64(name.utf8.count))
        var accepted = 0, rejected = 0
        for caseIndex in 0..<count {
            let input = ByteMutation.mutated(seeds[Int.random(in: 0..<seeds.count, using: &rng)], using: &rng)
            switch target.run(input) {
            case .accepted: accepted += 1
            case .rejected: rejected += 1
            case .violated(let why):
                Issue.record("\(name) case \(caseIndex): \(why); input \(input.map { String($0, radix: 16) })")
            }
        }
        #expect(accepted + rejected == count)
        #expect(rejected > count / 10, "\(name): mutations should mostly be caught (\(rejected) of \(count))")
    }

    @Test func everySeedKeepsTheInvariants() {
        for target in FuzzTarget.all {
            for (index, seed) in FuzzSeeds.seeds(for: target, fixtures: Self.fixtures).enumerated() {
                let outcome = target.run(seed)
                #expect(!outcome.isViolation, "\(target.name) seed \(index): \(outcome)")
            }
        }
    }
}
