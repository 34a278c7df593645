import CFirePackSystem
import FirePack
import FirePackInterop

/// How a value that does not fit its column is handled, and what was counted.
final class ConversionContext {
    /// Whether a value that does not fit its column becomes a null plus a counted warning (else an error).
    let nullsForMismatches: Bool
    /// Whether a map key the schema does not have is an error (a sampled schema), or skipped (a schema the caller
    /// chose: its columns are the ones wanted).
    let unknownFieldsAreErrors: Bool
    /// Mismatches turned into nulls, by field path.
    var warningCounts: [String: Int] = [:]
    /// The first few of them in words, with record and offset.
    var warningExamples: [String] = []
    /// The current record's warnings, counted by path, and the examples among them that `warningExamples` has room
    /// for: counted once the record is a row (`commitWarnings`), or dropped with it when it is taken back as damaged
    /// (`dropWarnings`), so that a null is counted only where a row holds it. Memory for a count per path, not per
    /// warning (a record's array of millions of mismatched numbers is millions of warnings).
    private var pendingCounts: [String: Int] = [:]
    private var pendingExamples: [String] = []
    /// The current record's number and offset, for messages.
    var recordNumber = 0, recordOffset = 0
    /// Whether the error being thrown is about the schema (a value that does not fit, a batch too large), not about
    /// damaged bytes: set where such errors are thrown.
    var schemaError = false
    /// The unit of timestamp columns.
    let timestampUnit: ArrowTimestampUnit

    init(nullsForMismatches: Bool, unknownFieldsAreErrors: Bool, timestampUnit: ArrowTimestampUnit = .nanoseconds) {
        self.nullsForMismatches = nullsForMismatches
        self.unknownFieldsAreErrors = unknownFieldsAreErrors
        self.timestampUnit = timestampUnit
    }

    /// `time` in the timestamp columns' unit; throws (the message only) when it is outside what an Int64 of that unit
    /// holds, or has nanoseconds that microseconds would drop without being asked to.
    func arrowTimestamp(_ time: Timestamp) throws(FirePackError) -> Int64 {
        switch timestampUnit {
        case .nanoseconds:
            guard let nanoseconds = TimestampNanoseconds.of(time) else {
                throw FirePackError(
                    .typeMismatch, "timestamp \(time) is outside what timestamp[ns] holds (1677-09-21…2262-04-11)")
            }
            return nanoseconds
        case .microseconds where time.nanoseconds % 1000 != 0:
            throw FirePackError(
                .typeMismatch,
                "timestamp \(time) has nanoseconds, which microseconds (Spark's unit) do not hold: "
                    + "read with timestampPrecision 'truncate' to drop them")
        case .microseconds, .truncatingToMicroseconds:
            // Seconds × 10⁶ plus whole microseconds: the nanoseconds (0 …< 10⁹) make it floor division, so a time
            // before 1970 truncates towards the past, as its RFC 3339 text does.
            let (scaled, overflow) = time.seconds.multipliedReportingOverflow(by: 1_000_000)
            let (microseconds, carry) = scaled.addingReportingOverflow(Int64(time.nanoseconds / 1000))
            guard !overflow && !carry else {
                throw FirePackError(.typeMismatch, "timestamp \(time) is outside what timestamp[us] holds")
            }
            return microseconds
        }
    }
}

/// The unit of timestamp columns (`ArrowBatchReader.Options.timestampUnit`).
public enum ArrowTimestampUnit: Sendable, Hashable {
    /// `timestamp[ns, tz=UTC]`: every Firestore timestamp from 1677 to 2262, exact.
    case nanoseconds
    /// `timestamp[us, tz=UTC]`: a timestamp with nanoseconds is a mismatch (an error, or a counted null).
    case microseconds
    /// `timestamp[us, tz=UTC]`, nanoseconds dropped (towards the past), as the caller asked.
    case truncatingToMicroseconds

    /// The Arrow format string (C Data Interface).
    var format: String { self == .nanoseconds ? "tsn:UTC" : "tsu:UTC" }
}

/// Builds one Arrow array (and its children) from FirePack values read in place: no `Value` per value, no copies
/// but into the column buffers. One builder per column of the schema, reused batch after batch.
///
/// A builder is used by one reader on one thread, and no two accesses to its buffers overlap: the stored properties
/// opt out of the runtime's dynamic exclusivity checks, which otherwise cost every append a call into the runtime
/// (as `DecoderImpl`'s state does; see the note there).
final class ColumnBuilder {
    /// The column's type without payloads: switched on for every value (switching on `ArrowColumnType`, whose cases
    /// carry arrays, would copy and release them each time).
    enum Kind: UInt8 {
        case null, boolean, int64, float64, timestamp, string, binary, reference, geoPoint, vector, map, list, exact
        /// Plain struct<latitude: float64, longitude: float64> and list<float64> columns of a schema without marks,
        /// which geopoints and vectors also read into.
        case pointStruct, doubleList
    }

    let column: ArrowColumn
    let kind: Kind
    /// A `fixed_size_list` vector's dimension; nil for other columns.
    let dimension: Int?
    @exclusivity(unchecked) var length = 0
    @exclusivity(unchecked) var nullCount = 0
    /// Allocated when the first null arrives (till then every value is valid and the buffer is absent).
    @exclusivity(unchecked) var validity: ArrowBitmap?
    /// int64 / float64 / timestamp values; string, binary and list offsets.
    @exclusivity(unchecked) var values = ArrowBuffer()
    /// Boolean values.
    @exclusivity(unchecked) var bits = ArrowBitmap()
    /// String and binary bytes.
    @exclusivity(unchecked) var data = ArrowBuffer()
    /// Struct fields, a list's element, a geopoint's latitude and longitude, a vector's elements.
    let children: [ColumnBuilder]
    /// A struct's field names, for matching keys.
    let childNames: [[UInt8]]
    /// Each field's child by its bytes (`FieldName`).
    let childIndex: [FieldName: Int]
    /// The field names again, in one manually managed buffer (`nameStarts[i] ..< nameStarts[i + 1]`), and the
    /// children as unretained references: matching a key and finding its column then costs no reference counting.
    let nameBytes: UnsafeMutableRawPointer
    let nameStarts: UnsafeMutablePointer<Int>
    let childReferences: UnsafeMutablePointer<Unmanaged<ColumnBuilder>>
    /// Whether keys that are not fields are skipped without a word (the document level of a projection).
    var skipsUnknownFields = false
    /// The field's path (`a.b[]`), for warnings.
    let path: String
    /// Whether this builder holds a list's elements (which are never absent: a null element is a null value).
    let isListElement: Bool

    init(_ column: ArrowColumn, path: String) {
        self.column = column
        self.path = path
        isListElement = path.hasSuffix("[]")
        var names: [[UInt8]] = []
        func join(_ name: String) -> String { FieldPathText.member(name, of: path) }
        switch column.type {
        case .map(let fields):
            children = fields.map { ColumnBuilder($0, path: join($0.name)) }
            names = fields.map { Array($0.name.utf8) }
        case .list(let element):
            children = [ColumnBuilder(element, path: FieldPathText.elements(of: path))]
        case .geoPoint:
            children = [
                ColumnBuilder(ArrowColumn(name: "latitude", type: .float64), path: join("latitude")),
                ColumnBuilder(ArrowColumn(name: "longitude", type: .float64), path: join("longitude"))
            ]
        case .vector:
            children = [
                ColumnBuilder(ArrowColumn(name: "item", type: .float64), path: FieldPathText.elements(of: path))
            ]
        default:
            children = []
        }
        switch column.type {
        case .null: kind = .null
        case .boolean: kind = .boolean
        case .int64: kind = .int64
        case .float64: kind = .float64
        case .timestamp: kind = .timestamp
        case .string: kind = .string
        case .binary: kind = .binary
        case .reference: kind = .reference
        case .geoPoint: kind = .geoPoint
        case .vector: kind = .vector
        case .map(let fields):
            kind =
                fields.map(\.name) == ["latitude", "longitude"] && fields.allSatisfy({ $0.type == .float64 })
                ? .pointStruct : .map
        case .list(let element): kind = element.type == .float64 ? .doubleList : .list
        case .exact: kind = .exact
        }
        if case .vector(let fixed) = column.type { dimension = fixed } else { dimension = nil }
        childNames = names
        let total = names.reduce(0) { $0 + $1.count }
        let nameBuffer = UnsafeMutableRawPointer.allocate(byteCount: max(total, 1), alignment: 8)
        let starts = UnsafeMutablePointer<Int>.allocate(capacity: names.count + 1)
        var position = 0
        for (index, name) in names.enumerated() {
            starts[index] = position
            for byte in name {
                nameBuffer.storeBytes(of: byte, toByteOffset: position, as: UInt8.self)
                position += 1
            }
        }
        starts[names.count] = position
        nameBytes = nameBuffer
        nameStarts = starts
        childReferences = .allocate(capacity: max(children.count, 1))
        for (index, child) in children.enumerated() { childReferences[index] = Unmanaged.passUnretained(child) }
        childIndex = Dictionary(
            names.enumerated().map { (FieldName(String(decoding: $1, as: UTF8.self)), $0) },
            uniquingKeysWith: { a, _ in a })
        if hasOffsets { values.append(Int32(0)) }
    }

    deinit {
        values.free()
        bits.free()
        data.free()
        validity?.free()
        nameBytes.deallocate()
        nameStarts.deallocate()
        childReferences.deallocate()
    }

    /// Runs `body` with child `index`, unretained: `self` keeps its children alive (`children`) and nothing here
    /// releases them, so a call into a child costs no reference counting.
    @inline(__always)
    func withChild<R>(_ index: Int, _ body: (ColumnBuilder) -> R) -> R {
        childReferences[index]._withUnsafeGuaranteedRef(body)
    }

    /// Whether field `index`'s name is `key`.
    @inline(__always)
    func fieldName(_ index: Int, equals key: UnsafeRawBufferPointer) -> Bool {
        let start = nameStarts[index], count = nameStarts[index + 1] - start
        return count == key.count && (count == 0 || memcmp(nameBytes + start, key.baseAddress!, count) == 0)
    }

    var hasOffsets: Bool {
        switch kind {
        case .string, .binary, .reference, .exact, .list, .doubleList: true
        case .vector: dimension == nil
        default: false
        }
    }

    /// Bytes held in this builder's buffers and its children's: what a batch's size is measured by.
    var bufferedBytes: Int {
        values.count + data.count + (bits.length >> 3) + children.reduce(0) { $0 + $1.bufferedBytes }
    }

    @inline(__always)
    func markValid() {
        validity?.append(true)
        length += 1
    }

    /// Appends a null (an absent field, a null value, or a value that did not fit): its children get one too.
    func appendNull() {
        if validity == nil {
            var bitmap = ArrowBitmap()
            bitmap.appendOnes(length)
            validity = bitmap
        }
        validity!.append(false)
        nullCount += 1
        length += 1
        switch kind {
        case .int64, .float64, .timestamp: values.append(Int64(0))
        case .boolean: bits.append(false)
        case .string, .binary, .reference, .exact, .list, .doubleList: values.append(lastOffset)
        case .vector:
            if let dimension {
                for _ in 0..<dimension { withChild(0) { $0.appendDouble(0) } }
            } else {
                values.append(lastOffset)
            }
        case .map, .geoPoint, .pointStruct:
            for index in 0..<children.count { withChild(index) { $0.appendNull() } }
        case .null: break
        }
    }

    @inline(__always)
    var lastOffset: Int32 { values.base.load(fromByteOffset: values.count - 4, as: Int32.self) }

    @inline(__always)
    func appendDouble(_ value: Double) {
        values.append(bitsOf: value)
        markValid()
    }

    /// Appends a string or binary value. Past Arrow's 32-bit offsets (2 GiB of one column in one batch) it throws an
    /// error about the batch, not about the record (`schemaError`): the record is not damaged and is never skipped as
    /// if it were.
    func appendBytes(_ bytes: UnsafeRawBufferPointer, _ context: ConversionContext) throws(FirePackError) {
        guard bytes.count <= Int(Int32.max) - data.count else {
            context.schemaError = true
            throw FirePackError(
                .limitExceeded,
                "a column's text would pass 2 GiB (Arrow's 32-bit offsets) in one batch: use a smaller batch size "
                    + "or maximum batch bytes")
        }
        data.append(bytes: bytes)
        values.append(Int32(data.count))
        markValid()
    }

    func appendString(_ text: String, _ context: ConversionContext) throws(FirePackError) {
        let result = text.withUTF8Bytes { utf8 in
            Result { () throws(FirePackError) in try appendBytes(utf8, context) }
        }
        try result.get()
    }

    /// Appends the value at the reader's position and moves past it.
    func append(_ reader: inout FirePackReader, _ context: ConversionContext) throws(FirePackError) {
        let type = try reader.peekType()
        if type == .null, kind != .exact {
            // A schema from a sample said this field's nulls are absences: a null value would come back absent.
            if context.unknownFieldsAreErrors && column.nullMeaning == .absent && !isListElement {
                return try mismatch(
                    "a null value where the sampled schema has nulls only for an absent field", context,
                    skipping: &reader)
            }
            try reader.skipValue()
            appendNull()
            return
        }
        switch (kind, type) {
        case (.int64, .integer):
            values.append(try reader.readInteger())
            markValid()
        case (.float64, .double):
            appendDouble(try reader.readDouble())
        case (.boolean, .boolean):
            bits.append(try reader.readBoolean())
            markValid()
        case (.timestamp, .timestamp):
            let time = try reader.readTimestamp()
            let value: Int64
            do throws(FirePackError) { value = try context.arrowTimestamp(time) } catch {
                return try mismatch(error.message, context)
            }
            values.append(value)
            markValid()
        case (.string, .string):
            try appendBytes(try reader.readString().utf8, context)
        case (.binary, .bytes):
            try appendBytes(try reader.readBytes().bytes, context)
        // A schema from another engine has no marks: a reference also reads into a plain string column as its path,
        // a geopoint into a struct of latitude and longitude, a vector into a list of float64 (Docs/ARROW.md, "Schemas").
        case (.reference, .reference), (.string, .reference):
            try appendString(try reader.readReference().path, context)
        case (.geoPoint, .geoPoint), (.pointStruct, .geoPoint):
            let point = try reader.readGeoPoint()
            withChild(0) { $0.appendDouble(point.latitude) }
            withChild(1) { $0.appendDouble(point.longitude) }
            markValid()
        case (.vector, .vector), (.doubleList, .vector):
            let vector = try reader.readVector()
            if let dimension, vector.count != dimension {
                return try mismatch("a vector of \(vector.count) dimensions in a column of \(dimension)", context)
            }
            let elements = withChild(0) { element in
                for index in vector.indices { element.appendDouble(vector[index]) }
                return element.length
            }
            if dimension == nil { values.append(Int32(truncatingIfNeeded: elements)) }
            markValid()
        case (.map, .map), (.pointStruct, .map):
            try appendMap(&reader, context)
        case (.list, .array), (.doubleList, .array):
            if kind == .doubleList, let numbers = try Self.packedDoubles(at: reader) {
                // A packed array of doubles (or a row of one) in one pass over its numbers in place: the values and
                // validity the element-by-element path below gives, without a cursor step per number.
                let elements = withChild(0) { element in
                    for number in numbers { element.appendDouble(number) }
                    return element.length
                }
                try reader.skipValue()
                try appendListEnd(elements, context)
                return
            }
            let array = try reader.enterArray()
            let appended = withChild(0) { element -> Result<Int, FirePackError> in
                for index in 0..<array.count {
                    do throws(FirePackError) { try element.append(&reader, context) } catch {
                        return .failure(error.prefixingPath(with: .index(index)))
                    }
                }
                return .success(element.length)
            }
            let elements = try appended.get()
            try reader.exitArray(array)
            try appendListEnd(elements, context)
        case (.exact, _):
            // FirePack's reversible JSON: every type, bit and sentinel read back exactly (Docs/ARROW.md).
            // At most what a JSON reader takes back (and Arrow's 32-bit offsets hold): keys that the record repeats
            // by reference cannot make it more.
            let text = try reader.readValue().jsonBytes(
                options: JSONOptions(), maxLength: JSONTextLimits.value, what: "the value")
            try text.withUnsafeBytes { bytes in Result { () throws(FirePackError) in try appendBytes(bytes, context) } }
                .get()
        default:
            try mismatch("a \(type) where the schema has \(column.type.description)", context, skipping: &reader)
        }
    }

    /// Ends a list value whose elements end at `elements` in the child column. Past what Arrow's 32-bit offsets hold
    /// in one batch, an error about the batch, not damage: the record is sound.
    func appendListEnd(_ elements: Int, _ context: ConversionContext) throws(FirePackError) {
        guard elements <= Int(Int32.max) else {
            context.schemaError = true
            throw FirePackError(
                .limitExceeded, "a list column passes 2³¹ elements in one batch: use a smaller batch size")
        }
        values.append(Int32(elements))
        markValid()
    }

    /// The numbers of the packed array at the cursor when all of them are doubles; nil for any other array.
    @inline(__always)
    static func packedDoubles(at reader: FirePackReader) throws(FirePackError) -> NumbersView? {
        guard let numbers = try reader.peekValueView().numbers(), numbers.holdsOnlyDoubles else { return nil }
        return numbers
    }

    func appendMap(_ reader: inout FirePackReader, _ context: ConversionContext) throws(FirePackError) {
        let map = try reader.enterMap()
        let target = length + 1
        var guess = 0
        for _ in 0..<map.count {
            // Fields usually come in the schema's order: try the one after the last match before the dictionary. A
            // key equal to a column's name is valid UTF-8 as that name is, so only the others are checked.
            // A long key that references repeat is matched once per record (`readKeyUnchecked(answering:)`).
            let (key, known, keepsAnswer) = try reader.readKeyUnchecked(answering: self)
            var index: Int?
            if let known {
                index = known < 0 ? nil : known
            } else {
                if guess < childNames.count, fieldName(guess, equals: key) {
                    index = guess
                } else {
                    index = childIndex[FieldName(try reader.checkKey(key).string)]
                }
                if keepsAnswer { reader.remember(index ?? -1, about: key, by: self) }
            }
            guard let index else {
                if skipsUnknownFields || !context.unknownFieldsAreErrors {
                    try reader.skipValue()
                    continue
                }
                // Checked when first met. A long one is shown by its start and end (`shownName`): every reference
                // would repeat it whole.
                let name = Self.shownName(key)
                if context.nullsForMismatches {
                    try reader.skipValue()
                    context.warn(
                        path: FieldPathText.member(name, of: path),
                        "field \(name.debugDescription) is not in the schema: skipped")
                    continue
                }
                context.schemaError = true
                throw FirePackError(
                    .typeMismatch, offset: reader.readerIndex,
                    "field \(name.debugDescription) is not in the schema (inferred from a sample?): infer from more records or give a schema",
                    path: [.key(String(decoding: key, as: UTF8.self))])
            }
            guess = index + 1
            guard withChild(index, { $0.length }) < target else {
                throw FirePackError(
                    .duplicateKey, offset: reader.readerIndex,
                    "key \(column(at: index).debugDescription) appears twice",
                    path: [.key(column(at: index))])
            }
            let appended = withChild(index) { child -> Result<Void, FirePackError> in
                do throws(FirePackError) { try child.append(&reader, context) } catch { return .failure(error) }
                return .success(())
            }
            if case .failure(let error) = appended { throw error.prefixingPath(with: .key(column(at: index))) }
        }
        try reader.exitMap(map)
        for index in 0..<childNames.count {
            let absent = withChild(index) { child in
                guard child.length < target else { return false }
                child.appendNull()
                return true
            }
            // A schema from a sample said this field's nulls are null values: an absence would come back as null.
            if absent && context.unknownFieldsAreErrors && childColumnNullMeaning(index) == .value {
                if context.nullsForMismatches {
                    context.warn(
                        path: FieldPathText.member(column(at: index), of: path),
                        "an absent field where the sampled schema has only null values: read as null")
                } else {
                    context.schemaError = true
                    throw FirePackError(
                        .typeMismatch, offset: reader.readerIndex,
                        "field \(column(at: index).debugDescription) is absent where the sampled schema has only null values: infer from more records or give a schema",
                        path: [.key(column(at: index))])
                }
            }
        }
        markValid()
    }

    func column(at index: Int) -> String { String(decoding: childNames[index], as: UTF8.self) }

    /// A key's name as warnings show it: whole, up to 256 bytes; longer, its first 200 bytes and its last 32 (whole
    /// characters) around its length. Two long keys alike in those are counted together: telling them apart would
    /// cost each reference the key's length again.
    static func shownName(_ key: UnsafeRawBufferPointer) -> String { FirePackError.shownKey(utf8: key) }

    func childColumnNullMeaning(_ index: Int) -> ArrowNullMeaning { withChild(index) { $0.column.nullMeaning } }

    /// Appends this builder's state and its children's to `state`: what `restore` needs to take back a row.
    func save(into state: inout [Int]) {
        state.append(length)
        state.append(nullCount)
        state.append(values.count)
        state.append(data.count)
        state.append(bits.length)
        state.append(validity?.length ?? -1)
        for child in children { child.save(into: &state) }
    }

    /// Takes back everything appended since `save` wrote `state` (a row that failed half way).
    func restore(from state: [Int], at index: inout Int) {
        length = state[index]
        nullCount = state[index + 1]
        values.truncate(to: state[index + 2])
        data.truncate(to: state[index + 3])
        bits.truncate(to: state[index + 4])
        if state[index + 5] < 0 {
            validity?.free()
            validity = nil
        } else {
            validity?.truncate(to: state[index + 5])
        }
        index += 6
        for child in children { child.restore(from: state, at: &index) }
    }

    /// A value that does not fit: a null and a counted warning when the caller asked for that, else an error.
    func mismatch(_ message: String, _ context: ConversionContext) throws(FirePackError) {
        guard context.nullsForMismatches else {
            context.schemaError = true
            throw FirePackError(.typeMismatch, message)
        }
        context.warn(path: path, message)
        appendNull()
    }

    func mismatch(_ message: String, _ context: ConversionContext, skipping reader: inout FirePackReader)
        throws(FirePackError)
    {
        let offset = reader.readerIndex
        guard context.nullsForMismatches else {
            context.schemaError = true
            throw FirePackError(.typeMismatch, offset: offset, message)
        }
        try reader.skipValue()
        context.warn(path: path, message)
        appendNull()
    }
}

extension ConversionContext {
    /// Counts a mismatch turned into a null, by field path.
    func warn(path: String, _ message: String) {
        pendingCounts[path, default: 0] += 1
        if warningExamples.count + pendingExamples.count < 20 {
            pendingExamples.append("record \(recordNumber) at byte \(recordOffset), \(path): \(message)")
        }
    }

    /// Counts the current record's warnings: its row is kept.
    func commitWarnings() {
        guard !pendingCounts.isEmpty else { return }
        for (path, count) in pendingCounts { warningCounts[path, default: 0] += count }
        warningExamples += pendingExamples
        dropWarnings()
    }

    /// Drops the current record's warnings: its row was taken back.
    func dropWarnings() {
        pendingCounts.removeAll(keepingCapacity: true)
        pendingExamples.removeAll(keepingCapacity: true)
    }
}
