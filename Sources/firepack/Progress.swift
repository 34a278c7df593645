import Foundation

/// A one-line progress bar on standard error (bytes, records, rate, ETA), shown only when standard error is a
/// terminal, the input is larger than a few megabytes, and `--quiet` is not given; redrawn in place and cut to the
/// terminal's width. On a terminal a finished conversion ends with one summary line.
final class Progress {
    let total: Int?
    let counter: CountingSource?
    /// Whether the counted input bytes are compressed (so the rate is of compressed bytes).
    let compressed: Bool
    let onTerminal: Bool
    let enabled: Bool
    let started = Date()
    var lastDraw = Date.distantPast
    var drawn = false

    init(total: Int?, counter: CountingSource?, compressed: Bool = false, quiet: Bool) {
        self.total = total
        self.counter = counter
        self.compressed = compressed
        onTerminal = !quiet && isatty(2) == 1
        enabled = onTerminal && (total ?? 0) > 4 << 20
    }

    func update(records: Int) {
        guard enabled, Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = Date()
        draw(records: records)
    }

    func finish(records: Int) {
        guard enabled else { return }
        draw(records: records)
        StandardStreams.writeError("\n")
    }

    /// One line on a terminal: records, bytes in and out, time and rate.
    func summary(records: Int, written: Int, generatedIDs: Int, to output: String) {
        guard onTerminal else { return }
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let read = counter?.count ?? 0
        let ids = generatedIDs > 0 ? " (\(generatedIDs) with generated IDs)" : ""
        StandardStreams.writeError(
            String(
                format: "%d record(s)%@: %.1f MB%@ in, %.1f MB out to %@, %.2f s, %.1f MB/s\n",
                records, ids, Double(read) / 1e6, compressed ? " compressed" : "", Double(written) / 1e6,
                output, elapsed, Double(read) / 1e6 / elapsed))
    }

    /// The terminal's width in columns (80 when it cannot be read).
    static func terminalWidth() -> Int {
        var size = winsize()
        guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    private func draw(records: Int) {
        drawn = true
        let bytes = counter?.count ?? 0
        let elapsed = max(Date().timeIntervalSince(started), 0.001)
        let rate = Double(bytes) / elapsed
        let unit = compressed ? "MB compressed" : "MB"
        var line = ""
        if let total, total > 0 {
            let fraction = min(Double(bytes) / Double(total), 1)
            let filled = Int(fraction * 24)
            line += "[" + String(repeating: "=", count: filled) + String(repeating: " ", count: 24 - filled) + "] "
            line += String(format: "%3.0f%% ", fraction * 100)
            let remaining = rate > 0 ? Double(total - bytes) / rate : 0
            line += String(
                format: "%.1f %@  %d records  %.1f MB/s  ETA %d:%02d", Double(bytes) / 1e6, unit, records, rate / 1e6,
                Int(remaining) / 60, Int(remaining) % 60)
        } else {
            line += String(format: "%.1f %@  %d records  %.1f MB/s", Double(bytes) / 1e6, unit, records, rate / 1e6)
        }
        // One line, redrawn: never wider than the terminal, and the rest of the line cleared.
        let width = Self.terminalWidth() - 1
        if line.count > width { line = String(line.prefix(max(width, 0))) }
        StandardStreams.writeRawError("\r" + line + "\u{1B}[K")
    }
}
