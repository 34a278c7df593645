import ArgumentParser
import FirePackStreams

/// The input file argument and `--from`, shared by the subcommands that read one file.
struct InputOptions: ParsableArguments {
    @Argument(help: "The file to read, or - for standard input.")
    var file: String

    @Option(help: "The input format (default: from the file's name, else its first bytes); add .gz for gzip.")
    var from: FormatChoice?

    /// The format and whether the file is gzip-compressed: from `--from`, the name, or a file's magic bytes.
    func format() throws -> (FileFormat, gzip: Bool) {
        if let resolved = FileFormat.resolveInput(from, path: file) { return resolved }
        if file != "-", let (_, format, gzip) = try FormatSniffer.sniff(Files.source(file, gzip: false)) {
            return (format, gzip)
        }
        throw FileFormat.unknownFormat(path: file, role: "input")
    }
}
