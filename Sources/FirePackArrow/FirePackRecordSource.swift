import CFirePackSystem
import FirePack
import FirePackStreams

/// The size of the file at `path`, or nil when it cannot be told.
func fileSize(_ path: String) -> Int? {
    var status = stat()
    guard stat(SystemPath.bytes(path), &status) == 0 else { return nil }
    return Int(status.st_size)
}

/// The document records of one file, whatever its kind: a `.fpks` stream (or one byte range of it), a gzip-compressed
/// stream (whole only: gzip cannot be entered in the middle), or a `.fpk` file holding one document.
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
    }

    let path: String
    let stream: DocumentStreamReader?
    var single: [UInt8]?

    private init(path: String, stream: DocumentStreamReader?, single: [UInt8]?) {
        self.path = path
        self.stream = stream
        self.single = single
    }

    /// Opens `path` for the records whose marker starts in `[offset, offset + length)` (`length` nil: to the end).
    static func open(path: String, offset: Int, length: Int?, mode: DocumentStreamReader.ErrorMode) throws
        -> FirePackRecordSource
    {
        let head = try readPrefix(FileSource(path: path), count: 6)
        if head.starts(with: [0x1F, 0x8B]) {
            // The one range `splits` gives such a file, [0, size), is the whole file; any other cannot be read.
            guard offset == 0, length.map({ $0 >= (fileSize(path) ?? .max) }) ?? true else {
                throw FirePackError(
                    .invalidValue,
                    "\(path): a gzip-compressed stream cannot be read by byte range (gzip cannot be entered in the middle): read it whole"
                )
            }
            return FirePackRecordSource(
                path: path, stream: try DocumentStreamReader(source: GzipSource(FileSource(path: path)), mode: mode),
                single: nil)
        }
        if head.starts(with: [0x89, 0x46, 0x50, 0x4B]) {
            guard offset == 0 else { return FirePackRecordSource(path: path, stream: nil, single: nil) }
            let bytes = try readAll(FileSource(path: path), limit: DocumentStreamFormat.defaultMaxRecordLength + 5)
            guard bytes.count > 5, bytes[4] == 1 else {
                throw FirePackError(.unsupportedVersion, offset: 4, "\(path): not a FirePack file of version 1")
            }
            return FirePackRecordSource(path: path, stream: nil, single: bytes)
        }
        return FirePackRecordSource(
            path: path,
            stream: try DocumentStreamReader.reading(path: path, offset: offset, length: length, mode: mode),
            single: nil)
    }

    /// The next record, or nil at the end (of the range).
    func nextRecord() throws -> Record? {
        if let stream {
            guard let record = try stream.nextRecord() else { return nil }
            return Record(
                payload: record.payload, number: record.number, offset: record.offset,
                payloadOffset: record.payloadOffset)
        }
        guard let bytes = single else { return nil }
        single = nil
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        singleStorage = storage
        return Record(payload: UnsafeRawBufferPointer(rebasing: storage[5...]), number: 0, offset: 0, payloadOffset: 5)
    }

    /// A `.fpk` file's bytes, alive while its record is read.
    private var singleStorage: UnsafeMutableRawBufferPointer?

    deinit { singleStorage?.deallocate() }

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
}
