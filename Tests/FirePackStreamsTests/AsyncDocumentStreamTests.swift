import Foundation
import Synchronization
import Testing
import FirePackTestSupport
import FirePack
@testable import FirePackStreams

/// Chunks of `bytes` of the sizes `sizes` gives, counting how many were handed out.
struct CountedChunks: AsyncSequence, Sendable {
    let bytes: [UInt8]
    let sizes: @Sendable (Int) -> Int
    let handedOut: Counter

    final class Counter: Sendable {
        let value = Mutex(0)
        var count: Int { value.withLock { $0 } }
    }

    init(_ bytes: [UInt8], size: Int) { self.init(bytes, sizes: { _ in size }) }

    init(_ bytes: [UInt8], sizes: @escaping @Sendable (Int) -> Int) {
        self.bytes = bytes
        self.sizes = sizes
        handedOut = Counter()
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let chunks: CountedChunks
        var position = 0

        mutating func next() async -> [UInt8]? {
            guard position < chunks.bytes.count else { return nil }
            let count = chunks.handedOut.value.withLock { count in
                count += 1
                return count
            }
            let end = Swift.min(chunks.bytes.count, position + Swift.max(1, chunks.sizes(count)))
            defer { position = end }
            return Array(chunks.bytes[position..<end])
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: self) }
}

@Suite("Asynchronous document streams: chunks, back-pressure, cancellation, damage")
struct AsyncDocumentStreamTests {
    func documents(_ count: Int) throws -> [Document] {
        try (0..<count).map { index in
            Document(reference: try DocumentReference(path: "books/b\(index)"),
                     fields: ["index": .integer(Int64(index)), "title": .string(String(repeating: "t", count: index % 50)),
                              "tags": ["a", "b"]])
        }
    }

    func stream(_ documents: [Document]) throws -> [UInt8] { try streamBytes(documents) }

    /// What the synchronous reader makes of `bytes`: documents (numbers and offsets too), problems, completion, or
    /// the error that stopped it.
    func readSynchronously(_ bytes: [UInt8], mode: DocumentStreamReader.ErrorMode = .skipAndReport) -> String {
        var lines: [String] = []
        do {
            let reader = try DocumentStreamReader(source: MemorySource(bytes), mode: mode)
            do {
                while let (number, offset, document) = try reader.next() { lines.append("\(number) @\(offset) \(document.reference.path) \(document.fields)") }
            } catch {
                lines.append("stopped: \(error)")
            }
            lines += reader.problems.map { "problem: \($0)" }
            lines.append("completion: \(String(describing: reader.completion))")
        } catch {
            lines.append("not a stream: \(error)")
        }
        return lines.joined(separator: "\n")
    }

    /// The same, read asynchronously from `chunks`.
    func readAsynchronously(_ chunks: CountedChunks, mode: DocumentStreamReader.ErrorMode = .skipAndReport) async -> String {
        var lines: [String] = []
        let stream = DocumentStreamReader.documents(from: chunks, mode: mode)
        do {
            while let (number, offset, document) = try await stream.next() { lines.append("\(number) @\(offset) \(document.reference.path) \(document.fields)") }
        } catch {
            guard stream.isOpen else { return "not a stream: \(error)" }
            lines.append("stopped: \(error)")
        }
        lines += stream.problems.map { "problem: \($0)" }
        lines.append("completion: \(String(describing: stream.completion))")
        return lines.joined(separator: "\n")
    }

    @Test("every chunk size gives the documents, numbers, offsets and completion of the synchronous reader",
          arguments: [1, 2, 7, 64, 4096, 1 << 20])
    func chunkSizes(size: Int) async throws {
        let bytes = try stream(documents(120))
        let expected = readSynchronously(bytes)
        #expect(expected.contains("completion: Optional(FirePackStreams.StreamCompletion.closed(recordCount: 120))"))
        #expect(await readAsynchronously(CountedChunks(bytes, size: size)) == expected)
    }

    @Test("damaged streams: the same problems at the same offsets, whatever the chunk boundaries (seeded)")
    func damage() async throws {
        let clean = try stream(documents(40))
        var rng = SeededGenerator(seed: 0xA5_1C_29)
        var checked = 0, withProblems = 0
        for _ in 0..<300 {
            let bytes = ByteMutation.mutated(clean, using: &rng)
            let seed = UInt64.random(in: 0...UInt64.max, using: &rng)
            let sizes: @Sendable (Int) -> Int = { index in
                var local = SeededGenerator(seed: seed &+ UInt64(index))
                return [1, 3, 5, 13, 100, 700, 5000].randomElement(using: &local)!
            }
            for mode in [DocumentStreamReader.ErrorMode.skipAndReport, .stopAtFirstError] {
                let expected = readSynchronously(bytes, mode: mode)
                #expect(await readAsynchronously(CountedChunks(bytes, sizes: sizes), mode: mode) == expected, "seed \(seed)")
                checked += 1
                if expected.contains("problem:") || expected.contains("stopped:") { withProblems += 1 }
            }
        }
        #expect(checked == 600 && withProblems > 200)
    }

    @Test("a torn stream and a stream with bytes after its close record read as the synchronous reader reads them")
    func tornAndAppended() async throws {
        let bytes = try stream(documents(10))
        for variant in [Array(bytes.dropLast(20)), Array(bytes.dropLast(16)), bytes + bytes.suffix(40), Array(bytes.prefix(3)), []] {
            for size in [1, 9, 1000] {
                #expect(await readAsynchronously(CountedChunks(variant, size: size)) == readSynchronously(variant))
            }
        }
    }

    @Test("a refused header is refused again by every later step: the rest is never read as a stream")
    func aRefusedHeaderStaysRefused() async throws {
        // Bytes that are not a stream, followed by a whole stream: asking again must not find the stream's header.
        let bytes = Array("not a stream".utf8) + (try stream(documents(3)))
        for size in [1, 6, 12, 1000] {
            let documents = AsyncDocumentStream(chunks: CountedChunks(bytes, size: size))
            var errors: [String] = []
            for _ in 0..<3 {
                do {
                    let document = try await documents.next()
                    Issue.record("read \(String(describing: document)) after a refused header (chunks of \(size))")
                } catch let error as FirePackError {
                    errors.append("\(error.code) \(error.offset ?? -1)")
                }
            }
            #expect(errors == Array(repeating: "badMagic 0", count: 3), "chunks of \(size): \(errors)")
        }
    }

    @Test("decoded models: values(as:), with a record that does not decode reported, not dropped")
    func decodedModels() async throws {
        struct Book: Codable, Equatable {
            @DocumentID var id: String?
            var index: Int
            var title: String
        }
        var documents = try documents(20)
        documents[7] = Document(reference: try DocumentReference(path: "books/b7"), fields: ["index": "seven", "title": "x"])
        let stream = DocumentStreamReader.documents(from: CountedChunks(try stream(documents), size: 33))
        var books: [Book] = []
        for try await book in stream.values(as: Book.self) { books.append(book) }
        #expect(books.count == 19 && books.map(\.index) == Array(0..<20).filter { $0 != 7 })
        #expect(books[0].id == "b0")
        #expect(stream.problems.count == 1 && stream.problems[0].code == .decodingFailed && stream.problems[0].recordNumber == 7)
        #expect(stream.completion == .closed(recordCount: 20))
    }

    @Test("back-pressure: a chunk is asked for only when a record needs more bytes than are buffered")
    func backPressure() async throws {
        let bytes = try stream(documents(1_000))
        let chunks = CountedChunks(bytes, size: 256)
        let stream = DocumentStreamReader.documents(from: chunks)
        var iterator = stream.makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.reference.path == "books/b0")
        #expect(chunks.handedOut.count == 1, "the first record fits in the first chunk")
        var read = 1
        while try await iterator.next() != nil {
            read += 1
            if read == 500 { break }
        }
        let total = (bytes.count + 255) / 256
        #expect(chunks.handedOut.count < total / 2 + 2, "half the records read, \(chunks.handedOut.count) of \(total) chunks pulled")
    }

    @Test("cancellation stops the iteration and asks for no more chunks")
    func cancellation() async throws {
        let bytes = try stream(documents(10))
        let (chunks, continuation) = AsyncStream<[UInt8]>.makeStream()
        continuation.yield(Array(bytes.prefix(200)))   // a few records, then nothing more for now
        let pulled = Mutex(0)
        let counted = chunks.map { chunk -> [UInt8] in
            pulled.withLock { $0 += 1 }
            return chunk
        }
        let started = AsyncStream<Void>.makeStream()
        let task = Task {
            var count = 0
            for try await _ in DocumentStreamReader.documents(from: counted) {
                count += 1
                if count == 1 { started.continuation.yield() }
            }
            return count
        }
        for await _ in started.stream { break }
        task.cancel()
        continuation.yield(Array(bytes.dropFirst(200)))
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(pulled.withLock { $0 } == 1, "no chunk was taken after cancellation")
        continuation.finish()
    }

    @Test("cancelled before the header arrives: CancellationError, not a stream cut short")
    func cancellationBeforeTheHeader() async throws {
        // An AsyncStream ends (gives nil) when its consuming task is cancelled: that end is not the stream's.
        let (chunks, continuation) = AsyncStream<[UInt8]>.makeStream()
        let waiting = AsyncStream<Void>.makeStream()
        let task = Task {
            waiting.continuation.yield()
            var iterator = DocumentStreamReader.documents(from: chunks).makeAsyncIterator()
            return try await iterator.next()
        }
        for await _ in waiting.stream { break }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        let outcome = await task.result
        #expect(throws: CancellationError.self) { try outcome.get() }
        continuation.finish()
    }

    @Test("a service lowers the record limit of a stream from peers; the default takes what writers write")
    func recordLimitOfAPeerStream() async throws {
        let large = Document(reference: try DocumentReference(path: "books/big"), fields: ["text": .string(String(repeating: "x", count: 4_096))])
        let bytes = try stream([large])
        var count = 0
        for try await _ in DocumentStreamReader.documents(from: CountedChunks(bytes, size: 512)) { count += 1 }
        #expect(count == 1)
        let small = DocumentStreamReader.documents(
            from: CountedChunks(bytes, size: 512), mode: .stopAtFirstError, maxRecordLength: 1_024)
        let problem = await #expect(throws: StreamProblem.self) { for try await _ in small {} }
        #expect(problem?.reason.contains("exceeds the limit of 1024") == true, "\(String(describing: problem))")
    }

    @Test("models from a stream with inputValidation .complete: a field the model skips is checked too")
    func completeValidationOfStreamRecords() async throws {
        struct Small: Codable { var index: Int }
        // A record whose skipped field holds bytes that are not UTF-8, framed (and checksummed) as an intact record.
        let document = Document(reference: try DocumentReference(path: "books/b0"), fields: ["index": 1, "note": "zz"])
        let sink = MemorySink()
        let writer = try DocumentStreamWriter(sink: sink)
        let encoder = FirePackWriter(options: writer.documentOptions)
        document.write(to: encoder)
        var bytes = encoder.takeBytes()
        let at = try #require((0..<bytes.count - 1).first { bytes[$0] == UInt8(ascii: "z") && bytes[$0 + 1] == UInt8(ascii: "z") })
        bytes[at] = 0xFF
        bytes[at + 1] = 0xFE
        try bytes.withUnsafeBytes { try writer.append(encodedDocument: $0) }
        try writer.close()
        let lazy = FirePackDecoder(), strict = FirePackDecoder()
        strict.inputValidation = .complete
        var read = DocumentStreamReader.documents(from: CountedChunks(sink.bytes, size: 64))
        var values: [Int] = []
        for try await small in read.values(as: Small.self, decoder: lazy) { values.append(small.index) }
        #expect(values == [1] && read.problems.isEmpty)
        read = DocumentStreamReader.documents(from: CountedChunks(sink.bytes, size: 64))
        values = []
        for try await small in read.values(as: Small.self, decoder: strict) { values.append(small.index) }
        #expect(values.isEmpty && read.problems.count == 1 && read.problems.first?.code == .decodingFailed, "\(read.problems)")
        #expect(read.problems.first?.reason.contains("UTF-8") == true, "\(read.problems)")
    }

    /// A descriptor that is not open is an error from the read, not a wait (poll(2) skips negative descriptors; a
    /// watchdog cancels the read after a minute, so a wait fails the test with `CancellationError`).
    @Test("a read of the chunks that fails is thrown with the stream offset it happened at; another error as it is")
    func aFailingReadNamesItsOffset() async throws {
        struct Own: Error {}
        let bytes = try stream(documents(20))
        let cut = bytes.count / 2
        for failure in [FirePackError(.ioFailure, "read failed: Input/output error"), Own()] as [any Error] {
            let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            continuation.yield(Array(bytes[..<100]))
            continuation.yield(Array(bytes[100..<cut]))
            continuation.finish(throwing: failure)
            var read = 0
            do {
                for try await _ in DocumentStreamReader.documents(from: chunks) { read += 1 }
                Issue.record("no error")
            } catch let error as FirePackError {
                #expect(failure is FirePackError && error.offset == cut && error.message == "read failed: Input/output error")
            } catch {
                #expect(error is Own)
            }
            #expect(read > 0 && read < 20)
        }
    }

    @Test func aDescriptorThatIsNotOpenIsAnError() async throws {
        let task = Task {
            for try await _ in FileDescriptorChunks(descriptor: -1) {}
        }
        let watchdog = afterAMinute { task.cancel() }
        let outcome = await task.result
        watchdog.cancel()
        #expect(throws: FirePackError.self) { try outcome.get() }
    }

    /// A cancelled read leaves its iterator ready for the next one: the wake-up its cancellation sent is taken back,
    /// so a read in another task waits for the descriptor again and reads what comes (a wake-up left behind would end
    /// it at once with `CancellationError`: cancellation wins when both are ready).
    @Test func anIteratorReadsOnAfterACancelledRead() async throws {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        let iterator = IteratorBox(FileDescriptorChunks(descriptor: ends[0], chunkSize: 64).makeAsyncIterator())
        let cancelled = Task { try await iterator.iterator.next() }
        try await Task.sleep(for: .milliseconds(100))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }

        let bytes: [UInt8] = [7, 8, 9]
        #expect(bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) } == bytes.count)
        let next = Task { try await iterator.iterator.next() }
        let watchdog = afterAMinute { next.cancel() }
        let chunk = try await next.value
        watchdog.cancel()
        #expect(chunk == bytes)
    }

    @Test("a file descriptor: a file reads as the synchronous reader reads it; a pipe that waits ends by cancellation alone, leaving no read behind")
    func fileDescriptors() async throws {
        let bytes = try stream(documents(300))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("async-\(UUID().uuidString).fpks").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let stream = DocumentStreamReader.documents(from: FileDescriptorChunks(descriptor: descriptor, chunkSize: 1000))
        var count = 0
        for try await document in stream {
            #expect(document.reference.path == "books/b\(count)")
            count += 1
        }
        #expect(count == 300 && stream.completion == .closed(recordCount: 300) && stream.problems.isEmpty)

        // A pipe whose writer sends two records' worth and then waits: the read waits with it, until cancelled. The
        // writer never closes its end while the read is awaited, so only cancellation can end the iteration; no
        // wall-clock bound is asserted (a stalled machine is not a failure). A watchdog closes the writer's end after
        // a minute, so a read that ignores cancellation fails the test (the writer's end is then found closed)
        // instead of hanging the suite.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let writer = ends[1]
        let writerOpen = Mutex(true)
        let closeWriter: @Sendable () -> Void = {
            if writerOpen.withLock({ open in defer { open = false }; return open }) { close(writer) }
        }
        defer { close(ends[0]); closeWriter() }
        let prefix = Array(bytes.prefix(300))
        _ = prefix.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }
        let reading = ends[0]
        let task = Task {
            var seen = 0
            for try await _ in DocumentStreamReader.documents(from: FileDescriptorChunks(descriptor: reading, chunkSize: 64)) { seen += 1 }
            return seen
        }
        let watchdog = afterAMinute(closeWriter)
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let outcome = await task.result
        watchdog.cancel()
        #expect(throws: CancellationError.self) { try outcome.get() }
        try #require(writerOpen.withLock { $0 }, "the read ended by cancellation, not by the watchdog's end of input")

        // Nothing is left reading once the iteration has ended: bytes written now are all there for the next reader
        // of the descriptor (a read that outlived its iteration, waiting in read(2), took them).
        let later: [UInt8] = [1, 2, 3, 4, 5]
        #expect(later.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) } == later.count)
        try await Task.sleep(for: .milliseconds(50))  // time for a read left behind to take them
        #expect(fcntl(reading, F_SETFL, O_NONBLOCK) == 0)
        var found: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 512)
        while case let count = buffer.withUnsafeMutableBytes({ read(reading, $0.baseAddress, $0.count) }), count > 0 {
            found += buffer[..<count]
        }
        #expect(found.suffix(later.count) == later[...], "the next reader found \(found.count) bytes")
    }
}

/// Runs `action` after a minute unless cancelled first: a test's way out of a wait that should end by other means, so
/// that a read ignoring them fails its test instead of hanging the suite.
private func afterAMinute(_ action: @escaping @Sendable () -> Void) -> Task<Void, Never> {
    Task {
        guard (try? await Task.sleep(for: .seconds(60))) != nil else { return }
        action()
    }
}

/// An iterator handed from one task to the next; the tests use it from one task at a time.
private final class IteratorBox: @unchecked Sendable {
    var iterator: FileDescriptorChunks.AsyncIterator
    init(_ iterator: FileDescriptorChunks.AsyncIterator) { self.iterator = iterator }
}
