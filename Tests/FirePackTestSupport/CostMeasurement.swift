#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Time and memory as the bounded-resources tests measure them: a hostile input's cost as a ratio to a benign input
/// of the same size measured in the same run, and a child process's peak memory against a stated ceiling.
public enum CostMeasurement {
    /// The fastest of `repetitions` runs of `body`, in seconds (the minimum is the least disturbed by other work).
    public static func seconds(repetitions: Int = 3, _ body: () throws -> Void) rethrows -> Double {
        var best = Double.infinity
        for _ in 0..<repetitions {
            let start = ContinuousClock.now
            try body()
            let elapsed = ContinuousClock.now - start
            best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return best
    }

    /// `hostile`'s time over `benign`'s (each the fastest of `repetitions` runs), run alternately: a burst of other
    /// work on the machine (the other suites run in parallel) then slows runs of both, not all of one (run one after
    /// the other, a burst during the hostile runs once read 3.5 against a bound of 3).
    public static func ratio(repetitions: Int = 3, hostile: () throws -> Void, benign: () throws -> Void) rethrows -> (ratio: Double, hostile: Double, benign: Double) {
        var benignTime = Double.infinity, hostileTime = Double.infinity
        for _ in 0..<repetitions {
            benignTime = min(benignTime, try seconds(repetitions: 1, benign))
            hostileTime = min(hostileTime, try seconds(repetitions: 1, hostile))
        }
        return (hostileTime / max(benignTime, 1e-6), hostileTime, benignTime)
    }

    /// posix_spawn's error number.
    public struct SpawnFailure: Error { public var code: Int32 }

    /// What a child process did: its exit status (or 128 + signal), its peak resident memory (its own report when it
    /// gives one, `FIREPACK_REPORT_PEAK_MEMORY`; else `wait4`'s, which on Linux includes the spawning process's) and
    /// its standard error.
    public struct ChildResult: Sendable {
        public var status: Int32
        public var peakMemoryBytes: Int
        public var seconds: Double
        public var stderr: String
    }

    /// Runs `executable` with `arguments` (standard input from /dev/null, standard output discarded) and returns its
    /// status, peak RSS (`wait4`'s `ru_maxrss`, the child alone) and standard error.
    public static func runChild(_ executable: String, _ arguments: [String], standardOutput: String = "/dev/null") throws -> ChildResult {
        try runChild(executable, rawArguments: arguments.map { Array($0.utf8) }, standardOutput: standardOutput)
    }

    /// The same with arguments as bytes (file names that are not UTF-8) and standard output sent to a path.
    public static func runChild(_ executable: String, rawArguments arguments: [[UInt8]], standardOutput: String = "/dev/null") throws -> ChildResult {
        let errorPath = FileManager.default.temporaryDirectory.appendingPathComponent("child-stderr-\(UUID().uuidString)").path
        defer { unlink(errorPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv: [UnsafeMutablePointer<CChar>?] = ([Array(executable.utf8)] + arguments).map { bytes in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            return pointer
        } + [nil]
        defer { for pointer in argv { pointer?.deallocate() } }
        var pid: pid_t = 0
        let start = ContinuousClock.now
        // The child reports its own peak memory (see `ChildResult.peakMemoryBytes`).
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("FIREPACK_REPORT_PEAK_MEMORY=1")]
        var entry = environ
        while let variable = entry.pointee { environment.append(strdup(variable)); entry += 1 }
        environment.append(nil)
        defer { for variable in environment { free(variable) } }
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environment)
        guard spawned == 0 else { throw SpawnFailure(code: spawned) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let elapsed = ContinuousClock.now - start
        let exited = status & 0x7F == 0
        let code = exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        var stderr = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        // `wait4`'s maximum counts the memory of this (spawning) process too, on Linux: prefer the child's own report.
        var peak = Int(usage.ru_maxrss) * 1024
        if let line = stderr.split(separator: "\n").last(where: { $0.hasPrefix("firepack: peak memory ") }),
           let bytes = Int(line.split(separator: " ")[3]) {
            peak = bytes
            stderr = stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { $0 != line }.joined(separator: "\n")
        }
        return ChildResult(status: code, peakMemoryBytes: peak,
                           seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
                           stderr: stderr)
    }
}
