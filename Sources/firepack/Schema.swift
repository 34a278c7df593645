import ArgumentParser
import FirePack
import FirePackArrow

/// `firepack schema FILE…`: the Arrow columns the files become, with what was seen at every field path.
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Show the columns .fpks files become in Arrow, pandas, DuckDB and Spark, with the types seen per field.",
        discussion: """
            For every field path: the column type inferred, how many values of each type were seen, how many times \
            the field was absent, and why a field is kept as JSON text when its values disagree in type \
            (Docs/ARROW.md). What a user needs before choosing a schema.

            Examples:
              firepack schema Fixtures/books.fpks
              firepack schema export-*.fpks --sample 10000 --json
            """
    )

    @Argument(help: "The .fpks, .fpks.gz or .fpk files, profiled together.")
    var files: [String]

    @Option(help: "Profile only this many documents (default: all).")
    var sample: Int?

    @Flag(help: "Print the report as JSON.")
    var json = false

    @OptionGroup var streamLimits: StreamLimitOptions

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give at least one file") }
        if let sample, sample <= 0 { throw ValidationError("--sample must be positive") }
    }

    func run() throws {
        // The option reads streams' blocks: given for `.fpk` files only, it would be dropped without a word. (`-` is
        // not looked at here: it can be read once.)
        if streamLimits.maxBlockExpansion != nil {
            let streams = try files.filter { file in
                guard file != "-" else { return true }
                return try FormatSniffer.sniff(Files.source(file, gzip: false))?.1 == .fpks
            }
            if streams.isEmpty { try streamLimits.refuseUnlessStream(.fpk) }
        }
        let profile: DocumentProfile
        let lines: [FieldReport]
        do {
            // `-` is standard input, read once (`FirePackRecordSource` reads what is not a regular file so).
            profile = try DocumentProfile.of(
                paths: files.map { $0 == "-" ? "/dev/stdin" : $0 }, sample: sample,
                maxBlockExpansion: streamLimits.blockExpansion,
                maxKeyExpansion: streamLimits.readerLimits.maxKeyExpansion)
            lines = try profile.report()
        } catch let error as FirePackError {
            // The file at fault, when the message names it (every reader of a file does), else all of them.
            let named = files.first { error.message.hasPrefix("\($0 == "-" ? "/dev/stdin" : $0): ") }
            throw CommandFailure.data(named ?? files.joined(separator: ", "), error)
        }
        if json {
            try StandardStreams.printChecked(try profile.reportJSON())
        } else {
            var text = "\(files.joined(separator: ", ")): \(profile.documents) documents\n"
            let width = min(40, lines.map(\.path.count).max() ?? 0)
            for line in lines {
                let types = line.types.map { "\($0.type) \($0.count)" }.joined(separator: ", ")
                let absent = line.absent > 0 ? ", absent \(line.absent)" : ""
                let padded =
                    line.path.count < width
                    ? line.path + String(repeating: " ", count: width - line.path.count) : line.path
                text += "  \(padded)  \(line.column) — \(types)\(absent)\n"
                if let reason = line.exactReason { text += "  \(String(repeating: " ", count: width))  ↳ \(reason)\n" }
            }
            try StandardStreams.printChecked(String(text.dropLast()))
        }
        for (path, records) in profile.notClosed {
            StandardStreams.writeError(
                "firepack: warning: \(path == "/dev/stdin" ? "-" : path) was not closed after record \(records) (interrupted or still being written); profiled what it holds\n"
            )
        }
        if profile.problemCount > 0 {
            let summary = problemSummary(
                profile.problemCount, missingPlaces: profile.missingRecordPlaces,
                pastExpansion: profile.blocksPastExpansion, records: (profile.documents, profile.closedRecords))
            let advice =
                expansionAdvice((profile.blocksPastExpansion, profile.blockExpansionNeeded))
                ?? "firepack validate says which and why"
            throw CommandFailure(
                message:
                    "\(profile.pathsWithProblems.joined(separator: ", ")): \(summary), left out of this profile; \(advice)"
            )
        }
    }
}
