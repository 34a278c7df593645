import FirePack
import CFirePackSystem  // mkstemps(3), flock(2), fsync(2), rename(2)
import Synchronization

/// A file written all or nothing: bytes go to a temporary file in the destination's folder, and `finish()` flushes
/// it to disk (fsync), renames it over the destination and syncs the folder. Until then the destination is
/// untouched; a sink that is discarded, or released without `finish()`, removes its temporary file.
///
/// The temporary file is `.NAME.fpPID-XXXXXX.partial` beside the destination (NAME shortened to fit NAME_MAX), created
/// with the destination's permissions (or the usual 0666 less the umask for a new file). A destination that is a
/// symbolic link is written through it. For outputs that are not regular files (devices, pipes, standard output),
/// see `OutputFile`.
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

    /// Every temporary file not yet finished or discarded (as bytes), so that a signal handler can remove them all.
    private static let pending = Mutex<[[CChar]: String]>([:])

    /// The temporary file's name as the system takes it.
    private let temporaryBytes: [CChar]
    /// The destination's name as the system takes it (a symbolic link's final target).
    private let destinationBytes: [CChar]

    /// The same, handing written bytes to the system every `writebackInterval` bytes (tests use small ones).
    ///
    /// A destination that is a symbolic link is written through it: its final target is replaced and the link stays.
    /// The temporary name is `.NAME.fpPID-XXXXXX.partial`, NAME shortened so the whole fits in NAME_MAX (255 bytes);
    /// the process ID lets a later run find what a killed one left (`removeStaleTemporaryFiles(besides:)`).
    package init(destination: String, writebackInterval: Int) throws {
        self.destination = destination
        self.writebackInterval = off_t(max(1, writebackInterval))
        let target = try Self.resolvingLinks(
            Array(SystemPath.bytes(destination).dropLast()).map { UInt8(bitPattern: $0) })
        destinationBytes = target.map { CChar(bitPattern: $0) } + [0]
        let slash = target.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { Array(target[..<$0]) } ?? []
        let name = slash.map { Array(target[($0 + 1)...]) } ?? target
        // Only a regular file is replaced: a directory, a device, a pipe or a socket there is refused before any work
        // (`OutputFile.sink(atPath:)` writes to a device or pipe in place).
        var present = stat()
        if stat(destinationBytes, &present) == 0 && present.st_mode & mode_t(S_IFMT) != mode_t(S_IFREG) {
            let kind = present.st_mode & mode_t(S_IFMT)
            throw FirePackError(
                .ioFailure,
                kind == mode_t(S_IFDIR)
                    ? "\(destination): is a directory; name a file in it"
                    : "\(destination): is not a regular file (a device, pipe or socket), which would be replaced")
        }
        // An existing destination the user may not write is refused, as `cp` and a shell's `>` refuse it: replacing it
        // by a rename would need only the folder to be writable.
        if access(destinationBytes, F_OK) == 0 && access(destinationBytes, W_OK) != 0 {
            throw FirePackError(.ioFailure, "\(destination): cannot write: \(systemError())")
        }
        // Nor one that a sticky folder (as /tmp is) keeps its owner alone from replacing, which the rename at the end
        // would find only after all the work.
        var folderStatus = stat(), destinationStatus = stat()
        let folderBytes =
            (folder.isEmpty ? (slash == nil ? [UInt8(ascii: ".")] : [UInt8(ascii: "/")]) : folder)
            .map { CChar(bitPattern: $0) } + [0]
        if geteuid() != 0, stat(folderBytes, &folderStatus) == 0, folderStatus.st_mode & mode_t(S_ISVTX) != 0,
            lstat(destinationBytes, &destinationStatus) == 0, destinationStatus.st_uid != geteuid(),
            folderStatus.st_uid != geteuid()
        {
            throw FirePackError(
                .ioFailure,
                "\(destination): cannot replace: the folder is sticky and the file is another user's (write elsewhere)")
        }
        let suffix = Array(".fp\(getpid())-XXXXXX.partial".utf8)
        let kept = Array(name.prefix(255 - 1 - suffix.count))
        let prefix = slash == nil ? [] : (folder.isEmpty ? [UInt8(ascii: "/")] : folder + [UInt8(ascii: "/")])
        let pattern = (prefix + [UInt8(ascii: ".")] + kept + suffix).map { CChar(bitPattern: $0) } + [0]
        var template = pattern
        var descriptor: Int32 = -1
        // The file is held locked while it is written (flock(2), released by the system when the process ends, and
        // across hosts on NFS): what tells a later run's cleanup that it is not stale, where the process ID cannot —
        // a run in another PID namespace (a container sharing the folder) or on another host has a number that is no
        // process here. Locked at once; one that a cleanup took (locked, or already unlinked) in between is given up
        // and a new one made. Where the file system has no locks, the file is written unlocked, as before them.
        for attempt in 0..<8 {
            template = pattern
            descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 8) }
            guard descriptor >= 0 else {
                throw FirePackError(.ioFailure, "\(destination): cannot write there: \(systemError())")
            }
            let locked = flock(descriptor, LOCK_EX | LOCK_NB) == 0
            let taken = !locked && firepack_errno() == EWOULDBLOCK
            // Unlinked already, or gone stale under us (NFS: a cleanup elsewhere took it first): try another.
            var status = stat()
            let unlinked = fstat(descriptor, &status) != 0 || status.st_nlink == 0
            if !taken && !unlinked { break }
            if !unlinked { unlink(template) }
            close(descriptor)
            descriptor = -1
            if attempt == 7 {
                throw FirePackError(.ioFailure, "\(destination): cannot lock a temporary file beside it")
            }
        }
        temporaryBytes = template
        temporaryPath = SystemPath.display(template.dropLast().map { UInt8(bitPattern: $0) })
        var existing = stat()
        let mode: mode_t
        if stat(destinationBytes, &existing) == 0 {
            // Its permissions, not its set-user-ID or set-group-ID bits (the new contents are not what they were
            // given for); as root, its owner too, as writing into it would keep them.
            mode = existing.st_mode & 0o1777
            if geteuid() == 0 { _ = fchown(descriptor, existing.st_uid, existing.st_gid) }
        } else {
            let mask = umask(0)
            umask(mask)
            mode = 0o666 & ~mask
        }
        fchmod(descriptor, mode)
        file = FileSink(descriptor: descriptor, ownsDescriptor: true)
        Self.pending.withLock { $0[template] = temporaryPath }
    }

    /// The final target of `path` when it is a symbolic link (followed up to 40 times, as the system does), else
    /// `path`; a dangling link gives the path it points to, which the sink then creates.
    static func resolvingLinks(_ path: [UInt8]) throws -> [UInt8] {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            let name = current.map { CChar(bitPattern: $0) } + [0]
            guard lstat(name, &status) == 0, status.st_mode & mode_t(S_IFMT) == mode_t(S_IFLNK) else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(name, &buffer, buffer.count - 1)
            guard count > 0 else { return current }
            let target = buffer[..<count].map { UInt8(bitPattern: $0) }
            if target.first == UInt8(ascii: "/") {
                current = target
            } else if let slash = current.lastIndex(of: UInt8(ascii: "/")) {
                current = Array(current[...slash]) + target
            } else {
                current = target
            }
        }
        throw FirePackError(.ioFailure, "\(SystemPath.display(path)): too many levels of symbolic links")
    }

    /// Removes the temporary files that runs which have ended (killed, or on a machine that lost power) left beside
    /// `destination`, and returns their names: files named as this sink names them whose process no longer runs and
    /// that no one holds locked (a live run elsewhere — another PID namespace, another host — holds its file's lock).
    package static func removeStaleTemporaryFiles(besides destination: String) -> [String] {
        let path = Array(SystemPath.bytes(destination).dropLast()).map { UInt8(bitPattern: $0) }
        let target = (try? resolvingLinks(path)) ?? path
        let slash = target.lastIndex(of: UInt8(ascii: "/"))
        let folder = slash.map { $0 == 0 ? [UInt8(ascii: "/")] : Array(target[..<$0]) } ?? [UInt8(ascii: ".")]
        guard let directory = opendir(folder.map { CChar(bitPattern: $0) } + [0]) else { return [] }
        defer { closedir(directory) }
        var removed: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            guard let pid = Self.processID(inTemporaryName: name), pid != getpid() else { continue }
            guard kill(pid, 0) != 0 && firepack_errno() == ESRCH else { continue }
            let full = folder + [UInt8(ascii: "/")] + name
            let fullBytes = full.map { CChar(bitPattern: $0) } + [0]
            // A shared lock: taken on a descriptor open for reading (on NFS, flock is a read or write lock, and a
            // write lock needs one open for writing), refused while the writer holds its exclusive one. A file this
            // user cannot open is left alone; where the file system has no locks (the writer could not lock it
            // either), the process ID decides, as before them; any other failure leaves the file alone.
            let descriptor = firepack_open(fullBytes, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            if flock(descriptor, LOCK_SH | LOCK_NB) != 0 {
                let error = firepack_errno()
                guard error == EOPNOTSUPP || error == ENOTSUP || error == EINVAL || error == ENOLCK else { continue }
            }
            if unlink(fullBytes) == 0 { removed.append(SystemPath.display(full)) }
        }
        return removed
    }

    /// The process ID in a temporary name `.NAME.fpPID-XXXXXX.partial`, or nil for any other name.
    static func processID(inTemporaryName name: [UInt8]) -> pid_t? {
        let suffix = Array(".partial".utf8)
        guard name.first == UInt8(ascii: "."), name.count > 1 + 3 + 1 + 1 + 6 + suffix.count,
            name.suffix(suffix.count).elementsEqual(suffix)
        else { return nil }
        let beforeRandom = name.count - suffix.count - 6  // index of the '-' before XXXXXX
        guard name[beforeRandom - 1] == UInt8(ascii: "-") else { return nil }
        var index = beforeRandom - 2
        var digits: [UInt8] = []
        while index > 0, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(name[index]) {
            digits.insert(name[index], at: 0)
            index -= 1
        }
        guard !digits.isEmpty, index >= 3, name[(index - 2)...index].elementsEqual(Array(".fp".utf8)),
            let pid = pid_t(String(decoding: digits, as: UTF8.self))
        else { return nil }
        return pid
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
            guard fsync(file.descriptor) == 0 else {
                throw FirePackError(.ioFailure, "\(destination): cannot flush to disk: \(systemError())")
            }
            // Renamed and taken off the pending list at once, under the list's lock: a signal's clean-up either
            // removes the temporary file before the rename (which then fails, and the process ends) or finds it
            // gone from the list, never says it removed a file that is already the destination.
            let failure: Int32? = Self.pending.withLock { pending in
                guard rename(temporaryBytes, destinationBytes) == 0 else { return firepack_errno() }
                pending.removeValue(forKey: temporaryBytes)
                return nil
            }
            if let failure {
                throw FirePackError(.ioFailure, "\(destination): cannot replace: \(systemError(failure))")
            }
        } catch {
            discard()
            throw error
        }
        done = true
        // The rename made durable: the folder's entry flushed.
        let slash = destinationBytes.lastIndex(of: CChar(bitPattern: UInt8(ascii: "/")))
        let folder =
            slash.map { $0 == 0 ? [CChar(bitPattern: UInt8(ascii: "/"))] : Array(destinationBytes[..<$0]) } ?? [
                CChar(bitPattern: UInt8(ascii: "."))
            ]
        let directory = firepack_open(folder + [0], O_RDONLY, 0)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
        // Closed only now, which releases its lock: until it has the destination's name, a cleanup elsewhere (that
        // cannot see this process) must find it locked, not take it for a killed run's file. Its bytes are on disk,
        // so a failing close (which a network file system may report) is said as what it is: the file was replaced.
        do { try file.finish() } catch {
            throw FirePackError(
                .ioFailure,
                "\(destination): \(Self.replacedButNotClosed): \((error as? FirePackError)?.message ?? "\(error)")")
        }
    }

    /// What a close that fails after the rename says: the destination holds the new contents (not a failed write).
    package static let replacedButNotClosed =
        "replaced by the new contents, flushed to disk, but closing the file then failed"

    /// Removes the temporary file; the destination stays as it was. Nothing may be written afterwards.
    public func discard() {
        guard !done else { return }
        done = true
        try? file.finish()
        unlink(temporaryBytes)
        Self.pending.withLock { _ = $0.removeValue(forKey: temporaryBytes) }
    }

    /// Removes every temporary file not yet finished (for a signal handler that is about to exit); returns how many.
    package static func discardAllPending() -> Int {
        pending.withLock { paths in
            defer { paths.removeAll() }
            return paths.keys.filter { unlink($0) == 0 }.count
        }
    }
}

/// The system's description of `errno` ("No such file or directory").
func systemError(_ code: Int32 = firepack_errno()) -> String { FileDescriptorIO.systemErrorDescription(code) }
