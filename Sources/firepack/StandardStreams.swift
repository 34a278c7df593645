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

    static func writeError(_ text: String) {
        let bytes = Array(text.utf8)
        try? bytes.withUnsafeBytes { try FileSink(descriptor: 2).write($0) }
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
