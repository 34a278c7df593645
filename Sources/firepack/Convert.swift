import ArgumentParser
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// `firepack convert IN OUT`: converts between FirePack, JSON, Firestore REST JSON and Firestore protobuf.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Convert between fpk, fpks, json, jsonl, firestore-json and firestore-proto (each optionally .gz); read Firestore managed exports.",
        discussion: """
            Formats come from the file names (.fpk .fpks .json .jsonl .firestore.json .pb, plus .gz) unless --from/--to
            say otherwise; - is standard input or output. Streams (fpks, jsonl, firestore-json lines, delimited
            firestore-proto) convert document by document in constant memory.

            A Firestore managed export (gcloud firestore export) is read from its folder, its metadata file or an
            output-N file (--from firestore-export); its documents convert like any stream's.

            Documents given the same path twice are converted and reported in a warning (Firestore keeps only the last
            write of a path).

            Plain JSON documents carry their path in "__name__", or their ID in --id-field (with --collection);
            documents with neither get a generated 20-character ID.

            Examples:
              firepack convert Fixtures/books.json books.fpks --collection books --id-field id
              firepack convert export.jsonl.gz export.fpks --collection users
              firepack convert books.fpks - --to firestore-json
              firepack convert gs-export/2026-11-25/ export.fpks
              cat books.fpk | firepack convert - - --from fpk --to json --pretty
            """
    )

    @Argument(help: "The input file, or - for standard input.")
    var input: String

    @Argument(help: "The output file, or - for standard output.")
    var output: String

    @Option(
        help:
            "The input format (default: from the input's name, else its first bytes: fpk, fpks, gzip); add .gz for gzip."
    )
    var from: FormatChoice?

    @Option(
        help:
            "The output format (default: from the output's name): any but firestore-export, which is read, not written; add .gz for gzip (--to jsonl.gz)."
    )
    var to: FormatChoice?

    @Option(help: "The collection of documents read from plain JSON (default: the input file's name).")
    var collection: String?

    @Option(
        help:
            "The field holding each plain-JSON document's ID (default: the path in \"__name__\", else a generated ID); a document without it is an error."
    )
    var idField: String?

    @Flag(
        help:
            "With --id-field: give documents that lack the field a new ID (counted in the summary) instead of failing.")
    var generateMissingIds = false

    @Flag(help: "With --id-field: keep the ID field among the document's fields as well.")
    var keepIdField = false

    @Flag(help: "Read JSON integers outside Int64 as doubles (losing digits) instead of failing.")
    var largeIntegersAsDoubles = false

    @Option(help: "Replace server-timestamp sentinels by this time: now, or an RFC 3339 timestamp.")
    var resolveServerTimestamps: String?

    @Flag(
        help:
            "Sorted keys, so that equal values give identical bytes, and generated IDs derived from the record number.")
    var deterministic = false

    @Flag(help: "Indented JSON output.")
    var pretty = false

    @Option(help: "fpks output: how each block is compressed: zstd (default), deflate or none.")
    var codec: String?

    @Option(
        help: "fpks output: the stream version, 3 (blocks, an index; default) or 2 for readers that have not upgraded.")
    var streamVersion: UInt8?

    @Option(
        help:
            "fpk output: the format version, 3 (default) or 1 for readers that predate version 3 (no decimal doubles).")
    var fpkVersion: Int?

    @Option(help: "fpks output: the documents' bytes at which a block is closed (default 1048576).")
    var blockSize: Int?

    @Flag(help: "Plain, lossy JSON (RFC 3339 strings, {latitude, longitude}, base64) instead of reversible markers.")
    var plain = false

    @Option(
        help:
            "JSON lines into fpks and fpks into JSON lines: how many threads encode (default and most: one per core); the output is the same for any number."
    )
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "No progress bar.")
    var quiet = false

    @Flag(help: "Allow the output to be the input file; it is replaced only once the new contents are complete.")
    var inPlace = false

    @OptionGroup var streamLimits: StreamLimitOptions

    func validate() throws {
        _ = try resolveTime()
        if let codec, BlockCodec(name: codec) == nil { throw ValidationError("--codec is zstd, deflate or none") }
        if let streamVersion, !DocumentStreamFormat.writableVersions.contains(streamVersion) {
            throw ValidationError("--stream-version is 3 or 2")
        }
        if let fpkVersion, fpkVersion != 1 && fpkVersion != 3 { throw ValidationError("--fpk-version is 3 or 1") }
        // Options of version-3 blocks, given for a version-2 stream, would be dropped without a word.
        if (streamVersion ?? 3) < 3 && (codec != nil || blockSize != nil) {
            throw ValidationError("--codec and --block-size apply to version-3 streams (version 2 has no blocks)")
        }
        if let blockSize, blockSize <= 0 || blockSize > DocumentStreamFormat.defaultMaxRecordLength / 2 {
            throw ValidationError("--block-size is between 1 and \(DocumentStreamFormat.defaultMaxRecordLength / 2)")
        }
        if generateMissingIds && idField == nil { throw ValidationError("--generate-missing-ids needs --id-field") }
        guard threads >= 1 else { throw ValidationError("--threads takes 1 or more") }
        if keepIdField && idField == nil { throw ValidationError("--keep-id-field needs --id-field") }
        if let idField, let problem = DocumentNaming.problem(withIDField: idField) {
            throw ValidationError("--id-field: \(problem)")
        }
    }

    /// Refuses (a usage error) an output option the output format does not use: it would be dropped without a word.
    func refuseOptionsNotApplying(to format: FileFormat) throws {
        let given = [
            ("--codec", codec != nil, FileFormat.fpks), ("--block-size", blockSize != nil, .fpks),
            ("--stream-version", streamVersion != nil, .fpks), ("--fpk-version", fpkVersion != nil, .fpk)
        ]
        for (option, isGiven, applies) in given where isGiven && format != applies {
            throw CommandFailure.usage("\(option) applies to \(applies.rawValue) output, not \(format.rawValue)")
        }
    }

    func run() throws {
        let explicitInput = FileFormat.resolveInput(from, path: input)
        let (outputFormat, outputGzip) = try FileFormat.resolve(to, path: output, role: "output")
        if outputFormat == .firestoreExport {
            throw CommandFailure.usage(
                "firestore-export is read, not written: convert to fpks, jsonl, firestore-json or firestore-proto")
        }
        try refuseOptionsNotApplying(to: outputFormat)
        try Files.refuseOverwriting(input: input, with: output, option: "output", inPlace: inPlace)
        let time = try resolveTime()
        let counter = CountingSource(try Files.source(input, gzip: false, format: explicitInput?.0))
        // The decompressed input: by the name or --from, else by the first bytes (which the sniffer puts back).
        let source: ByteSource, inputFormat: FileFormat, compressed: Bool
        if let (format, gzip) = explicitInput {
            (source, inputFormat, compressed) = (gzip ? try GzipSource(counter) : counter, format, gzip)
        } else if let (restored, format, gzip) = try FormatSniffer.sniff(counter) {
            (source, inputFormat, compressed) = (restored, format, gzip)
        } else {
            throw FileFormat.unknownFormat(path: input, role: "input")
        }
        try streamLimits.refuseUnlessStream(inputFormat)
        // Opened before any work: an unwritable destination is reported at once. A file changes only at the end.
        let outputCounter = CountingSink(try Files.sink(output, gzip: false))
        let sink: ByteSink = outputGzip ? try GzipSink(outputCounter) : outputCounter
        let progress = Progress(
            total: Files.size(input), counter: counter, compressed: compressed,
            quiet: quiet || OutputFile.isWrittenInPlace(output))
        let naming = DocumentNaming(
            collection: collection ?? Self.defaultCollection(input), idField: idField,
            generatesMissingIDs: generateMissingIds, keepsIDField: keepIdField, deterministic: deterministic,
            largeIntegers: largeIntegersAsDoubles ? .asDoubles : .reject, collectionIsGiven: collection != nil)
        do {
            if !inputFormat.isStream && !outputFormat.isStream {
                // Value to value (fpk ↔ json): kept exactly, not read as documents.
                var value = try inputFormat.readValue(
                    FirePackStreams.readAll(source), file: input, limits: streamLimits.readerLimits,
                    largeIntegers: naming.largeIntegers)
                if let time { value = value.resolvingServerTimestamps(at: time) }
                try outputFormat.write(
                    value, to: sink,
                    options: DocumentOutputOptions(
                        naming: naming, deterministic: deterministic,
                        pretty: pretty, plain: plain, singleDocument: false, fpkVersion: fpkVersion ?? 3))
                progress.summary(records: 1, written: outputCounter.count, generatedIDs: 0, to: output)
                return
            }
            // One table of formats (FileFormat.documentInput / documentOutput): single values (fpk, json) read as
            // their documents and are written as an array of them; streams document by document.
            let documents = try inputFormat.documentInput(
                source, file: input, naming: naming, maxBlockExpansion: streamLimits.blockExpansion,
                limits: streamLimits.readerLimits)
            let singleObject =
                (documents as? FirePackFileInput)?.isSingleObject ?? (documents as? JSONArrayReader)?.isSingleObject
                ?? false
            if singleObject && outputFormat != .firestoreProto {
                // One object is one document: a single protobuf message, never a silent one-document stream.
                throw CommandFailure(
                    message:
                        "\(input) holds one JSON object, not an array of documents: wrap it in [ ] for a one-document \(outputFormat.rawValue) stream, or convert it to .json or .fpk"
                )
            }
            let destination = try outputFormat.documentOutput(
                sink,
                options: DocumentOutputOptions(
                    naming: naming, deterministic: deterministic, pretty: pretty, plain: plain,
                    singleDocument: singleObject, fpkVersion: fpkVersion ?? 3, streamVersion: streamVersion ?? 3,
                    codec: BlockCodec(name: codec ?? "zstd")!,
                    blockSize: blockSize ?? DocumentStreamFormat.defaultBlockSize))
            // One record per step, by the library's conversion: JSON lines into a stream and a stream into JSON
            // lines take their direct paths (no tree; see BENCHMARKS.md); repeated paths and, for Firestore's own
            // formats, Firestore's limits are noted on the way.
            let conversion = DocumentConversion(
                from: documents.documents, to: destination, resolvingServerTimestamps: time, workers: threads)
            do {
                while try conversion.step() {
                    Interruption.recordsDone.store(conversion.records, ordering: .relaxed)
                    progress.update(records: conversion.records)
                }
            } catch {
                // An input record that fails the conversion (malformed JSON, an integer out of range): standard
                // output or a pipe has had the records before it as they came, and gets the last of them too, which
                // the output's buffer still holds (each sink writes a document whole or not at all), ended as output
                // that is not all there. A file is not written (all or nothing).
                if OutputFile.isWrittenInPlace(output), (try? conversion.finishIncomplete()) != nil {
                    let place = output == "-" ? "standard output" : output
                    StandardStreams.writeError(
                        "firepack: \(conversion.records) record(s) before the error were written to \(place), not finished\n"
                    )
                }
                throw failureSayingHowFar(error, records: conversion.records)
            }
            documents.reportEnd()
            let records = conversion.records
            progress.finish(records: records)
            // All or nothing: with damaged input records the output file is not written (standard output was).
            if !documents.problems.isEmpty {
                for problem in documents.problems { StandardStreams.writeError("firepack: \(problem)\n") }
                // Standard output (or a pipe) has had the intact records as they came: it gets the last ones too,
                // which the output's buffer still holds, ended as output that is not all there (a stream without its
                // close record, so that its readers see it was not finished). A file is not written (all or nothing).
                if OutputFile.isWrittenInPlace(output) { try conversion.finishIncomplete() }
                let outcome =
                    OutputFile.isWrittenInPlace(output)
                    ? "\(records) intact record(s) converted" : "\(output) not written"
                let advice =
                    expansionAdvice(documents.pastExpansion).map { " (\($0))" }
                    ?? (inputFormat == .fpks ? " (keep the intact records with firepack validate --repair)" : "")
                let summary = problemSummary(
                    documents.problemCount, missingPlaces: documents.missingRecordPlaces,
                    pastExpansion: documents.pastExpansion.blocks, records: (records, documents.closedRecordCount))
                throw CommandFailure(message: "\(input): \(summary); \(outcome)\(advice)")
            }
            do { try conversion.finish() } catch { throw failureSayingHowFar(error, records: conversion.records) }
            let repeats = conversion.repeatedPaths
            if !repeats.isEmpty {
                StandardStreams.writeError(
                    "firepack: warning: \(repeats.total) document(s) in \(input) repeat the path of an earlier one: written as they are, but Firestore would keep only the last of each\n"
                )
                for line in repeats.lines(prefix: "firepack: warning: ") { StandardStreams.writeError(line + "\n") }
            }
            if let note = conversion.repeatedPathsNote { StandardStreams.writeError("firepack: note: \(note)\n") }
            if naming.integerIDCount > 0, let idField = naming.idField {
                StandardStreams.writeError(
                    "firepack: warning: \(naming.integerIDCount) document(s) in \(input) are named by an integer in \(idField.debugDescription), taken out of their fields: the ID is its digits, and written back as plain JSON it is a string; --keep-id-field keeps the integer as a field too\n"
                )
            }
            // Under an ID field only IDs are written: the collection (when it was not given) and a database prefix
            // are not in the output, and are said rather than dropped without a word.
            if let idField = naming.idField, let written = naming.collectionWrittenUnderIDs,
                written != Self.defaultCollection(output)
            {
                StandardStreams.writeError(
                    "firepack: warning: under --id-field \(idField.debugDescription) only IDs are written, not their collection \(written.debugDescription): read \(output == "-" ? "the output" : output) back with --collection \(written) (without it, the collection is taken from the file's name)\n"
                )
            }
            if let database = naming.databaseLeftOut {
                StandardStreams.writeError(
                    "firepack: note: the documents' \(database)/ prefix is not written under --id-field: read back, their paths start at the collection\n"
                )
            }
            let limitWarnings = conversion.limitProblems
            if !limitWarnings.isEmpty {
                StandardStreams.writeError(
                    "firepack: warning: \(limitWarnings.total) problem(s) with Firestore's limits in \(output): Firestore would refuse these documents\n"
                )
                for line in limitWarnings.lines(prefix: "firepack: warning: ") {
                    StandardStreams.writeError(line + "\n")
                }
            }
            progress.summary(
                records: records, written: outputCounter.count, generatedIDs: naming.generatedCount, to: output)
        } catch let error as FirePackError {
            throw CommandFailure.data(input, Self.namingToolOptions(error))
        } catch let problem as StreamProblem {
            throw CommandFailure(message: "\(input): \(problem)")
        }
    }

    /// The library's advice, in the tool's terms: its flags, not library calls.
    static func namingToolOptions(_ error: FirePackError) -> FirePackError {
        guard error.message.contains("Document.resolvingServerTimestamps(at:)") else { return error }
        // The record or line the conversion put in front (`DocumentConversion.step`) stays.
        let message = error.message
        let place =
            message.hasPrefix("record ") || message.hasPrefix("line ")
            ? message.range(of: ": ").map { String(message[..<$0.upperBound]) } ?? "" : ""
        return FirePackError(
            error.code, offset: error.offset,
            place
                + "a pending server timestamp cannot be written in this format; give it a time with --resolve-server-timestamps now|TIME",
            path: error.path)
    }

    func resolveTime() throws -> Timestamp? {
        guard let resolveServerTimestamps else { return nil }
        if resolveServerTimestamps == "now" { return Timestamp() }
        do { return try Timestamp(rfc3339: resolveServerTimestamps) } catch {
            throw ValidationError(
                "--resolve-server-timestamps takes now or an RFC 3339 timestamp, not \(resolveServerTimestamps.debugDescription)"
            )
        }
    }

    /// A write or read that failed (a full disk, a file-size limit, a device error), said with how far the
    /// conversion came and, for a file, that it was not written (its temporary file is removed); other errors as
    /// they are.
    func failureSayingHowFar(_ error: any Error, records: Int) -> any Error {
        let failed: String
        if let failure = error as? CommandFailure, failure.isWriteFailure {
            failed = failure.message
        } else if let failure = error as? FirePackError, failure.code == .ioFailure {
            failed = "\(failure)"
        } else {
            return error
        }
        let outcome =
            OutputFile.isWrittenInPlace(output) ? "" : "; \(output) not written, existing files left as they were"
        return CommandFailure(message: "\(failed), with \(records) record(s) converted\(outcome)")
    }

    /// `books` for `Fixtures/books.json.gz`; `documents` for standard input.
    static func defaultCollection(_ path: String) -> String {
        guard path != "-" else { return "documents" }
        let name = (path as NSString).lastPathComponent
        return String(name.split(separator: ".").first ?? "documents")
    }
}
