import FirePack

/// Where a writer that reads FirePack bytes is in the value it writes: one frame per enclosing container, made into
/// `PathComponent`s only for an error (a key's string made per entry was a string per value written).
struct ValuePlace {
    private enum Frame {
        /// A map entry's key, where the reader holds its bytes (valid while the reader's input is).
        case key(UnsafeRawBufferPointer)
        case index(Int)
    }
    private let prefix: [PathComponent]
    private var frames: [Frame] = []
    /// The time a pending server timestamp in the value is written as (`resolvingServerTimestamps`); nil refuses it.
    let serverTime: Timestamp?

    /// The place of a root value whose own path is `prefix`, its pending server timestamps written as `serverTime`.
    init(_ prefix: [PathComponent] = [], serverTime: Timestamp? = nil) {
        self.prefix = prefix
        self.serverTime = serverTime
    }

    /// Enters the entry whose key `key` holds.
    mutating func enter(key: StringView) { frames.append(.key(key.utf8)) }
    /// Enters the element at `index`.
    mutating func enter(index: Int) { frames.append(.index(index)) }
    /// Leaves the entry or element last entered.
    mutating func leave() { frames.removeLast() }

    /// The path of the value being written.
    var path: [PathComponent] {
        prefix
            + frames.map { frame in
                switch frame {
                case .key(let bytes): .key(String(decoding: bytes, as: UTF8.self))
                case .index(let index): .index(index)
                }
            }
    }

    /// Whether this is the root value (no container entered).
    var isRoot: Bool { prefix.isEmpty && frames.isEmpty }

    /// The path as text for a report: keys joined by dots, indexes in brackets (`rows[3].name`); a key longer than
    /// `ValuePlace.shownKeyLength` bytes shown by its start and its length (`kkkk…(1501 bytes)`), so that a report's
    /// line stays readable and small whatever the keys (a 1 MiB key was a megabyte of standard error per example).
    var text: String {
        var text = ""
        for component in path {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += Self.shown(key)
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// Keys longer than this many bytes are shown by their start in report text.
    static let shownKeyLength = 64

    /// `key`, or its first characters (up to 32 bytes) and its length when it is longer than `shownKeyLength` bytes.
    static func shown(_ key: String) -> String {
        guard key.utf8.count > shownKeyLength else { return key }
        var start = ""
        for character in key {
            guard start.utf8.count + character.utf8.count <= 32 else { break }
            start.append(character)
        }
        return "\(start)…(\(key.utf8.count) bytes)"
    }

    /// The error for a server-timestamp sentinel here, which has no `form` (a field transform in Firestore).
    func serverTimestampError(_ form: String) -> FirePackError {
        FirePackError(
            .invalidValue,
            "the server-timestamp sentinel has no \(form); resolve it first (Document.resolvingServerTimestamps(at:))",
            path: path)
    }
}

/// Firestore's formats (REST JSON, protobuf) are written from FirePack bytes, read with a cursor: a stream's record
/// where the reader holds it, and a `Value` or `Document` once written as bytes (`withBytes(of:)`) — one writer per
/// format, and no tree of a record (a tree of packed rows is about 110 bytes a row, Docs/SAFETY.md).
enum FirestoreFormsFromBytes {
    /// Limits for reading back what FirePack wrote from a tree: the deepest nesting readers take, any count.
    static let ownBytesLimits = ReaderLimits(
        maxDepth: ReaderLimits.maximumDepth, maxElementCount: .max, maxInputSize: .max, maxKeyExpansion: .max)

    /// Runs `body` with a reader at `value` written as FirePack bytes.
    static func withBytes<R>(of value: Value, _ body: (inout FirePackReader) throws(FirePackError) -> R)
        throws(FirePackError) -> R
    {
        let writer = FirePackWriter()
        writer.write(value)
        return try reading(writer, body)
    }

    /// Runs `body` with the bytes of `document` written as a record (`Document.write(to:)`).
    static func withRecord<R>(of document: Document, _ body: (UnsafeRawBufferPointer) throws(FirePackError) -> R)
        throws(FirePackError) -> R
    {
        let writer = FirePackWriter()
        document.write(to: writer)
        do {
            return try writer.withUnsafeWrittenBytes { bytes in try body(bytes) }
        } catch let error as FirePackError { throw ownBytesError(error) } catch { preconditionFailure("\(error)") }
    }

    /// `error`, thrown reading what FirePack wrote from a tree; a tree nested past what readers take is said so,
    /// without an offset in bytes the caller never saw.
    private static func ownBytesError(_ error: FirePackError) -> FirePackError {
        guard error.code == .depthLimitExceeded else { return error }
        return FirePackError(
            .depthLimitExceeded,
            "nested deeper than \(ReaderLimits.maximumDepth) levels, the most FirePack's readers take: not written")
    }

    private static func reading<R>(_ writer: FirePackWriter, _ body: (inout FirePackReader) throws(FirePackError) -> R)
        throws(FirePackError) -> R
    {
        do {
            return try writer.withUnsafeWrittenBytes { bytes in
                var reader = try FirePackReader(bytes: bytes, limits: ownBytesLimits)
                return try body(&reader)
            }
        } catch let error as FirePackError { throw ownBytesError(error) } catch { preconditionFailure("\(error)") }
    }
}

extension FirestoreVectorForm {
    /// Throws unless the map at `reader`'s cursor can be written as a map (`checkWritableAsMap(_:path:)`, from its
    /// bytes): only a map of two entries is looked into.
    static func checkWritableAsMap(_ reader: FirePackReader, place: ValuePlace) throws(FirePackError) {
        var reader = reader
        let map = try reader.enterMap()
        guard map.count == 2 else { return }
        var isType = false, isValue = false
        for _ in 0..<2 {
            let key = try reader.readKey()
            if key == "__type__" {
                guard try reader.peekType() == .string, try reader.readString() == "__vector__" else { return }
                isType = true
            } else if key == "value" {
                guard try reader.peekType() == .array else { return }
                let array = try reader.enterArray()
                for _ in 0..<array.count {
                    guard try reader.peekType() == .double else { return }
                    try reader.skipValue()
                }
                try reader.exitArray(array)
                isValue = true
            } else {
                return
            }
        }
        guard isType && isValue else { return }
        throw vectorShapedMap(place.path)
    }
}
