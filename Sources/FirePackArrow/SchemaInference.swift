import FirePack
import FirePackStreams

/// What the values seen at one field path were: the input of schema inference and of `firepack schema`.
public final class FieldProfile {
    /// How many values of each FirePack type were seen (null included).
    public private(set) var typeCounts: [ValueType: Int] = [:]
    /// How many times the field was present (its key in a map, or an element of an array).
    public private(set) var present = 0
    /// How many maps the field could have been in (the parent's maps); `absent` is the difference.
    public internal(set) var parentCount = 0
    /// Timestamps outside what `timestamp[ns]` holds (1677-09-21 to 2262-04-11).
    public private(set) var timestampsOutOfRange = 0
    /// The vector dimensions seen (up to a handful: more means "varies").
    public private(set) var vectorDimensions: Set<Int> = []
    /// The fields of the maps seen here, in first-seen order.
    public private(set) var fields: [(name: String, profile: FieldProfile)] = []
    /// Where each field is in `fields`, by its bytes (`FieldName`).
    var fieldIndex: [FieldName: Int] = [:]
    /// The elements of the arrays seen here.
    public private(set) var element: FieldProfile?
    /// How many maps were seen here: a field first seen later was absent from the earlier ones.
    var mapCount = 0

    /// An empty profile.
    public init() {}

    /// How many times the field was absent from a map that could have held it.
    public var absent: Int { parentCount - present }
    /// How many null values were seen.
    public var nulls: Int { typeCounts[.null] ?? 0 }

    func child(_ name: String) -> FieldProfile {
        fields[childIndex(name)].profile
    }

    /// Where the field `name` is in `fields`, added if it is new.
    func childIndex(_ name: String) -> Int {
        if let index = fieldIndex[FieldName(name)] { return index }
        let profile = FieldProfile()
        profile.parentCount = mapCount
        fieldIndex[FieldName(name)] = fields.count
        fields.append((name, profile))
        return fields.count - 1
    }

    /// Adds the value at the reader's position (and moves past it).
    func add(_ reader: inout FirePackReader) throws(FirePackError) {
        let type = try reader.peekType()
        present += 1
        typeCounts[type, default: 0] += 1
        switch type {
        case .map:
            let map = try reader.enterMap()
            for _ in 0..<map.count {
                // A long key that references repeat is found once per record (`readKeyUnchecked(answering:)`).
                let (key, known, keepsAnswer) = try reader.readKeyUnchecked(answering: self)
                var index = known
                if index == nil {
                    index = childIndex(try reader.checkKey(key).string)
                    if keepsAnswer { reader.remember(index!, about: key, by: self) }
                }
                try fields[index!].profile.add(&reader)
            }
            try reader.exitMap(map)
            // Each field's `parentCount` is this map count: set once by `settle()`, not per map for every field
            // seen so far (with a new key in each document, that was documents × keys).
            mapCount += 1
        case .array:
            let element = self.element ?? FieldProfile()
            self.element = element
            if let numbers = try reader.peekValueView().numbers() {
                // A packed array (or array of rows) of numbers: counted by kind at once, as the loop below counts them.
                var numberProfile = element
                if numbers.isRows {
                    element.addElements(numbers.rows, ofType: .array)
                    numberProfile = element.element ?? FieldProfile()
                    if numbers.rows > 0 { element.element = numberProfile }  // as the loop makes it: for a row
                }
                let integers = numbers.integerCount
                numberProfile.addElements(integers, ofType: .integer)
                numberProfile.addElements(numbers.count - integers, ofType: .double)
                try reader.skipValue()
                return
            }
            let array = try reader.enterArray()
            for _ in 0..<array.count {
                element.parentCount += 1
                try element.add(&reader)
            }
            try reader.exitArray(array)
        case .timestamp:
            if TimestampNanoseconds.of(try reader.readTimestamp()) == nil { timestampsOutOfRange += 1 }
        case .vector:
            let count = try reader.readVector().count
            if vectorDimensions.count <= 8 { vectorDimensions.insert(count) }
        default:
            try reader.skipValue()
        }
    }

    /// Adds `count` elements of an array, all of `type` and holding nothing more to profile.
    private func addElements(_ count: Int, ofType type: ValueType) {
        guard count > 0 else { return }
        parentCount += count
        present += count
        typeCounts[type, default: 0] += count
    }

    /// Sets the `parentCount` of every field of the maps seen here, and below: the maps seen here, all of which
    /// could have held each field (a field first seen later was absent from the earlier ones).
    func settle() {
        for (_, profile) in fields {
            profile.parentCount = mapCount
            profile.settle()
        }
        element?.settle()
    }

    /// Adds everything `other` saw (another file's or another sample's profile of the same path).
    func merge(_ other: FieldProfile) {
        settle()
        other.settle()
        for (type, count) in other.typeCounts { typeCounts[type, default: 0] += count }
        present += other.present
        parentCount += other.parentCount
        timestampsOutOfRange += other.timestampsOutOfRange
        if vectorDimensions.count <= 8 { vectorDimensions.formUnion(other.vectorDimensions) }
        for (name, profile) in other.fields { child(name).merge(profile) }
        for (name, profile) in fields where other.fieldIndex[FieldName(name)] == nil {
            profile.parentCount += other.mapCount
        }
        mapCount += other.mapCount
        if let otherElement = other.element {
            if let element { element.merge(otherElement) } else { element = otherElement }
        }
    }

    /// The column this profile becomes, and why it is kept exactly when it is.
    func column(named name: String, path: String, inList: Bool, notes: inout [String: String]) -> ArrowColumn {
        let kinds = typeCounts.keys.filter { $0 != .null }
        let hasNull = nulls > 0
        // In a map, a null and an absence are different things (Firestore queries tell them apart); when a field
        // has both, only the exact form keeps the difference. List elements are never absent.
        let nullMeaning: ArrowNullMeaning = !inList && absent > 0 ? .absent : .value
        func exact(_ reason: String) -> ArrowColumn {
            notes[path] = reason
            return ArrowColumn(name: name, type: .exact, nullMeaning: .absent)
        }
        if hasNull && absent > 0 && !inList {
            return exact(
                "null in \(nulls) map(s) and absent from \(absent): kept as JSON text so that the difference survives")
        }
        guard kinds.count <= 1 else {
            let seen = kinds.map { "\($0) ×\(typeCounts[$0]!)" }.sorted().joined(separator: ", ")
            return exact("values of several types (\(seen)): kept as JSON text")
        }
        let type: ArrowColumnType
        switch kinds.first {
        case nil: type = .null
        case .boolean: type = .boolean
        case .integer: type = .int64
        case .double: type = .float64
        case .timestamp:
            if timestampsOutOfRange > 0 {
                return exact(
                    "\(timestampsOutOfRange) timestamp(s) outside 1677-09-21…2262-04-11, which timestamp[ns] cannot hold: kept as JSON text"
                )
            }
            type = .timestamp
        case .string: type = .string
        case .bytes: type = .binary
        case .reference: type = .reference
        case .geoPoint: type = .geoPoint
        case .vector: type = .vector(dimension: vectorDimensions.count == 1 ? vectorDimensions.first : nil)
        case .serverTimestamp:
            return exact("server-timestamp sentinels have no Arrow type: kept as JSON text")
        case .map:
            if fields.count > ArrowDocumentSchema.maxInferredMapKeys {
                return exact(
                    "\(fields.count) distinct keys, more than the \(ArrowDocumentSchema.maxInferredMapKeys) a struct is "
                        + "given (a map keyed by IDs?): kept as JSON text, so that each row holds its own keys")
            }
            if let held = fields.first(where: { $0.name.utf8.contains(0) }) {
                return exact(
                    "the key \(held.name.debugDescription) holds a NUL byte, which Arrow's C interface cannot carry in a "
                        + "name: kept as JSON text")
            }
            type = .map(
                fields.map { field in
                    field.profile.column(
                        named: field.name, path: FieldPathText.member(field.name, of: path), inList: false,
                        notes: &notes)
                })
        case .array:
            let element = self.element ?? FieldProfile()
            type = .list(
                element.column(named: "item", path: FieldPathText.elements(of: path), inList: true, notes: &notes))
        case .null?: preconditionFailure("nulls are not kinds")
        }
        return ArrowColumn(name: name, type: type, nullMeaning: hasNull ? nullMeaning : .absent)
    }
}

/// Nanoseconds since the epoch in an Int64, when a timestamp fits (`timestamp[ns]`).
enum TimestampNanoseconds {
    static func of(_ time: Timestamp) -> Int64? {
        let (scaled, overflow) = time.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (sum, overflow2) = scaled.addingReportingOverflow(Int64(time.nanoseconds))
        return overflow2 ? nil : sum
    }
}

/// The profile of a stream's documents: the inference behind `infer_schema` and `firepack schema`.
public struct DocumentProfile {
    /// The fields of every document, as one map's profile.
    public let fields = FieldProfile()
    /// Documents read.
    public private(set) var documents = 0
    /// Documents with a create time, and with an update time.
    public private(set) var createTimes = 0, updateTimes = 0
    /// Damaged records met (they are skipped: inference reports them, the reader then reports them again).
    public private(set) var problems: [StreamProblem] = []
    /// The records found not to be documents, by path, when asked for (`of(…keepingRejectedPlaces:)`): the reader
    /// with this profile's schema reports them again (`ArrowBatchReader`), whatever columns it reads.
    var rejected: [String: FirePackRecordSource.RejectedRecords] = [:]
    /// How many records were found not to be documents (damaged or past a limit), and the first of them in words
    /// (file, record, byte and why): what a planner that hands its schema to readers says before they read.
    public private(set) var rejectedCount = 0
    public private(set) var firstRejected: String?
    /// How many of those records are past the key-expansion limit (`ReaderLimits.maxKeyExpansion`), not damaged.
    public private(set) var rejectedPastKeyLimit = 0
    /// How many problems there were in all.
    public private(set) var problemCount = 0
    /// How many of those are places where whole records are missing (`missingRecords`), not damaged records.
    public private(set) var missingRecordPlaces = 0
    /// How many are blocks past the block-expansion limit (not damage), and the most reading one of them needs.
    public private(set) var blocksPastExpansion = 0, blockExpansionNeeded = 0
    /// The paths in which those problems were met, in the order read.
    public private(set) var pathsWithProblems: [String] = []
    /// The streams read to their end that were not closed (their writer was interrupted, or is still writing), with
    /// the records each holds: what they hold is profiled, and their readers say they were not closed.
    public private(set) var notClosed: [(path: String, records: Int)] = []
    /// The records the close records of the streams read count, when every stream was read whole and closed: with
    /// damage, `documents` short of it is what was not read.
    public private(set) var closedRecords: Int? = 0

    /// An empty profile.
    public init() {}

    /// Profiles up to `sample` documents (nil: all) of each stream in `paths` (`.fpks` or `.fpk`), read with
    /// `maxBlockExpansion` (`DocumentStreamReader.maxBlockExpansion`); each record is checked whole as a document
    /// with `maxKeyExpansion` (`ReaderLimits.maxKeyExpansion`), and reported, not profiled, where it fails.
    public static func of(
        paths: [String], sample: Int?, maxBlockExpansion: Int = DocumentStreamFormat.maxBlockExpansion,
        maxKeyExpansion: Int = ReaderLimits.default.maxKeyExpansion
    ) throws -> DocumentProfile {
        try of(
            paths: paths, sample: sample, maxBlockExpansion: maxBlockExpansion, maxKeyExpansion: maxKeyExpansion,
            keepingRejectedPlaces: false)
    }

    /// `of(paths:sample:maxBlockExpansion:maxKeyExpansion:)`, keeping where the rejected records are (`rejected`)
    /// when `keepingRejectedPlaces`: for a reader that reads them again (`ArrowBatchReader`). Planners, which need
    /// only their count, keep none.
    static func of(
        paths: [String], sample: Int?, maxBlockExpansion: Int, maxKeyExpansion: Int, keepingRejectedPlaces: Bool
    ) throws -> DocumentProfile {
        var profile = DocumentProfile()
        let limits = ReaderLimits(maxKeyExpansion: maxKeyExpansion)
        var remaining = sample ?? .max
        for path in paths where remaining > 0 {
            do {
                let source = try FirePackRecordSource.open(
                    path: path, offset: 0, length: nil, mode: .skipAndReport, maxBlockExpansion: maxBlockExpansion,
                    limits: limits)
                while remaining > 0, let record = try source.nextRecord() {
                    remaining -= 1
                    do throws(FirePackError) {
                        _ = try Document.checkRecord(record.payload, limits: limits)
                        try profile.add(record.payload, limits: limits)
                    } catch {
                        if keepingRejectedPlaces { profile.rejected[path, default: .init()].insert(record) }
                        profile.rejectedCount += 1
                        if error.code == .limitExceeded && error.message.contains("ReaderLimits.maxKeyExpansion") {
                            profile.rejectedPastKeyLimit += 1
                        }
                        if profile.firstRejected == nil {
                            profile.firstRejected =
                                "\(path): record \(record.number) at byte \(record.offset): \(error.code.rawValue): "
                                + error.message
                        }
                        try source.reportInvalid(error, in: record)
                    }
                }
                // Read to its end, how it ends is known. Stopped by the sample, it may have stopped at the end (a
                // stream of exactly the sample's records): one more read says so when it meets nothing but the end,
                // tried where what is left is a file's last MiB at most (an index and a close record, or a few
                // records), never a pipe, which could wait, nor a long tail, which damage would have it scan;
                // anything else it meets is past the sample, and not reported.
                let (problemCount, problems) = (source.problemCount, source.problems)
                let (missingRecordPlaces, blocksPastExpansion, blockExpansionNeeded) =
                    (source.missingRecordPlaces, source.blocksPastExpansion, source.blockExpansionNeeded)
                var atEnd = remaining > 0
                if !atEnd, let stream = source.stream, let size = source.plainFileSize,
                    size - stream.consumedOffset <= 1 << 20,
                    case .success(.none) = Result(catching: { try source.nextRecord() })
                {
                    atEnd = source.problemCount == problemCount
                }
                switch atEnd ? source.stream?.completion : nil {
                case .closed(let records)? where records >= 0:
                    profile.closedRecords = profile.closedRecords.map { $0 + records }
                case .notClosed(let records)?:
                    profile.notClosed.append((path, records))
                    profile.closedRecords = nil
                default:
                    profile.closedRecords = nil
                }
                profile.problemCount += problemCount
                if problemCount > 0 { profile.pathsWithProblems.append(path) }
                profile.missingRecordPlaces += missingRecordPlaces
                profile.blocksPastExpansion += blocksPastExpansion
                profile.blockExpansionNeeded = max(profile.blockExpansionNeeded, blockExpansionNeeded)
                profile.problems += problems.prefix(1_000 - profile.problems.count)
            } catch let error as FirePackError where !error.message.hasPrefix(path) {
                // Several files are read: the message names the one it is about.
                throw FirePackError(error.code, offset: error.offset, "\(path): \(error.message)", path: error.path)
            }
        }
        profile.fields.settle()
        return profile
    }

    /// Throws, for a planner that hands this profile's schema to its readers and reads without skipping damaged
    /// records, when inference found records that are not documents. Its readers take the schema as given and read
    /// of a record what the schema names: a record that inference left out for a defect in fields only it holds
    /// would be read as a row without them. `skipOption` and `keyOption` name the planner's options that skip such
    /// records and that raise the key-expansion limit.
    public func checkNothingRejected(skipOption: String, keyOption: String) throws(FirePackError) {
        guard rejectedCount > 0, let firstRejected else { return }
        let raise =
            rejectedPastKeyLimit > 0
            ? ", or raise the key-expansion limit with \(keyOption) (\(rejectedPastKeyLimit) are past it)" : ""
        throw FirePackError(
            .invalidDocument,
            "\(rejectedCount) record(s) are not documents (first: \(firstRejected)): read with \(skipOption) to leave "
                + "them out\(raise)")
    }

    /// Adds one document record's payload, read with `limits`.
    mutating func add(_ payload: UnsafeRawBufferPointer, limits: ReaderLimits) throws(FirePackError) {
        let fields = self.fields
        let times = try Document.scanRecord(payload, limits: limits) { reader throws(FirePackError) in
            fields.parentCount += 1
            try fields.add(&reader)
        }
        documents += 1
        if times.createTime != nil { createTimes += 1 }
        if times.updateTime != nil { updateTimes += 1 }
    }

    /// The schema the documents infer: `__name__`, the times when any document has them, then a column per field
    /// in first-seen order; `exactReasons` says, per field path, why a field is kept as JSON text.
    public func schema() throws(FirePackError) -> (schema: ArrowDocumentSchema, exactReasons: [String: String]) {
        var notes: [String: String] = [:]
        var columns = [ArrowColumn(name: ArrowDocumentSchema.nameColumn, type: .reference)]
        if createTimes > 0 { columns.append(ArrowColumn(name: ArrowDocumentSchema.createTimeColumn, type: .timestamp)) }
        if updateTimes > 0 { columns.append(ArrowColumn(name: ArrowDocumentSchema.updateTimeColumn, type: .timestamp)) }
        let reserved = Set(columns.map(\.name))
        for (name, profile) in fields.fields {
            guard !name.utf8.contains(0) else {
                throw FirePackError(
                    .invalidValue,
                    "a field is named \(name.debugDescription), which holds a NUL byte: Arrow's C interface ends a "
                        + "column's name there (rename the field, or read the stream as JSON)",
                    path: [.key(name)])
            }
            guard !reserved.contains(name) else {
                throw FirePackError(
                    .invalidValue,
                    "a field is named \(name.debugDescription), the name of the column that holds the document's own \(name == "__name__" ? "path" : "time")",
                    path: [.key(name)])
            }
            columns.append(
                profile.column(named: name, path: FieldPathText.member(name, of: ""), inList: false, notes: &notes))
        }
        return (ArrowDocumentSchema(columns: columns), notes)
    }
}
