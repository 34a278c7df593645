import ArgumentParser
import FirePack
import FirePackStreams

/// `--max-block-expansion` and `--max-key-expansion`, for the subcommands that read FirePack files.
struct StreamLimitOptions: ParsableArguments {
    @Option(
        help: """
            fpks input: the bytes a version-3 block may unpack into per byte of it in the stream (default 1024). \
            Raise it to read the blocks refused as past it (limitExceeded; the message says how much they need), as \
            in a stream that FirePack wrote before 2026-12-02 holding megabytes of one value repeated.
            """)
    var maxBlockExpansion: Int?

    @Option(
        help: """
            fpk and fpks input: the bytes of keys longer than 32 bytes that key references may stand for, per byte \
            of a value (default 16; ReaderLimits.maxKeyExpansion). Raise it to read a value refused as past it \
            (limitExceeded), as one that a FirePack writer before 2026-12-05 filled with references to long keys.
            """)
    var maxKeyExpansion: Int?

    /// The limit for the readers: the option's, else the default (Docs/FORMAT.md §8, "Expansion").
    var blockExpansion: Int { maxBlockExpansion ?? DocumentStreamFormat.maxBlockExpansion }

    /// The readers' limits: the default ones, with `--max-key-expansion` when given (Docs/FORMAT.md §3, §6).
    var readerLimits: ReaderLimits {
        ReaderLimits(maxKeyExpansion: maxKeyExpansion ?? ReaderLimits.default.maxKeyExpansion)
    }

    func validate() throws {
        if let maxBlockExpansion, maxBlockExpansion < 1 {
            throw ValidationError("--max-block-expansion takes 1 or more, not \(maxBlockExpansion)")
        }
        if let maxKeyExpansion, maxKeyExpansion < 1 {
            throw ValidationError("--max-key-expansion takes 1 or more, not \(maxKeyExpansion)")
        }
    }

    /// Refuses (a usage error) an option for an input it does not apply to: it would be dropped without a word.
    func refuseUnlessStream(_ format: FileFormat) throws {
        if maxKeyExpansion != nil && format != .fpk && format != .fpks {
            throw CommandFailure.usage("--max-key-expansion applies to fpk and fpks input, not \(format.rawValue)")
        }
        guard maxBlockExpansion != nil, format != .fpks else { return }
        throw CommandFailure.usage("--max-block-expansion applies to fpks input, not \(format.rawValue)")
    }
}
