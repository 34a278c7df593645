import FirePack
import FirePackStreams

/// Where a JSON value starts in its file: to turn offsets inside it into the file's line, column and offset.
package struct JSONPlace {
    package var offset: Int
    package var line: Int
    package var column: Int

    package init(offset: Int, line: Int, column: Int) { (self.offset, self.line, self.column) = (offset, line, column) }

    /// An error at `relative` bytes into `bytes` (which start at this place).
    package func error(
        _ code: FirePackError.Code, at relative: Int, in bytes: ArraySlice<UInt8>, _ message: String,
        path: [PathComponent] = []
    ) -> FirePackError {
        FirePackError(
            code, offset: offset + relative,
            "\(JSONArrayScanner.place(of: relative, in: bytes, line: line, column: column)): \(message)", path: path)
    }

    /// Runs `body`, moving a `FirePackError`'s offset (relative to `bytes`) to the file.
    package func wrap<T>(_ bytes: ArraySlice<UInt8>, _ body: () throws(FirePackError) -> T) throws -> T {
        do throws(FirePackError) { return try body() } catch {
            throw self.error(error.code, at: error.offset ?? 0, in: bytes, error.message, path: error.path)
        }
    }
}

/// Successive top-level JSON values of a source separated by white space, one held at a time.
package final class JSONValueScanner {
    private let source: any ByteSource
    /// Unread bytes are `buffer[start...]`.
    private var buffer: [UInt8] = []
    private var start = 0
    /// The file offset, line and column of `buffer[start]`.
    private var place = JSONPlace(offset: 0, line: 1, column: 1)
    private var ended = false
    private var checkedMark = false

    package init(_ source: any ByteSource) { self.source = source }

    /// Reads more of the source (`fillWindow`); false at the end. Offsets are kept by `place`, not by the window.
    private func fill() throws -> Bool {
        let before = buffer.count - start
        var dropped = 0
        try fillWindow(&buffer, start: &start, offset: &dropped, ended: &ended, needed: before + 1, from: source)
        return buffer.count - start > before
    }

    private func advance(to end: Int) {
        for byte in buffer[start..<end] {
            if byte == 0x0A {
                place.line += 1
                place.column = 1
            } else if byte & 0xC0 != 0x80 {
                place.column += 1
            }
        }
        place.offset += end - start
        start = end
    }

    /// The first byte of the next value (white space and a byte order mark skipped), or nil at the end.
    package func peekValueStart() throws -> UInt8? {
        if !checkedMark {
            while buffer.count < 3, try fill() {}
            if buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
                start = 3
                place.offset = 3
            }
            checkedMark = true
        }
        while true {
            if let index = buffer[start...].firstIndex(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 })
            {
                advance(to: index)
                return buffer[start]
            }
            advance(to: buffer.count)
            guard try fill() else { return nil }
        }
    }

    /// The next value's bytes and place.
    package func nextValue() throws -> (bytes: ArraySlice<UInt8>, place: JSONPlace) {
        var extent = JSONExtent()
        var scanned = start
        while true {
            if let end = extent.scan(buffer[start...], from: &scanned) {
                let value = (ArraySlice(Array(buffer[start..<end])), place)
                advance(to: end)
                return value
            }
            guard buffer.count - start < 256 << 20 else {
                throw place.error(
                    FirePackError.Code.limitExceeded, at: 0, in: buffer[start...],
                    "a JSON value longer than \(256 << 20) bytes")
            }
            let offset = scanned - start
            guard try fill() else {
                let value = (ArraySlice(Array(buffer[start...])), place)
                advance(to: buffer.count)
                return value  // cut short: the parser says where
            }
            scanned = start + offset
        }
    }

    /// The rest of the source as a top-level array, read element by element.
    package func arrayScanner() throws -> JSONArrayScanner {
        let rest = PrefixedSource(Array(buffer[start...]), then: source)
        buffer = []
        start = 0
        guard case (let reader?, _) = try JSONArrayScanner.open(rest, options: JSONOptions(), startingAt: place) else {
            throw place.error(FirePackError.Code.invalidJSON, at: 0, in: [], "expected an array")
        }
        return reader
    }
}

/// Finds where a JSON value ends: strings and their escapes, brackets by depth; a scalar ends at white space or a
/// delimiter. Resumable over a growing buffer.
package struct JSONExtent {
    package var depth = 0, inString = false, escaped = false, started = false

    package init() {}

    /// The index just past the value once `bytes` holds all of it (scanning from `index`, which it advances), else nil.
    package mutating func scan(_ bytes: ArraySlice<UInt8>, from index: inout Int) -> Int? {
        while index < bytes.endIndex {
            let byte = bytes[index]
            index += 1
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return index }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                if depth == 0 && started { return index - 1 }
                inString = true
                started = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                if depth == 0 && started { return index - 1 }
                depth += 1
                started = true
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                if depth == 0 { return started ? index - 1 : index }
                depth -= 1
                if depth == 0 { return index }
            case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: ":"):
                if depth == 0 && started { return index - 1 }
            default: started = true
            }
        }
        return nil
    }
}

/// Members and elements of JSON text held in memory, as byte ranges (the value's own parser reads them).
package enum JSONMembers {
    /// One member: its decoded key, where the key starts, and the value's indices.
    package struct Member {
        package var key: String
        package var keyOffset: Int
        package var value: Range<Int>
    }

    /// The members of the object `bytes` holds (keys decoded, values as ranges of `bytes`' indices).
    package static func of(_ bytes: ArraySlice<UInt8>) throws(FirePackError) -> [Member] {
        var members: [Member] = []
        var seen = Set<String>()
        var index = skip(bytes, bytes.startIndex)
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "{") else {
            throw FirePackError(.invalidJSON, offset: index - bytes.startIndex, "expected a JSON object")
        }
        index = skip(bytes, index + 1)
        if index < bytes.endIndex && bytes[index] == UInt8(ascii: "}") { return [] }
        while true {
            let keyStart = index
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else {
                throw FirePackError(.invalidJSON, offset: index - bytes.startIndex, "expected a string key")
            }
            let keyEnd = try end(of: bytes, at: index)
            let key: String
            do throws(FirePackError) {
                guard case .string(let text) = try Value(json: bytes[keyStart..<keyEnd]) else {
                    throw FirePackError(.invalidJSON, offset: 0, "expected a string key")
                }
                key = text
            } catch {
                throw FirePackError(
                    error.code, offset: keyStart - bytes.startIndex + (error.offset ?? 0), error.message)
            }
            guard seen.insert(key).inserted else {
                throw FirePackError(
                    .duplicateKey, offset: keyStart - bytes.startIndex, "member \(key.debugDescription) appears twice")
            }
            index = skip(bytes, keyEnd)
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: ":") else {
                throw FirePackError(.invalidJSON, offset: index - bytes.startIndex, "expected ':' after a key")
            }
            let valueStart = skip(bytes, index + 1)
            let valueEnd = try end(of: bytes, at: valueStart)
            members.append(Member(key: key, keyOffset: keyStart - bytes.startIndex, value: valueStart..<valueEnd))
            index = skip(bytes, valueEnd)
            guard index < bytes.endIndex else {
                throw FirePackError(.truncated, offset: index - bytes.startIndex, "input ends inside an object")
            }
            if bytes[index] == UInt8(ascii: "}") { return members }
            guard bytes[index] == UInt8(ascii: ",") else {
                throw FirePackError(.invalidJSON, offset: index - bytes.startIndex, "expected ',' or '}'")
            }
            index = skip(bytes, index + 1)
        }
    }

    /// The element ranges of the array `bytes` holds.
    package static func elements(of bytes: ArraySlice<UInt8>) throws(FirePackError) -> [Range<Int>] {
        var elements: [Range<Int>] = []
        var index = skip(bytes, bytes.startIndex)
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "[") else {
            throw FirePackError(.invalidJSON, offset: index - bytes.startIndex, "expected a JSON array")
        }
        index = skip(bytes, index + 1)
        if index < bytes.endIndex && bytes[index] == UInt8(ascii: "]") { return [] }
        while true {
            let valueEnd = try end(of: bytes, at: index)
            elements.append(index..<valueEnd)
            index = skip(bytes, valueEnd)
            guard index < bytes.endIndex else {
                throw FirePackError(.truncated, offset: index - bytes.startIndex, "input ends inside an array")
            }
            if bytes[index] == UInt8(ascii: "]") { return elements }
            guard bytes[index] == UInt8(ascii: ",") else {
                throw FirePackError(.invalidJSON, offset: index - bytes.startIndex, "expected ',' or ']'")
            }
            index = skip(bytes, index + 1)
        }
    }

    private static func skip(_ bytes: ArraySlice<UInt8>, _ index: Int) -> Int {
        var index = index
        while index < bytes.endIndex, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
        return index
    }

    private static func end(of bytes: ArraySlice<UInt8>, at index: Int) throws(FirePackError) -> Int {
        var extent = JSONExtent()
        var cursor = index
        guard let end = extent.scan(bytes, from: &cursor) else {
            if extent.started && extent.depth == 0 && !extent.inString { return bytes.endIndex }
            throw FirePackError(.truncated, offset: bytes.endIndex - bytes.startIndex, "input ends inside a value")
        }
        return end
    }
}
