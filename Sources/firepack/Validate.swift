import ArgumentParser
import FirePack
import FirePackInterop
import FirePackStreams

/// `firepack validate FILE`: checks every byte (and, on request, Firestore's limits); can repair streams.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Check structure, CRCs, UTF-8 and reader limits (and Firestore's limits); exit 0 when valid, 1 when not.",
        discussion: """
            Exit codes: 0 valid, 1 invalid, 2 usage error. A stream is valid when every record is intact and it ends
            with the close record its writer writes on close ("closed"); one that stops at a record boundary is "not
            closed after record N" (exit 1, or a warning with --allow-unclosed). --repair writes every intact record
            to a new, closed stream.

            Examples:
              firepack validate books.fpk
              firepack validate export.fpks --firestore-limits
              firepack validate crashed.fpks --repair repaired.fpks
            """
    )

    @OptionGroup var input: InputOptions

    var file: String { input.file }

    @Flag(
        help:
            "Also check Firestore's rules: documents ≤ 1 MiB, depth ≤ 20, field names ≤ 1,500 bytes and not __x__, valid paths."
    )
    var firestoreLimits = false

    @Option(help: "For a stream: write every intact record to this new stream, leaving damaged and torn records out.")
    var repair: String?

    @Flag(
        help:
            "For a stream: report a stream that was not closed (no close record at its end) as a warning, not a problem."
    )
    var allowUnclosed = false

    @Flag(help: "Allow --repair to name the input file; it is replaced only once the repaired stream is complete.")
    var inPlace = false

    @Flag(
        help:
            "Also report the first byte that is valid but not canonical (a non-shortest form, an unused key-table entry, a key reference in a version-3 stream's records; Docs/FORMAT.md §1, §3, §8). Deterministic output under the default limits always passes."
    )
    var canonical = false

    @Option(help: "Maximum container nesting depth.")
    var maxDepth = ReaderLimits.default.maxDepth

    @Option(help: "How many problems to print one by one; all are counted, and summed up by kind.")
    var maxProblems = 20

    func validate() throws {
        // What the name says can be checked before anything is read; a format told by the first bytes is checked in run().
        if let (format, _) = FileFormat.resolve(input.from, path: file) {
            if repair != nil && format != .fpks { throw ValidationError("--repair works on document streams (fpks)") }
            if canonical && format != .fpk && format != .fpks {
                throw ValidationError("--canonical checks FirePack bytes (fpk, fpks), not \(format.rawValue)")
            }
        }
        if inPlace && repair == nil { throw ValidationError("--in-place goes with --repair") }
        // The repaired copy is a stream: a name that says another format would be read back as that format.
        if let repair, repair != "-", let (named, _) = FileFormat.inferred(from: repair), named != .fpks {
            throw ValidationError(
                "--repair writes a .fpks stream: '\(repair)' names \(named.rawValue) (convert the repaired stream to it)"
            )
        }
        if maxProblems < 0 { throw ValidationError("--max-problems takes 0 or more") }
        // As the readers take it: a depth of at least 1, at most 1,000 (Docs/FORMAT.md §6).
        if !(1...1_000).contains(maxDepth) { throw ValidationError("--max-depth takes 1 to 1000, not \(maxDepth)") }
    }

    func run() throws {
        let (format, gzip) = try input.format()
        if repair != nil && format != .fpks { throw CommandFailure.usage("--repair works on document streams (fpks)") }
        if let repair { try Files.refuseOverwriting(input: file, with: repair, option: "--repair", inPlace: inPlace) }
        let limits = ReaderLimits(maxDepth: maxDepth, maxKeyExpansion: input.streamLimits.readerLimits.maxKeyExpansion)
        var problems = ProblemReport(maxExamples: maxProblems)
        // How to read what a limit refused (said after the problems).
        var advice: String?
        var documents = 0
        var completion = ""
        // The records a stream's close record counts, when it has one.
        var total: Int?
        // Two documents at one path: Firestore would keep only the later write.
        var paths = DuplicatePaths()
        let source = try Files.source(file, gzip: gzip, format: format)
        do {
            if format == .fpks {
                let reader = try DocumentStreamReader(
                    source: source, maxBlockExpansion: input.streamLimits.blockExpansion, limits: limits)
                // The blocks read, to check the index against (what seeking by record number trusts).
                reader.listsBlocks = reader.version >= 3
                // The repaired copy keeps the stream's version (version 1, which has no close record, becomes 2).
                let repaired = try repair.map {
                    try DocumentStreamWriter(
                        sink: Files.sink($0, gzip: $0.hasSuffix(".gz")), version: max(2, reader.version))
                }
                // Checked, measured against Firestore's limits and copied by a repair from each record's bytes, so
                // that checking or repairing a stream from outside costs memory for its largest record, not up to a
                // hundred times that for a tree of it (Docs/SAFETY.md).
                while let (record, reference) = try reader.nextCheckedRecord() {
                    let (number, offset) = (record.number, record.offset)
                    documents += 1
                    Interruption.recordsDone.store(documents, ordering: .relaxed)
                    if let (kind, line) = Self.strictProblem(
                        in: record.payload, at: record.payloadOffset,
                        limits: limits, canonical: canonical, formatVersion: reader.version >= 3 ? 3 : 1,
                        keyReferences: reader.version < 3)
                    {
                        problems.add(kind: kind, "record \(number): \(line)")
                    }
                    paths.check(reference.path, at: number, unit: "record", into: &problems)
                    // Copied as the tree would be written (the same bytes, FirePackWriter.write(_: ValueView)).
                    try repaired?.append(writtenBy: { target in
                        try target.write(FirePackReader(bytes: record.payload, limits: limits).root)
                    })
                    if firestoreLimits {
                        try FirestoreLimits.forEachViolation(inRecord: record.payload, limits: limits) { kind, text in
                            problems.add(
                                kind: kind, "record \(number) at byte \(offset) (\(reference.path)): \(text())")
                        }
                    }
                }
                // Damaged records: the reader keeps the first ones' descriptions and counts every one by kind. Blocks
                // past the block-expansion limit are not damage, and are counted apart.
                for problem in reader.problems { problems.addExample(problem.description) }
                for (code, all) in reader.problemCounts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                    let count =
                        (code == .limitExceeded ? all - reader.blocksPastExpansion : all)
                        - (reader.damagedClosings[code] ?? 0)
                    guard count > 0 else { continue }
                    problems.add(
                        kind: "\(code == .missingRecords ? "records missing" : "damaged record") (\(code))",
                        count: count)
                }
                // A damaged index or close record loses no record, but the stream is not what its writer closed.
                problems.add(kind: "damaged index or close record (no record lost)", count: reader.damagedClosingCount)
                if let cut = reader.sourceCut {
                    problems.add(
                        kind: "compressed input cut short",
                        "\(cut.message), at its byte \(cut.offset ?? 0): the stream ends where it stops")
                }
                advice = expansionAdvice((reader.blocksPastExpansion, reader.blockExpansionNeeded))
                if let advice {
                    problems.add(
                        kind: "past the block-expansion limit (limitExceeded)", count: reader.blocksPastExpansion)
                    // A repair leaves out damage only: these blocks' records are intact.
                    if let repair {
                        for problem in reader.problems { StandardStreams.writeError("firepack: \(file): \(problem)\n") }
                        // A file is left as it was; standard output or a pipe has had the records before the block
                        // and gets no close record.
                        let outcome =
                            OutputFile.isWrittenInPlace(repair)
                            ? "the stream written to \(repair) is not closed" : "\(repair) not written"
                        throw CommandFailure(
                            message: "\(outcome): --repair leaves out damaged records only, and \(advice)")
                    }
                }
                if case .closed(let count)? = reader.completion { total = count }
                // A closed stream's index must list the blocks it holds, each with its records: readers seek by it
                // (`inspect --record`, the Python reader), and an index that lists others sends them astray.
                if case .closed = reader.completion, reader.version >= 3, reader.problemCount == 0, !gzip,
                    file != "-", SystemPath.isRegularFile(file),
                    let listed = try? DocumentStreamReader.blockIndex(path: file),
                    !listed.map({ [$0.offset, $0.recordCount] }).elementsEqual(
                        reader.blockList.map { [$0.offset, $0.count] })
                {
                    let first = zip(listed, reader.blockList).first {
                        $0.0.offset != $0.1.offset || $0.0.recordCount != $0.1.count
                    }
                    let which =
                        first.map {
                            "it lists a block of \($0.0.recordCount) record(s) at byte \($0.0.offset), where the stream has one of \($0.1.count) record(s) at byte \($0.1.offset)"
                        } ?? "it lists \(listed.count) block(s), the stream holds \(reader.blockList.count)"
                    problems.add(
                        kind: "index not the stream's blocks",
                        "the index does not list the blocks the stream holds: \(which) (--repair writes a new index)")
                }
                switch reader.completion {
                // Fewer than counted with no damage to explain it: the reader reported them (`missingRecords`).
                case .closed(let recordCount)
                where recordCount != reader.recordsFound && !reader.reportedMissingAtClose:
                    let counted = UInt64(bitPattern: Int64(recordCount))
                    if counted < UInt64(reader.recordsFound) {
                        problems.add(
                            kind: "records not counted",
                            "the close record counts \(counted) record(s) but \(reader.recordsFound) were found: records were added that its writer did not write (a spliced stream, or a block repeated)"
                        )
                    } else {
                        problems.add(
                            kind: "records missing",
                            "the close record counts \(counted) record(s) but \(reader.recordsFound) were found: records are missing"
                        )
                    }
                case .closed: completion = "closed"
                case .notClosed(let recordCount):
                    let why =
                        reader.tornClosing.map { "it ends inside \($0): the writer stopped while closing it" }
                        ?? (reader.endsAtDamagedClosing
                            ? "its close record is damaged, or the index before it"
                            : "the writer crashed, was interrupted or is still writing")
                    let what = "not closed after record \(recordCount) (\(why); --repair closes it)"
                    if allowUnclosed {
                        StandardStreams.writeError("firepack: warning: \(file): \(what)\n")
                    } else {
                        problems.add(kind: "not closed", what)
                    }
                case .unknown, nil:
                    StandardStreams.writeError(
                        "firepack: note: \(file): a version-1 stream, written before close records: whether it is complete cannot be told\n"
                    )
                }
                try repaired?.close()
                if let repair {
                    try say("\(repair): \(documents) intact record(s) written, stream closed")
                }
            } else if format.isStream {
                let naming = DocumentNaming(collection: "documents", idField: nil)
                let input = try format.documentInput(source, file: file, naming: naming)
                let lines = input as? JSONLinesReader
                var generated = 0
                // Each document as a stream's writer writes it: what `convert` would refuse (nested past the depth
                // limit, a container past the element limit), this reports.
                let writer = FirePackWriter(options: .init(limits: limits))
                while true {
                    let document: Document
                    if let lines {
                        // Line by line: a line that is not a document is a problem, and the lines after it are
                        // checked too.
                        guard let line = try lines.nextLine() else { break }
                        switch line {
                        case .success(let read): document = read
                        case .failure(let error):
                            problems.add(kind: "not a document", error.description)
                            continue
                        }
                    } else {
                        guard let read = try input.next() else { break }
                        document = read
                    }
                    documents += 1
                    document.write(to: writer)
                    if let violation = writer.limitViolation {
                        let name = lines.map { "line \($0.lineNumber)" } ?? "record \(documents - 1)"
                        // The message without its offset, which counts in the document's FirePack bytes, not the input.
                        problems.add(
                            kind: "past the reader limits",
                            "\(name) (\(document.reference.path)): \(violation.code): \(violation.message)")
                    }
                    writer.clear()
                    // Named by line: a generated document ID would change from run to run (and never repeats).
                    if naming.generatedCount == generated {
                        paths.check(
                            document.reference.path, at: lines?.lineNumber ?? documents - 1,
                            unit: lines == nil ? "record" : "line",
                            into: &problems)
                    }
                    generated = naming.generatedCount
                    guard firestoreLimits else { continue }
                    let name = lines.map { "line \($0.lineNumber)" } ?? "record \(documents - 1)"
                    FirestoreLimits.forEachViolation(in: document) { kind, text in
                        problems.add(kind: kind, "\(name) (\(document.reference.path)): \(text())")
                    }
                }
                // What the end of the input means (a list response page with more after it).
                input.reportEnd()
                // Damage the input's reader stepped over (a managed export's chunks).
                for problem in input.problems { problems.addExample(problem) }
                problems.add(kind: "damaged record", count: input.problemCount)
            } else {
                // A top-level JSON array, element by element: memory for one element, whatever the file's size.
                var prefix: [UInt8] = []
                if format == .json {
                    let (reader, restored) = try JSONArrayScanner.open(
                        source, options: JSONOptions(maxDepth: limits.maxDepth))
                    if let reader {
                        try validateElements(of: reader, limits: limits, documents: &documents, problems: &problems)
                        return try report(problems, format: format, documents: documents, completion: "")
                    }
                    prefix = restored
                }
                let bytes = try prefix + FirePackStreams.readAll(source)
                // A `.fpk` is checked from its bytes, without a tree (memory for the check, not for the value), unless
                // its documents are to be checked against Firestore's limits.
                var value: Value?
                if format == .fpk && !firestoreLimits {
                    let checked = bytes.withUnsafeBytes { raw in
                        Result { () throws(FirePackError) in try FirePackReader.verify(fileBytes: raw, limits: limits) }
                    }
                    if case .failure(let error) = checked { throw CommandFailure.data(file, error) }
                } else {
                    value = try format.readValue(bytes, file: file, limits: limits)
                }
                if format == .fpk {
                    let problem = bytes.withUnsafeBytes { raw in
                        Self.strictProblem(
                            in: UnsafeRawBufferPointer(rebasing: raw[Tag.fileHeaderLength...]),
                            at: Tag.fileHeaderLength,
                            limits: limits, canonical: canonical, formatVersion: Int(raw[4]), keyReferences: true)
                    }
                    if let (kind, line) = problem { problems.add(kind: kind, line) }
                } else if canonical {
                    throw CommandFailure.usage("--canonical checks FirePack bytes (fpk, fpks), not \(format.rawValue)")
                }
                if firestoreLimits, let value {
                    let input = ValueInput(value, naming: DocumentNaming(collection: "documents", idField: nil))
                    while let document = try input.next() {
                        documents += 1
                        FirestoreLimits.forEachViolation(in: document) { kind, text in
                            problems.add(
                                kind: kind,
                                "element \(documents - 1) (\(document.reference.path)): \(text())")
                        }
                    }
                } else {
                    documents = 1
                }
            }
        } catch let error as FirePackError {
            throw CommandFailure.data(file, error)
        }
        if let note = paths.partialNote { StandardStreams.writeError("firepack: note: \(file): \(note)\n") }
        try report(
            problems, format: format, documents: documents, completion: completion, advice: advice, total: total)
    }

    /// Checks a JSON array's elements (and, with --firestore-limits, each as a document).
    func validateElements(
        of reader: JSONArrayScanner, limits: ReaderLimits, documents: inout Int, problems: inout ProblemReport
    ) throws {
        let naming = DocumentNaming(collection: "documents", idField: nil)
        // Each element one container deeper than itself, as it is in its array (and as a document's fields are in
        // their record): what `convert` to .fpk or .fpks would refuse, this reports.
        let writer = FirePackWriter(
            options: .init(
                limits: ReaderLimits(
                    maxDepth: limits.maxDepth - 1, maxElementCount: limits.maxElementCount,
                    maxKeyExpansion: limits.maxKeyExpansion)))
        do {
            while let element = try reader.next() {
                documents += 1
                writer.write(element)
                if let violation = writer.limitViolation {
                    let what =
                        violation.code == .depthLimitExceeded
                        ? "nested past the readers' depth limit of \(limits.maxDepth) in its array" : violation.message
                    problems.add(kind: "past the reader limits", "element \(documents - 1): \(violation.code): \(what)")
                }
                writer.clear()
                guard firestoreLimits else { continue }
                let document = try naming.document(from: element, line: nil)
                FirestoreLimits.forEachViolation(in: document) { kind, text in
                    problems.add(
                        kind: kind, "element \(documents - 1) (\(document.reference.path)): \(text())"
                    )
                }
            }
        } catch let error as FirePackError {
            throw CommandFailure.data(file, error)
        }
        if !firestoreLimits { documents = 1 }
    }

    /// Prints a line of the report: on standard output, or on standard error when `--repair` writes the repaired
    /// stream to standard output (a line after it would be read as a damaged record by whatever reads the stream).
    func say(_ line: String) throws {
        if let repair, OutputFile.isStandardOutput(repair) {
            StandardStreams.writeError(line + "\n")
        } else {
            try StandardStreams.printChecked(line)
        }
    }

    /// Prints the problems and the verdict; throws (exit 1) when there are problems.
    func report(
        _ problems: ProblemReport, format: FileFormat, documents: Int, completion: String, advice: String? = nil,
        total: Int? = nil
    ) throws {
        for line in problems.lines(prefix: "firepack: \(file): ", showingMore: "--max-problems shows more") {
            StandardStreams.writeError(line + "\n")
        }
        if let advice { StandardStreams.writeError("firepack: \(file): \(advice)\n") }
        if canonical && problems.isEmpty { try say("\(file): canonical") }
        // Of the records a close record counts, when damage left some unread.
        let of = total.map { $0 > documents ? " of \($0)" : "" } ?? ""
        let unit = format.isStream || firestoreLimits ? "\(documents)\(of) document(s)" : "1 value"
        guard problems.isEmpty else {
            throw CommandFailure(
                message: "\(file): invalid \(format.rawValue): \(problems.total) problem(s), \(unit) intact")
        }
        try say(
            "\(file): valid \(format.rawValue), \(unit)\(completion.isEmpty ? "" : ", " + completion)\(firestoreLimits ? ", within Firestore's limits" : "")"
        )
    }
}

extension Validate {
    /// What whole-input validation finds beyond decoding (a key-table entry that points at no key literal) and, with
    /// `canonical`, the first byte that differs from the canonical encoding, as a kind and a line; offsets count from
    /// the file's start.
    /// `base` is the payload's offset in the file; nil for a document decompressed from a block, whose offsets are
    /// then given inside the document.
    /// `formatVersion` is the version the payload follows (the file's, or 1 for a version-1 or 2 stream's records);
    /// `keyReferences` whether its canonical form has key references (not in a version-3 stream's blocks, §8).
    static func strictProblem(
        in payload: UnsafeRawBufferPointer, at base: Int?, limits: ReaderLimits, canonical: Bool, formatVersion: Int,
        keyReferences: Bool
    ) -> (String, String)? {
        func place(_ offset: Int) -> String {
            base.map { "byte \($0 + offset)" } ?? "byte \(offset) of the document (in a compressed block)"
        }
        do {
            if canonical {
                guard
                    let offset = try FirePackReader.firstNonCanonicalOffset(
                        in: payload, limits: limits, formatVersion: formatVersion, keyReferences: keyReferences)
                else {
                    return nil
                }
                return (
                    "not canonical",
                    keyReferences
                        ? "not canonical from \(place(offset)) (a non-shortest form or key table; Docs/FORMAT.md §1, §3)"
                        : "not canonical from \(place(offset)) (a non-shortest form, or a key reference, which a "
                            + "version-3 stream's documents do not have; Docs/FORMAT.md §1, §8)"
                )
            }
            try FirePackReader.verify(payload, limits: limits)
            return nil
        } catch {
            return (
                "invalid value (\(error.code))",
                base != nil || error.offset == nil
                    ? "\(FirePackError(error.code, offset: error.offset.map { $0 + base! }, error.message, path: error.path))"
                    : "\(place(error.offset!)): \(FirePackError(error.code, error.message, path: error.path))"
            )
        }
    }
}
