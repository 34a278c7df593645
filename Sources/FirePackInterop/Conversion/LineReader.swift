import CFirePackSystem  // memchr(3): the newline search, vectorized by the C library
import FirePack
import FirePackStreams

/// Reads a source line by line (JSON lines), holding one line at a time.
package final class LineReader {
    let source: any ByteSource
    // `@exclusivity(unchecked)` on the `var`s used per line, document or record: Docs/ARCHITECTURE.md, "Performance
    // mechanisms".
    @exclusivity(unchecked) var buffer = [UInt8](repeating: 0, count: 1 << 16)
    @exclusivity(unchecked) var start = 0
    @exclusivity(unchecked) var end = 0
    @exclusivity(unchecked) var ended = false
    let maxLineLength: Int
    /// The 1-based number of the last line returned.
    @exclusivity(unchecked) package private(set) var lineNumber = 0
    /// The byte offset in the input of the last line returned: error offsets inside a line are added to it, so that
    /// "at byte N" means the same in JSON lines as in every other format (the input's N-th byte).
    @exclusivity(unchecked) package private(set) var lineOffset = 0
    /// The input offset of `buffer[0]`.
    @exclusivity(unchecked) private var bufferOffset = 0

    package init(_ source: any ByteSource, maxLineLength: Int = 256 << 20) {
        self.source = source
        self.maxLineLength = maxLineLength
    }

    /// The next line without its newline, or nil at the end.
    package func next() throws -> ArraySlice<UInt8>? {
        var scanFrom = start
        while true {
            if let newline = Self.firstNewline(in: buffer, from: scanFrom, to: end) {
                let line = buffer[start..<newline]
                lineOffset = bufferOffset + start
                start = newline + 1
                lineNumber += 1
                return line.last == 0x0D ? line.dropLast() : line
            }
            if ended {
                guard start < end else { return nil }
                let line = buffer[start..<end]
                lineOffset = bufferOffset + start
                start = end
                lineNumber += 1
                return line
            }
            // Move the partial line to the front, grow if needed, read more.
            if start > 0 {
                // In place (memmove): `replaceSubrange(_:with: buffer[start..<end])` would copy the whole buffer
                // first, the slice holding a reference to it.
                let (from, remaining) = (start, end - start)
                buffer.withUnsafeMutableBytes { bytes in
                    bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + from, byteCount: remaining)
                }
                bufferOffset += start
                end -= start
                start = 0
            }
            scanFrom = end
            if end == buffer.count {
                guard buffer.count < maxLineLength else {
                    throw FirePackError(.limitExceeded, "line \(lineNumber + 1) is longer than \(maxLineLength) bytes")
                }
                buffer += [UInt8](repeating: 0, count: buffer.count)
            }
            let count = try buffer.withUnsafeMutableBytes {
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[end...]))
            }
            if count == 0 { ended = true } else { end += count }
        }
    }

    /// The index of the first newline in `buffer[from..<to]`, or nil.
    static func firstNewline(in buffer: [UInt8], from: Int, to: Int) -> Int? {
        guard from < to else { return nil }
        return buffer.withUnsafeBytes { bytes in
            memchr(bytes.baseAddress! + from, 0x0A, to - from).map {
                $0 - UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
            }
        }
    }
}
