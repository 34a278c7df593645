#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack
import FirePackStreams

/// A source that names the documents it reads (`DocumentNaming`): the IDs it makes up are new, so a conversion does
/// not check them for repeats.
public protocol NamingDocumentSource: DocumentSource {
    /// How the source names its documents.
    var naming: DocumentNaming { get }
}

extension JSONLinesReader: NamingDocumentSource {}
extension JSONArrayReader: NamingDocumentSource {}

/// A sink that writes a stream's document records from their bytes, as it writes the documents they hold: Firestore's
/// formats, and the tool's `.fpk` output.
package protocol RecordSink: DocumentSink {
    /// Writes the document `record` holds (a record `DocumentStreamReader.nextCheckedRecord()` checked), as
    /// `write(_:)` writes it, after `resolvingServerTimestamps(at: time)` when a time is given.
    func write(record: UnsafeRawBufferPointer, limits: ReaderLimits, resolvingServerTimestamps time: Timestamp?) throws
}

extension FirestoreJSONWriter: RecordSink {}
extension FirestoreProtoWriter: RecordSink {}

/// Every document of a source written into a sink, one record per `step()`, the way `firepack convert` does it: by
/// the direct path where the pair has one — JSON lines into a `.fpks` stream (each line's fields written from the
/// text, `JSONLinesReader.appendNext(to:)`) and a stream into JSON lines (each record's fields written as JSON from
/// its bytes, `JSONLinesWriter.appendNext(from:)`; into a JSON array, a `.fpks` stream or Firestore's formats alike)
/// — with the bytes and errors of document by document, and noting on
/// the way what the output's reader would want to know:
///
/// - documents that repeat an earlier document's path (`repeatedPaths`): written as they are, but Firestore would keep
///   only the last of each. Paths are kept as fingerprints, in bounded memory (`repeatedPathsNote` says when the check
///   became partial);
/// - with `checksFirestoreLimits`, documents Firestore's limits refuse (`limitProblems`, `FirestoreLimits`).
///
/// Pending server timestamps can be given a time (`resolvingServerTimestamps`): a stream's records then go into JSON
/// lines, JSON arrays, streams and Firestore's formats from their bytes as before, written as the time (into
/// Firestore's formats through a tree when limits are checked and the time is outside Firestore's range), and every
/// other pair takes each document through a tree. Memory is one document (or line, or
/// record) at a time, plus the reports' bounded examples; with `workers` above 1, two batches of up to 1 MiB of input per worker (at most 16 MiB of input in all, unless a worker's share
/// falls under 256 KiB), and their output.
public final class DocumentConversion {
    /// Where documents come from.
    public let source: any DocumentSource
    /// Where they go.
    public let sink: any DocumentSink
    /// The time pending server timestamps are given, if any.
    public let resolvingServerTimestamps: Timestamp?
    /// Whether each document is checked against Firestore's limits.
    public let checksFirestoreLimits: Bool
    // `@exclusivity(unchecked)` on the `var`s used per line, document or record: Docs/ARCHITECTURE.md, "Performance
    // mechanisms".
    /// Documents converted so far.
    @exclusivity(unchecked) public private(set) var records = 0
    /// Documents that repeat an earlier one's path, counted, with the first ones as example lines.
    @exclusivity(unchecked) public private(set) var repeatedPaths: ProblemReport
    /// Documents Firestore's limits refuse (when checked), counted by rule, with the first ones as example lines.
    @exclusivity(unchecked) public private(set) var limitProblems: ProblemReport
    /// A note when the check for repeated paths stopped keeping paths (it stays exact for those kept).
    public var repeatedPathsNote: String? { paths.partialNote }

    private enum Route {
        case linesIntoStream(JSONLinesReader, DocumentStreamWriter)
        case linesIntoStreamInParallel(ParallelJSONLines)
        case streamIntoLinesInParallel(ParallelStreamLines)
        case streamIntoLines(DocumentStreamReader, JSONLinesWriter)
        case streamIntoStream(DocumentStreamReader, DocumentStreamWriter)
        case streamIntoArray(DocumentStreamReader, JSONArrayWriter)
        case streamIntoRecords(DocumentStreamReader, any RecordSink)
        case documents
    }
    private let route: Route
    private let naming: DocumentNaming?
    private let checksRepeatedPaths: Bool
    private let lines: JSONLinesReader?
    @exclusivity(unchecked) private var paths = DuplicatePaths()

    /// A conversion of `source` into `sink`. Firestore's limits are checked by default when the sink writes one of
    /// Firestore's formats (`FirestoreJSONWriter`, `FirestoreProtoWriter`); `maxExamples` example lines are kept per
    /// report; `checksRepeatedPaths: false` leaves paths unchecked.
    ///
    /// With `workers` above 1, JSON lines going into a `.fpks` stream are encoded on that many threads while this
    /// one appends them in input order, and a stream's records going into JSON lines are written as text on that many
    /// threads while this one reads the stream: the output, the names, the problems and the errors are the same as
    /// with one. Workers beyond the machine's cores add memory, not speed: they are capped at its active processor
    /// count. A `.fpks` source's next block is then decompressed and rebuilt on a thread of its own as well
    /// (`DocumentStreamReader.readsBlocksAhead`). The source is read ahead of the documents converted; a conversion
    /// stopped before the end leaves it there.
    public init(
        from source: any DocumentSource, to sink: any DocumentSink, resolvingServerTimestamps time: Timestamp? = nil,
        checksFirestoreLimits: Bool? = nil, checksRepeatedPaths: Bool = true, maxExamples: Int = 5, workers: Int = 1
    ) {
        self.source = source
        self.sink = sink
        resolvingServerTimestamps = time
        self.checksFirestoreLimits =
            checksFirestoreLimits ?? (sink is FirestoreJSONWriter || sink is FirestoreProtoWriter)
        repeatedPaths = ProblemReport(maxExamples: maxExamples)
        limitProblems = ProblemReport(maxExamples: maxExamples)
        naming = (source as? NamingDocumentSource)?.naming
        self.checksRepeatedPaths = checksRepeatedPaths
        lines = source as? JSONLinesReader
        // Unpacking a block (decompressing it, rebuilding its rows from columns) was most of the reading thread's
        // work when the documents are written on others (`Stream fpks to JSON lines`).
        if workers > 1, let stream = source as? StreamDocuments { stream.reader.readsBlocksAhead = true }
        // The direct paths write what document by document writes; they are not taken where a document must be
        // seen whole (limits to check; from JSON lines, a time for server timestamps), except into a record sink: it
        // writes a record's pending server timestamps as the time, and its limits are checked on the record's bytes,
        // where a pending timestamp counts as much as a timestamp (a time outside Firestore's range, which a time in
        // the document would break, takes the tree). JSON text from a record's bytes writes the time as well. A
        // stream copied into a stream is copied record by record on this thread.
        route =
            if time == nil && !self.checksFirestoreLimits, let lines, let stream = sink as? DocumentStreamWriter,
                !stream.isDeterministic
            {
                workers > 1
                    ? .linesIntoStreamInParallel(
                        ParallelJSONLines(reader: lines, stream: stream, workers: Self.cappedWorkers(workers)))
                    : .linesIntoStream(lines, stream)
            } else if !self.checksFirestoreLimits, let records = source as? StreamDocuments,
                let output = sink as? JSONLinesWriter
            {
                workers > 1
                    ? .streamIntoLinesInParallel(
                        ParallelStreamLines(
                            reader: records.reader, writer: output, workers: Self.cappedWorkers(workers),
                            resolvingServerTimestamps: time))
                    : .streamIntoLines(records.reader, output)
            } else if !self.checksFirestoreLimits, let records = source as? StreamDocuments,
                let stream = sink as? DocumentStreamWriter
            {
                .streamIntoStream(records.reader, stream)
            } else if !self.checksFirestoreLimits, let records = source as? StreamDocuments,
                let array = sink as? JSONArrayWriter
            {
                .streamIntoArray(records.reader, array)
            } else if let records = source as? StreamDocuments, let output = sink as? any RecordSink,
                !self.checksFirestoreLimits || time.map(Timestamp.firestoreRange.contains) ?? true
            {
                .streamIntoRecords(records.reader, output)
            } else {
                .documents
            }
    }

    /// `workers`, at most one per active processor.
    static func cappedWorkers(_ workers: Int) -> Int {
        Swift.min(workers, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Converts the next document and returns true; false at the end of the source. The sink is not finished
    /// (`finish()` does that).
    public func step() throws -> Bool {
        let generated = naming?.generatedCount
        // The path of the document converted; on several threads, as the worker noted it (hashed there).
        let path: String
        switch route {
        case .linesIntoStream(let lines, let stream):
            guard try lines.appendNext(to: stream) else { return false }
            path = lines.lastPath
        case .linesIntoStreamInParallel(let parallel):
            guard try parallel.appendNext() else { return false }
            if let noted = parallel.lastPath {
                return stepped(generated, fingerprint: noted.fingerprint, path: parallel.text(of: noted))
            }
            path = parallel.reader.lastPath  // a line appended on this thread (after one that failed)
        case .streamIntoLines(let reader, let output):
            guard
                try placing(
                    try output.appendNext(from: reader, resolvingServerTimestamps: resolvingServerTimestamps), path: nil
                )
            else { return false }
            path = output.lastPath
        case .streamIntoLinesInParallel(let parallel):
            guard try placing(try parallel.appendNext(), path: nil) else { return false }
            let noted = parallel.lastPath
            return stepped(generated, fingerprint: noted.fingerprint, path: parallel.text(of: noted))
        case .streamIntoStream(let reader, let stream):
            // Each record copied from its bytes, as a tree of it would be written (`FirePackWriter.write(_:
            // ValueView)`), without the tree: a record of packed rows is about 110 bytes of tree a row. Its own
            // entries keep their order (Docs/FORMAT.md §9); a deterministic stream sorts the keys inside them.
            guard let (record, reference) = try reader.nextCheckedRecord() else { return false }
            try placing(
                try stream.append(writtenBy: { writer in
                    var entries = try FirePackReader(bytes: record.payload, limits: reader.limits)
                    writer.beginMap()
                    try writer.writeEntries(copying: &entries, resolvingServerTimestamps: resolvingServerTimestamps)
                    writer.endMap()
                }), path: reference.path)
            path = reference.path
        case .streamIntoArray(let reader, let array):
            guard
                let reference = try placing(
                    try array.appendNext(from: reader, resolvingServerTimestamps: resolvingServerTimestamps), path: nil)
            else { return false }
            path = reference.path
        case .streamIntoRecords(let reader, let output):
            // Firestore's formats written from each record's bytes, its limits checked on them: no tree of a record.
            guard let (record, reference) = try reader.nextCheckedRecord() else { return false }
            if checksFirestoreLimits {
                try FirestoreLimits.forEachViolation(inRecord: record.payload, limits: reader.limits) { kind, text in
                    limitProblems.add(kind: kind, "record \(records) (\(reference.path)): \(text())")
                }
            }
            try placing(
                try output.write(
                    record: record.payload, limits: reader.limits, resolvingServerTimestamps: resolvingServerTimestamps),
                path: reference.path)
            path = reference.path
        case .documents:
            guard let next = try source.next() else { return false }
            let document = next.resolvingServerTimestamps(ifAt: resolvingServerTimestamps)
            if checksFirestoreLimits {
                FirestoreLimits.forEachViolation(in: document) { kind, text in
                    limitProblems.add(kind: kind, "record \(records) (\(document.reference.path)): \(text())")
                }
            }
            try placing(try sink.write(document), path: document.reference.path)
            path = document.reference.path
        }
        return stepped(generated, fingerprint: DuplicatePaths.fingerprint(of: path), path: path)
    }

    /// `body`'s result; an error it throws about a document the output cannot hold (a pending server timestamp in
    /// REST JSON, a field where plain JSON names the document) says which: its line or record, and its path when the
    /// message does not.
    private func placing<T>(_ body: @autoclosure () throws -> T, path: String?) throws -> T {
        do {
            return try body()
        } catch let error as FirePackError {
            guard !error.message.hasPrefix("line "), !error.message.hasPrefix("record ") else { throw error }
            var place = lines.map { "line \($0.lastLineNumber)" } ?? "record \(records)"
            if let path, !error.message.contains(path) { place += " (\(path))" }
            throw FirePackError(error.code, offset: error.offset, "\(place): \(error.message)", path: error.path)
        }
    }

    /// The end of a step: the document's path checked for repeats (by its fingerprint; its text is made for a
    /// repeat's message only), the document counted.
    private func stepped(
        _ generated: Int?, fingerprint: @autoclosure () -> UInt64, path: @autoclosure () -> String
    ) -> Bool {
        // A new ID repeats nothing.
        if checksRepeatedPaths && naming?.generatedCount == generated {
            paths.check(
                fingerprint: fingerprint(), at: lines?.lastLineNumber ?? records,
                unit: lines == nil ? "record" : "line",
                into: &repeatedPaths, path: path())
        }
        records += 1
        return true
    }

    /// Converts every remaining document, calling `progress` with the count after each, and finishes the sink;
    /// returns how many documents were converted in all.
    @discardableResult
    public func run(progress: (Int) -> Void = { _ in }) throws -> Int {
        while try step() { progress(records) }
        try finish()
        return records
    }

    /// Writes what the sink buffers and finishes it (a stream's close record, a JSON array's bracket).
    public func finish() throws { try sink.finish() }

    /// Writes what the sink buffers and finishes it as output that is not all there (the source skipped damaged
    /// records): `DocumentSink.finishIncomplete()`.
    public func finishIncomplete() throws { try sink.finishIncomplete() }
}
