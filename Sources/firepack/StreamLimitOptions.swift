import ArgumentParser
import FirePackStreams

/// `--max-block-expansion`, for the subcommands that read `.fpks` streams.
struct StreamLimitOptions: ParsableArguments {
    @Option(
        help: """
            fpks input: the bytes a version-3 block may unpack into per byte of it in the stream (default 1024). \
            Raise it to read the blocks refused as past it (limitExceeded; the message says how much they need), as \
            in a stream that FirePack wrote before 2026-12-02 holding megabytes of one value repeated.
            """)
    var maxBlockExpansion: Int?

    /// The limit for the readers: the option's, else the default (Docs/FORMAT.md §8, "Expansion").
    var blockExpansion: Int { maxBlockExpansion ?? DocumentStreamFormat.maxBlockExpansion }

    func validate() throws {
        if let maxBlockExpansion, maxBlockExpansion < 1 {
            throw ValidationError("--max-block-expansion takes 1 or more, not \(maxBlockExpansion)")
        }
    }

    /// Refuses (a usage error) the option for an input that is not a stream: it would be dropped without a word.
    func refuseUnlessStream(_ format: FileFormat) throws {
        guard maxBlockExpansion != nil, format != .fpks else { return }
        throw CommandFailure.usage("--max-block-expansion applies to fpks input, not \(format.rawValue)")
    }
}
