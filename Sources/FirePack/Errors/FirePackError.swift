/// An error raised by FirePack: what went wrong, where in the input, and a readable explanation.
///
/// The `code` is an extensible struct rather than an enum, so new failure kinds can be added without breaking
/// callers that switch over the codes they care about.
public struct FirePackError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; compare against the static members (`.truncated`, `.invalidUTF8`, …).
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        /// The stable name of the code, as written in Docs/FORMAT.md.
        public let rawValue: String
        /// Creates a code from its stable name.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's stable name.
        public var description: String { rawValue }

        /// The input ended inside a value.
        public static let truncated = Code(rawValue: "truncated")
        /// A tag byte that this version of the format does not define.
        public static let unknownTag = Code(rawValue: "unknownTag")
        /// A varint longer than 10 bytes, above 2^63, or not minimally encoded.
        public static let badVarint = Code(rawValue: "badVarint")
        /// A length or count that reaches past the end of the enclosing bytes.
        public static let lengthOutOfBounds = Code(rawValue: "lengthOutOfBounds")
        /// A container whose elements do not end exactly where its length says.
        public static let lengthMismatch = Code(rawValue: "lengthMismatch")
        /// A string, key or path that is not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// Containers nested deeper than the reader's limit.
        public static let depthLimitExceeded = Code(rawValue: "depthLimitExceeded")
        /// A size or count above a configured limit.
        public static let limitExceeded = Code(rawValue: "limitExceeded")
        /// The same key twice in one map.
        public static let duplicateKey = Code(rawValue: "duplicateKey")
        /// A key reference to a missing key-table entry, or to bytes that are not a key literal.
        public static let badKeyReference = Code(rawValue: "badKeyReference")
        /// A malformed key table after the root value.
        public static let badKeyTable = Code(rawValue: "badKeyTable")
        /// A geopoint outside ±90 latitude / ±180 longitude.
        public static let invalidGeoPoint = Code(rawValue: "invalidGeoPoint")
        /// A timestamp whose nanoseconds lie outside 0 ..< 1,000,000,000.
        public static let invalidTimestamp = Code(rawValue: "invalidTimestamp")
        /// A decimal double (tag `D5`) whose mantissa is above 2^53 (Docs/FORMAT.md §1).
        public static let invalidDecimal = Code(rawValue: "invalidDecimal")
        /// A document path that is not a valid document reference.
        public static let invalidReference = Code(rawValue: "invalidReference")
        /// Bytes after a complete value where none are allowed.
        public static let trailingBytes = Code(rawValue: "trailingBytes")
        /// A read that expected one type and found another.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A file that does not start with FirePack's magic bytes.
        public static let badMagic = Code(rawValue: "badMagic")
        /// A file written by a newer, incompatible version of the format.
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// An extension value (tag `D4`) this version cannot interpret.
        public static let unsupportedExtension = Code(rawValue: "unsupportedExtension")
        /// A `.fpks` record does not start with the sync marker (Docs/FORMAT.md §8).
        public static let badSyncMarker = Code(rawValue: "badSyncMarker")
        /// A `.fpks` record's CRC-32 does not match its payload (Docs/FORMAT.md §8).
        public static let badChecksum = Code(rawValue: "badChecksum")
        /// A version-3 `.fpks` block whose bytes check out but do not hold records as Docs/FORMAT.md §8 lays them
        /// out (an unknown codec, a header or lengths that disagree, data that does not decompress to its size).
        public static let invalidBlock = Code(rawValue: "invalidBlock")
        /// A version-3 `.fpks` block says more records came before it than the stream holds, with no damage between
        /// to account for them: records were removed (Docs/FORMAT.md §8).
        public static let missingRecords = Code(rawValue: "missingRecords")
        /// A document record is not `{name, fields[, createTime][, updateTime]}` (Docs/FORMAT.md §9).
        public static let invalidDocument = Code(rawValue: "invalidDocument")
        /// A stream record's document did not decode into the requested type (the `DecodingError` is in the reason).
        public static let decodingFailed = Code(rawValue: "decodingFailed")
        /// Reading or writing a file or descriptor failed.
        public static let ioFailure = Code(rawValue: "ioFailure")
        /// A value that cannot be constructed or encoded (for example a latitude of 91).
        public static let invalidValue = Code(rawValue: "invalidValue")
    }

    /// The kind of failure.
    public var code: Code
    /// The byte offset in the input where the problem was found, when the error comes from reading bytes.
    public var offset: Int?
    /// A readable explanation of the problem.
    public var message: String
    /// Where in the value the problem lies (keys and indices from the root), when the reader knows it.
    public var path: [PathComponent]

    /// Creates an error with a code, an optional byte offset, a message and an optional path.
    public init(_ code: Code, offset: Int? = nil, _ message: String, path: [PathComponent] = []) {
        self.code = code
        self.offset = offset
        self.message = message
        self.path = path
    }

    /// `code: message (at byte N, path $.a[3].b)`.
    public var description: String {
        var location: [String] = []
        if let offset { location.append("at byte \(offset)") }
        if !path.isEmpty { location.append("path \(pathDescription)") }
        return location.isEmpty ? "\(code): \(message)" : "\(code): \(message) (\(location.joined(separator: ", ")))"
    }

    /// The path as `$.key[3].other`.
    public var pathDescription: String { Self.describe(path: path) }

    /// `path` as `$.key[3].other`, a key of more than 256 bytes shown by its start and end (`shownKey`).
    public static func describe(path: [PathComponent]) -> String {
        path.reduce("$") { text, component in
            switch component {
            case .key(let key): text + "." + (key.utf8.count > 256 ? shownKey(key) : key)
            case .index(let index): text + "[\(index)]"
            }
        }
    }

    /// `key` as messages show it: whole up to 256 bytes, a longer one by its first 200 bytes and last 32 and its
    /// size. A key can be as long as the value that holds it, and a reference repeats it for a byte: a message that
    /// showed it whole could be a megabyte, once per error (Docs/SAFETY.md, "key references").
    package static func shownKey(_ key: String) -> String {
        var key = key
        return key.withUTF8 { shownKey(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// `shownKey(_:)` of a key's bytes, which need not be valid UTF-8 (invalid bytes are shown as U+FFFD); never
    /// cuts a character.
    package static func shownKey(utf8 key: UnsafeRawBufferPointer) -> String {
        guard key.count > 256 else { return String(decoding: key, as: UTF8.self) }
        var end = 200
        while end > 0 && key[end] & 0xC0 == 0x80 { end -= 1 }  // not inside a character
        var tail = key.count - 32
        while tail < key.count && key[tail] & 0xC0 == 0x80 { tail += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: key[..<end]), as: UTF8.self)
            + "…(\(key.count) bytes)…" + String(decoding: UnsafeRawBufferPointer(rebasing: key[tail...]), as: UTF8.self)
    }

    /// The same error with `component` put in front of its path (used while unwinding out of containers).
    public func prefixingPath(with component: PathComponent) -> FirePackError {
        var copy = self
        copy.path.insert(component, at: 0)
        return copy
    }
}

// The errors the reader's hot functions throw, built out of line (`@inline(never)`): their messages, interpolated
// where they are thrown, gave each of those functions a stack frame and register saves used only to throw (guarded
// by `Decode 1 Book/FirePackDecoder @FirePackCodable`).
extension FirePackError {
    @inline(never)
    static func truncated(at offset: Int, needing what: String) -> FirePackError {
        FirePackError(.truncated, offset: offset, "input ends inside \(what)")
    }

    @inline(never)
    static func typeMismatch(expected: String, foundTag tag: UInt8, at offset: Int) -> FirePackError {
        FirePackError(
            .typeMismatch, offset: offset,
            "expected \(expected), found \(Tag.typeName(of: tag)) (tag 0x\(Tag.hex(tag)))")
    }

    /// A length whose bytes do not all come before the limit: `what` of `length` bytes, its varint at `offset`,
    /// `left` bytes after it.
    @inline(never)
    static func lengthOutOfBounds(_ what: String, length: Int, at offset: Int, left: Int) -> FirePackError {
        FirePackError(
            .lengthOutOfBounds, offset: offset, "\(what) of \(length) bytes reaches past the end (\(left) bytes left)")
    }
}
