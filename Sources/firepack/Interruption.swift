import Foundation
import Dispatch
import FirePackStreams
import Synchronization

/// SIGINT and SIGTERM: remove every unfinished output file (the destinations stay as they were), say in one line
/// what happened and how far the work got, and exit 130 / 143.
///
/// The signals are received by dispatch sources, so the clean-up runs on an ordinary thread rather than in a signal
/// handler.
enum Interruption {
    /// Records completed by the running command, for the one-line message.
    static let recordsDone = Atomic<Int>(0)
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []

    /// Installs the handlers; call once, before any output is opened.
    static func install() {
        for (number, name, status) in [(SIGINT, "SIGINT", Int32(130)), (SIGTERM, "SIGTERM", Int32(143))] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                let removed = AtomicFileSink.discardAllPending()
                let records = recordsDone.load(ordering: .relaxed)
                let clear = isatty(2) == 1 ? "\r\u{1B}[K" : ""
                let outcome = removed > 0 ? "; unfinished output removed, existing files left as they were" : ""
                FileHandleIO.writeError("\(clear)firepack: interrupted by \(name) after \(records) record(s)\(outcome)\n")
                _exit(status)
            }
            source.resume()
            sources.append(source)
        }
    }
}
