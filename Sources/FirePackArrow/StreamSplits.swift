import CFirePackSystem
import FirePack
import FirePackStreams

/// Cuts a stream file into byte ranges for parallel readers (Docs/ARROW.md, "Splits").
public enum StreamSplits {
    /// Adjacent ranges of about `targetBytes` covering the whole file; any cut is correct, since each record belongs
    /// to the range its sync marker starts in. A gzip-compressed stream or a `.fpk` file is one range.
    public static func ranges(path: String, targetBytes: Int) throws -> [(offset: Int, length: Int)] {
        guard targetBytes > 0 else {
            throw FirePackError(.invalidValue, "a split size must be positive, not \(targetBytes)")
        }
        guard let size = fileSize(path) else {
            throw FirePackError(.ioFailure, "\(path): cannot read: \(String(cString: strerror(firepack_errno())))")
        }
        let head = try readPrefix(FileSource(path: path), count: 4)
        guard head == DocumentStreamFormat.header.prefix(4).map({ $0 }) else { return [(0, size)] }
        var ranges: [(Int, Int)] = []
        var offset = 0
        repeat {
            let length = min(targetBytes, size - offset)
            ranges.append((offset, length))
            offset += length
        } while offset < size
        return ranges
    }
}
