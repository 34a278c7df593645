import ArgumentParser
import FirePack
import FirePackInterop
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `firepack inspect FILE`: a readable, typed tree of a value, or one field of it.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a readable, typed tree of a FirePack or JSON file.",
        discussion: """
            Examples:
              firepack inspect books.fpk
              firepack inspect books.fpk --path 'books[3].cover.small'
              firepack inspect books.fpk --offsets
            """
    )

    @Argument(help: "The file to inspect, or - for standard input.")
    var file: String

    @Option(help: "The input format (default: from the file's extension).")
    var from: FileFormat?

    @Option(help: "Print only this field, e.g. 'books[3].cover.small' (read without decoding the rest).")
    var path: String?

    @Flag(help: "Show each value's byte offset and tag (FirePack input).")
    var offsets = false

    func run() throws {
        let (format, gzip) = try FileFormat.resolve(from, path: file, role: "input")
        var bytes = try FileHandleIO.read(file, gzip: gzip)
        if format == .json {
            // JSON is converted first, so offsets and lookups refer to the FirePack encoding of it.
            let value = try format.readValue(bytes, file: file)
            bytes = FileFormat.fpk.encode(value, deterministic: false, pretty: false, plain: false)
        }
        try bytes.withUnsafeBytes { raw in
            do {
                let reader = try FirePackReader(fileBytes: raw)
                var view = reader.root
                if let path {
                    guard let found = try view.lookup(path) else {
                        throw CommandFailure(message: "\(file): no field at path '\(path)'")
                    }
                    view = found
                }
                var printer = TreePrinter(showOffsets: offsets)
                try printer.print(view, label: nil, indent: 0)
                FileHandleIO.print(String(printer.output.dropLast()))
            } catch let error as FirePackError {
                throw CommandFailure.data(file, error)
            }
        }
    }
}

/// Renders a value view as an indented, typed tree, decoding each scalar as it goes.
struct TreePrinter {
    let showOffsets: Bool
    var output = ""

    mutating func print(_ view: ValueView, label: String?, indent: Int) throws {
        var line = String(repeating: "  ", count: indent)
        if showOffsets { line += "@\(view.offset) " }
        if let label { line += label + ": " }
        guard let type = view.type else {
            output += line + "extension value (\(view.byteCount) bytes)\n"
            return
        }
        switch type {
        case .array:
            output += line + "array (\(try view.count()))\n"
            var index = 0
            try view.forEachElement { element in
                try print(element, label: "[\(index)]", indent: indent + 1)
                index += 1
            }
            return
        case .map:
            output += line + "map (\(try view.count()))\n"
            try view.forEachEntry { key, value in try print(value, label: key.string, indent: indent + 1) }
            return
        case .null: line += "null"
        case .boolean: line += "boolean \(try view.boolean())"
        case .integer: line += "integer \(try view.integer())"
        case .double: line += "double \(try view.double())"
        case .timestamp: line += "timestamp \(try view.timestamp().rfc3339String)"
        case .string: line += "string \(try view.string().debugDescription)"
        case .bytes: line += "bytes (\(try view.bytes().count)) \(try view.bytes().data.base64EncodedString())"
        case .reference: line += "reference \(try view.reference().path)"
        case .geoPoint:
            let point = try view.geoPoint()
            line += "geopoint (\(point.latitude), \(point.longitude))"
        case .vector: line += "vector \(Array(try view.vector()))"
        case .serverTimestamp: line += "serverTimestamp"
        }
        output += line + "\n"
    }
}
