import Foundation
import Testing
import FirePackFuzzTargets

/// Every input that ever crashed a parser or broke a fuzz target's invariant, kept in Crashers/TARGET/ by
/// scripts/fuzz.sh and replayed through the same target the fuzzer ran (Fuzz/Sources/FirePackFuzzTargets).
@Suite("Fuzz crashers")
struct CrasherReplayTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Crashers")

    /// (target, file) for every kept crasher.
    static let crashers: [(target: String, file: URL)] = {
        let manager = FileManager.default
        let targets = (try? manager.contentsOfDirectory(atPath: directory.path)) ?? []
        return targets.sorted().flatMap { target in
            let folder = directory.appendingPathComponent(target)
            let files = (try? manager.contentsOfDirectory(atPath: folder.path)) ?? []
            return files.sorted().map { (target, folder.appendingPathComponent($0)) }
        }
    }()

    @Test func everyCrasherFolderNamesATarget() {
        #expect(!Self.crashers.isEmpty, "no crashers found in \(Self.directory.path)")
        for (target, _) in Self.crashers {
            #expect(FuzzTarget.named(target) != nil, "Crashers/\(target) is not a fuzz target")
        }
    }

    @Test func everyCrasherRunsWithoutBreakingAnInvariant() throws {
        for (target, file) in Self.crashers {
            guard let fuzzTarget = FuzzTarget.named(target) else { continue }
            let outcome = fuzzTarget.run(Array(try Data(contentsOf: file)))
            #expect(!outcome.isViolation, "\(target)/\(file.lastPathComponent): \(outcome)")
        }
    }

    /// The two inputs this suite started with, with the answers they must get (the exact errors are checked in
    /// FirestoreJSONTests and TimestampRangeTests).
    @Test func theFirstTwoCrashersGetTheirAnswers() throws {
        let cutOff = Self.directory.appendingPathComponent("rest-json/number-cut-off-at-the-end")
        guard case .rejected = FuzzTarget.restJSON.run(Array(try Data(contentsOf: cutOff))) else {
            Issue.record("a document cut off inside a number was not rejected"); return
        }
        let lowest = Self.directory.appendingPathComponent("value/timestamp-seconds-int64-min.fpk")
        guard case .accepted = FuzzTarget.value.run(Array(try Data(contentsOf: lowest))) else {
            Issue.record("a valid file with the lowest timestamp was not accepted and converted"); return
        }
    }
}
