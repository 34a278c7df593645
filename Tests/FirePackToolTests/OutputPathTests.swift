import Foundation
import Testing
import FirePack
import FirePackStreams
import FirePackTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Every kind of output path a user types is treated as coreutils would: devices, pipes and descriptors written in
/// place (never replaced), symbolic links written through, names of any bytes and any length, write errors on any
/// output reported, stale temporary files cleaned up. Runs as root in CI (as CI does); nothing here needs another user.
@Suite("firepack tool: output paths", .serialized)
struct OutputPathTests {
    private let folder = TemporaryFolder("out")
    var directory: URL { folder.url }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    var books: String { Tool.repository.appendingPathComponent("Fixtures/books.json").path }
    let naming = ["--collection", "books", "--id-field", "id", "--quiet"]

    /// The file type bits of `path` itself (not following a link).
    func kind(_ path: String) -> mode_t {
        var status = stat()
        guard lstat(path, &status) == 0 else { return 0 }
        return status.st_mode & S_IFMT
    }

    func documents(in stream: String) throws -> Int {
        let reader = try DocumentStreamReader(source: FileSource(path: stream))
        var count = 0
        while try reader.next() != nil { count += 1 }
        return count
    }

    @Test func aCharacterDeviceIsWrittenToNeverReplaced() throws {
        // A device node of our own with /dev/full's numbers (root can make one); else the system's /dev/full.
        let full = path("full")
        let device = mknod(full, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0 ? full : "/dev/full"   // major 1, minor 7
        let result = try CostMeasurement.runChild(Tool.binary.path, ["convert", books, device, "--to", "fpks"] + naming)
        let expected = "\(device): write failed: No space left on device"
        #expect(result.status == 1 && result.stderr.contains(expected), "\(result.stderr)")
        #expect(kind(device) == S_IFCHR)
        let null = try CostMeasurement.runChild(Tool.binary.path, ["convert", books, "/dev/null", "--to", "jsonl"] + naming)
        #expect(null.status == 0 && kind("/dev/null") == S_IFCHR, "\(null.stderr)")
    }

    @Test func standardOutputByNameIsWrittenInOrder() throws {
        let before = kind("/dev/stdout")
        let result = try Tool.run(["convert", books, "/dev/stdout", "--to", "jsonl"] + naming)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.text.split(separator: "\n").count == 5)
        #expect(kind("/dev/stdout") == before && before == S_IFLNK)
        let descriptor = try Tool.run(["convert", books, "/dev/fd/1", "--to", "jsonl"] + naming)
        #expect(descriptor.status == 0 && descriptor.stdout == result.stdout)
    }

    @Test func aSymbolicLinkIsWrittenThroughAndStays() throws {
        try FileManager.default.createDirectory(atPath: path("data"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: URL(fileURLWithPath: path("data/real.fpks")))
        try FileManager.default.createSymbolicLink(atPath: path("latest.fpks"), withDestinationPath: "data/real.fpks")
        let result = try Tool.run(["convert", books, path("latest.fpks")] + naming)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(kind(path("latest.fpks")) == S_IFLNK)
        #expect(try documents(in: path("data/real.fpks")) == 5)
        // A dangling link: its target is created.
        try FileManager.default.createSymbolicLink(atPath: path("next.fpks"), withDestinationPath: "data/next.fpks")
        #expect(try Tool.run(["convert", books, path("next.fpks")] + naming).status == 0)
        #expect(kind(path("next.fpks")) == S_IFLNK)
        #expect(try documents(in: path("data/next.fpks")) == 5)
    }

    @Test func aFIFOIsWrittenToNeverReplaced() throws {
        let fifo = path("pipe")
        #expect(mkfifo(fifo, 0o600) == 0)
        let received = Mutex<[UInt8]?>(nil)
        let reader = Thread {
            // Opening blocks until the tool opens the other end; reading ends when it closes it.
            let descriptor = open(fifo, O_RDONLY)
            var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                bytes += chunk[..<count]
            }
            close(descriptor)
            received.withLock { $0 = bytes }
        }
        reader.start()
        let result = try Tool.run(["convert", books, fifo, "--to", "jsonl"] + naming)
        #expect(result.status == 0, "\(result.stderr)")
        // The reader has all of it once the tool has closed its end; wait for the thread generously (a stalled
        // machine is not a failure), stopping as soon as it is done.
        let deadline = ContinuousClock.now + .seconds(60)
        while received.withLock({ $0 == nil }) && ContinuousClock.now < deadline { usleep(20_000) }
        #expect(received.withLock { $0?.split(separator: 0x0A).count } == 5)
        #expect(kind(fifo) == S_IFIFO)
    }

    @Test func directoriesAndSocketsAreRefusedBeforeAnyWork() throws {
        let result = try Tool.run(["convert", books, directory.path] + ["--to", "fpks"] + naming)
        #expect(result.status == 1 && result.stderr.contains("is a directory"), "\(result.stderr)")
    }

    @Test func benchRefusesToWriteItsChartOverAnInput() throws {
        try FileManager.default.copyItem(atPath: books, toPath: path("victim.json"))
        let original = try Data(contentsOf: URL(fileURLWithPath: path("victim.json")))
        let result = try Tool.run(["bench", path("victim.json"), "--runs", "1", "--svg", path("victim.json")])
        #expect(result.status == 2 && result.stderr.contains("is the input file"), "\(result.stderr)")
        #expect(!result.stderr.contains("--in-place"), "bench has no --in-place to offer: \(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path("victim.json"))) == original)
    }

    /// `firepack convert in.jsonl - >> in.jsonl` would read what it writes and never end (a 7 MB file grew to 733 MB
    /// in 30 s); into a stream's own file it writes over what it has not read. Refused, as `cat` refuses it.
    @Test(arguments: ["jsonl", "fpks"])
    func standardOutputThatIsTheInputIsRefused(to format: String) throws {
        let input = path("loop.\(format)")
        let made = try Tool.run(["convert", books, input] + naming)
        #expect(made.status == 0, "\(made.stderr)")
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        let result = try CostMeasurement.runChild(
            Tool.binary.path, ["convert", input, "-", "--to", format] + naming, standardOutput: input)
        #expect(result.status == 2 && result.stderr.contains("standard output is the input file"), "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original)
        // Into another file, standard output is written as before.
        let other = try CostMeasurement.runChild(
            Tool.binary.path, ["convert", input, "-", "--to", format] + naming, standardOutput: path("other.\(format)"))
        #expect(other.status == 0, "\(other.stderr)")
    }

    /// Whether this process can run the tool as another user (`nobody`, through `setpriv`): as root, which may
    /// write any file, a refusal to replace a write-protected file cannot be seen otherwise.
    static let runsAsNobody: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return false }
        let probe = try? CostMeasurement.runChild(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Tool.binary.path, "--version"])
        return probe?.status == 0
    }()

    /// An existing output its owner has made read-only is not replaced, as `cp` and a shell's `>` refuse it: the
    /// rename that replaces a file needs only its folder to be writable.
    @Test(.enabled(if: runsAsNobody, "needs root, /usr/bin/setpriv and a tool that user nobody can run"))
    func aWriteProtectedOutputIsNotReplaced() throws {
        let folder = path("shared")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        #expect(chmod(directory.path, 0o755) == 0 && chmod(folder, 0o777) == 0)
        let input = folder + "/books.json", protected = folder + "/protected.fpks", open = folder + "/open.fpks"
        try FileManager.default.copyItem(atPath: books, toPath: input)
        for (file, mode) in [(protected, 0o444), (open, 0o666)] {
            try Data("kept".utf8).write(to: URL(fileURLWithPath: file))
            #expect(chmod(file, mode_t(mode)) == 0 && chown(file, 65534, 65534) == 0)
        }
        func convert(to output: String) throws -> CostMeasurement.ChildResult {
            try CostMeasurement.runChild(
                "/usr/bin/setpriv",
                ["--reuid=65534", "--regid=65534", "--clear-groups", Tool.binary.path, "convert", input, output] + naming)
        }
        let refused = try convert(to: protected)
        #expect(refused.status == 1 && refused.stderr.contains("protected.fpks: cannot write: Permission denied"),
                "\(refused.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: protected)) == Data("kept".utf8))
        let replaced = try convert(to: open)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try documents(in: open) == 5)
    }

    @Test("A full standard output fails the command", arguments: [["validate"], ["stats"], ["inspect"]])
    func aFullStandardOutputFails(command: [String]) throws {
        let result = try CostMeasurement.runChild(Tool.binary.path, command + [books], standardOutput: "/dev/full")
        #expect(result.status == 1 && result.stderr.contains("No space left on device"), "\(command): \(result.stderr)")
    }

    @Test func longNamesAndNamesThatAreNotUTF8() throws {
        // 240 bytes: valid (NAME_MAX is 255), though the temporary name beside it must be shorter than name + 16.
        let long = path(String(repeating: "n", count: 235) + ".fpks")
        let result = try Tool.run(["convert", books, long] + naming)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try documents(in: long) == 5)
        // in\xff.json → out\xfe.fpks, byte for byte.
        let input = Array(directory.path.utf8) + Array("/in".utf8) + [0xFF] + Array(".json".utf8)
        let output = Array(directory.path.utf8) + Array("/out".utf8) + [0xFE] + Array(".fpks".utf8)
        let file = open(input.map { CChar(bitPattern: $0) } + [0], O_WRONLY | O_CREAT, 0o644)
        let text = Array(#"[{"id": "a", "n": 1}]"#.utf8)
        _ = text.withUnsafeBytes { write(file, $0.baseAddress, $0.count) }
        close(file)
        let converted = try CostMeasurement.runChild(Tool.binary.path, rawArguments: [Array("convert".utf8), input, output,
                                                                                     Array("--collection".utf8), Array("c".utf8)])
        #expect(converted.status == 0, "\(converted.stderr)")
        var status = stat()
        #expect(stat(output.map { CChar(bitPattern: $0) } + [0], &status) == 0)
        // Messages show the undecodable byte escaped.
        let missing = Array(directory.path.utf8) + Array("/gone".utf8) + [0xFF] + Array(".json".utf8)
        let failed = try CostMeasurement.runChild(Tool.binary.path, rawArguments: [Array("validate".utf8), missing])
        #expect(failed.status == 1 && failed.stderr.contains("gone\\xff.json"), "\(failed.stderr)")
    }

    @Test func staleTemporaryFilesOfKilledRunsAreRemovedAndNamed() throws {
        // A process ID that is not running: the first one above this process's that kill(2) does not find.
        var dead = getpid() + 1_000
        while kill(dead, 0) == 0 || errno != ESRCH { dead += 1 }
        let stale = path(".out.fpks.fp\(dead)-AbC123.partial")
        try Data("partial".utf8).write(to: URL(fileURLWithPath: stale))
        // One of a process that still runs (this one) is left alone.
        let live = path(".out.fpks.fp\(getpid())-XyZ789.partial")
        try Data("live".utf8).write(to: URL(fileURLWithPath: live))
        // One whose number is no process here but which is held locked — a live run in another PID namespace (a
        // container sharing the folder) or on another host — is left alone too.
        var elsewhere = dead + 1
        while kill(elsewhere, 0) == 0 || errno != ESRCH { elsewhere += 1 }
        let locked = path(".out.fpks.fp\(elsewhere)-Lck456.partial")
        try Data("written elsewhere".utf8).write(to: URL(fileURLWithPath: locked))
        let holder = open(locked, O_RDONLY)
        #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
        defer { close(holder) }
        let result = try Tool.run(["convert", books, path("out.fpks")] + naming)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale) && result.stderr.contains(".out.fpks.fp\(dead)-AbC123.partial"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(FileManager.default.fileExists(atPath: locked) && !result.stderr.contains("Lck456"), "\(result.stderr)")
    }
}
