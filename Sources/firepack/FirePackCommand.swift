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
            Exit codes: 0 success, 1 invalid data or a failed operation, 2 a usage error.
            Formats are inferred from file extensions (.fpk, .json); `-` reads standard input or writes standard output.
            """,
        version: "firepack 0.3.0 (format version 1, stream version 2)",
        subcommands: [Convert.self, Inspect.self, Validate.self, Stats.self, Bench.self]
    )

    /// Runs the command; every failure leaves through ArgumentParser's `exit(withError:)` with the documented code:
    /// a `CommandFailure` as one line and its code, a usage error (ArgumentParser's `ValidationError`, code 64) as
    /// 2, `--help` and `--version` as 0.
    static func main() {
        Interruption.install()
        do {
            var command = try parseAsRoot(rawArguments())
            try command.run()
        } catch where FileDescriptorIO.brokenPipe.load(ordering: .relaxed) {
            // The reader of the output went away (`firepack convert … - | head`): end as SIGPIPE ends a command.
            Interruption.exitForBrokenPipe()
        } catch let failure as CommandFailure {
            FileHandleIO.writeError("firepack: \(failure.message)\n")
            exit(withError: ExitCode(failure.exitCode))
        } catch let error as FirePackError {
            FileHandleIO.writeError("firepack: \(error)\n")
            exit(withError: ExitCode.failure)
        } catch {
            guard exitCode(for: error).rawValue == ExitCode.validationFailure.rawValue else { exit(withError: error) }
            let message = fullMessage(for: error)
            FileHandleIO.writeError(message + (message.hasSuffix("\n") ? "" : "\n"))
            exit(withError: ExitCode(2))
        }
    }
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

    /// A problem with the data in `file`, with the byte offset when there is one.
    static func data(_ file: String, _ error: FirePackError) -> CommandFailure {
        CommandFailure(message: "\(file): \(error)")
    }

    static func usage(_ message: String) -> CommandFailure {
        CommandFailure(message: message, exitCode: 2)
    }
}
