import Foundation
import Testing
import FirePackTestSupport
import FirePackStreams
import FirePack

/// A file written all or nothing, with its bytes handed to the system to write out as they go.
@Suite struct AtomicFileSinkTests {
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("firepack-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Chunks of every size, handed over every 4 KiB: the destination keeps its old bytes until `finish()`, then
    /// holds exactly what was written, and no temporary file is left.
    @Test func writesEveryByteAndReplacesTheDestinationOnlyWhenFinished() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("out.jsonl").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: destination))
        var rng = SeededGenerator(seed: 0xA70)
        var expected: [UInt8] = []
        let sink = try AtomicFileSink(destination: destination, writebackInterval: 4096)
        while expected.count < 1 << 20 {
            let chunk = (0..<Int.random(in: 1...20_000, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            try chunk.withUnsafeBytes { try sink.write($0) }
            expected += chunk
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data("old".utf8))
        #expect(FileManager.default.fileExists(atPath: sink.temporaryPath))
        try sink.finish()
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: destination))) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.jsonl"])
    }

    /// The temporary file is held locked while it is written, which is what a cleanup elsewhere (another PID
    /// namespace or host, where the process ID in its name means nothing) checks before removing it as stale.
    @Test func theTemporaryFileIsLockedWhileWritten() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sink = try AtomicFileSink(destination: folder.appendingPathComponent("out.fpks").path)
        let other = open(sink.temporaryPath, O_RDONLY)
        defer { close(other) }
        #expect(other >= 0 && flock(other, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
        sink.discard()
    }

    /// A replaced file keeps its permissions but not its set-user-ID or set-group-ID bits (its new contents are not
    /// what they were given for), and, written by root, its owner (as writing into it would keep it).
    @Test(.enabled(if: geteuid() == 0, "needs root, to give the file another owner"))
    func aReplacedFileKeepsItsOwnerAndPermissionsButNoSetID() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("tool").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: destination))
        #expect(chown(destination, 65534, 65534) == 0 && chmod(destination, 0o4755) == 0)
        let sink = try AtomicFileSink(destination: destination)
        try Array("new".utf8).withUnsafeBytes { try sink.write($0) }
        try sink.finish()
        var status = stat()
        #expect(stat(destination, &status) == 0)
        #expect(status.st_mode & 0o7777 == 0o755 && status.st_uid == 65534 && status.st_gid == 65534)
    }

    /// A discarded sink leaves the destination as it was and removes its temporary file.
    /// Only a regular file is replaced: a folder, a device or a pipe at the destination is refused at once, before any
    /// work, rather than found at the rename (a folder) or replaced by a file (a device, a pipe).
    @Test func whatIsNotARegularFileIsRefusedAtOnce() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipe = folder.appendingPathComponent("pipe").path
        #expect(mkfifo(pipe, 0o600) == 0)
        for (path, said) in [(folder.path, "is a directory"), ("/dev/null", "not a regular file"), (pipe, "not a regular file")] {
            #expect(throws: FirePackError.self, "\(path)") { try AtomicFileSink(destination: path) }
            do { _ = try AtomicFileSink(destination: path) } catch let error as FirePackError {
                #expect(error.message.contains(said), "\(error)")
            }
        }
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        #expect(stat(pipe, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["pipe"])
    }

    @Test func discardLeavesTheDestinationAlone() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let destination = folder.appendingPathComponent("out.fpks").path
        try Data("old".utf8).write(to: URL(fileURLWithPath: destination))
        let sink = try AtomicFileSink(destination: destination, writebackInterval: 1024)
        let bytes = [UInt8](repeating: 7, count: 100_000)
        try bytes.withUnsafeBytes { try sink.write($0) }
        sink.discard()
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data("old".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["out.fpks"])
    }
}
