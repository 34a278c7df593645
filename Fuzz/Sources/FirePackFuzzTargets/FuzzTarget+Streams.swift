import FirePack
import FirePackStreams

extension FuzzTarget {
    /// The `.fpks` reader in both error modes, as documents (each also decoded into a model). Skipping mode never throws past
    /// the header and reports every damaged record it skips; stopping mode throws the first problem.
    public static let stream = FuzzTarget(name: "stream", summary: "DocumentStreamReader, both error modes") { input in
        var check = FuzzCheck(input)
        let skipped = check.attempt("skip and report") { () throws -> (Int, [StreamProblem]) in
            let reader = try DocumentStreamReader(source: MemorySource(input), mode: .skipAndReport, maxRecordLength: 1 << 13)
            var documents = 0
            while let (_, _, document) = try reader.next() {
                documents += 1
                _ = try? document.data(as: FuzzModel.Part.self)
            }
            return (documents, reader.problems)
        }
        let stopped = check.attempt("stop at first error") { () throws -> Int in
            let reader = try DocumentStreamReader(source: MemorySource(input), mode: .stopAtFirstError, maxRecordLength: 1 << 13)
            var documents = 0
            while try reader.next() != nil { documents += 1 }
            return documents
        }
        if let (documents, problems) = skipped {
            for problem in problems {
                check.expect(problem.offset >= 0 && problem.offset <= input.count, "problem names byte \(problem.offset) of \(input.count): \(problem)")
            }
            // With no problem to stop at, both modes read the same documents.
            if problems.isEmpty { check.expect(stopped == documents, "the two error modes read \(documents) and \(String(describing: stopped)) documents") }
        }
        return check.outcome
    }

    /// The streaming gzip reader, with a bound on what it may inflate (so a small bomb cannot allocate without end).
    public static let gzip = FuzzTarget(name: "gzip", summary: "GzipSource, reading everything up to 4 MiB") { input in
        var check = FuzzCheck(input)
        _ = check.attempt("inflate") { try inflate(GzipSource(MemorySource(input)), limit: 1 << 22) }
        return check.outcome
    }

    /// Everything `source` gives, up to `limit` bytes (then an error), a chunk at a time through the public API.
    static func inflate(_ source: GzipSource, limit: Int) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var total = 0
        while true {
            let count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            if count == 0 { return total }
            total += count
            guard total <= limit else { throw FirePackError(.limitExceeded, "inflates past \(limit) bytes") }
        }
    }
}
