import FirePack
import FirePackStreams

/// Reads a JSON text whose top level is an array one element at a time, holding one element: a 200 MB export
/// converts in the memory of its largest document, not of its tree. `JSONArrayReader` reads documents with it.
///
/// A byte scanner finds each element's extent (strings and their escapes, brackets by depth); the element is then
/// parsed by the same parser as a whole file, and its errors are moved to the file's offset, line and column, so
/// they read as a whole-file parse's would.
package final class JSONArrayScanner {
    let source: any ByteSource
    let options: JSONOptions
    /// The largest element read (as `LineReader`'s longest line).
    let maxElementLength: Int
    private var buffer: [UInt8] = []
    /// Unread bytes are `buffer[position...]`; `buffer[0]` is at file offset `bufferOffset`.
    private var position = 0
    private var bufferOffset = 0
    private var ended = false
    /// Line and column (from 1; characters, not bytes) of `buffer[position]`.
    private var line = 1, column = 1
    private var finished = false
    /// Elements returned so far.
    package private(set) var count = 0
    /// Where the last element returned starts.
    package private(set) var lastPlace: JSONPlace?

    /// The reader, or nil (nothing consumed: `restored` holds every byte read) when the text is not an array.
    package static func open(
        _ source: any ByteSource, options: JSONOptions, maxElementLength: Int = 256 << 20,
        startingAt place: JSONPlace = JSONPlace(offset: 0, line: 1, column: 1)
    ) throws -> (JSONArrayScanner?, restored: [UInt8]) {
        let reader = JSONArrayScanner(source: source, options: options, maxElementLength: maxElementLength)
        (reader.bufferOffset, reader.line, reader.column) = (place.offset, place.line, place.column)
        try reader.skipWhitespace()
        // A byte order mark may precede the text (RFC 8259 §8.1).
        if try reader.peek() == 0xEF {
            try reader.fill(3)
            if reader.available >= 3 && reader.buffer[reader.position + 1] == 0xBB
                && reader.buffer[reader.position + 2] == 0xBF
            {
                reader.position += 3
                try reader.skipWhitespace()
            }
        }
        guard try reader.peek() == UInt8(ascii: "[") else { return (nil, reader.buffer) }
        reader.advance()
        return (reader, [])
    }

    private init(source: any ByteSource, options: JSONOptions, maxElementLength: Int) {
        self.source = source
        self.options = options
        self.maxElementLength = maxElementLength
    }

    private var available: Int { buffer.count - position }

    private func fill(_ needed: Int) throws {
        try fillWindow(
            &buffer, start: &position, offset: &bufferOffset, ended: &ended, needed: needed, from: source)
    }

    private func peek() throws -> UInt8? {
        try fill(1)
        return available > 0 ? buffer[position] : nil
    }

    /// Moves past one byte, keeping the line and column.
    private func advance() {
        let byte = buffer[position]
        if byte == 0x0A {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
        position += 1
    }

    private func skipWhitespace() throws {
        while let byte = try peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { advance() }
    }

    private func error(_ code: FirePackError.Code, _ message: String) -> FirePackError {
        FirePackError(code, offset: bufferOffset + position, "line \(line), column \(column): \(message)")
    }

    /// The next element as a value, or nil after the closing bracket (when only whitespace may follow).
    package func next() throws -> Value? {
        guard let (element, place) = try nextElement() else { return nil }
        do { return try Value(json: element, options: options) } catch {
            throw place.error(
                error.code, at: error.offset ?? 0, in: element, error.message, path: [.index(count - 1)] + error.path)
        }
    }

    /// The next element's bytes and where it starts, or nil after the closing bracket.
    package func nextElement() throws -> (bytes: ArraySlice<UInt8>, place: JSONPlace)? {
        guard !finished else { return nil }
        try skipWhitespace()
        guard let first = try peek() else { throw error(.truncated, "input ends inside an array") }
        if first == UInt8(ascii: "]") && count == 0 { return try finish() }
        if count > 0 {
            guard first == UInt8(ascii: ",") || first == UInt8(ascii: "]") else {
                throw error(.invalidJSON, "expected ',' or ']' in an array")
            }
            if first == UInt8(ascii: "]") { return try finish() }
            advance()
            try skipWhitespace()
        }
        guard count < ReaderLimits.default.maxElementCount else {
            throw error(
                .limitExceeded,
                "an array of more than \(ReaderLimits.default.maxElementCount) elements (the readers' limit, Docs/FORMAT.md §6)"
            )
        }
        let place = JSONPlace(offset: bufferOffset + position, line: line, column: column)
        lastPlace = place
        let length = try elementLength()
        let element = ArraySlice(Array(buffer[position..<position + length]))
        for _ in 0..<length { advance() }
        count += 1
        return (element, place)
    }

    /// After the closing bracket: only whitespace may follow.
    private func finish() throws -> (bytes: ArraySlice<UInt8>, place: JSONPlace)? {
        advance()
        try skipWhitespace()
        if try peek() != nil { throw error(.trailingBytes, "text follows the JSON value") }
        finished = true
        return nil
    }

    /// The bytes of the element at `position`, found by `JSONExtent` (what follows it is the caller's to check).
    private func elementLength() throws -> Int {
        var extent = JSONExtent()
        var index = position
        while true {
            if let end = extent.scan(buffer[position...], from: &index) { return end - position }
            let offset = index - position
            guard offset < maxElementLength else {
                throw error(.limitExceeded, "an array element longer than \(maxElementLength) bytes")
            }
            try fill(offset + (1 << 16))
            index = position + offset
            if index == buffer.count { return index - position }  // the input ends: the parser says what is wrong
        }
    }

    /// `line L, column C` of `offset` inside an element that starts at `line`, `column`.
    package static func place(of offset: Int, in element: ArraySlice<UInt8>, line: Int, column: Int) -> String {
        var line = line, column = column
        for byte in element.prefix(offset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return "line \(line), column \(column)"
    }
}
