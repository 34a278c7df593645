import CFirePackSystem
import FirePack
import FirePackInterop
import FirePackStreams

/// The size of the file at `path`, or nil when it cannot be told.
func fileSize(_ path: String) -> Int? {
    var status = stat()
    guard stat(SystemPath.bytes(path), &status) == 0 else { return nil }
    return Int(status.st_size)
}

/// The document records of one file, whatever its kind: a `.fpks` stream (or one byte range of it), a gzip-compressed
/// stream (whole only: gzip cannot be entered in the middle), or a `.fpk` file holding one document or an array of
/// documents as plain objects named by `__name__` (what `firepack convert` writes to a `.fpk`).
final class FirePackRecordSource {
    /// The record being read: its payload (valid until the next read), number and offsets.
    struct Record {
        var payload: UnsafeRawBufferPointer
        var number: Int
        /// The offset of the record (its sync marker; 0 for a `.fpk`).
        var offset: Int
        /// The offset of the payload's first byte in the file, for error offsets; nil for a document decompressed
        /// from a version-3 block (errors then name the block's offset and the byte inside the document).
        var payloadOffset: Int?
        /// Whether the record is a stream's (else a `.fpk` file's document).
        var inStream = true

        /// Which record it is, the same however the file is read (whole, by byte range or by record numbers): its
        /// payload's offset in the file; for a document decompressed from a block, which has none, the block's offset
        /// and a hash of the document's bytes (record numbers are not the same: a byte range numbers its records from
        /// its own start, and a read by record numbers passes over a block's first ones); for a `.fpk` file's plain
        /// object, its index in the file. Two documents of one block with equal bytes are one place, and equal bytes
        /// get one verdict; a hash two other documents share costs a check whole, not a record.
        var place: RecordPlace {
            if let payloadOffset { return RecordPlace(offset: payloadOffset, detail: -1) }
            guard inStream else { return RecordPlace(offset: offset, detail: number) }
            var hasher = Hasher()
            hasher.combine(bytes: payload)
            return RecordPlace(offset: offset, detail: hasher.finalize())
        }
    }

    /// Which record a record is (`Record.place`).
    struct RecordPlace: Hashable {
        let offset: Int
        let detail: Int
    }

    /// The records of a file that schema inference found not to be documents (`DocumentProfile.rejected`), so that
    /// reading with its schema reports them too, whatever columns it reads, rather than read a row of the fields
    /// the schema has (inference left out the fields only they have). Past `maxPlaces` records, every record is
    /// checked whole instead (`everyRecord`): memory for a million places at most.
    struct RejectedRecords {
        static let maxPlaces = 1_000_000
        private(set) var places: Set<RecordPlace> = []
        private(set) var everyRecord = false

        /// Adds a record inference rejected.
        mutating func insert(_ record: Record) {
            guard !everyRecord else { return }
            if places.count < Self.maxPlaces {
                places.insert(record.place)
            } else {
                everyRecord = true
                places = []
            }
        }

        /// Whether `record` may be one of them: check it whole.
        func contains(_ record: Record) -> Bool { everyRecord || places.contains(record.place) }

        var isEmpty: Bool { !everyRecord && places.isEmpty }
    }

    let path: String
    let stream: DocumentStreamReader?
    /// A `.fpk` file's documents as records, and how many have been read.
    private let fileRecords: [FileRecord]
    private var fileRecordsRead = 0
    /// The records wanted by number, when asked for (`open(…records:)`): those before it are passed over, and
    /// reading ends at its end.
    var records: Range<Int>?

    /// A document of a `.fpk` file, as a record: its bytes and where they are in the file (nil when it was a plain
    /// object, named by its `__name__`).
    struct FileRecord {
        var bytes: [UInt8]
        var fileOffset: Int?
    }

    /// The size of the regular file whose bytes `stream` reads as they are (not a pipe, not gzip), when opened so.
    private(set) var plainFileSize: Int?

    private init(
        path: String, stream: DocumentStreamReader?, fileRecords: [FileRecord] = [], plainFileSize: Int? = nil
    ) {
        self.path = path
        self.stream = stream
        self.fileRecords = fileRecords
        self.plainFileSize = plainFileSize
    }

    /// Opens `path` for the records whose marker starts in `[offset, offset + length)` (`length` nil: to the end), or
    /// for the records numbered `records`: a closed version-3 stream through its index
    /// (`DocumentStreamReader.reading(path:fromRecord:)`), any other file by reading up to them. `maxBlockExpansion`
    /// is the stream reader's; `limits`, what a `.fpk` file's value is checked with.
    static func open(
        path: String, offset: Int, length: Int?, records: Range<Int>? = nil, mode: DocumentStreamReader.ErrorMode,
        maxBlockExpansion: Int = DocumentStreamFormat.maxBlockExpansion, limits: ReaderLimits = .default
    ) throws -> FirePackRecordSource {
        guard let records else {
            return try open(
                path: path, offset: offset, length: length, mode: mode, maxBlockExpansion: maxBlockExpansion,
                limits: limits)
        }
        guard records.lowerBound >= 0 else {
            throw FirePackError(.invalidValue, "record numbers start at 0, not \(records.lowerBound)")
        }
        let head = try readPrefix(FileSource(path: path), count: 6)
        let source: FirePackRecordSource
        if head.starts(with: DocumentStreamFormat.header.prefix(4)) {
            source = FirePackRecordSource(
                path: path,
                stream: try DocumentStreamReader.reading(
                    path: path, fromRecord: records.lowerBound, mode: mode, maxBlockExpansion: maxBlockExpansion))
        } else {
            source = try open(
                path: path, offset: 0, length: nil, mode: mode, maxBlockExpansion: maxBlockExpansion, limits: limits)
        }
        source.records = records
        return source
    }

    /// Opens `path` for the records whose marker starts in `[offset, offset + length)` (`length` nil: to the end).
    static func open(
        path: String, offset: Int, length: Int?, mode: DocumentStreamReader.ErrorMode, maxBlockExpansion: Int,
        limits: ReaderLimits
    ) throws -> FirePackRecordSource {
        // A pipe (`<(…)`, a FIFO) can be read once: its first bytes are put back in front of the rest, and it is
        // read whole, as one range. A regular file is opened again for the reader that fits it.
        let opened = try FileSource(path: path)
        let head = try readPrefix(opened, count: 6)
        guard !head.isEmpty else {
            throw FirePackError(.truncated, offset: 0, "\(path): the file is empty (no stream or file header)")
        }
        if !SystemPath.isRegularFile(path) {
            guard offset == 0 else { return FirePackRecordSource(path: path, stream: nil) }
            let whole = PrefixedSource(head, then: opened)
            if head.starts(with: [0x89, 0x46, 0x50, 0x4B]) {
                let bytes = try readAll(whole, limit: DocumentStreamFormat.defaultMaxRecordLength + 5)
                return FirePackRecordSource(
                    path: path, stream: nil, fileRecords: try fileRecords(bytes, path: path, limits: limits))
            }
            let source: ByteSource = head.starts(with: [0x1F, 0x8B]) ? try GzipSource(whole) : whole
            return FirePackRecordSource(
                path: path,
                stream: try DocumentStreamReader(source: source, mode: mode, maxBlockExpansion: maxBlockExpansion))
        }
        if head.starts(with: [0x1F, 0x8B]) {
            // The one range `splits` gives such a file, [0, size), is the whole file; any other cannot be read.
            guard offset == 0, length.map({ $0 >= (fileSize(path) ?? .max) }) ?? true else {
                throw FirePackError(
                    .invalidValue,
                    "\(path): a gzip-compressed stream cannot be read by byte range (gzip cannot be entered in the middle): read it whole"
                )
            }
            return FirePackRecordSource(
                path: path,
                stream: try DocumentStreamReader(
                    source: GzipSource(FileSource(path: path)), mode: mode, maxBlockExpansion: maxBlockExpansion))
        }
        if head.starts(with: [0x89, 0x46, 0x50, 0x4B]) {
            guard offset == 0 else { return FirePackRecordSource(path: path, stream: nil) }
            let bytes = try readAll(FileSource(path: path), limit: DocumentStreamFormat.defaultMaxRecordLength + 5)
            return FirePackRecordSource(
                path: path, stream: nil, fileRecords: try fileRecords(bytes, path: path, limits: limits))
        }
        return FirePackRecordSource(
            path: path,
            stream: try DocumentStreamReader.reading(
                path: path, offset: offset, length: length, mode: mode, maxBlockExpansion: maxBlockExpansion),
            plainFileSize: fileSize(path))
    }

    /// The documents of the `.fpk` file `bytes` (any version readers take): its value when that is one document
    /// record; else each plain object of its array (or the one object), named by its `__name__` as plain JSON is.
    /// The value is checked with `limits`.
    static func fileRecords(_ bytes: [UInt8], path: String, limits: ReaderLimits = .default) throws -> [FileRecord] {
        func failure(_ error: FirePackError) -> FirePackError {
            FirePackError(error.code, offset: error.offset, "\(path): \(error.message)", path: error.path)
        }
        // The whole file is checked first (as every reader of a `.fpk` does), without building it: its header (cut,
        // not FirePack, another version), then its value.
        do { try bytes.withUnsafeBytes { raw in try FirePackReader.checkFileHeader(raw) } } catch let error
            as FirePackError
        {
            throw failure(error)
        }
        let payload = Array(bytes[Tag.fileHeaderLength...])
        do throws(FirePackError) { try FirePackReader.verify(payload, limits: limits) } catch {
            // Offsets in the payload, reported as offsets in the file (FORMAT.md §7: from the input's first byte).
            var inFile = error
            inFile.offset = error.offset.map { $0 + Tag.fileHeaderLength }
            throw failure(inFile)
        }
        if (try? Document(firePackBytes: payload, limits: limits)) != nil {
            return [FileRecord(bytes: payload, fileOffset: Tag.fileHeaderLength)]
        }
        // An array of plain objects, one element at a time: memory for one element's tree, not the file's.
        let naming = DocumentNaming(collection: "", idField: nil)
        func record(_ element: Value, _ index: Int) throws -> FileRecord {
            guard case .map(let fields) = element, fields["__name__"] != nil else {
                throw FirePackError(
                    .invalidDocument,
                    "\(path): element \(index) is not a document named by __name__ (convert the file to .fpks with "
                        + "--collection and --id-field, and read that)")
            }
            do {
                return FileRecord(bytes: try naming.document(from: element, line: nil).firePackBytes(), fileOffset: nil)
            } catch let error as FirePackError {
                throw FirePackError(error.code, "\(path): element \(index): \(error.message)")
            }
        }
        let records = try payload.withUnsafeBytes { raw -> [FileRecord]? in
            var reader = try FirePackReader(bytes: raw, limits: limits)
            switch try reader.peekType() {
            case .map: return [try record(try reader.readValue(), 0)]
            case .array: break
            default: return nil
            }
            let array = try reader.enterArray()
            var records: [FileRecord] = []
            for index in 0..<array.count {
                guard try reader.peekType() == .map else { return nil }
                records.append(try record(try reader.readValue(), index))
            }
            return records
        }
        guard let records else {
            throw FirePackError(
                .invalidDocument, offset: Tag.fileHeaderLength,
                "\(path): holds neither a document nor an array of documents (plain objects named by __name__)")
        }
        return records
    }

    /// The next record, or nil at the end (of the range, or of the records asked for).
    func nextRecord() throws -> Record? {
        if let records {
            while let record = try nextRecordInRange() {
                if record.number >= records.upperBound { break }
                if record.number >= records.lowerBound { return record }
            }
            self.records = records.upperBound..<records.upperBound
            return nil
        }
        return try nextRecordInRange()
    }

    /// The next record of the byte range, or nil at its end.
    private func nextRecordInRange() throws -> Record? {
        if let stream {
            guard let record = try stream.nextRecord() else { return nil }
            return Record(
                payload: record.payload, number: record.number, offset: record.offset,
                payloadOffset: record.payloadOffset)
        }
        guard fileRecordsRead < fileRecords.count else { return nil }
        let record = fileRecords[fileRecordsRead]
        fileRecordsRead += 1
        fileStorage?.deallocate()
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: record.bytes.count, alignment: 16)
        record.bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        fileStorage = storage
        return Record(
            payload: UnsafeRawBufferPointer(storage), number: fileRecordsRead - 1, offset: 0,
            payloadOffset: record.fileOffset, inStream: false)
    }

    /// The bytes of the `.fpk` file's record being read, alive until the next.
    private var fileStorage: UnsafeMutableRawBufferPointer?

    deinit { fileStorage?.deallocate() }

    /// Reports a record that checks out but is not a valid document (thrown in `.stopAtFirstError` mode).
    func reportInvalid(_ error: FirePackError, in record: Record) throws {
        if let stream {
            try stream.reportInvalidDocument(
                error,
                in: StreamRecord(
                    number: record.number, offset: record.offset, payload: record.payload,
                    payloadOffset: record.payloadOffset))
        } else {
            throw FirePackError(
                error.code, offset: error.offset.map { $0 + (record.payloadOffset ?? 0) },
                "\(path): not a document: \(error.message)", path: error.path)
        }
    }

    /// The damaged records met so far (the first thousand) and how many there were.
    var problems: [StreamProblem] { stream?.problems ?? [] }
    var problemCount: Int { stream?.problemCount ?? 0 }
    /// How many of those are a damaged index or close record, which costs no record.
    var damagedClosingCount: Int { stream?.damagedClosingCount ?? 0 }
    /// How many of those are places where whole records are missing (`missingRecords`), not damage.
    var missingRecordPlaces: Int { stream?.missingRecordPlaces ?? 0 }
    /// Blocks refused as past the block-expansion limit, and what reading them needs (`DocumentStreamReader`).
    var blocksPastExpansion: Int { stream?.blocksPastExpansion ?? 0 }
    var blockExpansionNeeded: Int { stream?.blockExpansionNeeded ?? 0 }
}
