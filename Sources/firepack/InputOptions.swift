import ArgumentParser

/// The input file and its format, shared by the subcommands that read one file.
struct InputOptions: ParsableArguments {
    @Argument(help: "The file to read, or - for standard input.")
    var file: String

    @Option(help: "The input format (default: from the file's name).")
    var from: FileFormat?

    /// The format and whether the file is gzip-compressed.
    func format() throws -> (FileFormat, gzip: Bool) {
        try FileFormat.resolve(from, path: file, role: "input")
    }
}
