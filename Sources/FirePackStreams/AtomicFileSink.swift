import FirePack
import CFirePackSystem   // mkstemps(3), fsync(2), rename(2)
import Synchronization

/// A file written all or nothing: bytes go to a temporary file in the destination's folder, and `finish()` flushes
/// it to disk (fsync), renames it over the destination and syncs the folder. Until then the destination is
/// untouched; a sink that is discarded, or released without `finish()`, removes its temporary file.
///
/// The temporary file is `.NAME.XXXXXX.partial` beside the destination, created with the destination's permissions
/// (or the usual 0666 less the umask for a new file).
public final class AtomicFileSink: ByteSink {
    /// Where the file will be once finished.
    public let destination: String
    /// The temporary file being written.
    public let temporaryPath: String
    private let file: FileSink
    private var done = false
    /// Bytes written so far, and how many of them have been handed to the system to write out (`write(_:)`).
    private var written: off_t = 0
    private var handedOver: off_t = 0
    /// Every this many bytes, the ones before are handed to the system to write out while writing goes on
    /// (`firepack_start_writeback`): the disk works alongside the conversion instead of all at once in `finish()`'s
    /// fsync, and a long stream does not fill the page cache. StreamingBenchmarks, one run with both builds:
    /// `.fpks` → JSON lines 5.06 → 4.43 s, JSON lines → `.fpks` 5.88 → 5.47 s (540 and 665 MB of input).
    private let writebackInterval: off_t

    /// Creates the temporary file for `destination`; throws `ioFailure` (with the system's reason) when its folder
    /// cannot be written, so that a bad destination is found before any work is done.
    public convenience init(destination: String) throws {
        try self.init(destination: destination, writebackInterval: 32 << 20)
    }

    /// Every temporary file not yet finished or discarded, so that a signal handler can remove them all.
    private static let pending = Mutex<Set<String>>([])

    /// The same, handing written bytes to the system every `writebackInterval` bytes (tests use small ones).
    package init(destination: String, writebackInterval: Int) throws {
        self.destination = destination
        self.writebackInterval = off_t(max(1, writebackInterval))
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { String(destination[..<$0]) } ?? "."
        let name = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        var template = Array("\(folder.isEmpty ? "" : folder)/.\(name).XXXXXX.partial".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 8) }
        guard descriptor >= 0 else { throw FirePackError(.ioFailure, "\(destination): cannot write there: \(systemError())") }
        temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var existing = stat()
        let mode: mode_t
        if stat(destination, &existing) == 0 {
            mode = existing.st_mode & 0o7777
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        fchmod(descriptor, mode)
        file = FileSink(descriptor: descriptor, ownsDescriptor: true)
        Self.pending.withLock { _ = $0.insert(temporaryPath) }
    }

    deinit { if !done { discard() } }

    /// Writes to the temporary file.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try file.write(bytes)
        written += off_t(bytes.count)
        if written - handedOver >= writebackInterval {
            firepack_start_writeback(file.descriptor, handedOver, written - handedOver)
            handedOver = written
        }
    }

    /// Flushes the temporary file to disk and renames it over the destination; throws `ioFailure` (and removes the
    /// temporary file) when any step fails, leaving the destination as it was.
    public func finish() throws {
        guard !done else { return }
        do {
            guard fsync(file.descriptor) == 0 else { throw FirePackError(.ioFailure, "\(destination): cannot flush to disk: \(systemError())") }
            try file.finish()
            guard rename(temporaryPath, destination) == 0 else {
                throw FirePackError(.ioFailure, "\(destination): cannot replace: \(systemError())")
            }
        } catch {
            discard()
            throw error
        }
        done = true
        Self.pending.withLock { _ = $0.remove(temporaryPath) }
        let slash = destination.lastIndex(of: "/")
        let folder = slash.map { String(destination[..<$0]) } ?? "."
        let directory = firepack_open(folder.isEmpty ? "/" : folder, O_RDONLY, 0)
        if directory >= 0 { fsync(directory); close(directory) }
    }

    /// Removes the temporary file; the destination stays as it was. Nothing may be written afterwards.
    public func discard() {
        guard !done else { return }
        done = true
        try? file.finish()
        unlink(temporaryPath)
        Self.pending.withLock { _ = $0.remove(temporaryPath) }
    }

    /// Removes every temporary file not yet finished (for a signal handler that is about to exit); returns how many.
    package static func discardAllPending() -> Int {
        pending.withLock { paths in
            for path in paths { unlink(path) }
            defer { paths.removeAll() }
            return paths.count
        }
    }
}

/// The system's description of `errno` ("No such file or directory").
func systemError(_ code: Int32 = firepack_errno()) -> String { FileDescriptorIO.systemErrorDescription(code) }
