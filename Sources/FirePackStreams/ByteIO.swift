import FirePack
import CFirePackSystem  // open(2), close(2), fstat(2)
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Somewhere bytes come from, a chunk at a time (a file, standard input, a gzip decompressor).
public protocol ByteSource: AnyObject {
    /// Fills up to `buffer.count` bytes and returns how many; 0 means the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
    /// Whether a read returns without waiting for bytes still to come (a regular file, memory), so that a reader may
    /// read early what it will need (`DocumentStreamReader.readsBlocksAhead`). False unless the source says so: a
    /// pipe or a socket waits for its writer.
    var readsWithoutWaiting: Bool { get }
    /// The file this source reads unchanged from its first byte, when it is one that can be read at any offset (a
    /// file opened by its path): what a stream reader looks up the stream's index in after damage
    /// (`DocumentStreamReader.listedUnits()`). Nil unless the source says so.
    var wholeFile: FileSource? { get }
}

extension ByteSource {
    /// False: a source of unknown kind may wait for its bytes.
    public var readsWithoutWaiting: Bool { false }
    /// Nil: a source of unknown kind is read in order only.
    public var wholeFile: FileSource? { nil }
}

/// Somewhere bytes go, a chunk at a time (a file, standard output, a gzip compressor).
public protocol ByteSink: AnyObject {
    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Finishes the output (flushes compressors); the sink is not written to afterwards.
    func finish() throws
}

/// A file descriptor read with read(2), retrying interruptions.
public final class FileSource: ByteSource {
    let descriptor: Int32
    let ownsDescriptor: Bool

    /// Whether the descriptor is a regular file, which a read never waits on.
    public let readsWithoutWaiting: Bool
    /// Itself when opened by its path as a regular file (read from its first byte); nil for a descriptor handed in
    /// (standard input may start anywhere in its file).
    public var wholeFile: FileSource? { ownsDescriptor && readsWithoutWaiting ? self : nil }

    /// Reads from an open descriptor (standard input is 0); the descriptor is closed on deinit when owned.
    public convenience init(descriptor: Int32, ownsDescriptor: Bool = false) {
        self.init(descriptor: descriptor, ownsDescriptor: ownsDescriptor, type: Self.fileType(of: descriptor))
    }

    private init(descriptor: Int32, ownsDescriptor: Bool, type: mode_t?) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
        readsWithoutWaiting = type == mode_t(S_IFREG)
    }

    /// Opens a file for reading.
    public convenience init(path: String) throws {
        let descriptor = firepack_open(SystemPath.bytes(path), O_RDONLY, 0)
        guard descriptor >= 0 else {
            throw FirePackError(.ioFailure, "\(path): cannot open for reading: \(systemError())")
        }
        let type = Self.fileType(of: descriptor)
        if type == mode_t(S_IFDIR) {
            close(descriptor)
            throw FirePackError(.ioFailure, "\(path): cannot open for reading: \(systemError(EISDIR))")
        }
        self.init(descriptor: descriptor, ownsDescriptor: true, type: type)
    }

    /// The file's size in bytes (fstat(2)) when it is a regular file, nil otherwise or when it cannot be read: what
    /// reading it whole will likely find, not a promise (a file may grow or shrink while it is read).
    public var size: Int? {
        guard readsWithoutWaiting else { return nil }
        var status = stat()
        return fstat(descriptor, &status) == 0 ? Int(status.st_size) : nil
    }

    /// The file type bits of what `descriptor` is open on (fstat(2)), nil when they cannot be read.
    private static func fileType(of descriptor: Int32) -> mode_t? {
        var status = stat()
        return fstat(descriptor, &status) == 0 ? status.st_mode & mode_t(S_IFMT) : nil
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try FileDescriptorIO.readSome(into: buffer, from: descriptor)
    }
}

/// A file descriptor written with write(2).
public final class FileSink: ByteSink {
    let descriptor: Int32
    let ownsDescriptor: Bool

    /// Writes to an open descriptor (standard output is 1); the descriptor is closed by `finish()` when owned.
    public init(descriptor: Int32, ownsDescriptor: Bool = false) {
        self.descriptor = descriptor
        self.ownsDescriptor = ownsDescriptor
    }

    /// Creates (or truncates, or with `append` extends) a file for writing.
    public convenience init(path: String, append: Bool = false) throws {
        let descriptor = firepack_open(
            SystemPath.bytes(path), O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0o644)
        guard descriptor >= 0 else {
            throw FirePackError(.ioFailure, "\(path): cannot open for writing: \(systemError())")
        }
        self.init(descriptor: descriptor, ownsDescriptor: true)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try FileDescriptorIO.writeAll(bytes, to: descriptor)
    }

    public func finish() throws {
        if ownsDescriptor, close(descriptor) != 0 { throw FirePackError(.ioFailure, "close failed: \(systemError())") }
    }
}

/// Bytes kept in memory (tests, small outputs).
public final class MemorySink: ByteSink {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []
    /// An empty sink.
    public init() {}
    public func write(_ chunk: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: chunk) }
    public func finish() throws {}
}

/// Bytes read from memory.
public final class MemorySource: ByteSource {
    let bytes: [UInt8]
    var position = 0
    /// True: the bytes are all there.
    public var readsWithoutWaiting: Bool { true }
    /// Reads `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    /// Reads a copy of `bytes` (`Data`, a slice or borrowed bytes).
    public convenience init(_ bytes: some ContiguousBytes) { self.init(bytes.withUnsafeBytes { [UInt8]($0) }) }
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - position)
        guard count > 0, let destination = buffer.baseAddress else { return 0 }
        // count > 0: not empty
        bytes.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
        position += count
        return count
    }
}

/// Reads a whole source into memory (for single-value formats; streams never do this).
package func readAll(_ source: ByteSource, limit: Int = 1 << 31) throws -> [UInt8] {
    var bytes: [UInt8] = []
    // A whole regular file is read into room for its size: grown by doubling, the array held up to half as much
    // again, and its old storage beside the new while it moved.
    if let size = source.wholeFile?.size {
        // Known to be past the limit, refused before it is read.
        guard size <= limit else { throw FirePackError(.limitExceeded, "input larger than \(limit) bytes") }
        bytes.reserveCapacity(size)
    }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
        if count == 0 { return bytes }
        bytes.append(contentsOf: chunk[..<count])
        guard bytes.count <= limit else { throw FirePackError(.limitExceeded, "input larger than \(limit) bytes") }
    }
}

/// Reads `source` in 64 KiB chunks until `bytes[start...]` holds `needed` unread bytes or the source ends (`ended`).
/// Moves the unread bytes to the front (adding what it drops to `offset`, the input offset of `bytes[0]`) only once
/// half of `bytes` is read, so that reading stays linear however small the steps: the window of the text and
/// protobuf readers.
package func fillWindow(
    _ bytes: inout [UInt8], start: inout Int, offset: inout Int, ended: inout Bool, needed: Int,
    from source: any ByteSource
) throws {
    guard bytes.count - start < needed, !ended else { return }
    if start > 0 && start >= bytes.count / 2 {
        bytes.removeSubrange(0..<start)
        offset += start
        start = 0
    }
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while bytes.count - start < needed && !ended {
        let read = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
        if read == 0 { ended = true } else { bytes += chunk[..<read] }
    }
}

/// The first `count` bytes of `source` (fewer when it ends first): enough to tell a file's kind by its magic bytes.
package func readPrefix(_ source: ByteSource, count: Int) throws -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    var filled = 0
    while filled < count {
        let read = try bytes.withUnsafeMutableBytes {
            try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]))
        }
        if read == 0 { break }
        filled += read
    }
    return Array(bytes[..<filled])
}

/// Reads `prefix`, then `upstream`.
package final class PrefixedSource: ByteSource {
    let prefix: [UInt8]
    var position = 0
    let upstream: any ByteSource
    package init(_ prefix: [UInt8], then upstream: any ByteSource) {
        self.prefix = prefix
        self.upstream = upstream
    }
    /// The upstream source's.
    package var readsWithoutWaiting: Bool { upstream.readsWithoutWaiting }
    /// The upstream source's: the prefix is the bytes read from its start, given back.
    package var wholeFile: FileSource? { upstream.wholeFile }
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard position < prefix.count else { return try upstream.read(into: buffer) }
        let count = min(buffer.count, prefix.count - position)
        prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
        position += count
        return count
    }
}
