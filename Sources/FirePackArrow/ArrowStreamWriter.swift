import CArrowABI
import FirePack
import FirePackInterop
import FirePackStreams

/// Writes Arrow record batches as FirePack documents to a `.fpks` stream, with the stream writer and the outputs the
/// tool uses (all or nothing on a regular file, a device or pipe written in place, a close record at the end).
///
/// Each row is one document: its path from the `__name__` column (or `collection/<idPrefix><row>` when there is
/// none), its times from `__create_time__` / `__update_time__`, its fields from the other columns, read back to the
/// FirePack types their `firepack.type` marks name (Docs/ARROW.md). A null is an absent field, or a null value where
/// the column is marked `firepack.null: value`; list elements that are null are null values.
public final class ArrowStreamWriter {
    let output: DocumentStreamWriter
    /// Where documents go when there is no `__name__` column: `collection/<idPrefix><row number>`.
    public var collection: String?
    /// What comes before each generated document ID's row number (so that writers of different parts of one table,
    /// Spark tasks say, give distinct IDs).
    public var idPrefix = ""
    /// Rows written.
    public private(set) var rowsWritten = 0
    /// Rows named by `__name__` that repeat an earlier row's path, counted, with the first ones as example lines:
    /// written as they are (as `firepack convert` writes them), but Firestore would keep only the last of each.
    public private(set) var repeatedPaths = ProblemReport(maxExamples: 5)
    /// A note when the check for repeated paths stopped keeping paths (it stays exact for those kept).
    public var repeatedPathsNote: String? { paths.partialNote }
    private var paths = DuplicatePaths()

    /// Starts a stream at `path`, opened as the tool opens its outputs (`OutputFile.sink(atPath:)`): a regular file
    /// or a new path holds nothing new until `close()` succeeds; standard output, a device or a pipe is written in
    /// place, never replaced; a directory is refused before any row is read.
    public init(path: String) throws {
        output = try DocumentStreamWriter(sink: OutputFile.sink(atPath: path))
    }

    /// Writes every row of one record batch (a struct array) whose schema is `schema`.
    public func write(batch: UnsafePointer<ArrowArray>, schema: ArrowDocumentSchema) throws {
        let batchArray = ImportedArray(batch)
        guard batchArray.childCount == schema.columns.count else {
            throw FirePackError(
                .typeMismatch,
                "a batch has \(batchArray.childCount) columns where its schema has \(schema.columns.count)")
        }
        var nameColumn: (ArrowColumn, ImportedArray)?, createColumn: (ArrowColumn, ImportedArray)?,
            updateColumn: (ArrowColumn, ImportedArray)?
        var fields: [(ArrowColumn, ImportedArray)] = []
        for (index, column) in schema.columns.enumerated() {
            guard batchArray.array.pointee.children[index] != nil else {
                throw FirePackError(.typeMismatch, "a batch's column \(index) is missing (an invalid array)")
            }
            let pair = (column, batchArray.child(index))
            try pair.1.check(against: column, rows: batchArray.length)
            switch column.name {
            case ArrowDocumentSchema.nameColumn: nameColumn = pair
            case ArrowDocumentSchema.createTimeColumn: createColumn = pair
            case ArrowDocumentSchema.updateTimeColumn: updateColumn = pair
            default: fields.append(pair)
            }
        }
        // The document's times are read in their column's unit: a column of any other type would be its bytes read
        // as times.
        // A column of Arrow's null type (every row null, as engines type an empty column) gives no times.
        func times(_ pair: (ArrowColumn, ImportedArray)?) throws(FirePackError) -> (ArrowColumn, ImportedArray)? {
            guard let (column, _) = pair, column.type != .timestamp else { return pair }
            guard column.type == .null else {
                throw FirePackError(
                    .typeMismatch,
                    "\(column.name) must be a timestamp column (the document's time), not \(column.type)",
                    path: [.key(column.name)])
            }
            return nil
        }
        createColumn = try times(createColumn)
        updateColumn = try times(updateColumn)
        // A collection and an id prefix name the rows of a table without names; with a `__name__` column they would
        // name nothing, and a caller who gave them expects the documents named by them.
        if nameColumn != nil, collection != nil || !idPrefix.isEmpty {
            let given =
                collection.map { "collection \($0.debugDescription)" } ?? "id prefix \(idPrefix.debugDescription)"
            throw FirePackError(
                .invalidValue,
                "the table names its documents by its __name__ column: \(given) would name none of them (give it "
                    + "only for a table without __name__)")
        }
        if nameColumn == nil && collection == nil {
            throw FirePackError(
                .invalidValue,
                "the table has no __name__ column to name its documents: give a collection to name them COLLECTION/<row>"
            )
        }
        for row in 0..<batchArray.length {
            let number = rowsWritten
            do {
                let reference: DocumentReference
                if let (column, array) = nameColumn {
                    guard column.type == .reference || column.type == .string, !array.isNull(row) else {
                        throw FirePackError(
                            .invalidValue, "__name__ must be a non-null string (a document path)",
                            path: [.key("__name__")])
                    }
                    reference = try DocumentReference(path: try array.string(row))
                } else {
                    reference = try DocumentReference(path: "\(collection!)/\(idPrefix)\(number)")
                }
                let createTime = try createColumn.flatMap { (column, array) throws(FirePackError) in
                    try array.isNull(row) ? nil : array.timestamp(row, unitsPerSecond: column.timeUnitsPerSecond)
                }
                let updateTime = try updateColumn.flatMap { (column, array) throws(FirePackError) in
                    try array.isNull(row) ? nil : array.timestamp(row, unitsPerSecond: column.timeUnitsPerSecond)
                }
                var failure: FirePackError?
                _ = try output.append(reference: reference, createTime: createTime, updateTime: updateTime) { writer in
                    do throws(FirePackError) {
                        try ArrowStreamWriter.writeMap(fields, row: row, to: writer)
                    } catch {
                        failure = error
                        throw error
                    }
                    return true
                }
                if let failure { throw failure }
                if nameColumn != nil { paths.check(reference.path, at: number, unit: "row", into: &repeatedPaths) }
            } catch let error as FirePackError {
                throw FirePackError(
                    error.code,
                    "row \(number)\(error.path.isEmpty ? "" : ", field \(error.pathDescription)"): \(error.message)",
                    path: error.path)
            }
            rowsWritten += 1
        }
    }

    /// Writes the close record and makes the file appear.
    public func close() throws { try output.close() }

    static func writeMap(_ fields: [(ArrowColumn, ImportedArray)], row: Int, to writer: FirePackWriter)
        throws(FirePackError)
    {
        writer.beginMap()
        for (column, array) in fields {
            // A column of Arrow's null type has no validity buffer: every row is null.
            let isNull = column.type == .null || array.isNull(row)
            if isNull && column.nullMeaning != .value { continue }
            guard writer.writeKey(column.name) else {
                throw FirePackError(
                    .duplicateKey, "two columns are named \(column.name.debugDescription)", path: [.key(column.name)])
            }
            if isNull {
                writer.writeNull()
                continue
            }
            do throws(FirePackError) { try writeValue(column, array, row, to: writer) } catch {
                throw error.prefixingPath(with: .key(column.name))
            }
        }
        writer.endMap()
    }

    static func writeValue(_ column: ArrowColumn, _ array: ImportedArray, _ row: Int, to writer: FirePackWriter)
        throws(FirePackError)
    {
        switch column.type {
        case .null: writer.writeNull()
        case .boolean: writer.writeBoolean(array.bit(row))
        case .int64: writer.writeInteger(array.int64(row))
        case .float64: writer.writeDouble(Double(bitPattern: UInt64(bitPattern: array.int64(row))))
        case .timestamp:
            writer.writeTimestamp(try array.timestamp(row, unitsPerSecond: column.timeUnitsPerSecond))
        case .string:
            try array.withBytes(row) { (bytes) throws(FirePackError) in
                if let bad = UTF8Validator.firstInvalidOffset(in: bytes) {
                    throw FirePackError(.invalidUTF8, "a string is not UTF-8 (byte \(bad) of it)")
                }
                writer.writeString(utf8: bytes)
            }
        case .binary: try array.withBytes(row) { writer.writeBytes($0) }
        case .reference: writer.writeReference(try DocumentReference(path: try array.string(row)))
        case .exact: writer.write(try array.withBytes(row) { (bytes) throws(FirePackError) in try Value(json: bytes) })
        case .geoPoint:
            let latitude = array.child(0), longitude = array.child(1)
            guard !latitude.isNull(row), !longitude.isNull(row) else {
                throw FirePackError(.invalidGeoPoint, "a geopoint's latitude and longitude cannot be null")
            }
            writer.writeGeoPoint(
                try GeoPoint(validatingLatitude: latitude.double(row), longitude: longitude.double(row)))
        case .vector(let dimension):
            let element = array.elements()
            let (start, end): (Int, Int)
            if let dimension {
                (start, end) = ((array.offset + row) * dimension, (array.offset + row + 1) * dimension)
            } else {
                (start, end) = try array.listRange(row, within: element.length)
            }
            var values: [Double] = []
            values.reserveCapacity(end - start)
            for index in start..<end {
                guard !element.isNull(index) else { throw FirePackError(.invalidValue, "a vector element is null") }
                values.append(element.double(index))
            }
            writer.writeVector(values)
        case .map(let fields):
            try writeMap(fields.enumerated().map { ($1, array.child($0)) }, row: row, to: writer)
        case .list(let elementColumn):
            let element = array.elements()
            let (start, end) = try array.listRange(row, within: element.length)
            writer.beginArray()
            for index in start..<end {
                if element.isNull(index) {
                    writer.writeNull()
                    continue
                }
                do throws(FirePackError) { try writeValue(elementColumn, element, index, to: writer) } catch {
                    throw error.prefixingPath(with: .index(index - start))
                }
            }
            writer.endArray()
        }
    }
}

/// An Arrow array read in place (the consumer's side of the C Data Interface): its offset applied to every access.
struct ImportedArray {
    let array: UnsafePointer<ArrowArray>
    /// The logical offset: the array's own plus, for a struct's field, the struct's.
    let offset: Int

    init(_ array: UnsafePointer<ArrowArray>, parentOffset: Int = 0) {
        self.array = array
        offset = Int(array.pointee.offset) + parentOffset
    }

    var length: Int { Int(array.pointee.length) }
    var childCount: Int { Int(array.pointee.n_children) }

    /// A struct's field: row `r` of the struct is row `r` of the field, both shifted by the struct's offset.
    func child(_ index: Int) -> ImportedArray {
        ImportedArray(UnsafePointer(array.pointee.children[index]!), parentOffset: offset)
    }

    /// Checks that the array has the buffers and children that `column`'s type has in the C Data Interface, and
    /// `rows` rows from its offset: an array of another type (a batch that does not match its stream's schema) would
    /// otherwise be read through buffers it does not have. Lists' offsets are checked as each row is read.
    func check(against column: ArrowColumn, rows: Int) throws(FirePackError) {
        let raw = array.pointee
        func fail(_ why: String) -> FirePackError {
            FirePackError(
                .typeMismatch,
                "column \(column.name.debugDescription): \(why), not what its type \(column.type) has (the batch does not match its schema)",
                path: [.key(column.name)])
        }
        guard raw.length >= 0, raw.offset >= 0, Int(raw.length) >= offset - Int(raw.offset) + rows else {
            throw fail("an array of \(raw.length) rows at offset \(raw.offset) where \(rows) are read")
        }
        func needs(buffers: Int, children: Int) throws(FirePackError) {
            guard raw.n_buffers == buffers, raw.n_children == children, children == 0 || raw.children != nil,
                buffers == 0 || raw.buffers != nil
            else {
                throw fail("an array of \(raw.n_buffers) buffers and \(raw.n_children) children")
            }
            for index in 0..<children where raw.children[index] == nil { throw fail("a missing child array") }
            for index in 1..<max(buffers, 1) where rows > 0 && raw.buffers[index] == nil {
                throw fail("a missing buffer \(index)")
            }
        }
        switch column.type {
        case .null: break
        case .boolean, .int64, .float64, .timestamp: try needs(buffers: 2, children: 0)
        case .string, .binary, .reference, .exact: try needs(buffers: 3, children: 0)
        case .geoPoint:
            try needs(buffers: 1, children: 2)
            for index in 0..<2 {
                try child(index).check(against: ArrowColumn(name: column.name, type: .float64), rows: rows)
            }
        case .map(let fields):
            try needs(buffers: 1, children: fields.count)
            for (index, field) in fields.enumerated() { try child(index).check(against: field, rows: rows) }
        case .list(let element):
            try needs(buffers: 2, children: 1)
            let elements = self.elements()
            try elements.check(against: element, rows: elements.length)
        case .vector(let dimension):
            if let dimension {
                try needs(buffers: 1, children: 1)
                let elements = self.elements()
                let (needed, overflow) = (offset + rows).multipliedReportingOverflow(by: dimension)
                guard !overflow, elements.length >= needed else {
                    throw fail("\(elements.length) elements for \(offset + rows) vectors of \(dimension)")
                }
                try elements.check(against: ArrowColumn(name: column.name, type: .float64), rows: elements.length)
            } else {
                try needs(buffers: 2, children: 1)
                let elements = self.elements()
                try elements.check(against: ArrowColumn(name: column.name, type: .float64), rows: elements.length)
            }
        }
    }

    /// A list's elements, indexed by the list's offsets as they are.
    func elements() -> ImportedArray { ImportedArray(UnsafePointer(array.pointee.children[0]!)) }

    func buffer(_ index: Int) -> UnsafeRawPointer? { array.pointee.buffers[index] }

    func isNull(_ row: Int) -> Bool {
        guard array.pointee.null_count != 0, array.pointee.n_buffers > 0, let validity = buffer(0) else { return false }
        let bit = offset + row
        return validity.load(fromByteOffset: bit >> 3, as: UInt8.self) & UInt8(1 << (bit & 7)) == 0
    }

    func bit(_ row: Int) -> Bool {
        let bit = offset + row
        return buffer(1)!.load(fromByteOffset: bit >> 3, as: UInt8.self) & UInt8(1 << (bit & 7)) != 0
    }

    func int64(_ row: Int) -> Int64 { buffer(1)!.loadUnaligned(fromByteOffset: (offset + row) * 8, as: Int64.self) }
    func double(_ row: Int) -> Double { Double(bitPattern: UInt64(bitPattern: int64(row))) }

    /// The timestamp of `row`, whose value counts `unitsPerSecond` units per second since the epoch.
    func timestamp(_ row: Int, unitsPerSecond: Int64) throws(FirePackError) -> Timestamp {
        let (seconds, remainder) = int64(row).quotientAndRemainder(dividingBy: unitsPerSecond)
        let nanoseconds = remainder * (1_000_000_000 / unitsPerSecond)
        return nanoseconds < 0
            ? try Timestamp(validatingSeconds: seconds - 1, nanoseconds: Int32(nanoseconds + 1_000_000_000))
            : try Timestamp(validatingSeconds: seconds, nanoseconds: Int32(nanoseconds))
    }

    /// A list's element range in its child (32-bit offsets), checked to be one: offsets that decrease or, with
    /// `within` (the child's length), pass the child would read memory that is not the array's.
    func listRange(_ row: Int, within limit: Int? = nil) throws(FirePackError) -> (Int, Int) {
        let offsets = buffer(1)!
        let start = Int(offsets.loadUnaligned(fromByteOffset: (offset + row) * 4, as: Int32.self))
        let end = Int(offsets.loadUnaligned(fromByteOffset: (offset + row + 1) * 4, as: Int32.self))
        guard 0 <= start, start <= end, end <= limit ?? end else {
            let within = limit.map { " within its \($0) elements" } ?? ""
            throw FirePackError(
                .invalidValue, "an Arrow array's offsets \(start)…\(end) are not a range\(within) (an invalid array)")
        }
        return (start, end)
    }

    func withBytes<R>(_ row: Int, _ body: (UnsafeRawBufferPointer) throws(FirePackError) -> R) throws(FirePackError)
        -> R
    {
        let (start, end) = try listRange(row)
        // The data buffer may be null when it holds no bytes (a column of empty strings), as the specification allows.
        guard end > start, let data = buffer(2) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: data + start, count: end - start))
    }

    func string(_ row: Int) throws(FirePackError) -> String {
        try withBytes(row) { (bytes) throws(FirePackError) in
            if let bad = UTF8Validator.firstInvalidOffset(in: bytes) {
                throw FirePackError(.invalidUTF8, "a string is not UTF-8 (byte \(bad) of it)")
            }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
