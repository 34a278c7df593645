import ArgumentParser
import FirePack
import FirePackStreams
import FirePackInterop
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `firepack inspect FILE`: a readable, typed tree of a value, or one field of it.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a readable, typed tree of a FirePack or JSON file.",
        discussion: """
            Examples:
              firepack inspect books.fpk
              firepack inspect books.fpk --path '[3].cover.small'
              firepack inspect books.fpk --offsets
              firepack inspect books.fpks --record 3 --path 'cover.small'
            """
    )

    @OptionGroup var input: InputOptions

    var file: String { input.file }

    @Option(
        help:
            "Print only this field, e.g. '[3].cover.small' or 'cover.small' (in a .fpk, read without decoding the rest)."
    )
    var path: String?

    @Flag(
        help: ArgumentHelp(
            "Show each value's byte offset and tag (FirePack input; in a stream's record, from the record's first byte, "
                + "of its row as rebuilt when its block stores columns).")
    )
    var offsets = false

    @Option(help: "For streams: the record (document) to show, counting from 0; --path then looks inside its fields.")
    var record: Int?

    func validate() throws {
        if let record, record < 0 { throw ValidationError("--record counts from 0, not \(record)") }
        // A path that does not parse is a usage error, found before any file is read.
        if let path {
            do { _ = try PathComponent.parse(path) } catch { throw ValidationError("--path: \(error.message)") }
        }
        if record != nil, let (format, _) = FileFormat.resolveInput(input.from, path: file), !format.isStream {
            throw ValidationError(
                "--record applies to streams (fpks, jsonl, firestore-json, firestore-proto, firestore-export)")
        }
    }

    func run() throws {
        let (format, gzip) = try input.format()
        if format.isStream {
            try inspectStream(format, gzip: gzip)
            return
        }
        if record != nil {
            throw CommandFailure.usage(
                "--record applies to streams (fpks, jsonl, firestore-json, firestore-proto, firestore-export)")
        }
        var bytes = try StandardStreams.read(file, gzip: gzip)
        if format != .fpk {
            // JSON is converted first, so offsets and lookups refer to the FirePack encoding of it.
            let value = try format.readValue(bytes, file: file)
            bytes = try FileFormat.fpk.encode(value, deterministic: false, pretty: false, plain: false)
        }
        try bytes.withUnsafeBytes { try show($0, file: true, limits: input.streamLimits.readerLimits) }
    }

    /// Lists a stream's records, or shows one of them; with `--path` and no `--record`, that field of every record.
    ///
    /// Records are numbered as `validate` numbers them: a `.fpks` record's number counts damaged records too, and
    /// each damaged record is listed in its place.
    func inspectStream(_ format: FileFormat, gzip: Bool) throws {
        let input: DocumentInput
        // A regular file only: a pipe cannot be entered by its index (and its first bytes are already read).
        if format == .fpks, !gzip, let record, file != "-", SystemPath.isRegularFile(file) {
            // A closed version-3 stream's index finds the record's block: one block read, not the stream.
            Files.discardKept()
            do {
                input = StreamInput(
                    try DocumentStreamReader.reading(
                        path: file, fromRecord: record, maxBlockExpansion: self.input.streamLimits.blockExpansion,
                        limits: self.input.streamLimits.readerLimits),
                    file: file)
            } catch let error as FirePackError {
                throw CommandFailure.data(file, error)
            }
        } else {
            let source = try Files.source(file, gzip: gzip, format: format)
            input = try format.documentInput(
                source, file: file, naming: DocumentNaming(collection: Convert.defaultCollection(file), idField: nil),
                maxBlockExpansion: self.input.streamLimits.blockExpansion, limits: self.input.streamLimits.readerLimits)
        }
        let stream = (input as? StreamInput)?.reader
        var number = 0, listedProblems = 0, count = 0, listed = 0
        /// Lists the damaged records the reader has found since the last call, in their places.
        func listDamage() throws {
            guard let stream else { return }
            while listedProblems < stream.problems.count {
                let problem = stream.problems[listedProblems]
                listedProblems += 1
                if record == nil {
                    // A block past the expansion limit is refused, not damaged (Docs/FORMAT.md §8, "Expansion").
                    let what = problem.reason.contains("past the block-expansion limit") ? "refused" : "damaged"
                    try StandardStreams.printChecked(
                        "record \(problem.recordNumber): \(what) at byte \(problem.offset): \(problem.reason)")
                }
            }
        }
        do {
            while let (recordNumber, document) = try Self.nextDocument(input, stream: stream, count: &count) {
                listed += 1
                number = recordNumber
                try listDamage()
                guard let record else {
                    guard let path else {
                        try StandardStreams.printChecked(
                            "record \(recordNumber): \(document.reference.path) (\(try document.fieldCount()) fields)")
                        continue
                    }
                    try showField(path, of: document, record: recordNumber)
                    continue
                }
                guard recordNumber == record else {
                    // Records come in order: one past it means it was lost to damage, said below.
                    if recordNumber > record { break }
                    continue
                }
                // A record is shown from its bytes, offsets counting from its first one (a version-3 block stored in
                // columns gives its records' rows rebuilt); with --path, the field inside its fields.
                try document.withBytes(fieldsOnly: path != nil) { raw, limits, key in
                    try show(raw, file: false, limits: limits, under: key)
                }
                return
            }
            try listDamage()
        } catch let error as FirePackError {
            throw CommandFailure.data(file, error)
        }
        if record == nil { (input as? StreamInput)?.reportNotClosed(done: "listed") }
        // Damage another input's reader stepped over (a managed export's chunks), as `validate` reports it.
        if stream == nil {
            for problem in input.problems { StandardStreams.writeError("firepack: \(problem)\n") }
            listedProblems = input.problems.count
        }
        // A damaged index or close record costs no record: listed above, not counted as damage.
        let damaged = stream.map { $0.problemCount - $0.damagedClosingCount } ?? input.problemCount
        if damaged > listedProblems {
            StandardStreams.writeError(
                "firepack: \(file): \(damaged - listedProblems) more problem(s) not listed\n")
        }
        let recordsFound = stream?.recordsFound ?? number + 1
        // Listing them all, the documents read short of what the close record counts were not read.
        let summary = problemSummary(
            damaged, missingPlaces: stream?.missingRecordPlaces ?? input.missingRecordPlaces,
            pastExpansion: input.pastExpansion.blocks, records: record == nil ? (listed, input.closedRecordCount) : nil)
        let advice = expansionAdvice(input.pastExpansion) ?? "firepack validate says why"
        let part = input.pastExpansion.blocks > 0 ? "a part of the stream not read" : "a damaged part of the stream"
        if let record {
            // Damage is what kept the record from being shown when the stream counts it.
            throw CommandFailure(
                message: damaged > 0 && record < recordsFound
                    ? "\(file): record \(record) is in \(part) (\(summary)); \(advice)"
                    : "\(file): no record \(record) (the stream has \(recordsFound))")
        }
        // What was listed is not all the input holds: the command fails, as `stats` and `schema` do.
        if damaged > 0 { throw CommandFailure(message: "\(file): \(summary); \(advice)") }
    }

    /// The next document and its record number (a `.fpks` record's own number; else the count so far).
    static func nextDocument(_ input: DocumentInput, stream: DocumentStreamReader?, count: inout Int) throws -> (
        Int, InspectedDocument
    )? {
        if let stream {
            guard let (record, reference) = try stream.nextCheckedRecord() else { return nil }
            return (record.number, .record(record.payload, reference: reference, limits: stream.limits))
        }
        guard let document = try input.next() else { return nil }
        defer { count += 1 }
        return (count, .built(document))
    }

    /// `record N (path): field` — one line per record for `--path` without `--record`, written as it is rendered.
    func showField(_ path: String, of document: InspectedDocument, record: Int) throws {
        try document.withBytes(fieldsOnly: true) { raw, limits, key in
            let reader = try FirePackReader(bytes: raw, limits: limits)
            let fields = try key.map(reader.root.requiredEntry) ?? reader.root
            let name = "record \(record) (\(document.reference.path))"
            guard let found = try fields.lookup(path) else {
                try StandardStreams.printChecked("\(name): no field at '\(path)'")
                return
            }
            var printer = TreePrinter(showOffsets: false, writesEvery: 1 << 16)
            printer.output = "\(name): "
            try printer.print(found, label: nil, indent: 0)
            if !printer.output.isEmpty { try StandardStreams.printChecked(String(printer.output.dropLast())) }
        }
    }

    /// Prints the value in `raw` (a `.fpk` file when `file`, else a bare encoding read with `limits`), or the field
    /// at `--path`; with `key`, of the map under that key of the root (a document record's `fields`).
    func show(
        _ raw: UnsafeRawBufferPointer, file isFile: Bool, limits: ReaderLimits = .default, under key: String? = nil
    )
        throws
    {
        do {
            // Every byte checked first, without a tree, as `validate` checks it: the walk below reads lazily, and
            // would show a key given twice, or report a later defect than the first.
            if isFile { try FirePackReader.verify(fileBytes: raw, limits: limits) }
            let reader =
                isFile
                ? try FirePackReader(fileBytes: raw, limits: limits) : try FirePackReader(bytes: raw, limits: limits)
            var view = try key.map(reader.root.requiredEntry) ?? reader.root
            if let path {
                guard let found = try view.lookup(path) else {
                    throw CommandFailure(message: "\(file): no field at path '\(path)'")
                }
                view = found
            }
            // Written as it is rendered, in pieces: a large value's text is never held whole.
            var printer = TreePrinter(showOffsets: offsets, writesEvery: 1 << 16)
            try printer.print(view, label: nil, indent: 0)
            if !printer.output.isEmpty { try StandardStreams.printChecked(String(printer.output.dropLast())) }
        } catch let error as FirePackError {
            throw CommandFailure.data(file, error)
        }
    }
}

/// A document `inspect` shows: a `.fpks` record, read from its bytes where the stream holds them (a tree of a record
/// can take a hundred times its bytes, Docs/SAFETY.md), or a document another input built.
enum InspectedDocument {
    /// A record's payload, valid until the stream's next read, checked as a document of this name.
    case record(UnsafeRawBufferPointer, reference: DocumentReference, limits: ReaderLimits)
    case built(Document)

    var reference: DocumentReference {
        switch self {
        case .record(_, let reference, _): reference
        case .built(let document): document.reference
        }
    }

    /// How many fields the document has.
    func fieldCount() throws -> Int {
        switch self {
        case .record(let payload, _, let limits):
            try FirePackReader(bytes: payload, limits: limits).root.requiredEntry("fields").count()
        case .built(let document): document.fields.count
        }
    }

    /// Runs `body` with FirePack bytes of the document (`fieldsOnly`: of its fields), the limits to read them with,
    /// and the key of the root under which the asked part is (a record's `fields`), if any.
    func withBytes(
        fieldsOnly: Bool, _ body: (UnsafeRawBufferPointer, ReaderLimits, String?) throws -> Void
    ) throws {
        switch self {
        case .record(let payload, _, let limits):
            try body(payload, limits, fieldsOnly ? "fields" : nil)
        case .built(let document):
            let bytes = fieldsOnly ? Value.map(document.fields).firePackBytes() : document.firePackBytes()
            try bytes.withUnsafeBytes { try body($0, .default, nil) }
        }
    }
}

extension ValueView {
    /// The value under `key` in this map, which holds it (a checked document record's `fields`).
    fileprivate func requiredEntry(_ key: String) throws(FirePackError) -> ValueView {
        guard let entry = try self[key] else {
            throw FirePackError(.invalidDocument, offset: offset, "a document record without \(key)")
        }
        return entry
    }
}

/// Renders a value view as an indented, typed tree, decoding each scalar as it goes.
struct TreePrinter {
    let showOffsets: Bool
    /// With a size, the lines rendered so far go to standard output whenever they reach that many bytes, so that a
    /// large value's text is never held whole; `output` holds what is left for the caller.
    var writesEvery: Int? = nil
    var output = ""

    init(showOffsets: Bool, writesEvery: Int? = nil) {
        self.showOffsets = showOffsets
        self.writesEvery = writesEvery
    }

    /// Adds a line (`text` ends with a newline).
    mutating func emit(_ text: String) throws {
        output += text
        if let writesEvery, output.utf8.count >= writesEvery {
            try StandardStreams.printChecked(String(output.dropLast()))
            output = ""
        }
    }

    mutating func print(_ view: ValueView, label: String?, indent: Int) throws {
        var line = String(repeating: "  ", count: indent)
        if showOffsets { line += "@\(view.offset) \(view.encodingLabel) " }
        if let label { line += label + ": " }
        guard let type = view.type else {
            try emit(line + "extension value (\(view.byteCount) bytes)\n")
            return
        }
        switch type {
        case .array:
            try emit(line + "array (\(try view.count()))\n")
            var index = 0
            try view.forEachElement { element in
                try print(element, label: "[\(index)]", indent: indent + 1)
                index += 1
            }
            return
        case .map:
            try emit(line + "map (\(try view.count()))\n")
            try view.forEachEntry { key, value in try print(value, label: key.string, indent: indent + 1) }
            return
        case .null: line += "null"
        case .boolean: line += "boolean \(try view.boolean())"
        case .integer: line += "integer \(try view.integer())"
        case .double: line += "double \(try view.double())"
        case .timestamp: line += "timestamp \(try view.timestamp().rfc3339String)"
        case .string: line += "string \(try view.string().debugDescription)"
        case .bytes: line += "bytes (\(try view.bytes().count)) \(try view.bytes().data.base64EncodedString())"
        case .reference: line += "reference \(try view.reference().path)"
        case .geoPoint:
            let point = try view.geoPoint()
            line += "geopoint (\(point.latitude), \(point.longitude))"
        case .vector: line += "vector \(Array(try view.vector()))"
        case .serverTimestamp: line += "serverTimestamp"
        }
        try emit(line + "\n")
    }
}
