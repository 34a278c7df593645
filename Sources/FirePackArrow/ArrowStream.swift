import CArrowABI
import CFirePackSystem
import FirePack

// The Arrow C Stream Interface (https://arrow.apache.org/docs/format/CStreamInterface.html) both ways: a reader's
// batches exported as an `ArrowArrayStream`, and a producer's stream consumed by the writer. Errors cross as the
// interface says: a non-zero errno-style code, and the message from `get_last_error`.

/// What an exported stream owns: the reader, and the last error's text.
final class ExportedStream {
    let reader: ArrowBatchReader
    var lastError: UnsafeMutablePointer<CChar>?

    init(reader: ArrowBatchReader) { self.reader = reader }

    deinit { free(lastError) }

    /// Set by the first error: the builders may hold part of a batch, so every later call fails the same way
    /// (the C Stream Interface lets a producer end a stream on error; it must not go on with stale rows).
    var failed = false

    func fail(_ error: any Error) -> Int32 {
        free(lastError)
        lastError = strdup("\(error)")
        failed = true
        return EIO
    }

    static func of(_ stream: UnsafeMutablePointer<ArrowArrayStream>?) -> ExportedStream {
        Unmanaged<ExportedStream>.fromOpaque(stream!.pointee.private_data!).takeUnretainedValue()
    }
}

extension ArrowBatchReader {
    /// Fills `out` with a stream of this reader's batches (which the consumer releases; the reader stays alive
    /// until it does, so `problems` and `warningCounts` can be read after the last batch).
    public func exportStream(into out: UnsafeMutablePointer<ArrowArrayStream>) {
        let owner = ExportedStream(reader: self)
        out.pointee = ArrowArrayStream(
            get_schema: { stream, schema in
                ExportedStream.of(stream).reader.exportSchema(into: schema!)
                return 0
            },
            get_next: { stream, array in
                let owner = ExportedStream.of(stream)
                guard !owner.failed else { return EIO }
                do {
                    if try !owner.reader.nextBatch(into: array!) { array!.pointee.release = nil }
                    return 0
                } catch {
                    return owner.fail(error)
                }
            },
            get_last_error: { stream in UnsafePointer(ExportedStream.of(stream).lastError) },
            release: { stream in
                guard let stream, stream.pointee.release != nil else { return }
                Unmanaged<ExportedStream>.fromOpaque(stream.pointee.private_data!).release()
                stream.pointee.release = nil
            },
            private_data: Unmanaged.passRetained(owner).toOpaque())
    }
}

extension ArrowStreamWriter {
    /// Writes every batch of `stream`, then releases it (the consumer's duty); the caller still calls `close()`.
    public func write(stream: UnsafeMutablePointer<ArrowArrayStream>) throws {
        defer { stream.pointee.release?(stream) }
        func streamError(_ code: Int32, _ what: String) -> FirePackError {
            let message = stream.pointee.get_last_error?(stream).map { String(cString: $0) } ?? "error \(code)"
            return FirePackError(.ioFailure, "the Arrow stream failed while \(what): \(message)")
        }
        var schemaStruct = ArrowSchema()
        let status = stream.pointee.get_schema(stream, &schemaStruct)
        guard status == 0 else { throw streamError(status, "giving its schema") }
        defer { schemaStruct.release?(&schemaStruct) }
        let schema = try ArrowDocumentSchema(importing: &schemaStruct)
        while true {
            var batch = ArrowArray()
            let status = stream.pointee.get_next(stream, &batch)
            guard status == 0 else { throw streamError(status, "giving a batch") }
            guard batch.release != nil else { return }
            defer { batch.release?(&batch) }
            try write(batch: &batch, schema: schema)
        }
    }
}
