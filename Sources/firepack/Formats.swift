import ArgumentParser
import FirePack
import FirePackInterop
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file formats the tool reads and writes.
enum FileFormat: String, ExpressibleByArgument, CaseIterable {
    /// One FirePack value with the `.fpk` file header.
    case fpk
    /// One JSON value (reversible markers for Firestore types).
    case json

    /// The format a path's extension names, if any.
    static func inferred(from path: String) -> FileFormat? {
        let lowered = path.lowercased()
        if lowered.hasSuffix(".fpk") { return .fpk }
        if lowered.hasSuffix(".json") { return .json }
        return nil
    }

    /// The explicit format, else the one the path's extension names; a usage error when neither says.
    static func resolve(_ explicit: FileFormat?, path: String, role: String) throws -> FileFormat {
        if let explicit { return explicit }
        if let inferred = inferred(from: path) { return inferred }
        throw CommandFailure.usage("cannot tell the format of \(role) '\(path)' from its name; use --\(role == "input" ? "from" : "to") \(allCases.map(\.rawValue).joined(separator: "|"))")
    }

    /// Decodes a whole file of this format into a value.
    func readValue(_ bytes: [UInt8], file: String, limits: ReaderLimits = .default) throws -> Value {
        let result: Result<Value, FirePackError>
        switch self {
        case .fpk:
            result = bytes.withUnsafeBytes { raw in
                Result { () throws(FirePackError) in
                    var reader = try FirePackReader(fileBytes: raw, limits: limits)
                    return try reader.readValue()
                }
            }
        case .json:
            result = Result { () throws(FirePackError) in try Value(json: bytes, options: JSONOptions(maxDepth: limits.maxDepth)) }
        }
        switch result {
        case .success(let value): return value
        case .failure(let error): throw CommandFailure.data(file, error)
        }
    }

    /// Encodes a value as a whole file of this format.
    func encode(_ value: Value, deterministic: Bool, pretty: Bool, plain: Bool) -> [UInt8] {
        switch self {
        case .fpk:
            let writer = FirePackWriter(options: .init(deterministic: deterministic))
            writer.writeFileHeader()
            writer.write(value)
            return writer.takeBytes()
        case .json:
            var text = value.jsonBytes(options: JSONOptions(form: plain ? .plain : .reversible, pretty: pretty, sortedKeys: deterministic))
            text.append(0x0A)
            return text
        }
    }
}

/// Whole-file reads and writes, with `-` for standard input and output.
enum FileHandleIO {
    static func read(_ path: String) throws -> [UInt8] {
        if path == "-" { return readAll(from: 0, name: "standard input") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure(message: "\(path): cannot read the file (missing or unreadable)")
        }
        return [UInt8](data)
    }

    static func readAll(from descriptor: Int32, name: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return bytes
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        if path == "-" {
            try writeAll(bytes, to: 1)
            return
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw CommandFailure(message: "\(path): cannot write the file")
        }
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw CommandFailure(message: "writing failed: errno \(errno)")
            }
            offset += written
        }
    }

    static func writeError(_ text: String) {
        try? writeAll(Array(text.utf8), to: 2)
    }

    static func print(_ text: String) {
        try? writeAll(Array((text + "\n").utf8), to: 1)
    }
}
