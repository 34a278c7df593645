#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A lazy view of one value inside a reader's input: lookups by key, index or path decode only what they touch.
///
/// A view knows where its value starts and ends (found in O(1)); its accessors check the bytes they read and throw
/// `FirePackError` with the offset when those bytes are malformed. Valid only while the input is alive.
public struct ValueView {
    let input: ReaderInput
    /// The offset of the value's tag in the input.
    public let offset: Int
    /// The offset just past the value.
    public let endOffset: Int
    /// How many containers enclose the value.
    public let depth: Int
    /// For an element of a packed array (`D8`), which has no tag: the array's form; the element's bytes are
    /// `offset ..< endOffset`.
    var packedElement: PackedArray.Form? = nil
    /// Whether this is a row of an array of packed rows (`D9`): an array of `packedElement` numbers without a
    /// header, its bytes `offset ..< endOffset`.
    var packedRow = false
    /// The long keys that key references resolve to, of the reader this view came from and shared by every view
    /// it hands out (`forEachElement`, `forEachEntry`, lookups), so that each is checked once: checked at every
    /// reference, a key of L bytes referenced N times would cost N × L from N bytes of input (Docs/SAFETY.md, "key
    /// references"). Nil for an input without a key table, which has no references.
    var sharedKeys: ReferencedKeyStrings? = nil

    /// The value's type; nil for an extension value from a newer format version.
    public var type: ValueType? {
        ValueType(tag: tag)
    }

    /// The encoded size of the value in bytes (key references count as their short form).
    public var byteCount: Int { endOffset - offset }

    /// Whether the value is `null`.
    public var isNull: Bool { packedElement == nil && input.byte(at: offset) == Tag.null }

    /// The value as an integer.
    public func integer() throws(FirePackError) -> Int64 {
        try number(ReaderInput.getInteger(at:limit:), expecting: "integer") {
            if case .integer(let integer) = $0 { integer } else { nil }
        }
    }
    /// The value as a double.
    public func double() throws(FirePackError) -> Double {
        try number(ReaderInput.getDouble(at:limit:), expecting: "double") {
            if case .double(let double) = $0 { double } else { nil }
        }
    }
    /// The value as a boolean.
    public func boolean() throws(FirePackError) -> Bool { try tagged(ReaderInput.getBoolean(at:limit:), "boolean") }
    /// The value as a timestamp.
    public func timestamp() throws(FirePackError) -> Timestamp {
        try tagged(ReaderInput.getTimestamp(at:limit:), "timestamp")
    }
    /// The value as a geopoint.
    public func geoPoint() throws(FirePackError) -> GeoPoint {
        try tagged(ReaderInput.getGeoPoint(at:limit:), "geopoint")
    }
    /// The value as a document reference.
    public func reference() throws(FirePackError) -> DocumentReference {
        try tagged(ReaderInput.getReference(at:limit:), "reference")
    }

    /// The value as a validated string view into the input.
    public func stringView() throws(FirePackError) -> StringView {
        try tagged(expecting: "string")
        let (start, count, _) = try input.getString(at: offset, limit: endOffset)
        return StringView(input.bytes(from: start, count: count))
    }

    /// The value as a `String` (copied).
    public func string() throws(FirePackError) -> String { try stringView().string }

    /// The value as a bytes view into the input.
    public func bytes() throws(FirePackError) -> BytesView {
        try tagged(expecting: "bytes")
        let (start, count, _) = try input.getLengthPrefixed(
            at: offset, limit: endOffset, tag: Tag.bytes, expecting: "bytes")
        return BytesView(input.bytes(from: start, count: count))
    }

    /// The value as a vector view into the input.
    public func vector() throws(FirePackError) -> VectorView { try tagged(ReaderInput.getVector(at:limit:), "vector") }

    /// The numbers of a packed array (`D8`), of an array of packed rows (`D9`: every row's, row after row) or of one
    /// such row, read in place; nil for an array written with a tag per element (read it with `forEachElement`).
    /// Throws `typeMismatch` for a value that is not an array.
    public func numbers() throws(FirePackError) -> NumbersView? {
        let header = try containerHeader(expecting: "array")
        guard !header.isMap else {
            throw FirePackError.typeMismatch(expected: "array", foundTag: input.byte(at: offset), at: offset)
        }
        let storage = input.bytes(from: header.bodyStart, count: header.end - header.bodyStart)
        if let form = header.packed { return NumbersView(storage, form: form, columns: header.count) }
        if let (form, columns) = header.packedRows {
            return NumbersView(storage, form: form, columns: columns, isRows: true)
        }
        return nil
    }

    /// The whole value as a `Value` tree, every byte checked.
    public func value() throws(FirePackError) -> Value {
        if packedRow { return Materializer(input: input).packedArray(try containerHeader()) }
        if packedElement != nil { return try packedValue(expecting: "value") }
        var materializer = Materializer(input: input, sharing: sharedKeys)
        let (value, next) = try materializer.value(at: offset, limit: endOffset, depth: depth)
        guard next == endOffset else {
            throw FirePackError(.lengthMismatch, offset: next, "value ends before its length")
        }
        return value
    }

    /// The number of elements of an array, entries of a map, or elements of a vector.
    public func count() throws(FirePackError) -> Int {
        if type == .vector { return try input.getVector(at: offset, limit: endOffset).0.count }
        return try containerHeader().count
    }

    /// The value for `key` when this is a map holding it; nil when it does not or this is not a map.
    ///
    /// Compares raw key bytes and skips every other entry's value in O(1), so a lookup costs one pass over the keys.
    /// Returns the first match: a map with duplicate keys is malformed, which `value()` reports.
    public subscript(key: String) -> ValueView? {
        get throws(FirePackError) {
            guard type == .map else { return nil }
            return try key.withUTF8Bytes { query in
                Result { () throws(FirePackError) in try entry(forKey: query) }
            }.get()
        }
    }

    /// The value for the key with these UTF-8 bytes, as `subscript(key:)`.
    public func entry(forKey query: UnsafeRawBufferPointer) throws(FirePackError) -> ValueView? {
        if packedElement != nil { return nil }
        let header = try input.getContainerHeader(at: offset, limit: endOffset, depth: depth + 1)
        guard header.isMap else { return nil }
        var cursor = header.bodyStart
        for _ in 0..<header.count {
            let (start, count, afterKey) = try input.getKey(at: cursor, limit: header.end)
            let valueEnd = try input.valueEnd(at: afterKey, limit: header.end)
            if count == query.count
                && (count == 0 || ByteComparison.equal(input.base + start, query.baseAddress!, count: count))
            {
                return ValueView(
                    input: input, offset: afterKey, endOffset: valueEnd, depth: depth + 1, sharedKeys: sharedKeys)
            }
            cursor = valueEnd
        }
        return nil
    }

    /// The element at `index` when this is an array that long; nil otherwise. Skips the elements before it, O(index).
    public subscript(index: Int) -> ValueView? {
        get throws(FirePackError) {
            guard type == .array, index >= 0 else { return nil }
            let header = try containerHeader()
            guard index < header.count else { return nil }
            if header.isPacked { return element(index, in: header) }
            var cursor = header.bodyStart
            for _ in 0..<index { cursor = try input.valueEnd(at: cursor, limit: header.end) }
            let end = try input.valueEnd(at: cursor, limit: header.end)
            return ValueView(input: input, offset: cursor, endOffset: end, depth: depth + 1, sharedKeys: sharedKeys)
        }
    }

    /// Calls `body` with each element of an array, in order.
    public func forEachElement(_ body: (ValueView) throws -> Void) throws {
        let header = try containerHeader(expecting: "array")
        guard !header.isMap else {
            throw FirePackError.typeMismatch(expected: "array", foundTag: input.byte(at: offset), at: offset)
        }
        if header.isPacked {
            for index in 0..<header.count { try body(element(index, in: header)) }
            return
        }
        var cursor = header.bodyStart
        for _ in 0..<header.count {
            let end = try input.valueEnd(at: cursor, limit: header.end)
            try body(ValueView(input: input, offset: cursor, endOffset: end, depth: depth + 1, sharedKeys: sharedKeys))
            cursor = end
        }
        try Materializer.checkEnd(cursor, header, containerAt: offset)
    }

    /// Calls `body` with each key (validated UTF-8) and value of a map, in order.
    ///
    /// A walk costs time in proportion to the bytes it visits: a long key that references repeat is checked once for
    /// the walk, however many maps of it name the key.
    public func forEachEntry(_ body: (StringView, ValueView) throws -> Void) throws {
        try tagged(expecting: "map")
        let header = try input.getContainerHeader(at: offset, limit: endOffset, depth: depth + 1)
        guard header.isMap else {
            throw FirePackError.typeMismatch(expected: "map", foundTag: input.byte(at: offset), at: offset)
        }
        var cursor = header.bodyStart
        for _ in 0..<header.count {
            let (start, count, afterKey) = try input.getKey(at: cursor, limit: header.end)
            try input.validateKey(start: start, count: count, at: cursor, sharing: sharedKeys)
            let end = try input.valueEnd(at: afterKey, limit: header.end)
            try body(
                StringView(input.bytes(from: start, count: count)),
                ValueView(input: input, offset: afterKey, endOffset: end, depth: depth + 1, sharedKeys: sharedKeys))
            cursor = end
        }
        try Materializer.checkEnd(cursor, header, containerAt: offset)
    }
}

extension ValueView {
    /// The value's tag byte as two hex digits (for debugging views such as `firepack inspect --offsets`).
    package var tagHex: String {
        Tag.hex(tag)
    }

    /// What `inspect --offsets` shows of the value's encoding: its tag byte, or, for an element or a row of a packed
    /// array, which have no tag of their own in the bytes, that it is packed.
    package var encodingLabel: String {
        guard packedElement != nil else { return "[\(tagHex)]" }
        return packedRow ? "(packed row)" : "(packed)"
    }

    /// The value's tag byte; for an element of a packed array, the tag it would carry as a tagged value.
    var tag: UInt8 {
        guard let packedElement else { return input.byte(at: offset) }
        if packedRow { return Tag.packedArray }
        return packedElement.elementTag(at: 0, in: input.bytes(from: offset, count: endOffset - offset))
    }
}

extension ValueView {
    /// For an array or map: the offset of its first element (the bytes before it are the container's header).
    package func contentOffset() throws(FirePackError) -> Int {
        try containerHeader().bodyStart
    }
}

extension ValueView {
    /// Element `index` of the packed array `header` (this view's): a number, or for `D9` a row, without a tag.
    func element(_ index: Int, in header: ContainerHeader) -> ValueView {
        if let (form, _) = header.packedRows {
            let row = header.row(index)
            return ValueView(
                input: input, offset: row.bodyStart, endOffset: row.end, depth: depth + 1, packedElement: form,
                packedRow: true)
        }
        let form = header.packed!
        let start = header.bodyStart + index * form.width
        return ValueView(
            input: input, offset: start, endOffset: start + form.width, depth: depth + 1, packedElement: form)
    }

    /// The header of this array or map (a row of `D9` has one made for it); a number of a packed array throws the
    /// mismatch a tagged number would.
    func containerHeader(expecting what: String = "array or map") throws(FirePackError) -> ContainerHeader {
        if packedRow, let packedElement {
            return ContainerHeader(
                count: byteCount / packedElement.width, isMap: false, bodyStart: offset, end: endOffset,
                packedFormByte: packedElement.byte)
        }
        try tagged(expecting: what)
        return try input.getContainerHeader(at: offset, limit: endOffset, depth: depth + 1)
    }

    /// The number this packed element holds (its array's header checked its bytes).
    private func packedValue(expecting what: String) throws(FirePackError) -> Value {
        guard let packedElement, !packedRow else { throw packedMismatch(expecting: what) }
        return packedElement.element(at: 0, in: input.bytes(from: offset, count: endOffset - offset))
    }

    /// Reads the value with `get`; a packed element (a number without a tag) is a type mismatch.
    @inline(__always)
    private func tagged<R>(_ get: (ReaderInput) -> (Int, Int) throws(FirePackError) -> (R, Int), _ what: String)
        throws(FirePackError) -> R
    {
        try tagged(expecting: what)
        return try get(input)(offset, endOffset).0
    }

    /// Reads a number: a tagged one with `get`, a packed element when `number` accepts it (else a type mismatch).
    @inline(__always)
    private func number<R>(
        _ get: (ReaderInput) -> (Int, Int) throws(FirePackError) -> (R, Int), expecting what: String,
        _ number: (Value) -> R?
    ) throws(FirePackError) -> R {
        guard packedElement != nil else { return try get(input)(offset, endOffset).0 }
        guard let value = number(try packedValue(expecting: what)) else { throw packedMismatch(expecting: what) }
        return value
    }

    /// Throws the error a tagged number would give a read of another type, when this is a packed element.
    @inline(__always)
    private func tagged(expecting what: String) throws(FirePackError) {
        if packedElement != nil { throw packedMismatch(expecting: what) }
    }

    private func packedMismatch(expecting what: String) -> FirePackError {
        .typeMismatch(expected: what, foundTag: tag, at: offset)
    }
}
