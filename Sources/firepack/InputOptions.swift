import ArgumentParser
import FirePackStreams

/// The input file argument and `--from`, shared by the subcommands that read one file.
struct InputOptions: ParsableArguments {
    @Argument(help: "The file to read, or - for standard input.")
    var file: String

    @Option(help: "The input format (default: from the file's name, else its first bytes); add .gz for gzip.")
    var from: FormatChoice?

    @OptionGroup var streamLimits: StreamLimitOptions

    /// The format and whether the file is gzip-compressed: from `--from`, the name, or the input's magic bytes. The
    /// bytes read to tell are kept with the source they came from (`Files.keep`), so that an input read once — a
    /// pipe, `<(…)`, standard input — is read whole by the command, not opened again past them.
    func format() throws -> (FileFormat, gzip: Bool) {
        if let resolved = FileFormat.resolveInput(from, path: file) {
            try streamLimits.refuseUnlessStream(resolved.0)
            return resolved
        }
        if let (restored, format, gzip) = try FormatSniffer.sniff(Files.source(file, gzip: false)) {
            Files.keep(restored, for: file, gzip: gzip)
            try streamLimits.refuseUnlessStream(format)
            return (format, gzip)
        }
        throw FileFormat.unknownFormat(path: file, role: "input")
    }
}
