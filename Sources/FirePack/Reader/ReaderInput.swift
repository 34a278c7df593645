/// The bytes a reader borrows, with the root value's extent and key table located once when they are opened.
///
/// Every decoding primitive takes an offset and a `limit` (the end of the enclosing container or root value) and
/// never reads at or past the limit; every length is compared with the bytes left before it is added.
struct ReaderInput {
    let base: UnsafeRawPointer
    /// Size of the whole input.
    let count: Int
    /// Offset of the root value (0, or 5 after a file header).
    let rootStart: Int
    /// Offset just past the root value: the key table, if any, starts here.
    let rootEnd: Int
    let keyTableStart: Int
    let keyTableCount: Int
    let keyTableWidth: Int
    let limits: ReaderLimits

    /// Opens `bytes` whose root value starts at `rootStart`, locating the value's end and its key table.
    init(_ bytes: UnsafeRawBufferPointer, rootStart: Int, limits: ReaderLimits) throws(FirePackError) {
        guard bytes.count <= limits.maxInputSize else {
            throw FirePackError(
                .limitExceeded, offset: 0, "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputSize)")
        }
        guard let base = bytes.baseAddress, bytes.count > rootStart else {
            throw .truncated(at: rootStart, needing: "the root value (no bytes)")
        }
        self.base = base
        self.count = bytes.count
        self.rootStart = rootStart
        self.limits = limits
        // The extent of the root value is known from its tag and lengths alone.
        do {
            rootEnd = try Self.locateRootEnd(base + rootStart, count: count - rootStart, limits: limits) + rootStart
        } catch {
            throw FirePackError(error.code, offset: error.offset.map { $0 + rootStart }, error.message)
        }
        if rootEnd == count {
            keyTableStart = count
            keyTableCount = 0
            keyTableWidth = 1
            return
        }
        guard base.load(fromByteOffset: rootEnd, as: UInt8.self) == Tag.keyTable else {
            throw FirePackError(.trailingBytes, offset: rootEnd, "\(count - rootEnd) bytes follow the value")
        }
        let (entries, widthOffset) = try Varint.get(base, at: rootEnd + 1, limit: count)
        guard entries >= 1 else { throw FirePackError(.badKeyTable, offset: rootEnd, "key table has no entries") }
        // Each entry names a non-empty key literal of the value, two bytes at least: a longer table names bytes that
        // are not there, and would make readers hold state in proportion to a claim rather than to the input.
        guard entries <= (rootEnd - rootStart) / 2 else {
            throw FirePackError(
                .badKeyTable, offset: rootEnd,
                "key table of \(entries) entries for a value of \(rootEnd - rootStart) bytes (at most one entry per 2 bytes)"
            )
        }
        // A table cut after its N is reported at its tag, as a cut value is (Docs/FORMAT.md §3, §7).
        guard widthOffset < count else { throw .truncated(at: rootEnd, needing: "the key table") }
        let width = Int(base.load(fromByteOffset: widthOffset, as: UInt8.self))
        guard (1...8).contains(width) else {
            throw FirePackError(.badKeyTable, offset: widthOffset, "key table offset width \(width) outside 1 ... 8")
        }
        let start = widthOffset + 1
        guard entries <= (count - start) / width else {
            throw .truncated(at: rootEnd, needing: "the key table (\(entries) entries of \(width) bytes)")
        }
        guard start + entries * width == count else {
            throw FirePackError(.trailingBytes, offset: start + entries * width, "bytes follow the key table")
        }
        keyTableStart = start
        keyTableCount = entries
        keyTableWidth = width
    }

    /// The end of the value at the start of `base`, from its tag and lengths alone.
    /// A root container past the depth limit is refused here, at its tag, before anything after it is looked at
    /// (Docs/FORMAT.md §7: the depth at the tag comes first, and opening the input comes before the rest).
    static func locateRootEnd(_ base: UnsafeRawPointer, count: Int, limits: ReaderLimits) throws(FirePackError) -> Int {
        let input = ReaderInput(base: base, count: count, rootStart: 0, rootEnd: count, limits: limits)
        if count > 0 {
            let tag = input.byte(at: 0)
            if tag >= 0xA0 && tag <= 0xBF || tag == Tag.array || tag == Tag.map || tag == Tag.packedArray {
                try input.checkDepth(1, at: 0)
            } else if tag == Tag.packedRows {
                try input.checkDepth(2, at: 0)
            }
        }
        return try input.valueEnd(at: 0, limit: count)
    }

    fileprivate init(base: UnsafeRawPointer, count: Int, rootStart: Int, rootEnd: Int, limits: ReaderLimits) {
        self.base = base
        self.count = count
        self.rootStart = rootStart
        self.rootEnd = rootEnd
        self.keyTableStart = count
        self.keyTableCount = 0
        self.keyTableWidth = 1
        self.limits = limits
    }

    // The three unchecked accessors below are the reader's only loads. Every caller reaches them after `require`,
    // `readLength`, `Varint.read` or `tag(at:limit:)` has checked the same range against its limit, in the same
    // function (Docs/SAFETY.md); keep it that way.

    /// The byte at `offset`, which the caller has checked lies before the end of the input.
    @inline(__always)
    func byte(at offset: Int) -> UInt8 { base.load(fromByteOffset: offset, as: UInt8.self) }

    /// A little-endian integer at `offset`, whose bytes the caller has checked with `require`.
    @inline(__always)
    func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// A view of `count` bytes at `start`, a range the caller has checked with `readLength` or `require`.
    @inline(__always)
    func bytes(from start: Int, count: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + start, count: count)
    }

    /// Checks that `needed` bytes are present at `offset` before `limit`.
    @inline(__always)
    func require(_ needed: Int, at offset: Int, limit: Int, for what: @autoclosure () -> String) throws(FirePackError) {
        guard needed <= limit &- offset else { throw .truncated(at: offset, needing: what()) }
    }

    /// Reads a varint length at `offset` and checks that that many bytes follow before `limit`.
    @inline(__always)
    func getLength(at offset: Int, limit: Int, of what: @autoclosure () -> String) throws(FirePackError) -> (
        length: Int, next: Int
    ) {
        let (length, next) = try Varint.get(base, at: offset, limit: limit)
        guard length <= limit &- next else {
            throw .lengthOutOfBounds(what(), length: length, at: offset, left: limit - next)
        }
        return (length, next)
    }

    /// The offset just past the value at `offset`, found in O(1) from its tag and lengths; nothing inside is checked.
    ///
    /// Scalars of a fixed size, strings and containers whose length fits (most values: every key search passes
    /// them) end here; any other value, and every error, is left to `valueEndOfAnyTag`. Kept apart, the errors'
    /// messages gave each call a stack frame and register saves it used only to throw (guarded by `Decode 1000
    /// Book/FirePackDecoder @FirePackCodable`).
    func valueEnd(at offset: Int, limit: Int) throws(FirePackError) -> Int {
        if offset < limit {
            let tag = byte(at: offset)
            let fixed = Tag.fixedSize(tag)
            if fixed != 0 {
                if fixed <= limit &- offset { return offset &+ fixed }
            } else if (tag >= Tag.fixArrayBase && tag < Tag.null) || tag == Tag.array || tag == Tag.map
                || tag == Tag.string || tag == Tag.bytes || tag == Tag.reference,
                let (length, next) = try? Varint.get(base, at: offset &+ 1, limit: limit), length <= limit &- next
            {
                return next &+ length
            }
        }
        return try valueEndOfAnyTag(at: offset, limit: limit)
    }

    /// `valueEnd(at:limit:)` for every tag, and its errors.
    @inline(never)
    func valueEndOfAnyTag(at offset: Int, limit: Int) throws(FirePackError) -> Int {
        guard offset < limit else { throw .truncated(at: offset, needing: "a value") }
        let tag = byte(at: offset)
        let fixed = Tag.fixedSize(tag)
        if fixed != 0 {
            if fixed > 1 { try require(fixed, at: offset, limit: limit, for: Tag.typeName(of: tag)) }
            return offset + fixed
        }
        let size: Int
        switch tag {
        case 0xA0...0xBF, Tag.array, Tag.map:
            let (length, next) = try getLength(at: offset + 1, limit: limit, of: "a container")
            return next + length
        case Tag.string, Tag.bytes, Tag.reference:
            let (length, next) = try getLength(at: offset + 1, limit: limit, of: Tag.typeName(of: tag))
            return next + length
        case Tag.vector:
            let (elements, next) = try Varint.get(base, at: offset + 1, limit: limit)
            guard elements <= (limit - next) / 8 else {
                throw FirePackError(
                    .lengthOutOfBounds, offset: offset + 1, "vector of \(elements) elements reaches past the end")
            }
            return next + elements * 8
        case Tag.packedVector:
            let form = try packedForm(at: offset, limit: limit, of: "a packed vector")
            let (elements, next) = try Varint.get(base, at: offset + 2, limit: limit)
            guard elements <= (limit - next) / form.width else {
                throw FirePackError(
                    .lengthOutOfBounds, offset: offset + 2, "vector of \(elements) elements reaches past the end")
            }
            return next + elements * form.width
        case Tag.packedArray, Tag.packedRows:
            return try packedArrayEnd(at: offset, limit: limit)
        case Tag.decimal:
            try require(2, at: offset, limit: limit, for: "a decimal double")
            size = 2 + DecimalDouble.mantissaBytes(byte(at: offset + 1))
        case Tag.extension:
            let (_, lengthOffset) = try Varint.get(base, at: offset + 1, limit: limit)
            let (length, next) = try getLength(at: lengthOffset, limit: limit, of: "an extension")
            return next + length
        case Tag.packedGeoPoint: return offset + 2 + 2 * (try packedGeoPointForm(at: offset, limit: limit)).width
        case Tag.keyTable:
            throw FirePackError(.unknownTag, offset: offset, "a key table (tag 0xD3) where a value belongs")
        default:
            throw FirePackError(.unknownTag, offset: offset, "tag 0x\(Tag.hex(tag)) is not defined in format version 3")
        }
        try require(size, at: offset, limit: limit, for: Tag.typeName(of: tag))
        return offset + size
    }

    /// Reads the key at `offset` (a literal, or a reference resolved through the key table).
    ///
    /// Returns where the key's bytes are and the offset after the key; the bytes are not yet checked for UTF-8.
    @inline(__always)
    func getKey(at offset: Int, limit: Int) throws(FirePackError) -> (start: Int, count: Int, next: Int) {
        let (header, next) = try Varint.get(base, at: offset, limit: limit)
        if header & 1 == 0 { return try Self.literalKey(header: header, next: next, at: offset, limit: limit) }
        let (start, count) = try resolveKeyReference(header >> 1, at: offset)
        return (start, count, next)
    }

    /// The key literal whose header (`header`, read at `offset`) ends at `next`: its bytes and what follows them.
    @inline(__always)
    static func literalKey(header: Int, next: Int, at offset: Int, limit: Int) throws(FirePackError) -> (
        start: Int, count: Int, next: Int
    ) {
        let length = header >> 1
        guard length <= limit &- next else {
            throw FirePackError(.lengthOutOfBounds, offset: offset, "key of \(length) bytes reaches past the end")
        }
        return (next, length, next + length)
    }

    /// Finds the literal that key-table entry `index` points at.
    func resolveKeyReference(_ index: Int, at offset: Int) throws(FirePackError) -> (start: Int, count: Int) {
        let (_, start, count) = try keyLiteral(index, forReferenceAt: offset)
        return (start, count)
    }

    /// The literal key-table entry `index` points at, for a reference at `offset`: where the literal starts, and
    /// where its bytes are. Only the check that the literal comes before the reference depends on `offset`
    /// (`KeyReferenceMemo` repeats that one alone).
    func keyLiteral(_ index: Int, forReferenceAt offset: Int) throws(FirePackError) -> (
        literal: Int, start: Int, count: Int
    ) {
        guard index < keyTableCount else {
            throw FirePackError(
                .badKeyReference, offset: offset,
                "key reference \(index) but the key table has \(keyTableCount) entries")
        }
        let target = keyTableEntry(index)
        guard target >= 0 && target < rootEnd - rootStart else {
            throw FirePackError(.badKeyReference, offset: offset, "key-table entry \(index) points outside the value")
        }
        // A reference always follows the literal it repeats (Docs/FORMAT.md §3): an entry pointing at or after the
        // reference could otherwise make a key refer to itself or to bytes not yet read.
        let literal = rootStart + target
        try Self.checkLiteral(literal, of: index, precedes: offset)
        guard let (header, next) = try? Varint.get(base, at: literal, limit: rootEnd), header & 1 == 0,
            header >> 1 <= rootEnd - next
        else {
            throw FirePackError(
                .badKeyReference, offset: offset, "key-table entry \(index) does not point at a key literal")
        }
        return (literal, next, header >> 1)
    }

    /// Throws unless the literal of key-table entry `index`, at `literal`, comes before the reference at `offset`.
    @inline(__always)
    static func checkLiteral(_ literal: Int, of index: Int, precedes offset: Int) throws(FirePackError) {
        guard literal < offset else {
            throw FirePackError(
                .badKeyReference, offset: offset,
                "key-table entry \(index) points at byte \(literal), not before the reference")
        }
    }

    /// Whether the key whose header is at `offset`, of `count` bytes, is a reference (its header's low bit, in the
    /// varint's first byte) to a key of more than `KeyReferenceBudget.longKey` bytes: the keys whose cost references
    /// multiply, which readers count and check once.
    @inline(__always)
    func isLongReference(count: Int, at offset: Int) -> Bool {
        count > KeyReferenceBudget.longKey && byte(at: offset) & 1 == 1
    }

    /// Checks the key whose header is at `offset` and whose bytes `getKey` found, as UTF-8: a reference to a key of
    /// more than `KeyReferenceBudget.longKey` bytes through `keys`, which counts and checks each such key once for
    /// everything that shares it; any other key here (its bytes are paid for by its own).
    @inline(__always)
    func validateKey(start: Int, count: Int, at offset: Int, sharing keys: ReferencedKeyStrings?) throws(FirePackError)
    {
        if let keys, isLongReference(count: count, at: offset) {
            _ = try keys.string(start: start, count: count, forReferenceAt: offset, in: self)
        } else {
            try validateUTF8(start: start, count: count, what: "key")
        }
    }

    /// Throws `invalidUTF8` unless the bytes are valid UTF-8.
    @inline(__always)
    func validateUTF8(start: Int, count: Int, what: @autoclosure () -> String) throws(FirePackError) {
        if let bad = UTF8Validation.firstInvalidOffset(base, start: start, count: count) {
            throw FirePackError(.invalidUTF8, offset: start + bad, "\(what()) is not valid UTF-8")
        }
    }
}

/// The extent of one encoded value, for code outside the reader that walks values it did not decode (the column
/// layout of a stream's blocks, Docs/FORMAT.md §8). SPI public so that `end` inlines there (as `Varint`).
@_spi(Wire) public enum EncodedValue {
    /// The offset just past the value at `offset` in `base`, not reading at or past `limit`, found from its tag and
    /// lengths alone as the reader skips a value; nothing inside is checked. Throws for a cut value, a length past
    /// `limit`, a key table or an undefined tag.
    /// Inlinable, so that a value whose tag gives its size is passed over without a call.
    @inlinable @inline(__always)
    public static func end(in base: UnsafeRawPointer, at offset: Int, limit: Int) throws(FirePackError) -> Int {
        if offset < limit {
            let size = Tag.fixedSize(base.load(fromByteOffset: offset, as: UInt8.self))
            if size != 0 && size <= limit - offset { return offset + size }
        }
        return try endReading(in: base, at: offset, limit: limit)
    }

    /// `end(in:at:limit:)` by the reader's `valueEnd`: every tag, and every error with its offset.
    @usableFromInline
    package static func endReading(in base: UnsafeRawPointer, at offset: Int, limit: Int) throws(FirePackError)
        -> Int
    {
        try ReaderInput(base: base, count: limit, rootStart: 0, rootEnd: limit, limits: .default)
            .valueEnd(at: offset, limit: limit)
    }
}
