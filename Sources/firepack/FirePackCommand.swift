import ArgumentParser
import FirePack
import FirePackStreams
import Foundation

/// `firepack`: convert, inspect, validate and measure FirePack data.
///
/// Exit codes: 0 success; 1 invalid data or a failed operation; 2 a usage error.
@main
struct FirePackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "firepack",
        abstract: "Convert, inspect, validate and measure FirePack data.",
        discussion: """
            Exit codes: 0 success, 1 invalid data or a failed operation, 2 a usage error; 128 + N when stopped by \
            signal N (130 for Ctrl-C, 143 for SIGTERM; 141 when standard output is a pipe closed early).
            Formats are inferred from file names (.fpk, .fpks, .json, .jsonl, .firestore.json, … and .gz), else from an \
            input's first bytes; --from and --to name them. `-` reads standard input or writes standard output.
            """,
        version: """
            firepack 0.4.0
            reads: FirePack values (.fpk) format versions \(listed(Tag.readableFileVersions)); \
            document streams (.fpks) versions \(listed(Array(DocumentStreamFormat.readableVersions)))
            writes: FirePack values format version \(FirePackWriter.Options().formatVersion) \
            (--fpk-version 1 for older readers); document streams version \(DocumentStreamFormat.header[4]) \
            (--stream-version \(DocumentStreamFormat.writableVersions.lowerBound) for older readers)
            """,
        subcommands: [Convert.self, Inspect.self, Validate.self, Stats.self, Schema.self, Bench.self]
    )

    /// "1 and 3", "1, 2 and 3".
    static func listed(_ versions: [UInt8]) -> String {
        let words = versions.map(String.init)
        return words.count < 2 ? words.joined() : words.dropLast().joined(separator: ", ") + " and " + words.last!
    }

    /// Runs the command; every failure leaves through ArgumentParser's `exit(withError:)` with the documented code:
    /// a `CommandFailure` as one line and its code, a usage error (ArgumentParser's `ValidationError`, code 64) as
    /// 2, `--help` and `--version` as 0.
    static func main() {
        Interruption.install()
        installPeakMemoryReport()
        do {
            let arguments = rawArguments()
            try refuseHelpForUnknownSubcommand(arguments)
            var command = try parseAsRoot(arguments)
            try command.run()
        } catch  where FileDescriptorIO.brokenPipe.load(ordering: .relaxed) {
            // The reader of the output went away (`firepack convert … - | head`): end as SIGPIPE ends a command.
            Interruption.exitForBrokenPipe()
        } catch let failure as CommandFailure {
            StandardStreams.writeError("firepack: \(failure.message)\n")
            exit(withError: ExitCode(failure.exitCode))
        } catch let error as FirePackError {
            StandardStreams.writeError("firepack: \(error)\n")
            exit(withError: ExitCode.failure)
        } catch {
            guard exitCode(for: error).rawValue == ExitCode.validationFailure.rawValue else { exit(withError: error) }
            let message = fullMessage(for: error)
            StandardStreams.writeRawError(message + (message.hasSuffix("\n") ? "" : "\n"))
            exit(withError: ExitCode(2))
        }
    }
}

/// `firepack help nosuch` is a usage error, not help for the whole tool with success.
func refuseHelpForUnknownSubcommand(_ arguments: [String]) throws {
    guard arguments.count > 1, arguments[0] == "help", !arguments[1].hasPrefix("-") else { return }
    let names = FirePackCommand.configuration.subcommands.map { $0._commandName }
    guard !names.contains(arguments[1]) else { return }
    throw CommandFailure.usage("no subcommand '\(arguments[1])'; the subcommands are \(names.joined(separator: ", "))")
}

/// With `FIREPACK_REPORT_PEAK_MEMORY` set, reports the peak memory at exit (`reportPeakMemory`).
func installPeakMemoryReport() {
    guard ProcessInfo.processInfo.environment["FIREPACK_REPORT_PEAK_MEMORY"] != nil else { return }
    atexit(peakMemoryAtExit)
}

/// `atexit`'s callback (a C function pointer: no captures).
private let peakMemoryAtExit: @convention(c) () -> Void = { reportPeakMemory() }

/// Writes `firepack: peak memory N bytes` (VmHWM, this program's own peak resident memory since it started) to
/// standard error: for tests that bound the tool's memory (`FIREPACK_REPORT_PEAK_MEMORY`). A parent's `wait4`
/// cannot tell it: Linux counts the memory of the process that spawned the tool into the child's maximum.
func reportPeakMemory() {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    else { return }
    StandardStreams.writeError("firepack: peak memory \(kilobytes * 1024) bytes\n")
}

/// The arguments as the system passed them: any that are not UTF-8 (a file named `in\xff.json`) are registered with
/// `SystemPath` under a display form, so that the file they name is the one opened and messages show `\xff`.
func rawArguments() -> [String] {
    (1..<Int(CommandLine.argc)).map { index in
        guard let argument = CommandLine.unsafeArgv[index] else { return "" }
        let count = strlen(argument)
        return SystemPath.register(argument: UnsafeRawBufferPointer(start: argument, count: count).map { $0 })
    }
}

/// A user-facing failure: one line and an exit code, never a stack trace.
struct CommandFailure: Error {
    var message: String
    var exitCode: Int32 = 1
    /// Whether writing the output failed (`NamingSink`), for a command to add how far it came.
    var isWriteFailure = false

    /// A problem with the data in `file`, with the byte offset when there is one.
    /// The library's readers of files name the file at the start of their messages (they reach Python users too);
    /// such a message names it once.
    static func data(_ file: String, _ error: FirePackError) -> CommandFailure {
        var error = error
        let named = "\(file == "-" ? "/dev/stdin" : file): "
        if error.message.hasPrefix(named) { error.message = String(error.message.dropFirst(named.count)) }
        return CommandFailure(message: "\(file): \(error)")
    }

    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message: message, exitCode: 2)
    }
}
