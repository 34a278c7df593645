import ArgumentParser
import FirePack

/// `firepack convert IN OUT`: converts one value between formats.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a value between FirePack and JSON.",
        discussion: """
            Examples:
              firepack convert Fixtures/books.json books.fpk
              firepack convert books.fpk - --to json --pretty
              cat books.json | firepack convert - - --from json --to fpk > books.fpk
            """
    )

    @Argument(help: "The input file, or - for standard input.")
    var input: String

    @Argument(help: "The output file, or - for standard output.")
    var output: String

    @Option(help: "The input format (default: from the input's extension).")
    var from: FileFormat?

    @Option(help: "The output format (default: from the output's extension).")
    var to: FileFormat?

    @Flag(help: "Sorted keys: equal values give identical bytes.")
    var deterministic = false

    @Flag(help: "Indented JSON output.")
    var pretty = false

    @Flag(help: "Plain, lossy JSON (RFC 3339 strings, {latitude, longitude}, base64) instead of reversible markers.")
    var plain = false

    func run() throws {
        let inputFormat = try FileFormat.resolve(from, path: input, role: "input")
        let outputFormat = try FileFormat.resolve(to, path: output, role: "output")
        let value = try inputFormat.readValue(try FileHandleIO.read(input), file: input)
        try FileHandleIO.write(outputFormat.encode(value, deterministic: deterministic, pretty: pretty, plain: plain), to: output)
    }
}
