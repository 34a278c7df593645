import CArrowABI
import FirePack
import FirePackInterop
import FirePackStreams

/// Reads FirePack documents into Arrow record batches, straight from each record's bytes into column buffers.
///
/// One reader reads one file, or one byte range of a stream (`offset`, `length`: Docs/ARROW.md, "Splits"). The
/// schema is the caller's, or inferred from the file (all of it, or a sample) before the first batch. Damaged records
/// are skipped and kept in `problems` (`skipDamaged`), or end reading with an error naming the record and its byte
/// offset; a value that does not fit its column is an error naming the record, offset and field path, or a null
/// counted in `warningCounts` (`nullsForMismatches`).
public final class ArrowBatchReader {
    /// How to read.
    public struct Options: Sendable {
        /// Rows per batch at most.
        public var batchSize = 65_536
        /// Bytes of column buffers per batch at most (a batch closes early when its columns reach it).
        public var maxBatchBytes = 128 << 20
        /// The columns wanted (nil: all), by top-level name; the others are skipped without being read.
        public var columns: [String]?
        /// The schema to read into (nil: inferred from the file).
        public var schema: ArrowDocumentSchema?
        /// How many records inference reads (nil: all of them).
        public var sample: Int?
        /// The byte range to read (Docs/ARROW.md, "Splits"): `offset` and `length` (nil: to the end).
        public var offset = 0
        public var length: Int?
        /// The records to read, by number (nil: every record of the byte range). A closed version-3 stream is entered
        /// through its index at the block that holds the first; any other file is read up to it. Not with a byte
        /// range.
        public var records: Range<Int>?
        /// Whether a value that does not fit its column becomes a null plus a counted warning.
        public var nullsForMismatches = false
        /// Whether damaged records are skipped and reported in `problems` (else the first one is an error).
        public var skipDamaged = false
        /// Whether the given `schema` was inferred from a sample (as a Spark or Ray planner does once for all its
        /// readers): then, as with `sample`, a field it does not have, or a null where it says absent (or the
        /// reverse), is an error rather than dropped or changed.
        public var schemaIsSampled = false
        /// Whether top-level fields the schema does not have are skipped, as with `columns`: the schema is a query's
        /// choice of a sampled schema's columns (Spark's column pruning). Inside the columns it has, `schemaIsSampled`
        /// still makes a field it does not have, or a null it did not foresee, an error.
        public var skipsFieldsOutsideSchema = false
        /// The unit of timestamp columns: nanoseconds (Arrow `timestamp[ns]`, exact for every Firestore timestamp
        /// in range), or microseconds (`timestamp[us]`, what Spark holds) where a value with nanoseconds is a
        /// mismatch unless `truncatingToMicroseconds`.
        public var timestampUnit = ArrowTimestampUnit.nanoseconds
        /// The bytes a version-3 block may unpack into per byte of it in the stream
        /// (`DocumentStreamReader.maxBlockExpansion`): raise it to read a stream whose blocks are refused as past it.
        public var maxBlockExpansion = DocumentStreamFormat.maxBlockExpansion
        /// How many times its value's size the keys that a record's key references stand for may be
        /// (`ReaderLimits.maxKeyExpansion`, Docs/FORMAT.md §3): a record past it is not a document to inference,
        /// which leaves it out, nor to reading, in the keys it reads (and whole, when its own inference left it out).
        /// Raise it to read records that a writer without that rule filled with references to long keys.
        public var maxKeyExpansion = ReaderLimits.default.maxKeyExpansion
        /// Whether a stream read to its end that has no close record (its writer crashed or was interrupted, or is
        /// still writing: the records after the last one read may be lost) ends reading with an error rather than
        /// only in `completion` (the Spark connector's default: a job's logs are where a warning goes unseen).
        public var refusesUnclosedStream = false

        /// The defaults: 65,536 rows, all columns, the schema inferred from the whole file, errors on damage.
        public init() {}
    }

    let source: FirePackRecordSource
    let options: Options
    /// What records are read with (`Options.maxKeyExpansion`).
    let limits: ReaderLimits
    /// The records the reader's own inference found not to be documents: reported again when read, checked whole.
    let rejected: FirePackRecordSource.RejectedRecords?
    /// The columns of the batches.
    public let schema: ArrowDocumentSchema
    /// Why fields are kept as JSON text, by path (inferred schemas only).
    public let exactReasons: [String: String]
    let context: ConversionContext
    let nameBuilder: ColumnBuilder?
    let createBuilder: ColumnBuilder?
    let updateBuilder: ColumnBuilder?
    let fieldsBuilder: ColumnBuilder
    /// The builders in column order.
    let builders: [ColumnBuilder]
    /// Rows returned so far.
    public private(set) var rowsRead = 0
    /// Every builder that holds rows (the fields' struct and the document's own columns), and their state before the
    /// current row, for taking a half-read record back.
    var allBuilders: [ColumnBuilder] = []
    var rowState: [Int] = []

    /// Opens `path` (a `.fpks`, `.fpks.gz` or `.fpk`); infers the schema first when none is given.
    public init(path: String, options: Options = Options()) throws {
        self.options = options
        limits = ReaderLimits(maxKeyExpansion: options.maxKeyExpansion)
        var schema: ArrowDocumentSchema
        var reasons: [String: String] = [:]
        if let given = options.schema {
            try given.checkUniqueNames()
            schema = given
            rejected = nil
        } else {
            let profile = try DocumentProfile.of(
                paths: [path], sample: options.sample, maxBlockExpansion: options.maxBlockExpansion,
                maxKeyExpansion: options.maxKeyExpansion, keepingRejectedPlaces: true)
            (schema, reasons) = try profile.schema()
            rejected = profile.rejected[path].flatMap { $0.isEmpty ? nil : $0 }
        }
        if let columns = options.columns { schema = try schema.projected(to: columns) }
        try schema.checkOwnColumns()
        // An inferred schema as wide as its stream is sparse (a given one is the caller's choice, dense data of many
        // fields included).
        if options.schema == nil { try schema.checkInferredWidth() }
        self.schema = schema
        exactReasons = reasons
        context = ConversionContext(
            nullsForMismatches: options.nullsForMismatches,
            unknownFieldsAreErrors: options.schemaIsSampled || (options.schema == nil && options.sample != nil),
            timestampUnit: options.timestampUnit)
        if options.records != nil && (options.offset != 0 || options.length != nil) {
            throw FirePackError(.invalidValue, "read records by number or a byte range, not both")
        }
        source = try FirePackRecordSource.open(
            path: path, offset: options.offset, length: options.length, records: options.records,
            mode: options.skipDamaged ? .skipAndReport : .stopAtFirstError,
            maxBlockExpansion: options.maxBlockExpansion,
            limits: limits)
        func builder(_ name: String) -> ColumnBuilder? {
            schema.columns.first { $0.name == name }.map { ColumnBuilder($0, path: $0.name) }
        }
        nameBuilder = builder(ArrowDocumentSchema.nameColumn)
        createBuilder = builder(ArrowDocumentSchema.createTimeColumn)
        updateBuilder = builder(ArrowDocumentSchema.updateTimeColumn)
        let own: Set = [
            ArrowDocumentSchema.nameColumn, ArrowDocumentSchema.createTimeColumn, ArrowDocumentSchema.updateTimeColumn
        ]
        let fields = schema.columns.filter { !own.contains($0.name) }
        fieldsBuilder = ColumnBuilder(ArrowColumn(name: "", type: .map(fields)), path: "")
        fieldsBuilder.skipsUnknownFields = options.columns != nil || options.skipsFieldsOutsideSchema
        // The batch's columns in the schema's order.
        var byName: [FieldName: ColumnBuilder] = [:]
        for child in fieldsBuilder.children { byName[FieldName(child.column.name)] = child }
        for own in [nameBuilder, createBuilder, updateBuilder] {
            if let own { byName[FieldName(own.column.name)] = own }
        }
        builders = schema.columns.map { byName[FieldName($0.name)]! }
        allBuilders = [fieldsBuilder] + [nameBuilder, createBuilder, updateBuilder].compactMap { $0 }
    }

    /// Damaged or invalid records skipped so far (the first thousand).
    public var problems: [StreamProblem] { source.problems }
    /// How many records were skipped as damaged or invalid.
    public var problemCount: Int { source.problemCount }
    /// How many of them are a damaged index or close record: no record lost (read in either mode).
    public var damagedClosingCount: Int { source.damagedClosingCount }
    /// How many of them are version-3 blocks past `Options.maxBlockExpansion`: not damage.
    public var blocksPastExpansion: Int { source.blocksPastExpansion }
    /// The `maxBlockExpansion` that reads every one of those blocks (at least; 0 when there is none).
    public var blockExpansionNeeded: Int { source.blockExpansionNeeded }
    /// Values turned into nulls because they did not fit their column, by field path (`nullsForMismatches`).
    public var warningCounts: [String: Int] { context.warningCounts }
    /// The first of them in words.
    public var warningExamples: [String] { context.warningExamples }
    /// Whether the stream was closed cleanly (known at its end; nil for a range that ends before it).
    public var completion: StreamCompletion? { source.stream?.completion }

    /// Fills `out` with the next record batch (a struct array of the columns, which the consumer releases);
    /// returns false, leaving `out` untouched, when there are no more records.
    public func nextBatch(into out: UnsafeMutablePointer<ArrowArray>) throws -> Bool {
        var rows = 0
        // The columns' size is summed every 64 rows, and sooner after large records (an eighth of the limit in record
        // bytes since the last sum): records of megabytes would otherwise fill a batch far past `maxBatchBytes`, and a
        // column past Arrow's 2 GiB, before the 64th row.
        var recordBytesSinceCheck = 0
        while rows < options.batchSize {
            if rows & 63 == 63 || recordBytesSinceCheck >= options.maxBatchBytes >> 3 {
                recordBytesSinceCheck = 0
                if rows > 0 && fieldsBuilder.bufferedBytes + (nameBuilder?.bufferedBytes ?? 0) >= options.maxBatchBytes
                {
                    break
                }
            }
            guard let record = try source.nextRecord() else {
                try checkClosed()
                break
            }
            recordBytesSinceCheck += record.payload.count
            if try append(record) { rows += 1 }
        }
        guard rows > 0 else { return false }
        rowsRead += rows
        exportBatch(rows: rows, into: out)
        return true
    }

    /// How far a stream without a close record was read, as the readers say it (`after record N`), once this reader
    /// has reached its end; nil when the stream is closed, not read to its end, or when this reader read no record
    /// of it: a range that starts past the last record (or inside a closed stream's close record) sees no record and
    /// no close record, and leaves it to the range that read the last ones, which reads to the end too.
    public var unclosedAfter: String? {
        guard case .notClosed(let count)? = completion else { return nil }
        let fromStart = options.offset == 0 && options.records == nil
        guard count > 0 || fromStart else { return nil }
        // The stream's own number, when the reader knows it: a version-3 range from its blocks (each carries its first
        // record's number); a version-2 range that starts inside the stream counts from its own first record.
        if let number = source.stream?.streamNumber { return "after record \(number)" }
        return "after \(count) record(s) of the range read"
    }

    /// Throws at the end of a stream without a close record when `refusesUnclosedStream` (`unclosedAfter`).
    func checkClosed() throws(FirePackError) {
        guard options.refusesUnclosedStream, let unclosedAfter else { return }
        throw FirePackError(
            .truncated,
            "\(source.path): the stream ends without a close record \(unclosedAfter): its writer crashed or was "
                + "interrupted, or is still writing, and records after these may be lost (firepack validate says "
                + "more; read what it holds with allowUnclosed=true)")
    }

    /// Appends one record's document as a row; false when it is not a valid document (reported, skipped).
    ///
    /// The record is read once, straight into the columns; every byte read is checked as it is read (what a
    /// projection skips is skipped by its length), and a record that the reader's own inference left out is checked
    /// whole first. A record that turns out not to be a document half way is taken back out of the columns and
    /// reported like a damaged one; a value that does not fit the schema is the caller's error, not damage, and ends
    /// reading (or became a null, with `nullsForMismatches`) — unless the record, then checked whole, is damaged:
    /// damage wins.
    func append(_ record: FirePackRecordSource.Record) throws -> Bool {
        context.recordNumber = record.number
        context.recordOffset = record.offset
        context.schemaError = false
        if options.skipDamaged {
            rowState.removeAll(keepingCapacity: true)
            for builder in allBuilders { builder.save(into: &rowState) }
        }
        let fieldsBuilder = self.fieldsBuilder, context = self.context
        do throws(FirePackError) {
            // A record inference rejected is reported here too (its schema has no column for what only it holds,
            // and a row of the rest would pass for the document): checked whole, it throws what inference met.
            if let rejected, rejected.contains(record) { _ = try Document.checkRecord(record.payload, limits: limits) }
            let document = try Document.scanRecord(record.payload, limits: limits) { reader throws(FirePackError) in
                try fieldsBuilder.appendMap(&reader, context)
            }
            if let nameBuilder { try nameBuilder.appendString(document.reference.path, context) }
            if let createBuilder {
                try append(document.createTime, to: createBuilder)
            } else if document.createTime != nil {
                try timeOutsideSchema(ArrowDocumentSchema.createTimeColumn)
            }
            if let updateBuilder {
                try append(document.updateTime, to: updateBuilder)
            } else if document.updateTime != nil {
                try timeOutsideSchema(ArrowDocumentSchema.updateTimeColumn)
            }
        } catch {
            // Damage wins: a record that is not a valid document is reported (and skipped) by every reader, inference
            // included, whatever else is wrong with it. So where a schema error could hide damage (a value that does
            // not fit, a field a sampled schema does not have), the record is checked whole, and its damage, with
            // the message inference gives, is what is reported.
            var damage: FirePackError? = context.schemaError ? nil : error
            if context.schemaError {
                do throws(FirePackError) { _ = try Document.checkRecord(record.payload, limits: limits) } catch let
                    whole
                {
                    damage = whole
                }
            }
            context.dropWarnings()
            if let damage {
                if options.skipDamaged {
                    var index = 0
                    for builder in allBuilders { builder.restore(from: rowState, at: &index) }
                }
                try source.reportInvalid(damage, in: record)
                return false
            }
            let offset = error.offset.flatMap { inside in record.payloadOffset.map { inside + $0 } } ?? record.offset
            let path = error.path.isEmpty ? "" : ", field \(error.pathDescription)"
            // A document decompressed from a block has no byte of the file: the byte inside it is named instead.
            let inside =
                record.payloadOffset == nil
                ? error.offset.map { " (at byte \($0) of the record's document, in a compressed block)" } ?? "" : ""
            throw FirePackError(
                error.code, offset: offset,
                "\(source.path): record \(record.number) at byte \(record.offset)\(path): \(error.message)\(inside)",
                path: error.path)
        }
        context.commitWarnings()
        return true
    }

    /// A time the document has where the schema has no column for it (`name`). A schema sampled from records that had
    /// none treats it as a field it did not see: an error, or with `nullsForMismatches` a counted warning, never
    /// dropped without a word. A schema the caller gave, or columns the caller chose, leave it out as asked.
    func timeOutsideSchema(_ name: String) throws(FirePackError) {
        guard context.unknownFieldsAreErrors, options.columns == nil, !options.skipsFieldsOutsideSchema else { return }
        if context.nullsForMismatches {
            return context.warn(path: name, "the document's \(name) is not in the schema: skipped")
        }
        context.schemaError = true
        throw FirePackError(
            .typeMismatch,
            "the document has a \(name), which the sampled schema has no column for: infer from more records or give a schema",
            path: [.key(name)])
    }

    func append(_ time: Timestamp?, to builder: ColumnBuilder) throws(FirePackError) {
        guard let time else { return builder.appendNull() }
        let value: Int64
        do throws(FirePackError) { value = try context.arrowTimestamp(time) } catch {
            context.schemaError = true
            throw FirePackError(.typeMismatch, "the document's \(builder.column.name) \(error.message)")
        }
        builder.values.append(value)
        builder.markValid()
    }

    /// Exports the built rows as one record batch: a struct array without nulls whose children are the columns.
    func exportBatch(rows: Int, into out: UnsafeMutablePointer<ArrowArray>) {
        let children = builders.map { builder in
            let pointer = UnsafeMutablePointer<ArrowArray>.allocate(capacity: 1)
            builder.export(into: pointer)
            return pointer
        }
        // The fields' struct is not exported itself (its children are the batch's columns): start it over.
        fieldsBuilder.resetLength()
        let owner = ExportedArray(buffers: [nil], owned: [], children: children)
        out.pointee = ArrowArray(
            length: Int64(rows), null_count: 0, offset: 0, n_buffers: 1, n_children: Int64(children.count),
            buffers: owner.buffers, children: children.isEmpty ? nil : owner.children, dictionary: nil,
            release: releaseExportedArray, private_data: Unmanaged.passRetained(owner).toOpaque())
    }

    /// The schema of the batches, with the inference notes in its metadata (`firepack.exact`).
    public func exportSchema(into out: UnsafeMutablePointer<ArrowSchema>) {
        schema.exportSchema(
            into: out, metadata: ArrowDocumentSchema.metadata(exactReasons: exactReasons),
            timestampUnit: options.timestampUnit)
    }
}

extension ArrowDocumentSchema {
    /// Schema-level metadata: `firepack.format` (the mapping's version) and `firepack.exact`, a JSON object of the
    /// field paths kept as JSON text and why.
    public static func metadata(exactReasons: [String: String]) -> [(String, String)] {
        var metadata = [("firepack.format", "1")]
        if !exactReasons.isEmpty {
            let entries = exactReasons.sorted { $0.key < $1.key }.map {
                "\(JSONText.quoted($0.key)):\(JSONText.quoted($0.value))"
            }
            metadata.append(("firepack.exact", "{" + entries.joined(separator: ",") + "}"))
        }
        return metadata
    }
}

extension ColumnBuilder {
    /// Starts a struct whose children were exported on their own over.
    func resetLength() {
        validity?.free()
        validity = nil
        length = 0
        nullCount = 0
    }
}

/// JSON string quoting for the few JSON texts the Arrow module writes (metadata, reports): FirePack's own JSON writer.
public enum JSONText {
    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        String(decoding: Value.string(text).jsonBytes(), as: UTF8.self)
    }
}
