import FirePack

/// The `.fpks` layout of Docs/FORMAT.md §8.
public enum DocumentStreamFormat {
    /// `\\x89FPS`, version 1, flags 0.
    public static let header: [UInt8] = [0x89, 0x46, 0x50, 0x53, 0x01, 0x00]
    /// The 4-byte marker in front of every record.
    public static let syncMarker: [UInt8] = [0xF3, 0x50, 0x52, 0x1E]
    /// Marker, length and CRC.
    public static let recordHeaderLength = 12
    /// The largest record a reader accepts by default (Firestore documents are at most 1 MiB).
    public static let defaultMaxRecordLength = 64 << 20
}

/// Appends documents to a `.fpks` stream: one record each (marker, length, CRC-32, FirePack payload).
///
/// Records are encoded into one reused writer and passed to the sink as they complete, so memory stays constant
/// whatever the stream's length. `flush()` pushes buffered records to the sink.
public final class DocumentStreamWriter {
    let sink: ByteSink
    let payload: FirePackWriter
    var buffer: [UInt8] = []
    let flushThreshold: Int
    /// Records written through this writer.
    public private(set) var recordCount = 0

    /// Writes a stream to `sink`; with `writeHeader` false the sink already holds a stream (appending).
    public init(sink: ByteSink, writeHeader: Bool = true, deterministic: Bool = false, flushThreshold: Int = 1 << 20) throws {
        self.sink = sink
        self.payload = FirePackWriter(options: .init(deterministic: deterministic))
        self.flushThreshold = flushThreshold
        buffer.reserveCapacity(flushThreshold + 4096)
        if writeHeader { buffer += DocumentStreamFormat.header }
    }

    /// Opens a stream file for appending, creating it (with its header) when it does not exist; an existing file
    /// must start with the stream header.
    public static func appending(toPath path: String, deterministic: Bool = false) throws -> DocumentStreamWriter {
        if let existing = try? FileSource(path: path) {
            var header = [UInt8](repeating: 0, count: DocumentStreamFormat.header.count)
            let count = try header.withUnsafeMutableBytes { try existing.read(into: $0) }
            if count > 0 {
                guard count == header.count, header == DocumentStreamFormat.header else {
                    throw FirePackError(.badMagic, offset: 0, "\(path) is not a FirePack document stream")
                }
                return try DocumentStreamWriter(sink: FileSink(path: path, append: true), writeHeader: false, deterministic: deterministic)
            }
        }
        return try DocumentStreamWriter(sink: FileSink(path: path), deterministic: deterministic)
    }

    /// Appends one document.
    public func append(_ document: Document) throws {
        document.write(to: payload)
        try appendPayload()
    }

    /// Appends an `Encodable` value as the fields of the document at `reference`.
    public func append<T: Encodable>(_ value: T, reference: DocumentReference, encoder: FirePackEncoder = FirePackEncoder()) throws {
        try append(Document(reference: reference, from: value, encoder: encoder))
    }

    func appendPayload() throws {
        try payload.withUnsafeWrittenBytes { bytes in
            guard bytes.count <= UInt32.max else { throw FirePackError(.limitExceeded, "a record of \(bytes.count) bytes is too large") }
            buffer += DocumentStreamFormat.syncMarker
            withUnsafeBytes(of: UInt32(bytes.count).littleEndian) { buffer += $0 }
            withUnsafeBytes(of: crc32(bytes).littleEndian) { buffer += $0 }
            buffer.append(contentsOf: bytes)
        }
        payload.clear()
        recordCount += 1
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Passes buffered records to the sink.
    public func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try sink.write($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and finishes the sink.
    public func close() throws {
        try flush()
        try sink.finish()
    }
}
