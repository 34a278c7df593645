import Foundation
import FirePackStreams

/// Standard output and error, and whole-file reads for the single-value commands.
enum StandardStreams {
    /// The whole input (decompressed when `gzip`), or a one-line error.
    static func read(_ path: String, gzip: Bool) throws -> [UInt8] {
        do { return try FirePackStreams.readAll(Files.source(path, gzip: gzip)) } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(message: "\(path): \(error)")
        }
    }

    /// Writes the tool's own lines to standard error. Control characters in them, which only data can have brought (a
    /// key or a path holding a line break or an escape sequence), are shown escaped (`\u{1B}`), so that no input can
    /// forge a line of the report or drive the terminal; the line breaks `text` ends with are kept.
    static func writeError(_ text: String) {
        writeRawError(escapingControls(text))
    }

    /// Writes `text` to standard error as it is: the progress line's carriage return and clearing, usage text.
    static func writeRawError(_ text: String) {
        let bytes = Array(text.utf8)
        try? bytes.withUnsafeBytes { try FileSink(descriptor: 2).write($0) }
    }

    /// `text` with its control characters but a tab and its final line breaks escaped (C0, DEL and C1).
    static func escapingControls(_ text: String) -> String {
        let scalars = text.unicodeScalars
        var end = scalars.endIndex
        while end > scalars.startIndex, scalars[scalars.index(before: end)] == "\n" { end = scalars.index(before: end) }
        func isControl(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
        }
        guard scalars[..<end].contains(where: isControl) else { return text }
        var escaped = ""
        for scalar in scalars[..<end] {
            if isControl(scalar) {
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        escaped.unicodeScalars.append(contentsOf: scalars[end...])
        return escaped
    }

    static func print(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        try? bytes.withUnsafeBytes { try FileSink(descriptor: 1).write($0) }
    }

    /// Writes a line to standard output; a failed write (a full disk, a closed pipe) fails the command, so that
    /// output lost is never reported as success.
    static func printChecked(_ text: String) throws {
        let bytes = Array((text + "\n").utf8)
        do { try bytes.withUnsafeBytes { try FileSink(descriptor: 1).write($0) } } catch {
            throw CommandFailure(message: "standard output: cannot write: \(error)")
        }
    }
}
