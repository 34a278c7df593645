import ArgumentParser
import FirePack
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    static func main() {
        Interruption.install()
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let failure as CommandFailure {
            FileHandleIO.writeError("firepack: \(failure.message)\n")
            Glibc.exit(failure.exitCode)
        } catch let error as FirePackError {
            FileHandleIO.writeError("firepack: \(error)\n")
            Glibc.exit(1)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                // --help and --version: their text goes to standard output.
                FileHandleIO.print(message)
                Glibc.exit(0)
            }
            FileHandleIO.writeError(message + (message.hasSuffix("\n") ? "" : "\n"))
            // Usage errors (ArgumentParser's 64) are reported as 2, as documented.
            Glibc.exit(code.rawValue == 64 ? 2 : code.rawValue)
        }
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
