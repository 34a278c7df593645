import ArgumentParser
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

    /// Whether the format holds a sequence of documents rather than one value.
    var isStream: Bool { self != .fpk && self != .json }

    /// The format a file name's extensions name (`books.fpks.gz` is fpks, gzip), if any.
    static func inferred(from path: String) -> (FileFormat, gzip: Bool)? {
        var name = path.lowercased()
        let gzip = name.hasSuffix(".gz")
        if gzip { name.removeLast(3) }
        let table: [(String, FileFormat)] = [(".firestore.json", .firestoreJSON), (".firestore.jsonl", .firestoreJSON), (".fpks", .fpks),
                                            (".fpk", .fpk), (".jsonl", .jsonl), (".ndjson", .jsonl), (".json", .json),
                                            (".pb", .firestoreProto), (".binpb", .firestoreProto)]
        for (suffix, format) in table where name.hasSuffix(suffix) { return (format, gzip) }
        return nil
    }

    /// The explicit format (gzip still from a `.gz` name), else the one the name says; a usage error when neither.
    static func resolve(_ explicit: FileFormat?, path: String, role: String) throws -> (FileFormat, gzip: Bool) {
        let gzip = path.lowercased().hasSuffix(".gz")
        if let explicit { return (explicit, gzip) }
        if let inferred = inferred(from: path) { return inferred }
        let option = role == "input" ? "--from" : "--to"
        throw CommandFailure.usage("cannot tell the format of \(role) '\(path)' from its name; use \(option) \(allCases.map(\.rawValue).joined(separator: "|"))")
    }
}

extension FileFormat {
    /// Decodes a whole single-value file (fpk or json).
    func readValue(_ bytes: [UInt8], file: String, limits: ReaderLimits = .default) throws -> Value {
        let result: Result<Value, FirePackError>
        switch self {
        case .json:
            result = Result { () throws(FirePackError) in try Value(json: bytes, options: JSONOptions(maxDepth: limits.maxDepth)) }
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

    /// Encodes a value as a whole single-value file (fpk, or json for every other format).
    func encode(_ value: Value, deterministic: Bool, pretty: Bool, plain: Bool) -> [UInt8] {
        if self == .fpk {
            let writer = FirePackWriter(options: .init(deterministic: deterministic))
            writer.writeFileHeader()
            writer.write(value)
            return writer.takeBytes()
        }
        var text = value.jsonBytes(options: JSONOptions(form: plain ? .plain : .reversible, pretty: pretty, sortedKeys: deterministic))
        text.append(0x0A)
        return text
    }
}

/// Opens inputs and outputs, with `-` for standard input and output and `.gz` decompression and compression.
enum Files {
    static func source(_ path: String, gzip: Bool) throws -> ByteSource {
        let raw: ByteSource
        do { raw = path == "-" ? FileSource(descriptor: 0) : try FileSource(path: path) } catch let error as FirePackError {
            throw CommandFailure(message: error.message)
        }
        return gzip ? try GzipSource(raw) : raw
    }

    /// Standard output, or a file written all or nothing (`AtomicFileSink`): the destination changes only when the
    /// returned sink's `finish()` succeeds; an error, an interruption or a sink released unfinished leaves it as it
    /// was. The temporary file is created now, so an unwritable destination is reported before any work.
    static func sink(_ path: String, gzip: Bool) throws -> ByteSink {
        let raw: ByteSink
        do { raw = path == "-" ? FileSink(descriptor: 1) : try AtomicFileSink(destination: path) } catch let error as FirePackError {
            throw CommandFailure(message: error.message)
        }
        return gzip ? try GzipSink(raw) : raw
    }

    /// Refuses (a usage error) to write `output` when it is `input` — the same path or the same file by device and
    /// inode — unless `inPlace` allows it; checked before anything is opened for writing. With `inPlace` the input
    /// is replaced only once the new contents are complete, as every output is.
    static func refuseOverwriting(input: String, with output: String, option: String, inPlace: Bool) throws {
        guard !inPlace, input != "-", output != "-" else { return }
        var inputStatus = stat(), outputStatus = stat()
        let sameFile = stat(input, &inputStatus) == 0 && stat(output, &outputStatus) == 0
            && inputStatus.st_dev == outputStatus.st_dev && inputStatus.st_ino == outputStatus.st_ino
        guard sameFile || URL(fileURLWithPath: input).standardized.path == URL(fileURLWithPath: output).standardized.path else { return }
        throw CommandFailure.usage("\(option) '\(output)' is the input file: refusing to write over it (add --in-place to replace it safely once the new contents are complete)")
    }

    /// The size of a regular file, for progress; nil for pipes and standard input.
    static func size(_ path: String) -> Int? {
        guard path != "-", let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }
}

/// Reads a source line by line (JSON lines), holding one line at a time.
final class LineReader {
    let source: ByteSource
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    var start = 0, end = 0
    var ended = false
    let maxLineLength: Int
    /// The 1-based number of the last line returned.
    private(set) var lineNumber = 0

    init(_ source: ByteSource, maxLineLength: Int = 256 << 20) {
        self.source = source
        self.maxLineLength = maxLineLength
    }

    /// The next line without its newline, or nil at the end.
    func next() throws -> ArraySlice<UInt8>? {
        var scanFrom = start
        while true {
            if let newline = buffer[scanFrom..<end].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                start = newline + 1
                lineNumber += 1
                return line.last == 0x0D ? line.dropLast() : line
            }
            if ended {
                guard start < end else { return nil }
                let line = buffer[start..<end]
                start = end
                lineNumber += 1
                return line
            }
            // Move the partial line to the front, grow if needed, read more.
            if start > 0 {
                buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
                end -= start
                start = 0
            }
            scanFrom = end
            if end == buffer.count {
                guard buffer.count < maxLineLength else { throw FirePackError(.limitExceeded, "line \(lineNumber + 1) is longer than \(maxLineLength) bytes") }
                buffer += [UInt8](repeating: 0, count: buffer.count)
            }
            let count = try buffer.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[end...])) }
            if count == 0 { ended = true } else { end += count }
        }
    }
}

/// Counts the bytes that pass through a source (for the progress bar).
final class CountingSource: ByteSource {
    let upstream: ByteSource
    private(set) var count = 0
    init(_ upstream: ByteSource) { self.upstream = upstream }
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let read = try upstream.read(into: buffer)
        count += read
        return read
    }
}
