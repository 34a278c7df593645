import ArgumentParser
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// The file formats the tool reads and writes (each optionally gzip-compressed, `.gz`).
enum FileFormat: String, ExpressibleByArgument, CaseIterable {
    /// One FirePack value with the `.fpk` header.
    case fpk
    /// A FirePack document stream.
    case fpks
    /// One JSON value (reversible markers for Firestore types).
    case json
    /// One JSON value per line.
    case jsonl
    /// Firestore REST typed JSON: one Document per line.
    case firestoreJSON = "firestore-json"
    /// Firestore protobuf Documents: one message, or varint-length-delimited messages for a stream.
    case firestoreProto = "firestore-proto"
    /// A Firestore managed export (read only): its folder, metadata file or `output-N` files of Datastore entities.
    case firestoreExport = "firestore-export"

    /// Whether the format holds a sequence of documents rather than one value.
    var isStream: Bool { self != .fpk && self != .json }

    /// The format a file name's extensions name (`books.fpks.gz` is fpks, gzip), if any.
    static func inferred(from path: String) -> (FileFormat, gzip: Bool)? {
        var name = path.lowercased()
        let gzip = name.hasSuffix(".gz")
        if gzip { name.removeLast(3) }
        let table: [(String, FileFormat)] = [
            (".firestore.json", .firestoreJSON), (".firestore.jsonl", .firestoreJSON), (".fpks", .fpks),
            (".fpk", .fpk), (".jsonl", .jsonl), (".ndjson", .jsonl), (".json", .json),
            (".pb", .firestoreProto), (".binpb", .firestoreProto)
        ]
        for (suffix, format) in table where name.hasSuffix(suffix) { return (format, gzip) }
        return nil
    }

    /// The explicit format (gzip from it or from a `.gz` name), else the one the name says; nil when neither (an
    /// input's magic bytes may still tell, `FormatSniffer`).
    static func resolve(_ explicit: FormatChoice?, path: String) -> (FileFormat, gzip: Bool)? {
        let gzip = path.lowercased().hasSuffix(".gz")
        if let explicit { return (explicit.format, explicit.gzip || gzip) }
        return inferred(from: path)
    }

    /// An input's format: `resolve`, or a Firestore managed export when the path has an export's shape (a folder, a
    /// metadata file, an `output-N` file).
    static func resolveInput(_ explicit: FormatChoice?, path: String) -> (FileFormat, gzip: Bool)? {
        if explicit == nil && FirestoreExportInput.namesExport(path) { return (.firestoreExport, false) }
        return resolve(explicit, path: path)
    }

    /// `resolve`, or a usage error naming the option to use.
    static func resolve(_ explicit: FormatChoice?, path: String, role: String) throws -> (FileFormat, gzip: Bool) {
        if let resolved = resolve(explicit, path: path) { return resolved }
        throw unknownFormat(path: path, role: role)
    }

    static func unknownFormat(path: String, role: String) -> CommandFailure {
        let option = role == "input" ? "--from" : "--to"
        let what = path == "-" ? (role == "input" ? "standard input" : "standard output") : "\(role) '\(path)'"
        return CommandFailure.usage(
            "cannot tell the format of \(what)\(role == "input" ? " from its name or first bytes" : " from its name"); use \(option) \(allCases.filter { role == "input" || $0 != .firestoreExport }.map(\.rawValue).joined(separator: "|")) (add .gz for gzip)"
        )
    }
}

/// A `--from`/`--to` value: a format name, optionally with `.gz` (`jsonl.gz`) for gzip through pipes.
struct FormatChoice: ExpressibleByArgument {
    var format: FileFormat
    var gzip: Bool

    init?(argument: String) {
        let gzip = argument.hasSuffix(".gz")
        guard let format = FileFormat(rawValue: gzip ? String(argument.dropLast(3)) : argument) else { return nil }
        // An export is a folder of files read as they are: `firestore-export.gz` names nothing to decompress.
        if format == .firestoreExport && gzip { return nil }
        self.format = format
        self.gzip = gzip
    }

    static var allValueStrings: [String] { FileFormat.allCases.map(\.rawValue) }
}

/// Tells an input's format from its first bytes when neither its name nor `--from` does: gzip (`1F 8B`, then the
/// bytes inside), fpk (`89 46 50 4B`) and fpks (`89 46 50 53`).
enum FormatSniffer {
    /// The source, with what was peeked put back, and its format; nil when the bytes do not say.
    static func sniff(_ source: ByteSource) throws -> (ByteSource, FileFormat, gzip: Bool)? {
        let (peeked, restored) = try peek(source, count: 4)
        if peeked.starts(with: [0x1F, 0x8B]) {
            let inner = try GzipSource(restored)
            let (innerPeeked, innerRestored) = try peek(inner, count: 4)
            guard let format = magic(innerPeeked) else { return nil }
            return (innerRestored, format, true)
        }
        return magic(peeked).map { (restored, $0, false) }
    }

    static func magic(_ bytes: [UInt8]) -> FileFormat? {
        if bytes.starts(with: [0x89, 0x46, 0x50, 0x4B]) { return .fpk }
        if bytes.starts(with: [0x89, 0x46, 0x50, 0x53]) { return .fpks }
        return nil
    }

    /// The first `count` bytes (fewer at the end) and a source that reads them again, then the rest.
    static func peek(_ source: ByteSource, count: Int) throws -> ([UInt8], ByteSource) {
        let bytes = try readPrefix(source, count: count)
        return (bytes, PrefixedSource(bytes, then: source))
    }
}

extension FileFormat {
    /// Decodes a whole single-value file (fpk or json); JSON errors also give the line and column.
    func readValue(
        _ bytes: [UInt8], file: String, limits: ReaderLimits = .default,
        largeIntegers: JSONOptions.LargeIntegers = .reject
    ) throws -> Value {
        let result: Result<Value, FirePackError>
        switch self {
        case .json:
            result = Result { () throws(FirePackError) in
                do throws(FirePackError) {
                    return try Value(
                        json: bytes, options: JSONOptions(maxDepth: limits.maxDepth, largeIntegers: largeIntegers))
                } catch {
                    guard let offset = error.offset else { throw error }
                    throw FirePackError(
                        error.code, offset: offset, "\(TextPosition.describe(offset, in: bytes)): \(error.message)",
                        path: error.path)
                }
            }
        default:
            result = bytes.withUnsafeBytes { raw in
                Result { () throws(FirePackError) in
                    var reader = try FirePackReader(fileBytes: raw, limits: limits)
                    return try reader.readValue()
                }
            }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw CommandFailure.data(file, error)
        }
    }

    /// Encodes a value as a whole single-value file (fpk, in format version `fpkVersion`, or json for every other
    /// format).
    func encode(_ value: Value, deterministic: Bool, pretty: Bool, plain: Bool, fpkVersion: Int = 3) throws -> [UInt8] {
        if self == .fpk {
            let writer = FirePackWriter(options: .init(deterministic: deterministic, formatVersion: fpkVersion))
            writer.writeFileHeader()
            writer.write(value)
            // What readers would refuse (nested past the depth limit, past the input limit) is not written.
            if let violation = writer.limitViolation { throw CommandFailure(message: "not written: \(violation)") }
            return writer.takeBytes()
        }
        // At most what the tool reads back as one JSON value (`readAll`'s 2 GiB): keys that the input repeats by
        // reference could otherwise make the text thousands of times the input.
        var text = try value.jsonBytes(
            options: JSONOptions(form: plain ? .plain : .reversible, pretty: pretty, sortedKeys: deterministic),
            maxLength: JSONTextLimits.value, what: "the value")
        text.append(0x0A)
        return text
    }
}

/// Opens inputs and outputs, with `-` for standard input and output and `.gz` decompression and compression.
enum Files {
    /// The bytes of the input `path`; none for a format whose reader opens its own files (a managed export's
    /// folder: `FirestoreExportInput`).
    static func source(_ path: String, gzip: Bool, format: FileFormat?) throws -> ByteSource {
        format == .firestoreExport ? EmptySource() : try source(path, gzip: gzip)
    }

    /// A source already opened to tell its format (`InputOptions.format()`), its first bytes put back, handed to
    /// the next `source(path, gzip:)` of the same input instead of opening it again. One command reads one input,
    /// on one thread.
    nonisolated(unsafe) private static var kept: (path: String, gzip: Bool, source: ByteSource)?

    /// Keeps `source` (decompressed when `gzip`) for the next `source(path, gzip:)`.
    static func keep(_ source: ByteSource, for path: String, gzip: Bool) { kept = (path, gzip, source) }

    /// Lets go of a kept source (and its descriptor) that a command reads otherwise (a regular file by its index).
    static func discardKept() { kept = nil }

    static func source(_ path: String, gzip: Bool) throws -> ByteSource {
        if let kept, kept.path == path, kept.gzip == gzip {
            Self.kept = nil
            return kept.source
        }
        let raw: ByteSource
        do { raw = path == "-" ? FileSource(descriptor: 0) : try FileSource(path: path) } catch let error
            as FirePackError
        {
            throw CommandFailure(message: error.message)
        }
        return gzip ? try GzipSource(raw) : raw
    }

    /// Where output goes (`OutputFile`): standard output, a descriptor, a device or a pipe written in place; a
    /// regular file (through a symbolic link, its target) written all or nothing — it changes only when the returned
    /// sink's `finish()` succeeds; an error, an interruption or a sink released unfinished leaves it as it was. The
    /// temporary file is created now, so an unwritable destination is reported before any work; temporary files that
    /// earlier, killed runs left beside it are removed and named.
    static func sink(_ path: String, gzip: Bool) throws -> ByteSink {
        let raw: ByteSink
        do {
            if !OutputFile.isWrittenInPlace(path) {
                for stale in AtomicFileSink.removeStaleTemporaryFiles(besides: path) {
                    StandardStreams.writeError(
                        "firepack: removed \(stale), a temporary file left by an earlier run that was killed\n")
                }
            }
            raw = NamingSink(path, try OutputFile.sink(atPath: path))
        } catch let error as FirePackError {
            throw CommandFailure(message: error.message)
        }
        return gzip ? try GzipSink(raw) : raw
    }

    /// Refuses (a usage error) to write `output` when it is `input` — the same path or the same file by device and
    /// inode, a symbolic link to it included — unless `inPlace` allows it; checked before anything is opened for
    /// writing. With `inPlace` the input is replaced only once the new contents are complete, as every output is.
    static func refuseOverwriting(
        input: String, with output: String, option: String, inPlace: Bool, offersInPlace: Bool = true
    ) throws {
        if output == "-" { return try refuseWritingStandardOutput(into: input) }
        guard input != "-" else {
            // Standard input may be the output file itself (`< out.fpks`): compared by what it is open on.
            var inputStatus = stat(), outputStatus = stat()
            guard !inPlace, fstat(STDIN_FILENO, &inputStatus) == 0, inputStatus.st_mode & S_IFMT == S_IFREG,
                stat(SystemPath.bytes(output), &outputStatus) == 0, inputStatus.st_dev == outputStatus.st_dev,
                inputStatus.st_ino == outputStatus.st_ino
            else { return }
            let advice =
                offersInPlace ? " (add --in-place to replace it safely once the new contents are complete)" : ""
            throw CommandFailure.usage(
                "\(option) '\(output)' is the file standard input reads: refusing to write over it\(advice)")
        }
        // A Firestore export's files — its output-N data and its metadata, which an import needs — are never
        // written over while any part of it is read (its folder, a metadata file, one output-N file), --in-place or
        // not: --in-place names one file to replace, not an export.
        if let file = exportFiles(around: input).first(where: { isSameFile($0, output) }) {
            throw CommandFailure.usage(
                "\(option) '\(output)' is \(file), a file of the export being read: refusing to write over it")
        }
        guard !inPlace, isSameFile(input, output) else { return }
        let advice = offersInPlace ? " (add --in-place to replace it safely once the new contents are complete)" : ""
        throw CommandFailure.usage("\(option) '\(output)' is the input file: refusing to write over it\(advice)")
    }

    /// The data and metadata files of the Firestore export `input` is part of: the export's folder or one of its
    /// kind folders, a metadata file, or an `output-N` file, below a folder holding a metadata file (up to four levels
    /// up: the nearest folder with an `.overall_export_metadata`, else the nearest with a kind's `.export_metadata`);
    /// none when `input` is none of these. Relative paths are made absolute first, so that the folders above the
    /// current one are looked at too.
    static func exportFiles(around input: String) -> [String] {
        let path = URL(fileURLWithPath: input).standardized.path
        let name = (path as NSString).lastPathComponent
        let isFolder = SystemPath.fileType(path) == mode_t(S_IFDIR)
        // A folder read as an export is one, metadata or not.
        var root: String? = isFolder ? path : nil
        if isFolder || name.hasSuffix("export_metadata") || FirestoreExportInput.outputNumber(name) != nil {
            var folder = isFolder ? path : (path as NSString).deletingLastPathComponent
            var kindFolder: String?
            for _ in 0..<5 where folder.hasPrefix("/") {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                if names.contains(where: { $0.hasSuffix("overall_export_metadata") }) {
                    root = folder
                    kindFolder = nil
                    break
                }
                if kindFolder == nil, names.contains(where: { $0.hasSuffix("export_metadata") }) { kindFolder = folder }
                guard folder != "/" else { break }
                folder = (folder as NSString).deletingLastPathComponent
            }
            if let kindFolder, root == nil || kindFolder.count < root!.count { root = kindFolder }
        }
        guard let root, let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let relative = walker.nextObject() as? String {
            let last = (relative as NSString).lastPathComponent
            guard last.hasSuffix("export_metadata") || FirestoreExportInput.outputNumber(last) != nil else { continue }
            files.append((root as NSString).appendingPathComponent(relative))
        }
        // Above an output-N file, a folder with no metadata file is no export: only the input itself is then
        // protected (below). A folder read as an export is one, metadata or not.
        return isFolder || files.contains(where: { $0.hasSuffix("export_metadata") }) ? files : []
    }

    /// Whether `output` names the regular file `input` is (by device and inode: links and other spellings too), or
    /// the same path.
    static func isSameFile(_ input: String, _ output: String) -> Bool {
        var inputStatus = stat(), outputStatus = stat()
        let sameFile =
            stat(SystemPath.bytes(input), &inputStatus) == 0 && stat(SystemPath.bytes(output), &outputStatus) == 0
            && inputStatus.st_dev == outputStatus.st_dev && inputStatus.st_ino == outputStatus.st_ino
            && inputStatus.st_mode & S_IFMT == S_IFREG
        return sameFile
            || URL(fileURLWithPath: input).standardized.path == URL(fileURLWithPath: output).standardized.path
    }

    /// Refuses (a usage error) to write to standard output when it is the input file — `firepack convert in.jsonl -
    /// >> in.jsonl` reads what it writes and never ends; `1<> in.fpks` writes over what it has not read — as `cat`
    /// refuses it. Standard input is compared too, when it is the input.
    static func refuseWritingStandardOutput(into input: String) throws {
        var inputStatus = stat(), outputStatus = stat()
        let inputKnown =
            input == "-" ? fstat(STDIN_FILENO, &inputStatus) == 0 : stat(SystemPath.bytes(input), &inputStatus) == 0
        guard inputKnown, fstat(STDOUT_FILENO, &outputStatus) == 0, inputStatus.st_mode & S_IFMT == S_IFREG,
            inputStatus.st_dev == outputStatus.st_dev, inputStatus.st_ino == outputStatus.st_ino
        else { return }
        throw CommandFailure.usage(
            "standard output is the input file\(input == "-" ? "" : " '\(input)'"): refusing to write into what is being read"
        )
    }

    /// The size of a regular file, for progress; nil for pipes and standard input.
    static func size(_ path: String) -> Int? {
        var status = stat()
        guard path != "-", stat(SystemPath.bytes(path), &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return nil
        }
        return Int(status.st_size)
    }
}

/// Names the output in its write errors: `out.fpks: cannot write: No space left on device`, not the input's name.
final class NamingSink: ByteSink {
    let path: String
    let downstream: ByteSink
    init(_ path: String, _ downstream: ByteSink) { (self.path, self.downstream) = (path, downstream) }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        do { try downstream.write(bytes) } catch let error as FirePackError { throw failure(error) }
    }
    func finish() throws {
        do { try downstream.finish() } catch let error as FirePackError { throw failure(error) }
    }
    private func failure(_ error: FirePackError) -> CommandFailure {
        let name = path == "-" ? "standard output" : path
        return CommandFailure(
            message: error.message.hasPrefix(path + ":") ? error.message : "\(name): \(error.message)",
            // A close that failed after the rename: the file was written, and says so.
            isWriteFailure: !error.message.contains(AtomicFileSink.replacedButNotClosed))
    }
}

/// Counts the bytes that pass through a source (for the progress bar).
final class CountingSource: ByteSource {
    let upstream: ByteSource
    private(set) var count = 0
    init(_ upstream: ByteSource) { self.upstream = upstream }
    var readsWithoutWaiting: Bool { upstream.readsWithoutWaiting }
    var wholeFile: FileSource? { upstream.wholeFile }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let read = try upstream.read(into: buffer)
        count += read
        return read
    }
}

/// Counts the bytes that pass through a sink (for the summary line), or that would (without a downstream).
final class CountingSink: ByteSink {
    let downstream: ByteSink?
    private(set) var count = 0
    init(_ downstream: ByteSink? = nil) { self.downstream = downstream }
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try downstream?.write(bytes)
        count += bytes.count
    }
    func finish() throws { try downstream?.finish() }
}
