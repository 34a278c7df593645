import Foundation
import Dispatch
import FirePackStreams
import Synchronization

/// SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE: remove every unfinished output file (the destinations stay as they
/// were), say in one line what happened and how far the work got, and exit 128 + the signal's number (130, 143, 129,
/// 131, 141).
///
/// The signals are received by dispatch sources, so the clean-up runs on an ordinary thread rather than in a signal
/// handler.
enum Interruption {
    /// Records completed by the running command, for the one-line message.
    static let recordsDone = Atomic<Int>(0)
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Removes every unfinished output file and exits 141, as SIGPIPE's default action would (without a message:
    /// the reader chose to stop reading).
    static func exitForBrokenPipe() -> Never {
        _ = AtomicFileSink.discardAllPending()
        _exit(141)
    }

    /// Installs the handlers; call once, before any output is opened.
    static func install() {
        // A file-size limit (`ulimit -f`) passed: a write fails (EFBIG) and the command reports it and removes its
        // temporary file, where the signal's default action ended it without a word and left the file.
        signal(SIGXFSZ, SIG_IGN)
        // The conventional status is 128 + the signal's number. SIGHUP: the terminal or ssh session closed; SIGQUIT:
        // Ctrl-\ (no core dump, nothing left behind); SIGPIPE: the reader of standard output went away.
        for (number, name) in [
            (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT"), (SIGPIPE, "SIGPIPE")
        ] {
            let status = 128 + number
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let removed = AtomicFileSink.discardAllPending()
                let records = recordsDone.load(ordering: .relaxed)
                let clear = isatty(2) == 1 ? "\r\u{1B}[K" : ""
                let outcome = removed > 0 ? "; unfinished output removed, existing files left as they were" : ""
                StandardStreams.writeRawError(
                    "\(clear)firepack: interrupted by \(name) after \(records) record(s)\(outcome)\n")
                _exit(status)
            }
            source.resume()
            sources.append(source)
        }
    }
}
