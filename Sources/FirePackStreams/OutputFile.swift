import CFirePackSystem
import FirePack

/// A command's output, opened by what the path names, as coreutils tools do:
///
/// - `-`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` (also what a shell's `>(…)` passes) are
///   written to directly through the descriptor, in order, never replaced;
/// - a character device (`/dev/null`, `/dev/full`, a terminal) or a FIFO is opened and written to directly, never
///   replaced by a regular file;
/// - a regular file or a new path is written all or nothing (`AtomicFileSink`), through a symbolic link to its target
///   (the link stays);
/// - a directory, a socket or a block device is refused before any work.
///
/// Every write error on any of them — a full disk, `/dev/full`, a closed pipe — is thrown.
public enum OutputFile {
    /// Opens `path` for writing by the rules above.
    public static func sink(atPath path: String) throws -> ByteSink {
        if let descriptor = descriptorPath(path) {
            guard firepack_is_open(descriptor) != 0 else {
                throw FirePackError(.ioFailure, "\(path): no such open descriptor")
            }
            return FileSink(descriptor: descriptor)
        }
        let raw = Array(SystemPath.bytes(path).dropLast()).map { UInt8(bitPattern: $0) }
        let target = try AtomicFileSink.resolvingLinks(raw)
        var status = stat()
        guard stat(target.map { CChar(bitPattern: $0) } + [0], &status) == 0 else {
            return try AtomicFileSink(destination: path)  // a new file (through a dangling link: its target)
        }
        switch status.st_mode & mode_t(S_IFMT) {
        case mode_t(S_IFREG):
            return try AtomicFileSink(destination: path)
        case mode_t(S_IFCHR), mode_t(S_IFIFO):
            let descriptor = firepack_open(SystemPath.bytes(path), O_WRONLY, 0)
            guard descriptor >= 0 else {
                throw FirePackError(.ioFailure, "\(path): cannot open for writing: \(systemError())")
            }
            return FileSink(descriptor: descriptor, ownsDescriptor: true)
        case mode_t(S_IFDIR):
            throw FirePackError(.ioFailure, "\(path): is a directory; name a file in it")
        case mode_t(S_IFSOCK):
            throw FirePackError(
                .ioFailure, "\(path): is a socket; FirePack writes files, devices, pipes and standard output")
        default:
            throw FirePackError(.ioFailure, "\(path): is a block device; refusing to write to it")
        }
    }

    /// Whether `path` names an output written in place rather than replaced (standard output, a descriptor, a
    /// device or a pipe).
    public static func isWrittenInPlace(_ path: String) -> Bool {
        if path == "-" || descriptorPath(path) != nil { return true }
        let raw = Array(SystemPath.bytes(path).dropLast()).map { UInt8(bitPattern: $0) }
        guard let target = try? AtomicFileSink.resolvingLinks(raw) else { return false }
        var status = stat()
        guard stat(target.map { CChar(bitPattern: $0) } + [0], &status) == 0 else { return false }
        let kind = status.st_mode & mode_t(S_IFMT)
        return kind == mode_t(S_IFCHR) || kind == mode_t(S_IFIFO)
    }

    /// Whether `path` names the process's standard output: `-`, a name of descriptor 1, or the device or pipe that
    /// descriptor 1 is (the FIFO standard output was redirected to, the terminal's own `/dev/pts/N`). A command that writes
    /// its output there must say everything else on standard error, or the output is no longer what it claims to be.
    public static func isStandardOutput(_ path: String) -> Bool {
        if let descriptor = descriptorPath(path) { return descriptor == 1 }
        guard isWrittenInPlace(path) else { return false }
        var named = stat(), standard = stat()
        guard stat(SystemPath.bytes(path), &named) == 0, fstat(1, &standard) == 0 else { return false }
        return named.st_dev == standard.st_dev && named.st_ino == standard.st_ino
    }

    /// The descriptor a path names directly: `-` and `/dev/stdout` 1, `/dev/stderr` 2, `/dev/fd/N` and
    /// `/proc/self/fd/N` N.
    static func descriptorPath(_ path: String) -> Int32? {
        switch path {
        case "-", "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                if let number = Int32(path.dropFirst(prefix.count)), number >= 0 { return number }
            }
            return nil
        }
    }
}
