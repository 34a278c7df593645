import FirePack
import FirePackStreams

/// The documents of a JSON file: the elements of its top-level array one at a time (memory for one element, whatever
/// the file's size), or its one object as one document. Each is named by `DocumentNaming` (its `__name__`, its ID
/// field, or a new ID).
///
/// Errors give the file's line, column and byte offset, and the element's index as the first path component, as a
/// parse of the whole file would.
public final class JSONArrayReader: DocumentSource {
    /// How each element's document is named.
    public let naming: DocumentNaming
    /// Whether the file holds one JSON object (one document) rather than an array of them.
    public let isSingleObject: Bool
    private let scanner: JSONArrayScanner?
    /// The file's one value when it is not an array, until it is returned.
    private var single: Value?

    /// A reader of the JSON text `source` holds; an element (or a whole text that is not an array) longer than
    /// `maxElementLength` bytes is an error.
    public init(_ source: any ByteSource, naming: DocumentNaming, maxElementLength: Int = 256 << 20) throws {
        self.naming = naming
        let options = JSONOptions(largeIntegers: naming.largeIntegers)
        let (scanner, restored) = try JSONArrayScanner.open(
            source, options: options, maxElementLength: maxElementLength)
        self.scanner = scanner
        guard scanner == nil else {
            isSingleObject = false
            return
        }
        let tooLong = FirePackError(
            .limitExceeded, offset: maxElementLength, "a JSON text longer than \(maxElementLength) bytes")
        guard restored.count <= maxElementLength else { throw tooLong }
        let bytes: [UInt8]
        do {
            bytes = try restored + FirePackStreams.readAll(source, limit: maxElementLength - restored.count)
        } catch let
            error as FirePackError where error.code == .limitExceeded
        {
            throw tooLong
        }
        do {
            single = try Value(json: bytes, options: options)
        } catch {
            guard let offset = error.offset else { throw error }
            throw FirePackError(
                error.code, offset: offset, "\(TextPosition.describe(offset, in: bytes)): \(error.message)",
                path: error.path)
        }
        if case .map = single { isSingleObject = true } else { isSingleObject = false }
    }

    /// How many elements (documents) have been read.
    public var count: Int { scanner?.count ?? (single == nil ? 1 : 0) }

    /// The next document, or nil at the end.
    public func next() throws -> Document? {
        if let scanner {
            guard let element = try scanner.next() else { return nil }
            do { return try naming.document(from: element, line: nil) } catch let error as FirePackError {
                // Not a document (not an object, no name, a bad ID): at the element's place in the file.
                guard error.offset == nil, let place = scanner.lastPlace else { throw error }
                throw FirePackError(
                    error.code, offset: place.offset, "line \(place.line), column \(place.column): \(error.message)",
                    path: [.index(scanner.count - 1)] + error.path)
            }
        }
        guard let value = single else { return nil }
        single = nil
        // A text that is itself an array was read by the scanner: this is one value, one document.
        return try naming.document(from: value, line: nil)
    }
}

/// Documents written as one JSON array, element by element (memory for one document, whatever their number): the
/// text a parse of `[doc, …]` as one value and a write with the same options would give, byte for byte, including
/// `pretty`'s indentation. `JSONArrayReader` reads it back.
public final class JSONArrayWriter: DocumentSink {
    /// How each document's ID or path is written.
    public let naming: DocumentNaming
    /// How values are written.
    public let options: JSONOptions
    let chunks: ChunkedByteWriter
    private var count = 0

    /// A writer of one JSON array into `sink`.
    public init(_ sink: any ByteSink, naming: DocumentNaming, options: JSONOptions = JSONOptions()) {
        chunks = ChunkedByteWriter(sink)
        self.naming = naming
        self.options = options
    }

    /// Writes one document as the array's next element.
    public func write(_ document: Document) throws {
        // The text first: a document refused leaves the array as it was.
        let text = try document.jsonLine(naming: naming, options: options)
        _ = try append(text, maxLength: JSONTextLimits.document, what: "document \(document.reference.path)")
    }

    /// The bytes an element takes in the array besides its text: the `[` or `,` before it, and when pretty the line
    /// break and indent after that.
    package var separatorLength: Int { options.pretty ? 4 : 1 }
    /// The bytes that close the array (`]`, or a line break and `]`), its final newline aside.
    package var closingLength: Int { options.pretty ? 2 : 1 }

    /// Writes `value` (a value, not a document: no naming) as the array's next element, refusing it when it would
    /// take more than `room` bytes of the array, separator included; returns the bytes it took. The tool writes a
    /// top-level array so, element by element: memory for one element's text, not the whole.
    package func write(element value: Value, room: Int) throws -> Int {
        let limit = room - separatorLength, what = "element \(count)"
        let text = try value.jsonBytes(options: options, maxLength: max(0, limit), what: what)
        return try append(text, maxLength: limit, what: what) + separatorLength
    }

    /// Appends `text` as the next element (indented when pretty), refusing it when it would stand as more than
    /// `maxLength` bytes; returns the element's length as it stands (its separator aside).
    private func append(_ text: [UInt8], maxLength: Int, what: @autoclosure () -> String) throws -> Int {
        var length = text.count
        if options.pretty {
            // Indented (below), the element is read back with its two spaces after each line break.
            length += 2 * text.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
        guard length <= maxLength else { throw JSONTextLimits.tooLong(what(), limit: maxLength) }
        let buffer = chunks.buffer
        buffer.append(count == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
        count += 1
        if options.pretty {
            // One level deeper than the element's own text: two spaces after each of its line breaks (a break is
            // never inside a string, where JSON escapes it).
            buffer.append(contentsOf: [0x0A, 0x20, 0x20])
            for byte in text {
                buffer.append(byte)
                if byte == 0x0A { buffer.append(contentsOf: [0x20, 0x20]) }
            }
        } else {
            buffer.append(contentsOf: text)
        }
        try chunks.flushIfNeeded()
        return length
    }

    /// Writes the next intact record of `reader` as the array's next element — from the record's bytes, as
    /// `JSONLinesWriter.appendNext(from:)` writes a line, pretty or compact — and returns its name; nil at the end.
    /// Records the direct path does not take (a field named like a member, `--keep-id-field`, …) go through the tree,
    /// which also reports damaged ones (`reader.problems`). With `serverTime`, pending server timestamps are written as
    /// that time (`Document.resolvingServerTimestamps(at:)`).
    package func appendNext(from reader: DocumentStreamReader, resolvingServerTimestamps serverTime: Timestamp? = nil)
        throws -> DocumentReference?
    {
        if let problem = naming.idFieldProblem { throw FirePackError(.invalidValue, problem) }  // as `value(of:)`
        while let record = try reader.nextRecord() {
            let buffer = chunks.buffer
            let mark = buffer.count
            buffer.append(count == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
            // Pretty, an element stands on its own line one level in (`append(_:maxLength:what:)`).
            if options.pretty { buffer.append(contentsOf: [0x0A, 0x20, 0x20]) }
            if let reference = JSONTranscoding.appendDocument(
                record: record.payload, limits: reader.limits, naming: naming, options: options, to: buffer,
                depth: options.pretty ? 1 : 0, serverTime: serverTime)
            {
                count += 1
                try chunks.flushIfNeeded()
                return reference
            }
            buffer.truncate(to: mark)
            guard let document = try reader.document(in: record) else { continue }
            try write(document.resolvingServerTimestamps(ifAt: serverTime))
            return document.reference
        }
        return nil
    }

    /// Closes the array (`[]` when nothing was written), writes what is buffered and finishes the sink.
    public func finish() throws {
        let buffer = chunks.buffer
        if count == 0 {
            buffer.append(contentsOf: Array("[]".utf8))
        } else {
            if options.pretty { buffer.append(0x0A) }
            buffer.append(UInt8(ascii: "]"))
        }
        buffer.append(0x0A)
        try chunks.finish()
    }
}
