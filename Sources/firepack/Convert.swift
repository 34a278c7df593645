import ArgumentParser
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// `firepack convert IN OUT`: converts between FirePack, JSON, Firestore REST JSON and Firestore protobuf.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert between fpk, fpks, json, jsonl, firestore-json and firestore-proto (each optionally .gz).",
        discussion: """
            Formats come from the file names (.fpk .fpks .json .jsonl .firestore.json .pb, plus .gz) unless --from/--to
            say otherwise; - is standard input or output. Streams (fpks, jsonl, firestore-json lines, delimited
            firestore-proto) convert document by document in constant memory.

            Plain JSON documents carry their path in "__name__", or their ID in --id-field (with --collection);
            documents with neither get a generated 20-character ID.

            Examples:
              firepack convert Fixtures/books.json books.fpks --collection books --id-field id
              firepack convert export.jsonl.gz export.fpks --collection users
              firepack convert books.fpks - --to firestore-json
              cat books.fpk | firepack convert - - --from fpk --to json --pretty
            """
    )

    @Argument(help: "The input file, or - for standard input.")
    var input: String

    @Argument(help: "The output file, or - for standard output.")
    var output: String

    @Option(help: "The input format (default: from the input's name).")
    var from: FileFormat?

    @Option(help: "The output format (default: from the output's name).")
    var to: FileFormat?

    @Option(help: "The collection of documents read from plain JSON (default: the input file's name).")
    var collection: String?

    @Option(help: "The field holding each plain-JSON document's ID (default: the path in \"__name__\", else a generated ID).")
    var idField: String?

    @Option(help: "Replace server-timestamp sentinels by this time: now, or an RFC 3339 timestamp.")
    var resolveServerTimestamps: String?

    @Flag(help: "Sorted keys: equal values give identical bytes.")
    var deterministic = false

    @Flag(help: "Indented JSON output.")
    var pretty = false

    @Flag(help: "Plain, lossy JSON (RFC 3339 strings, {latitude, longitude}, base64) instead of reversible markers.")
    var plain = false

    @Flag(help: "No progress bar.")
    var quiet = false

    @Flag(help: "Allow the output to be the input file; it is replaced only once the new contents are complete.")
    var inPlace = false

    func run() throws {
        let (inputFormat, inputGzip) = try FileFormat.resolve(from, path: input, role: "input")
        let (outputFormat, outputGzip) = try FileFormat.resolve(to, path: output, role: "output")
        try Files.refuseOverwriting(input: input, with: output, option: "output", inPlace: inPlace)
        let time = try resolveTime()
        // Opened before any work: an unwritable destination is reported at once. A file changes only at the end.
        let sink = try Files.sink(output, gzip: outputGzip)
        let counter = CountingSource(try Files.source(input, gzip: false))
        let source: ByteSource = inputGzip ? try GzipSource(counter) : counter
        let progress = Progress(total: Files.size(input), counter: counter, quiet: quiet || output == "-")
        let naming = DocumentNaming(collection: collection ?? Self.defaultCollection(input), idField: idField)
        do {
            if !inputFormat.isStream && !outputFormat.isStream {
                var value = try readValue(inputFormat, source)
                if let time { value = value.resolvingServerTimestamps(at: time) }
                try writeValue(value, outputFormat, sink)
                return
            }
            var singleDocument = false
            let documents: DocumentInput
            switch inputFormat {
            case .fpk, .json:
                let value = try readValue(inputFormat, source)
                // One object is one document: written as a single message, not a delimited stream.
                if case .map = value { singleDocument = true }
                documents = ValueInput(value, naming: naming)
            default: documents = try inputFormat.documentInput(source, file: input, naming: naming)
            }
            var collected: [Value] = []
            let destination: DocumentOutput? = try makeOutput(outputFormat, sink, naming: naming, singleDocument: singleDocument)
            var records = 0
            while let next = try documents.next() {
                let document = time.map { next.resolvingServerTimestamps(at: $0) } ?? next
                if let destination { try destination.write(document) } else { collected.append(naming.value(of: document)) }
                records += 1
                Interruption.recordsDone.store(records, ordering: .relaxed)
                progress.update(records: records)
            }
            progress.finish(records: records)
            // All or nothing: with damaged input records the output file is not written (standard output was).
            if !documents.problems.isEmpty {
                for problem in documents.problems { FileHandleIO.writeError("firepack: \(problem)\n") }
                let outcome = output == "-" ? "\(records) intact record(s) converted" : "\(output) not written"
                throw CommandFailure(message: "\(input): \(documents.problems.count) damaged record(s); \(outcome) (keep the intact records with firepack validate --repair)")
            }
            if let destination { try destination.finish() } else { try writeValue(.array(collected), outputFormat, sink) }
        } catch let error as FirePackError {
            throw CommandFailure.data(input, error)
        } catch let problem as StreamProblem {
            throw CommandFailure(message: "\(input): \(problem)")
        }
    }

    func resolveTime() throws -> Timestamp? {
        guard let resolveServerTimestamps else { return nil }
        if resolveServerTimestamps == "now" { return Timestamp() }
        do { return try Timestamp(rfc3339: resolveServerTimestamps) } catch {
            throw CommandFailure.usage("--resolve-server-timestamps takes now or an RFC 3339 timestamp, not \(resolveServerTimestamps.debugDescription)")
        }
    }

    /// `books` for `Fixtures/books.json.gz`; `documents` for standard input.
    static func defaultCollection(_ path: String) -> String {
        guard path != "-" else { return "documents" }
        let name = (path as NSString).lastPathComponent
        return String(name.split(separator: ".").first ?? "documents")
    }

    func readValue(_ format: FileFormat, _ source: ByteSource) throws -> Value {
        let bytes = try FirePackStreams.readAll(source)
        return try format.readValue(bytes, file: input)
    }

    func writeValue(_ value: Value, _ format: FileFormat, _ sink: ByteSink) throws {
        let bytes = format.encode(value, deterministic: deterministic, pretty: pretty, plain: plain)
        try bytes.withUnsafeBytes { try sink.write($0) }
        try sink.finish()
    }

    func makeOutput(_ format: FileFormat, _ sink: ByteSink, naming: DocumentNaming, singleDocument: Bool) throws -> DocumentOutput? {
        let jsonOptions = JSONOptions(form: plain ? .plain : .reversible, sortedKeys: deterministic)
        switch format {
        case .fpk, .json: return nil
        case .fpks: return try StreamOutput(sink, deterministic: deterministic)
        case .jsonl:
            return ChunkedOutput(sink) { document, buffer in
                buffer += naming.value(of: document).jsonBytes(options: jsonOptions)
                buffer.append(0x0A)
            }
        case .firestoreJSON:
            return ChunkedOutput(sink) { document, buffer in
                buffer += try FirestoreJSON.jsonBytes(for: document)
                buffer.append(0x0A)
            }
        case .firestoreProto:
            if singleDocument { return ChunkedOutput(sink) { document, buffer in buffer += try FirestoreProto.encode(document) } }
            return ChunkedOutput(sink) { document, buffer in try FirestoreProto.appendDelimited(document, to: &buffer) }
        }
    }
}
