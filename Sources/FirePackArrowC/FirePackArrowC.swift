import CArrowABI
import CFirePackSystem
import FirePack
import FirePackArrow
import FirePackStreams

// The C ABI of libFirePackArrowC.so: what the Python package (python/firepack/_native.py) calls through ctypes, and
// what any other language can. Data crosses as Arrow C Data / C Stream Interface structs; everything else as plain
// integers and NUL-terminated UTF-8 strings. A function that fails returns -1 (or NULL) and sets `*error` to a
// message the caller frees with `firepack_string_free`. No Swift error or trap reaches the caller for bad input.
// Declared for C callers in Docs/ARROW.md, "The C ABI".

/// A C string the caller frees with `firepack_string_free`.
func cString(_ text: String) -> UnsafeMutablePointer<CChar> { strdup(text) }

func report(_ error: any Error, _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) {
    let message = (error as? FirePackError)?.description ?? (error as? StreamProblem)?.description ?? "\(error)"
    out?.pointee = cString(message)
}

/// Frees a string this library returned.
@_cdecl("firepack_string_free")
public func firepack_string_free(_ text: UnsafeMutablePointer<CChar>?) { free(text) }

/// The library's version and the format versions it reads. The number goes up with every change to the functions'
/// arguments (2: `maxBlockExpansion`; 3: `maxKeyExpansion`), so that a caller built for one refuses a library of another rather than pass
/// arguments it reads otherwise (python/firepack/_native.py and the Spark connector's `FirePackNative` check it).
@_cdecl("firepack_arrow_version")
public func firepack_arrow_version() -> UnsafeMutablePointer<CChar> {
    cString("FirePackArrow 3 (reads .fpks 1–3, .fpk 1 and 3)")
}

/// Opens a reader of `path` (`.fpks`, `.fpks.gz`, `.fpk`) over the bytes `[offset, offset + length)` (`length` < 0:
/// to the end). `columns` (`columnCount` names, or NULL) projects; `schema` (or NULL: inferred from `sample`
/// records, < 0 for all) is consumed (released) by this call. `flags`: 1 = a value that does not fit becomes a null
/// and a counted warning, 2 = damaged records are skipped and reported, 4 = `schema` was inferred from a sample, 8 =
/// `offset` and `length` are record numbers, not bytes (the records `[offset, offset + length)`), 16 = timestamps in
/// microseconds with their nanoseconds dropped towards the past (`ArrowTimestampUnit.truncatingToMicroseconds`, as
/// the Spark connector's `timestampPrecision=truncate`), 32 = timestamps in microseconds where one with nanoseconds
/// is a mismatch (`ArrowTimestampUnit.microseconds`, as the Spark connector reads by default), 64 = a stream read to
/// its end without a close record is an error (`refusesUnclosedStream`, as the Spark readers do by default).
/// `maxBlockExpansion` is `ArrowBatchReader.Options.maxBlockExpansion` (≤ 0: the default, 1,024), `maxKeyExpansion`
/// its `maxKeyExpansion` (≤ 0: the default, 16). Returns a handle for `firepack_reader_export_stream`, `firepack_reader_report` and `firepack_reader_free`, or NULL.
@_cdecl("firepack_reader_open")
public func firepack_reader_open(
    _ path: UnsafePointer<CChar>, _ offset: Int64, _ length: Int64, _ batchSize: Int64,
    _ columns: UnsafePointer<UnsafePointer<CChar>?>?, _ columnCount: Int64,
    _ schema: UnsafeMutablePointer<ArrowSchema>?, _ sample: Int64, _ flags: Int32, _ maxBlockExpansion: Int64,
    _ maxKeyExpansion: Int64, _ errorOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> UnsafeMutableRawPointer? {
    defer { if let schema, schema.pointee.release != nil { schema.pointee.release?(schema) } }
    do {
        var options = ArrowBatchReader.Options()
        if flags & 8 != 0 {
            guard offset >= 0 else { throw FirePackError(.invalidValue, "record numbers start at 0, not \(offset)") }
            let end = length < 0 || offset.addingReportingOverflow(length).overflow ? Int64.max : offset + length
            options.records = Int(offset)..<Int(end)
        } else {
            options.offset = Int(offset)
            options.length = length < 0 ? nil : Int(length)
        }
        if batchSize > 0 { options.batchSize = Int(batchSize) }
        if let columns { options.columns = (0..<Int(columnCount)).map { String(cString: columns[$0]!) } }
        if let schema { options.schema = try ArrowDocumentSchema(importing: schema) }
        options.sample = sample < 0 ? nil : Int(sample)
        options.nullsForMismatches = flags & 1 != 0
        options.skipDamaged = flags & 2 != 0
        options.schemaIsSampled = flags & 4 != 0
        if flags & 16 != 0 { options.timestampUnit = .truncatingToMicroseconds }
        if flags & 32 != 0 { options.timestampUnit = .microseconds }
        options.refusesUnclosedStream = flags & 64 != 0
        if maxBlockExpansion > 0 { options.maxBlockExpansion = Int(maxBlockExpansion) }
        if maxKeyExpansion > 0 { options.maxKeyExpansion = Int(maxKeyExpansion) }
        let reader = try ArrowBatchReader(path: String(cString: path), options: options)
        return Unmanaged.passRetained(reader).toOpaque()
    } catch {
        report(error, errorOut)
        return nil
    }
}

func reader(_ handle: UnsafeMutableRawPointer) -> ArrowBatchReader {
    Unmanaged<ArrowBatchReader>.fromOpaque(handle).takeUnretainedValue()
}

/// Fills `out` with the reader's batches as an Arrow C stream (released by the consumer).
@_cdecl("firepack_reader_export_stream")
public func firepack_reader_export_stream(
    _ handle: UnsafeMutableRawPointer, _ out: UnsafeMutablePointer<ArrowArrayStream>
) {
    reader(handle).exportStream(into: out)
}

/// Fills `out` with the reader's schema (released by the consumer).
@_cdecl("firepack_reader_export_schema")
public func firepack_reader_export_schema(_ handle: UnsafeMutableRawPointer, _ out: UnsafeMutablePointer<ArrowSchema>) {
    reader(handle).exportSchema(into: out)
}

/// What the reader met so far, as JSON: `{"rows", "problem_count", "damaged_closings", "problems": [{"record",
/// "offset", "code", "reason"}], "warnings": {path: count}, "warning_examples": [...], "completion"}`; a completion
/// `{"not_closed": N, "said": text}` carries what to say of it (`ArrowBatchReader.unclosedAfter`), null when this
/// reader is not the one to say it.
@_cdecl("firepack_reader_report")
public func firepack_reader_report(_ handle: UnsafeMutableRawPointer) -> UnsafeMutablePointer<CChar> {
    let reader = reader(handle)
    let problems = reader.problems.map { problem in
        "{\"record\":\(problem.recordNumber),\"offset\":\(problem.offset),\"code\":\(quoted(problem.code.rawValue)),\"reason\":\(quoted(problem.reason))}"
    }
    let warnings = reader.warningCounts.sorted { $0.key < $1.key }.map { "\(quoted($0.key)):\($0.value)" }
    let examples = reader.warningExamples.map(quoted)
    let completion: String
    switch reader.completion {
    case .closed(let count)?: completion = "{\"closed\":\(UInt64(bitPattern: Int64(count)))}"
    case .notClosed(let count)?:
        completion = "{\"not_closed\":\(count),\"said\":\(reader.unclosedAfter.map(quoted) ?? "null")}"
    case .unknown?: completion = "\"unknown\""
    case nil: completion = "null"
    }
    return cString(
        "{\"rows\":\(reader.rowsRead),\"problem_count\":\(reader.problemCount),\"damaged_closings\":\(reader.damagedClosingCount),\"blocks_past_expansion\":\(reader.blocksPastExpansion),\"block_expansion_needed\":\(reader.blockExpansionNeeded),\"problems\":[\(problems.joined(separator: ","))],\"warnings\":{\(warnings.joined(separator: ","))},\"warning_examples\":[\(examples.joined(separator: ","))],\"completion\":\(completion)}"
    )
}

/// Releases a reader handle (a stream exported from it keeps what it needs).
@_cdecl("firepack_reader_free")
public func firepack_reader_free(_ handle: UnsafeMutableRawPointer) {
    Unmanaged<ArrowBatchReader>.fromOpaque(handle).release()
}

/// Infers the schema of `count` files (up to `sample` records in all; < 0: every record; blocks read with
/// `maxBlockExpansion`, records with `maxKeyExpansion`, ≤ 0: the defaults) into `out`, and a report of every field path into `*reportOut` (JSON, see
/// `DocumentProfile.reportJSON`). Returns 0, or -1 with `*error`.
@_cdecl("firepack_infer_schema")
public func firepack_infer_schema(
    _ paths: UnsafePointer<UnsafePointer<CChar>?>, _ count: Int64, _ sample: Int64, _ maxBlockExpansion: Int64,
    _ maxKeyExpansion: Int64, _ out: UnsafeMutablePointer<ArrowSchema>,
    _ reportOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ errorOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    do {
        let files = (0..<Int(count)).map { String(cString: paths[$0]!) }
        let profile = try DocumentProfile.of(
            paths: files, sample: sample < 0 ? nil : Int(sample),
            maxBlockExpansion: maxBlockExpansion > 0 ? Int(maxBlockExpansion) : DocumentStreamFormat.maxBlockExpansion,
            maxKeyExpansion: maxKeyExpansion > 0 ? Int(maxKeyExpansion) : ReaderLimits.default.maxKeyExpansion)
        let (schema, reasons) = try profile.schema()
        schema.exportSchema(into: out, metadata: ArrowDocumentSchema.metadata(exactReasons: reasons))
        reportOut?.pointee = cString(try profile.reportJSON())
        return 0
    } catch {
        report(error, errorOut)
        return -1
    }
}

/// Byte ranges of `path` of about `target` bytes each, as JSON `[[offset, length], …]`: every record belongs to
/// exactly one (Docs/ARROW.md, "Splits"). A gzip-compressed stream or a `.fpk` is one range.
@_cdecl("firepack_splits")
public func firepack_splits(
    _ path: UnsafePointer<CChar>, _ target: Int64,
    _ out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
    _ errorOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    do {
        let ranges = try StreamSplits.ranges(path: String(cString: path), targetBytes: Int(target))
        out.pointee = cString("[" + ranges.map { "[\($0.offset),\($0.length)]" }.joined(separator: ",") + "]")
        return 0
    } catch {
        report(error, errorOut)
        return -1
    }
}

/// Writes every batch of `stream` (consumed and released) to a new `.fpks` at `path`, all or nothing. Documents
/// are named by the `__name__` column, or `collection/<idPrefix><row>` (`collection` may be NULL when there is a
/// `__name__`). Returns the number of documents written, or -1 with `*error` (and nothing new at a file `path`; a
/// device or pipe is written in place, `OutputFile.sink(atPath:)`).
@_cdecl("firepack_write_stream")
public func firepack_write_stream(
    _ stream: UnsafeMutablePointer<ArrowArrayStream>, _ path: UnsafePointer<CChar>,
    _ collection: UnsafePointer<CChar>?, _ idPrefix: UnsafePointer<CChar>?,
    _ warningOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ errorOut: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int64 {
    do {
        let writer = try ArrowStreamWriter(path: String(cString: path))
        writer.collection = collection.map { String(cString: $0) }
        writer.idPrefix = idPrefix.map { String(cString: $0) } ?? ""
        try writer.write(stream: stream)
        try writer.close()
        // Rows that repeat a path: written, and said (the caller warns), as `firepack convert` says it.
        let repeats = writer.repeatedPaths
        if !repeats.isEmpty {
            let summary =
                "\(repeats.total) row(s) repeat the path of an earlier one: written as they are, "
                + "but Firestore would keep only the last of each"
            let lines = [summary] + repeats.lines(prefix: "") + (writer.repeatedPathsNote.map { [$0] } ?? [])
            warningOut?.pointee = cString(lines.joined(separator: "\n"))
        }
        return Int64(writer.rowsWritten)
    } catch {
        if stream.pointee.release != nil { stream.pointee.release?(stream) }
        report(error, errorOut)
        return -1
    }
}

func quoted(_ text: String) -> String { JSONText.quoted(text) }
