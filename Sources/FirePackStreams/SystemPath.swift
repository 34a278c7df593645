import CFirePackSystem

/// A file name as the system takes it: bytes, not necessarily UTF-8.
///
/// Swift strings hold Unicode text, so a name such as `in\xff.json` cannot be one. A command-line tool registers the
/// arguments that were not UTF-8 (`register(escaped:raw:)`), under a display form with each undecodable byte written
/// as `\xHH`; every path FirePackStreams opens goes through `bytes(_:)`, which gives back the original bytes for a
/// registered display form and the UTF-8 of any other string. Messages show the display form.
package enum SystemPath {
    /// Display form → the bytes it stands for. Set once at start-up, before any other thread runs.
    nonisolated(unsafe) private static var registered: [String: [UInt8]] = [:]

    /// The display form of raw argument bytes (undecodable bytes as `\xHH`), registered when it differs from UTF-8.
    package static func register(argument raw: [UInt8]) -> String {
        if let text = String(validating: raw, as: UTF8.self) { return text }
        var display = ""
        var index = 0
        while index < raw.count {
            // The longest valid UTF-8 sequence at `index`, else one escaped byte.
            var decoded: String?
            for length in (1...min(4, raw.count - index)).reversed() {
                if let piece = String(validating: raw[index..<index + length], as: UTF8.self) {
                    decoded = piece
                    index += length
                    break
                }
            }
            if let decoded {
                display += decoded
            } else {
                display += "\\x" + String(raw[index], radix: 16, uppercase: false).leftPadded(to: 2)
                index += 1
            }
        }
        registered[display] = raw
        return display
    }

    /// The bytes of a path, NUL-terminated for the C library.
    package static func bytes(_ path: String) -> [CChar] {
        let raw = registered[path] ?? Array(path.utf8)
        return raw.map { CChar(bitPattern: $0) } + [0]
    }

    /// A display form of bytes from the system (a link's target, a folder entry), registered like an argument's.
    package static func display(_ raw: [UInt8]) -> String { register(argument: raw) }

    /// The type bits of what `path` names, links followed (`S_IFDIR`, `S_IFREG`, …), or nil when nothing is there.
    package static func fileType(_ path: String) -> mode_t? {
        var status = stat()
        return stat(bytes(path), &status) == 0 ? status.st_mode & mode_t(S_IFMT) : nil
    }

    /// Whether `path` names a regular file (not a pipe, a device, a folder), links followed.
    package static func isRegularFile(_ path: String) -> Bool { fileType(path) == mode_t(S_IFREG) }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
