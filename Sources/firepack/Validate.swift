import ArgumentParser
import FirePack

/// `firepack validate FILE`: checks every byte of a file.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check structure, UTF-8 and reader limits; exit 0 when valid, 1 when not.",
        discussion: """
            Examples:
              firepack validate books.fpk
              firepack validate export.json --max-depth 20
            """
    )

    @Argument(help: "The file to validate, or - for standard input.")
    var file: String

    @Option(help: "The input format (default: from the file's extension).")
    var from: FileFormat?

    @Option(help: "Maximum container nesting depth.")
    var maxDepth = ReaderLimits.default.maxDepth

    func run() throws {
        let (format, gzip) = try FileFormat.resolve(from, path: file, role: "input")
        let bytes = try FileHandleIO.read(file, gzip: gzip)
        let value = try format.readValue(bytes, file: file, limits: ReaderLimits(maxDepth: maxDepth))
        FileHandleIO.print("\(file): valid \(format.rawValue), \(bytes.count) bytes, root \(value.type)")
    }
}
