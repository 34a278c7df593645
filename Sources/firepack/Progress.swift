import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress bar on standard error (bytes, records, rate, ETA), shown only when standard error is a
/// terminal, the input is larger than a few megabytes, and `--quiet` is not given.
final class Progress {
    let total: Int?
    let counter: CountingSource?
    let enabled: Bool
    let started = Date()
    var lastDraw = Date.distantPast
    var drawn = false

    init(total: Int?, counter: CountingSource?, quiet: Bool) {
        self.total = total
        self.counter = counter
        enabled = !quiet && isatty(2) == 1 && (total ?? 0) > 4 << 20
    }

    func update(records: Int) {
        guard enabled, Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = Date()
        draw(records: records)
    }

    func finish(records: Int) {
        guard enabled else { return }
        draw(records: records)
        FileHandleIO.writeError("\n")
    }

    private func draw(records: Int) {
        drawn = true
        let bytes = counter?.count ?? 0
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let rate = Double(bytes) / elapsed
        var line = "\r"
        if let total, total > 0 {
            let fraction = min(Double(bytes) / Double(total), 1)
            let filled = Int(fraction * 24)
            line += "[" + String(repeating: "=", count: filled) + String(repeating: " ", count: 24 - filled) + "] "
            line += String(format: "%3.0f%% ", fraction * 100)
            let remaining = rate > 0 ? Double(total - bytes) / rate : 0
            line += String(format: "%.1f MB  %d records  %.1f MB/s  ETA %d:%02d", Double(bytes) / 1e6, records, rate / 1e6,
                           Int(remaining) / 60, Int(remaining) % 60)
        } else {
            line += String(format: "%.1f MB  %d records  %.1f MB/s", Double(bytes) / 1e6, records, rate / 1e6)
        }
        FileHandleIO.writeError(line + "   ")
    }
}
