import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// The documents of a Firestore managed export (`gcloud firestore export`): LevelDB log files named `output-N` of
/// Datastore `EntityProto` records (Docs/FIRESTORE-EXPORT.md). The input is the export's folder (every `output-N`
/// below it), its `.overall_export_metadata` or `.export_metadata` file (the folder it is in), or one `output-N` file.
///
/// Memory is one 32 KiB block and one record. Damaged framing is collected in `problems` (the conversion then fails,
/// naming each); an intact record that is not a Firestore document is an error naming the file, record and byte.
final class FirestoreExportInput: DocumentInput {
    /// The `output-N` files, in the order the export wrote them.
    let files: [String]
    let limits: ReaderLimits
    private var fileIndex = -1
    private var reader: LevelDBLogReader?
    /// Records of the files before this one: records are numbered from 0 across the export, as `validate`,
    /// `inspect` and `convert` count them.
    private var recordBase = 0
    private var collected: [String] = []
    private var collectedCount = 0

    init(path: String, limits: ReaderLimits = .default) throws {
        self.limits = limits
        files = try Self.outputFiles(at: path)
    }

    func next() throws -> Document? {
        while true {
            if let reader {
                if let record = try reader.next() {
                    do {
                        return try Document(datastoreEntity: record.payload, limits: limits)
                    } catch {
                        let inside = error.offset.map { " (at byte \($0) of the entity)" } ?? ""
                        let path = error.path.isEmpty ? "" : " at \(error.pathDescription)"
                        throw CommandFailure(
                            message:
                                "\(files[fileIndex]): record \(recordBase + record.number) at byte \(record.offset)\(path): \(error.message)\(inside)"
                        )
                    }
                }
                collect(reader)
            }
            fileIndex += 1
            guard fileIndex < files.count else { return nil }
            reader = LevelDBLogReader(source: try Files.source(files[fileIndex], gzip: false))
        }
    }

    /// A problem of the current file, numbered across the export.
    private func describe(_ problem: StreamProblem) -> String {
        "\(files[fileIndex]): record \(recordBase + problem.recordNumber) at byte \(problem.offset): \(problem.reason)"
    }

    /// Keeps a finished file's problems (at most `LevelDBLogReader.maxProblemsKept` lines in all), counting every one.
    private func collect(_ reader: LevelDBLogReader) {
        collectedCount += reader.problemCount
        var kept = 0
        for problem in reader.problems where collected.count < LevelDBLogReader.maxProblemsKept {
            collected.append(describe(problem))
            kept += 1
        }
        if reader.problemCount > kept {
            collected.append("\(files[fileIndex]): \(reader.problemCount - kept) more damaged chunk(s) not described")
        }
        recordBase += reader.recordsRead
        self.reader = nil
    }

    var problems: [String] {
        guard let reader else { return collected }
        return collected + reader.problems.map(describe)
    }

    var problemCount: Int { collectedCount + (reader?.problemCount ?? 0) }

    /// Whether a path names an export by its shape: a folder, a metadata file, or an `output-N` file.
    static func namesExport(_ path: String) -> Bool {
        guard path != "-" else { return false }
        let name = (path as NSString).lastPathComponent
        if name.hasSuffix(".overall_export_metadata") || name.hasSuffix(".export_metadata") || outputNumber(name) != nil
        {
            return true
        }
        return SystemPath.fileType(path) == S_IFDIR
    }

    /// The digits `N` of a file named `output-N` (any number of them), without leading zeros.
    static func outputNumber(_ name: String) -> Substring? {
        guard name.hasPrefix("output-") else { return nil }
        let digits = name.dropFirst("output-".count)
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return digits.drop(while: { $0 == "0" })
    }

    /// The `output-N` files an export path stands for, folder by folder in name order and by N within a folder.
    static func outputFiles(at path: String) throws -> [String] {
        let name = (path as NSString).lastPathComponent
        var folder = path
        if outputNumber(name) != nil && SystemPath.isRegularFile(path) { return [path] }
        if name.hasSuffix("export_metadata") { folder = (path as NSString).deletingLastPathComponent }
        if folder.isEmpty { folder = "." }
        guard let walker = FileManager.default.enumerator(atPath: folder) else {
            throw CommandFailure(message: "\(folder): cannot read this folder")
        }
        var found: [[String]] = [], unfinished: [String] = []
        while let relative = walker.nextObject() as? String {
            let components = relative.split(separator: "/").map(String.init)
            guard let last = components.last,
                SystemPath.isRegularFile((folder as NSString).appendingPathComponent(relative))
            else { continue }
            if outputNumber(last) != nil {
                found.append(components)
            } else if last.hasPrefix("output-") {
                unfinished.append((folder as NSString).appendingPathComponent(relative))
            }
        }
        if found.isEmpty { try refuseUnfinished(unfinished.sorted()) }
        guard !found.isEmpty else {
            throw CommandFailure(
                message: "\(folder): no output-N files in it or below it: not a Firestore managed export")
        }
        // Folders by name, then files by N (as numbers of any length); one order, whatever the names.
        func key(_ components: [String]) -> [String] {
            components.dropLast() + [
                outputNumber(components.last!).map { String(repeating: "0", count: max(0, 40 - $0.count)) + $0 } ?? ""
            ]
        }
        found.sort { key($0).lexicographicallyPrecedes(key($1)) }
        try checkNumbering(found, in: folder)
        try refuseUnfinished(unfinished.sorted())
        return found.map { (folder as NSString).appendingPathComponent($0.joined(separator: "/")) }
    }

    /// Refuses an export holding a file named like its data that is not an `output-N` file (`output-3_.gstmp`, which
    /// a download cut short leaves where `output-3` belongs, or `output-3.gz`): reading the export without it would
    /// leave its documents out without a word, and when it stands for the last file no gap in the numbering says so.
    static func refuseUnfinished(_ unfinished: [String]) throws {
        guard let first = unfinished.first else { return }
        let more = unfinished.count > 1 ? " (and \(unfinished.count - 1) more such file(s))" : ""
        throw CommandFailure(
            message: "\(first)\(more): named like an export's data but not an output-N file: a download cut short "
                + "leaves output-N_.gstmp where output-N belongs, and its documents would be left out; finish the "
                + "download, or move the file out of the export if it is whole without it")
    }

    /// Refuses an export whose `output-N` files, folder by folder, are not numbered 0, 1, 2 … without a gap: a file
    /// missing (a download cut short leaves `output-1_.gstmp`, not `output-1`) would otherwise be documents missing
    /// without a word. `found` is sorted as `outputFiles(at:)` sorts it.
    static func checkNumbering(_ found: [[String]], in folder: String) throws {
        var expected = 0
        var previousFolder: ArraySlice<String>?
        for components in found {
            let here = components.dropLast()
            if here != previousFolder { (expected, previousFolder) = (0, here) }
            let digits = outputNumber(components.last!)!
            guard (digits.isEmpty ? 0 : Int(digits)) == expected else {
                let place = (folder as NSString).appendingPathComponent(here.joined(separator: "/"))
                throw CommandFailure(
                    message: "\(place): output-\(expected) is missing (\(components.last!) is there): the files of an "
                        + "export are numbered from 0 without a gap, so this one is incomplete")
            }
            expected += 1
        }
    }
}

/// No bytes: what stands for the input of a format whose reader opens its own files (a managed export).
final class EmptySource: ByteSource {
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { 0 }
}
