#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A zero-copy cursor over FirePack bytes it borrows: peek a value's type, read scalars, enter containers, skip.
///
/// Cursor rules: every `read…`, `enter…` and `skipValue()` either succeeds and moves `readerIndex` past what it read,
/// or throws and leaves `readerIndex` where it was. Reads never go past the end of the innermost container entered,
/// so a container whose length disagrees with its elements is caught by `exitMap(_:)` / `exitArray(_:)`. Strings and bytes come
/// back as views into the input, valid while the input is.
///
/// Opening the bytes locates the root value's end and its key table (O(1)); nothing else is read until asked for.
public struct FirePackReader {
    let input: ReaderInput
    /// The offset of the next value to read.
    public private(set) var readerIndex: Int
    /// The end of the innermost container entered (or of the root value).
    var limit: Int
    /// How many containers the cursor is inside.
    public private(set) var depth = 0
    /// Inside a packed array, whose elements have no tag: its form byte (`ContainerHeader.notPacked` elsewhere), and
    /// for an array of packed rows (`D9`) the elements of a row (0 in a `D8` or a row). Set by `enter…`, restored by
    /// `exit…`.
    var packedFormByte = ContainerHeader.notPacked
    var packedColumns = 0
    /// The long keys that key references resolve to, for everything read through this reader and the views it hands
    /// out: each is counted and checked once (`ValueView.sharedKeys`). Made when the input is opened, for an input
    /// with a key table (the only inputs with references).
    private var longKeys: ReferencedKeyStrings?

    /// The cursor moved to `offset`, where a value of the map it is in starts — an offset it stood at while reading
    /// that map's entries: for writers that visit the entries in another order (sorted keys).
    package func positioned(at offset: Int) -> FirePackReader {
        precondition(packedFormByte == ContainerHeader.notPacked && offset <= limit, "not an entry of this map")
        var moved = self
        moved.readerIndex = offset
        return moved
    }

    /// The form of the packed array the cursor is in, if it is.
    var packed: PackedArray.Form? {
        packedFormByte == ContainerHeader.notPacked ? nil : PackedArray.Form(byte: packedFormByte)
    }

    /// Opens a bare FirePack encoding: one root value and its key table, nothing after.
    public init(bytes: UnsafeRawBufferPointer, limits: ReaderLimits = .default) throws(FirePackError) {
        input = try ReaderInput(bytes, rootStart: 0, limits: limits)
        readerIndex = input.rootStart
        limit = input.rootEnd
        if input.keyTableCount > 0 { longKeys = ReferencedKeyStrings() }
    }

    /// Opens a `.fpk` file: the `89 46 50 4B` header and version (1 or 3), then one root value and its key table.
    public init(fileBytes bytes: UnsafeRawBufferPointer, limits: ReaderLimits = .default) throws(FirePackError) {
        try Self.checkFileHeader(bytes)
        input = try ReaderInput(bytes, rootStart: Tag.fileHeaderLength, limits: limits)
        readerIndex = input.rootStart
        limit = input.rootEnd
        if input.keyTableCount > 0 { longKeys = ReferencedKeyStrings() }
    }

    /// Checks a `.fpk` file's header: the magic bytes and a version this reader implements (Docs/FORMAT.md §5).
    package static func checkFileHeader(_ bytes: UnsafeRawBufferPointer) throws(FirePackError) {
        for (offset, expected) in Tag.fileMagic.enumerated() {
            // A cut header is reported at its first byte (Docs/FORMAT.md §5); bytes that differ from it first are not
            // a FirePack file.
            guard offset < bytes.count else { throw .truncated(at: 0, needing: "the file header") }
            guard bytes[offset] == expected else {
                throw FirePackError(.badMagic, offset: offset, "not a FirePack file (expected 89 46 50 4B)")
            }
        }
        guard bytes.count > 4 else { throw .truncated(at: 0, needing: "the file header") }
        guard Tag.isReadableFileVersion(bytes[4]) else {
            throw FirePackError(
                .unsupportedVersion, offset: 4, "format version \(bytes[4]); this reader implements 1 and 3")
        }
    }

    /// The limits this reader enforces.
    public var limits: ReaderLimits { input.limits }

    /// A lazy view of the whole root value, for lookups that decode only what they touch.
    public var root: ValueView {
        ValueView(input: input, offset: input.rootStart, endOffset: input.rootEnd, depth: 0, sharedKeys: longKeys)
    }

    /// Whether the cursor has reached the end of the innermost container (or of the root value).
    public var isAtEnd: Bool { readerIndex >= limit }

    /// The type of the next value, without moving the cursor; throws `unsupportedExtension` for an extension value.
    public func peekType() throws(FirePackError) -> ValueType {
        if let packed {
            if case .number(let number) = try packedNext(packed).element { return number.type }
            return .array
        }
        let tag = try input.tag(at: readerIndex, limit: limit)
        if let type = ValueType(tag: tag) { return type }
        if tag == Tag.extension { throw FirePackError(.unsupportedExtension, offset: readerIndex, "extension value") }
        throw FirePackError(
            .unknownTag, offset: readerIndex, "tag 0x\(Tag.hex(tag)) is not defined in format version 3")
    }

    /// A lazy view of the next value, without moving the cursor.
    public func peekValueView() throws(FirePackError) -> ValueView {
        if let packed {
            let (element, end) = try packedNext(packed)
            return ValueView(
                input: input, offset: readerIndex, endOffset: end, depth: depth, packedElement: packed,
                packedRow: element.isRow)
        }
        let end = try input.valueEnd(at: readerIndex, limit: limit)
        return ValueView(input: input, offset: readerIndex, endOffset: end, depth: depth, sharedKeys: longKeys)
    }

    /// Skips the next value, whatever its size, in O(1).
    public mutating func skipValue() throws(FirePackError) {
        if let packed {
            readerIndex = try packedNext(packed).next
            return
        }
        readerIndex = try input.valueEnd(at: readerIndex, limit: limit)
    }

    /// Checks the value at the cursor as `readValue()` checks it — every byte, UTF-8, duplicate keys, lengths — and
    /// moves past it, without building its tree: memory for the check, not for the value (a stream's record checked
    /// by `DocumentStreamReader.nextCheckedRecord()`). Succeeds and moves, or throws and stays.
    package mutating func verifyValue() throws(FirePackError) {
        guard packed == nil else {
            _ = try readValue()
            return
        }
        var verifier = InputVerifier(input: input)
        readerIndex = try verifier.verifyValue(at: readerIndex, limit: limit, depth: depth)
    }

    /// Reads the next value, whole, as a `Value` tree, checking every byte of it.
    public mutating func readValue() throws(FirePackError) -> Value {
        if let packed {
            let (element, next) = try packedNext(packed)
            let value: Value
            switch element {
            case .number(let number): value = number
            case .row(let row): value = Materializer(input: input).packedArray(row)
            }
            readerIndex = next
            return value
        }
        var materializer = Materializer(input: input, sharing: longKeys)
        let (value, next) = try materializer.value(at: readerIndex, limit: limit, depth: depth)
        readerIndex = next
        return value
    }

    /// Reads `null`, or returns false (cursor unmoved) when the next value is something else.
    public mutating func readNull() throws(FirePackError) -> Bool {
        if let packed { _ = try packedNext(packed) }
        guard packed == nil, try input.tag(at: readerIndex, limit: limit) == Tag.null else { return false }
        readerIndex += 1
        return true
    }

    /// Reads the server-timestamp sentinel, or returns false (cursor unmoved) when the next value is something else.
    public mutating func readServerTimestamp() throws(FirePackError) -> Bool {
        if let packed { _ = try packedNext(packed) }
        guard packed == nil, try input.tag(at: readerIndex, limit: limit) == Tag.serverTimestamp else { return false }
        readerIndex += 1
        return true
    }

    /// Reads a boolean.
    public mutating func readBoolean() throws(FirePackError) -> Bool {
        try requireTagged(expecting: "boolean")
        return try move(ReaderInput.getBoolean(at:limit:))
    }

    /// Reads an integer.
    public mutating func readInteger() throws(FirePackError) -> Int64 {
        if let packed {
            return try movePacked(packed, expecting: "integer") {
                if case .integer(let integer) = $0 { integer } else { nil }
            }
        }
        return try move(ReaderInput.getInteger(at:limit:))
    }

    /// Reads a double (an integer is a type mismatch: the two are distinct types).
    public mutating func readDouble() throws(FirePackError) -> Double {
        if let packed {
            return try movePacked(packed, expecting: "double") {
                if case .double(let double) = $0 { double } else { nil }
            }
        }
        return try move(ReaderInput.getDouble(at:limit:))
    }

    /// Reads the double at the cursor when it is written in a decimal form (`D5`, or an element of a packed array in
    /// a decimal form: Docs/FORMAT.md §1), with its parts: `value` is `mantissa / 10^scale`, negative when `negative`.
    /// Nil, moving nothing, for any other form or type; throws what `readDouble()` throws for a damaged one. For
    /// writers of text, which can print the decimal the bytes hold instead of searching for the shortest digits of
    /// `value` again.
    package mutating func readDecimalDouble() throws(FirePackError) -> (
        value: Double, mantissa: UInt64, scale: Int, negative: Bool
    )? {
        if let packed {
            guard case .doubles(.decimal(let width, let scale)) = packed, packedColumns == 0 else { return nil }
            let (element, next) = try packedNext(packed)
            guard case .number(.double(let value)) = element else { return nil }
            let mantissa = PackedVector.mantissa(at: 0, width: width, in: input.bytes(from: readerIndex, count: width))
            readerIndex = next
            return (value, mantissa.magnitude, scale, mantissa < 0)
        }
        guard readerIndex < limit, input.byte(at: readerIndex) == Tag.decimal else { return nil }
        let (mantissa, header, next) = try input.getDecimalParts(at: readerIndex, limit: limit)
        readerIndex = next
        return (
            DecimalDouble.compose(mantissa: mantissa, header: header), mantissa, Int(header & 0x0F),
            header & DecimalDouble.signBit != 0
        )
    }

    /// Reads a timestamp.
    public mutating func readTimestamp() throws(FirePackError) -> Timestamp {
        try requireTagged(expecting: "timestamp")
        return try move(ReaderInput.getTimestamp(at:limit:))
    }

    /// Reads a geopoint.
    public mutating func readGeoPoint() throws(FirePackError) -> GeoPoint {
        try requireTagged(expecting: "geopoint")
        return try move(ReaderInput.getGeoPoint(at:limit:))
    }

    /// Reads a string as a validated view into the input.
    public mutating func readString() throws(FirePackError) -> StringView {
        try requireTagged(expecting: "string")
        let (start, count, next) = try input.getString(at: readerIndex, limit: limit)
        readerIndex = next
        return StringView(input.bytes(from: start, count: count))
    }

    /// Reads bytes as a view into the input.
    public mutating func readBytes() throws(FirePackError) -> BytesView {
        try requireTagged(expecting: "bytes")
        let (start, count, next) = try input.getLengthPrefixed(
            at: readerIndex, limit: limit, tag: Tag.bytes, expecting: "bytes")
        readerIndex = next
        return BytesView(input.bytes(from: start, count: count))
    }

    /// Reads a document reference (its path is validated).
    public mutating func readReference() throws(FirePackError) -> DocumentReference {
        try requireTagged(expecting: "reference")
        return try move(ReaderInput.getReference(at:limit:))
    }

    /// Reads a vector as a view of its elements in the input.
    public mutating func readVector() throws(FirePackError) -> VectorView {
        try requireTagged(expecting: "vector")
        return try move(ReaderInput.getVector(at:limit:))
    }
}

extension FirePackReader {
    /// An entered array or map: how many elements it has, and what `exitMap(_:)` or `exitArray(_:)` needs to leave it.
    public struct Container: Sendable {
        /// The number of elements (or map entries).
        public let count: Int
        /// Whether this is a map (read a key before each value).
        public let isMap: Bool
        let end: Int
        let outerLimit: Int
        /// The cursor's packed state outside the container, restored on leaving it.
        var outerPackedFormByte = ContainerHeader.notPacked
        var outerPackedColumns = 0
    }

    /// Enters the array at the cursor; read `count` elements, then call `exitArray(_:)`. On success the cursor is
    /// at the first element; on failure it stays.
    public mutating func enterArray() throws(FirePackError) -> Container {
        try enterContainer(map: false)
    }

    /// Enters the map at the cursor; read `count` key/value pairs (`readKey()`, then the value), then call
    /// `exitMap(_:)`. On success the cursor is at the first key; on failure it stays.
    public mutating func enterMap() throws(FirePackError) -> Container {
        try enterContainer(map: true)
    }

    private mutating func enterContainer(map: Bool) throws(FirePackError) -> Container {
        let header: ContainerHeader
        if let packed {
            // A row of an array of packed rows (D9) is an array; a number is neither.
            let (element, _) = try packedNext(packed)
            guard case .row(let row) = element, !map else { throw mismatch(expecting: map ? "map" : "array", element) }
            header = row
        } else {
            header = try input.getContainerHeader(at: readerIndex, limit: limit, depth: depth + 1)
            guard header.isMap == map else {
                throw .typeMismatch(
                    expected: map ? "map" : "array", foundTag: input.byte(at: readerIndex), at: readerIndex)
            }
        }
        let container = Container(
            count: header.count, isMap: map, end: header.end, outerLimit: limit,
            outerPackedFormByte: packedFormByte, outerPackedColumns: packedColumns)
        readerIndex = header.bodyStart
        limit = header.end
        depth += 1
        packedFormByte = header.packedFormByte
        packedColumns = header.packedColumns
        return container
    }

    /// Leaves an array entered with `enterArray()`; throws `lengthMismatch` (cursor unmoved) unless the cursor is
    /// exactly at its end.
    public mutating func exitArray(_ array: Container) throws(FirePackError) {
        precondition(!array.isMap, "exitArray(_:) with a map: use exitMap(_:)")
        try exitContainer(array)
    }

    /// Leaves a map entered with `enterMap()`; throws `lengthMismatch` (cursor unmoved) unless the cursor is exactly
    /// at its end.
    public mutating func exitMap(_ map: Container) throws(FirePackError) {
        precondition(map.isMap, "exitMap(_:) with an array: use exitArray(_:)")
        try exitContainer(map)
    }

    private mutating func exitContainer(_ container: Container) throws(FirePackError) {
        guard readerIndex == container.end else {
            throw FirePackError(
                .lengthMismatch, offset: readerIndex, "container ends at byte \(container.end), not here")
        }
        limit = container.outerLimit
        depth -= 1
        packedFormByte = container.outerPackedFormByte
        packedColumns = container.outerPackedColumns
    }

    /// Reads the next map key (a literal or a reference), validated as UTF-8, as a view into the input.
    public mutating func readKey() throws(FirePackError) -> StringView {
        let (start, count, next) = try input.getKey(at: readerIndex, limit: limit)
        try input.validateKey(start: start, count: count, at: readerIndex, sharing: longKeys)
        readerIndex = next
        return StringView(input.bytes(from: start, count: count))
    }

    /// `readKey()`, counting a long key that a reference resolves to against `budget` (Docs/FORMAT.md §3): a reader
    /// that writes every key it reads (JSON from a record's bytes) refuses key-table entries that overlap as
    /// whole-input validation does (`badKeyReference`), before their literals are read, and references that stand
    /// for more than the limit allows (`limitExceeded`).
    package mutating func readKey(counting budget: inout KeyReferenceBudget) throws(FirePackError) -> StringView {
        let (start, count, next) = try input.getKey(at: readerIndex, limit: limit)
        if input.isLongReference(count: count, at: readerIndex) {
            _ = try budget.admit(start: start, count: count, forReferenceAt: readerIndex, in: input)
            try budget.expand(by: count, forReferenceAt: readerIndex, in: input)
        }
        try input.validateUTF8(start: start, count: count, what: "key")
        readerIndex = next
        return StringView(input.bytes(from: start, count: count))
    }

    /// Reads the next map key's bytes *without* checking them as UTF-8, moving the cursor past the key: for a caller
    /// that first compares a key with names it knows to be valid UTF-8 — bytes equal to a valid name are valid, so
    /// a key that matches needs no check (the Arrow reader: most keys name a column) — and passes any other to
    /// `checkKey(_:)` before using it. That check throws `readKey()`'s error at the same offset, though the cursor has
    /// moved on.
    ///
    /// Such a caller works something out about each key (which column it names): `answer` is what `asker` worked out
    /// about the same key before and kept with `remember(_:about:by:)`, and `keepsAnswer` says to keep this one's (a
    /// long key that a reference named, not answered yet). A key of L bytes that references repeat N times is then
    /// matched and checked once, not N times (Docs/SAFETY.md, "key references"); each such key is counted against
    /// the budget of `readKey()`, so key-table entries that overlap are refused (`badKeyReference`, at the key) as
    /// they are there, and each reference to it against `ReaderLimits.maxKeyExpansion` (`limitExceeded`, at the
    /// reference), so that in the keys it reads this reader refuses what whole-input verification refuses. A key that
    /// has an answer was checked (or matched a valid name) when it was worked out.
    package mutating func readKeyUnchecked(answering asker: AnyObject) throws(FirePackError) -> (
        key: UnsafeRawBufferPointer, answer: Int?, keepsAnswer: Bool
    ) {
        let (start, count, next) = try input.getKey(at: readerIndex, limit: limit)
        let key = input.bytes(from: start, count: count)
        // Only a reference repeats a key's bytes: a literal's are its own. (An input with references has `longKeys`.)
        guard input.isLongReference(count: count, at: readerIndex), let longKeys else {
            readerIndex = next
            return (key, nil, false)
        }
        let known = longKeys.answer(start: start, count: count, by: ObjectIdentifier(asker))
        if known == nil { try longKeys.admit(start: start, count: count, forReferenceAt: readerIndex, in: input) }
        try longKeys.expand(by: count, forReferenceAt: readerIndex, in: input)
        readerIndex = next
        return (key, known, known == nil)
    }

    /// Keeps what `asker` worked out about `key` (checked or matched), which `readKeyUnchecked(answering:)` said to
    /// keep, for the rest of the input.
    package func remember(_ answer: Int, about key: UnsafeRawBufferPointer, by asker: AnyObject) {
        guard let longKeys, let base = key.baseAddress else { return }
        longKeys.remember(answer, start: base - input.base, count: key.count, by: ObjectIdentifier(asker))
    }

    /// `key`, bytes that `readKeyUnchecked(answering:)` returned, checked as UTF-8.
    package func checkKey(_ key: UnsafeRawBufferPointer) throws(FirePackError) -> StringView {
        let start = key.baseAddress.map { $0 - input.base } ?? 0
        try input.validateUTF8(start: start, count: key.count, what: "key")
        return StringView(key)
    }
}

extension FirePackReader {
    /// An element of a packed array: a number (of `D8`, or of a row of `D9`), or a row of `D9`.
    enum PackedElement {
        case number(Value)
        case row(ContainerHeader)

        var isRow: Bool {
            if case .row = self { return true }
            return false
        }
    }

    /// The next element of the packed array the cursor is in, and the offset after it (the array's header checked
    /// its bytes; only the end of the array is checked here).
    @inline(__always)
    func packedNext(_ form: PackedArray.Form) throws(FirePackError) -> (element: PackedElement, next: Int) {
        // Elements sit at fixed strides, but `readKey()` can move the cursor anywhere: check the whole element.
        let size = packedColumns > 0 ? packedColumns * form.width : form.width
        guard readerIndex < limit, size <= limit &- readerIndex else {
            throw .truncated(at: readerIndex, needing: "a value")
        }
        if packedColumns > 0 {
            let row = ContainerHeader(
                count: packedColumns, isMap: false, bodyStart: readerIndex, end: readerIndex + size,
                packedFormByte: packedFormByte)
            return (.row(row), readerIndex + size)
        }
        let number = form.element(at: 0, in: input.bytes(from: readerIndex, count: form.width))
        return (.number(number), readerIndex + form.width)
    }

    /// Reads with `get` at the cursor and moves past what it read: succeeds and moves, or throws and stays.
    @inline(__always)
    mutating func move<R>(_ get: (ReaderInput) -> (Int, Int) throws(FirePackError) -> (R, Int)) throws(FirePackError)
        -> R
    {
        let (value, next) = try get(input)(readerIndex, limit)
        readerIndex = next
        return value
    }

    /// Reads the number at the cursor in a packed array when `number` accepts it, and moves past it; a row, or a
    /// number of the other kind, is a type mismatch (cursor unmoved).
    @inline(__always)
    mutating func movePacked<R>(_ form: PackedArray.Form, expecting what: String, _ number: (Value) -> R?)
        throws(FirePackError) -> R
    {
        let (element, next) = try packedNext(form)
        guard case .number(let found) = element, let value = number(found) else {
            throw mismatch(expecting: what, element)
        }
        readerIndex = next
        return value
    }

    /// Throws the error a read of another type gives at a number or a row, when the cursor is in a packed array.
    @inline(__always)
    func requireTagged(expecting what: String) throws(FirePackError) {
        if let packed { throw mismatch(expecting: what, try packedNext(packed).element) }
    }

    func mismatch(expecting what: String, _ element: PackedElement) -> FirePackError {
        let found: UInt8
        switch element {
        case .number(.integer): found = Tag.int64
        case .number: found = Tag.float64
        case .row: found = Tag.packedArray
        }
        return .typeMismatch(expected: what, foundTag: found, at: readerIndex)
    }
}

extension FirePackReader {
    /// Opens `bytes` (a bare encoding in `Data`, `[UInt8]` or borrowed bytes) and runs `body` with a reader over
    /// them; the reader must not escape `body`.
    public static func withReader<R>(
        _ bytes: some ContiguousBytes, limits: ReaderLimits = .default,
        _ body: (inout FirePackReader) throws -> R
    ) throws -> R {
        try bytes.withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw, limits: limits)
            return try body(&reader)
        }
    }
}

extension Value {
    /// Decodes a bare FirePack encoding in `Data`, `[UInt8]` or borrowed bytes, checking every byte of the value
    /// (`FirePackReader.validate` also checks the key-table entries no key uses).
    public init(firePackBytes bytes: some ContiguousBytes, limits: ReaderLimits = .default) throws(FirePackError) {
        self = try bytes.withBorrowedBytes { raw throws(FirePackError) in
            var reader = try FirePackReader(bytes: raw, limits: limits)
            return try reader.readValue()
        }
    }
}

extension FirePackReader {
    /// The length of the root value at the start of `bytes` together with its key table, found in O(1); use it to
    /// split concatenated values (for example a writer's flushed output). Nothing inside the value is checked.
    public static func encodedLength(
        ofValueAt bytes: some ContiguousBytes,
        limits: ReaderLimits = .default
    ) throws(FirePackError) -> Int {
        try bytes.withBorrowedBytes { bytes throws(FirePackError) in try encodedLength(ofValueAt: bytes, limits: limits)
        }
    }

    static func encodedLength(ofValueAt bytes: UnsafeRawBufferPointer, limits: ReaderLimits) throws(FirePackError)
        -> Int
    {
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw .truncated(at: 0, needing: "a value") }
        let end = try ReaderInput.locateRootEnd(base, count: bytes.count, limits: limits)
        guard end < bytes.count, base.load(fromByteOffset: end, as: UInt8.self) == Tag.keyTable else { return end }
        // In the order the reader opens a table (`ReaderInput.init`, Docs/FORMAT.md §3).
        let (entries, widthOffset) = try Varint.get(base, at: end + 1, limit: bytes.count)
        guard entries >= 1, entries <= end / 2 else {
            throw FirePackError(
                .badKeyTable, offset: end, "key table of \(entries) entries for a value of \(end) bytes")
        }
        guard widthOffset < bytes.count else { throw .truncated(at: end, needing: "the key table") }
        let width = Int(base.load(fromByteOffset: widthOffset, as: UInt8.self))
        guard (1...8).contains(width) else {
            throw FirePackError(.badKeyTable, offset: widthOffset, "key table offset width \(width) outside 1 ... 8")
        }
        guard entries <= (bytes.count - widthOffset - 1) / width else {
            throw .truncated(at: end, needing: "the key table")
        }
        return widthOffset + 1 + entries * width
    }
}
