@_spi(Wire) import FirePack

/// The columns form of a version-3 block's data (Docs/FORMAT.md §8, "Columns"): the same documents, with each
/// value stored beside the values of the same path in the other documents of the block instead of beside its
/// neighbours in its own document, as Parquet and ORC lay out a row group, so that a compressor sees timestamps
/// next to timestamps and identifiers next to identifiers.
///
/// ```
/// lengths    one varint per document, its length (the row form's last bytes, as they are)
/// columns    varint C, then C varints: each column's length in bytes
/// keys       per document, the keys of its values in the order met (as written: header and bytes, or a
///            reference's header), then the bytes after its root value (its key table, if any)
/// column 0 … column C − 1
/// ```
///
/// With numbered keys (codec bit `20`, what FirePack's writer writes), each key in the keys is a varint instead: 0
/// followed by the key as written where its path occurs for the first time in the block, otherwise its path's number
/// plus 1. A block's documents then pay for each key once rather than once per document. A document's key table is
/// then stored by ordinals: `D3`, its count and width as written, then for each entry the number of the key literal
/// it points at among the document's literals in the order met, which the reader turns back into the offset.
///
/// A column holds each of its values as written in the row form, except a container, of which it holds the tag (and
/// a `D0`/`D1` its count) but not the body's length: the reader counts that while it rebuilds the container. The
/// writer stores columns only when they give the rows back byte for byte, and only for blocks that have few paths
/// for their values; the reader rebuilds the rows before anything else looks at the block, so every other rule of
/// blocks applies to the rows.
enum BlockColumns {
    /// The bit of a block's codec byte that says its data is in the columns form.
    static let flag: UInt8 = 0x10
    /// The bit of a block's codec byte that says the keys of its columns form are numbered (with `flag` only).
    static let numberedKeysFlag: UInt8 = 0x20
    /// The bits of a block's codec byte for the columns form that FirePack's writer writes: numbered keys.
    static let numberedForm: UInt8 = flag | numberedKeysFlag

    /// Blocks with more than one column per this many values keep their rows (paths that hardly repeat, such as
    /// maps keyed by identifiers, gain nothing from columns and pay a length per column).
    static let valuesPerColumn = 8

    @inline(__always)
    static func isContainer(_ tag: UInt8) -> Bool { tag >= 0xA0 && tag <= 0xBF || tag == 0xD0 || tag == 0xD1 }

    /// A container still being walked: its entries left, whether it is a map, its path, and where its body ends.
    struct Open {
        var remaining: Int
        let isMap: Bool
        let path: Int32
        let end: Int
        /// Measuring a document's body lengths: the container's place in their list (0 otherwise; moving keeps the
        /// length's byte just before `end`).
        let sizeIndex: Int
        /// Numbered keys: the key literals met in the document before the container (those after it are in its
        /// body, and move with it).
        var literalStart = 0
    }

    /// The containers open in a walk, innermost last: the splitter and the rebuilder touch the innermost at every
    /// value, so it is kept without an array's uniqueness and bounds checks. The walks check their depth against
    /// `ReaderLimits.maximumDepth`; released by `deallocate()`.
    struct OpenStack {
        private var storage: UnsafeMutablePointer<Open>
        private var capacity = 16
        /// How many containers are open.
        private(set) var count = 0

        init() { storage = .allocate(capacity: capacity) }

        var isEmpty: Bool { count == 0 }

        /// The innermost open container; only while one is open.
        @inline(__always)
        var innermost: UnsafeMutablePointer<Open> {
            assert(count > 0)
            return storage + (count - 1)
        }

        /// The end of the innermost open container's body, or `outside` when none is open.
        @inline(__always)
        func innermostEnd(or outside: Int) -> Int { count == 0 ? outside : storage[count - 1].end }

        @inline(__always)
        mutating func push(_ open: Open) {
            BlockColumns.append(open, to: &storage, count: count, capacity: &capacity)
            count += 1
        }

        /// Closes the innermost container (`Open` holds nothing to release).
        @inline(__always)
        mutating func pop() {
            assert(count > 0)
            count -= 1
        }

        mutating func removeAll() { count = 0 }

        func deallocate() { storage.deallocate() }
    }

    /// Initializes `element` at `storage[count]`, doubling `storage` first when it is full (its `count` elements
    /// moved): the growable arrays of the splitter and the rebuilder, without an array's uniqueness checks.
    static func append<Element>(
        _ element: Element, to storage: inout UnsafeMutablePointer<Element>, count: Int, capacity: inout Int
    ) {
        if count == capacity {
            let grown = UnsafeMutablePointer<Element>.allocate(capacity: 2 * capacity)
            grown.moveInitialize(from: storage, count: count)
            storage.deallocate()
            storage = grown
            capacity *= 2
        }
        (storage + count).initialize(to: element)
    }

    static func appendVarint(_ value: Int, to output: inout [UInt8]) {
        var value = UInt64(value)
        while value >= 0x80 {
            output.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        output.append(UInt8(value))
    }

    // MARK: Columns to rows

    /// The size of the row form of `stored` (a block's data in the columns form, holding `count` documents of
    /// `documents` bytes): the documents and their lengths. Throws when the lengths are cut or do not add up to
    /// `documents`, or the rows would pass `maxSize`.
    static func rowsSize(_ stored: UnsafeRawBufferPointer, count: Int, documents: Int, maxSize: Int)
        throws(FirePackError) -> Int
    {
        guard let base = stored.baseAddress else { throw FirePackError(.truncated, offset: 0, "no data") }
        let cursor = try BlockLengths.end(in: base, from: 0, limit: stored.count, count: count, documents: documents)
        guard documents <= maxSize - cursor else {
            throw FirePackError(
                .limitExceeded, offset: 0,
                "documents and lengths of \(documents + cursor) bytes, past the limit of \(maxSize)")
        }
        return documents + cursor
    }

    /// Rebuilds into `output` (`rowsSize` bytes) the row form of `stored`, a block's data in the columns form
    /// holding `count` documents of `documents` bytes, its keys numbered or as written. Throws, with the offset inside `stored`, for columns that do
    /// not rebuild the documents exactly: a column or the keys cut short or left with bytes no document uses, more
    /// paths than columns, a value that is not one, a document whose rebuilt root value is longer than its length.
    /// Time and memory are linear in the bytes: every value takes a byte of its column at least, every map entry a
    /// byte of the keys, and a document's list of body lengths is at most half its length. Returns how many
    /// documents were written in two passes (`Rebuilder`).
    @discardableResult
    static func join(
        _ stored: UnsafeRawBufferPointer, count: Int, documents: Int, numberedKeys: Bool,
        into output: UnsafeMutableRawBufferPointer
    ) throws(FirePackError) -> Int {
        var rebuilder = try Rebuilder(stored, count: count, numberedKeys: numberedKeys)
        defer { rebuilder.deallocate() }
        let lengthsSize = output.count - documents
        var lengthAt = 0
        var start = 0
        for _ in 0..<count {
            let (length, next) = try Varint.get(stored.baseAddress!, at: lengthAt, limit: lengthsSize)
            lengthAt = next
            try rebuilder.rebuild(length: length, into: output.baseAddress! + start, room: output.count - start)
            start += length
        }
        try rebuilder.finish()
        // The lengths last: a document's short copies may write past its end (`Rebuilder.copy`).
        output.baseAddress!.advanced(by: documents).copyMemory(from: stored.baseAddress!, byteCount: lengthsSize)
        return rebuilder.startedOver
    }
}

extension BlockColumns {
    /// Walks the keys and columns of a block in the columns form, a document at a time, writing its rows.
    ///
    /// The columns leave out each container's body length, which its header needs before the body. A document is
    /// written in one pass with a byte kept for each length, the body moved up when its length takes more (bodies
    /// of 128 bytes or more: a document's outer maps, once each). Nesting can make that moving cost the document's
    /// length once per level, so past a budget the document starts over in two passes: one that counts every body's
    /// length, one that writes with them.
    struct Rebuilder {
        let base: UnsafeRawPointer
        let storedCount: Int
        let columnCount: Int
        var keyCursor: Int
        let keysEnd: Int
        /// Per column in use (one per path met so far, at most `columnCount`): where its next value is, where it
        /// ends, and the document that last moved it (`mark`). Columns come into use in order, their lengths read
        /// from the directory as they do, so that the state is in proportion to the paths the bytes hold, not to a
        /// count the directory claims.
        var columns: UnsafeMutablePointer<ColumnState>
        var openedColumns = 0
        var columnCapacity = 16

        /// A column in use.
        struct ColumnState {
            /// Where its next value is, and where it ends.
            var cursor: Int
            let end: Int
            /// The document that last moved it, and where it was before that document moved it (to start over).
            var mark = -1
            var start = 0
        }
        /// The columns the document moved (`ColumnState.start` holds where each was), so that it can start over at a
        /// cost in proportion to the document, not to the columns in use.
        var moved: UnsafeMutablePointer<Int>
        var movedCount = 0
        var movedCapacity = 16
        /// The directory's next length, for the next column to come into use.
        var directoryCursor: Int
        var paths = ColumnPaths()
        /// Numbered keys: where each path's key is in the keys, as written (-1: the root's and elements' paths).
        let numberedKeys: Bool
        var keyStarts: [Int] = [-1]
        /// Numbered keys: where the document's key literals are in its rows, in the order met (its key table's
        /// entries are ordinals into this list).
        var literals: [Int] = []
        /// Whether the walk records `literals`: from the block's first document with a key table on.
        var recordsLiterals = false
        /// Made with `columns`, once nothing in `init` can throw.
        var stack: OpenStack
        /// Each container's body length, in the order the containers start (two passes only).
        var sizes: [Int] = []
        var documentNumber = 0
        /// The documents written in two passes.
        var startedOver = 0
        /// The bytes the document being rebuilt may write from its start: its own, then scratch (`copy`).
        var room = 0

        /// How a walk writes containers' lengths.
        enum Pass {
            /// Writing, a byte kept for each length and the body moved up when it needs more.
            case moving
            /// Counting each body's length into `sizes`, writing nothing.
            case measuring
            /// Writing, with the lengths in `sizes`.
            case writing
        }

        init(_ stored: UnsafeRawBufferPointer, count: Int, numberedKeys: Bool) throws(FirePackError) {
            base = stored.baseAddress!
            self.numberedKeys = numberedKeys
            storedCount = stored.count
            var cursor = 0
            for _ in 0..<count { cursor = try Varint.get(base, at: cursor, limit: stored.count).next }
            let directory = cursor
            let (claimed, afterCount) = try Varint.get(base, at: cursor, limit: stored.count)
            // Every column takes a byte of the directory and a byte of data at least.
            // (Paths are numbered in 32 bits: a path past the columns is refused before a number past them is made.)
            guard claimed >= 1, claimed <= (stored.count - afterCount) / 2, claimed < Int(Int32.max) else {
                throw FirePackError(
                    .lengthMismatch, offset: directory,
                    "\(claimed) columns in \(stored.count - afterCount) bytes (at least 1, and two bytes each)")
            }
            columnCount = claimed
            cursor = afterCount
            directoryCursor = afterCount
            // The directory is read once here for its total (where the keys end), holding nothing per column.
            var total = 0
            for column in 0..<claimed {
                let (length, next) = try Varint.get(base, at: cursor, limit: stored.count)
                guard length >= 1 else {
                    throw FirePackError(.lengthMismatch, offset: cursor, "column \(column) holds no value")
                }
                guard length <= stored.count - next - total else {
                    throw FirePackError(
                        .lengthOutOfBounds, offset: cursor, "column \(column) of \(length) bytes reaches past the data")
                }
                total += length
                cursor = next
            }
            keyCursor = cursor
            keysEnd = stored.count - total
            columns = .allocate(capacity: columnCapacity)
            moved = .allocate(capacity: movedCapacity)
            stack = OpenStack()
            openColumn()
        }

        /// Releases the columns' state.
        func deallocate() {
            columns.deallocate()
            moved.deallocate()
            stack.deallocate()
        }

        /// Brings the next column into use: its length from the directory, its bytes after the previous column's.
        mutating func openColumn() {
            // The directory was read whole when the rebuilder was made: this varint is there, and minimal.
            guard let (length, next) = try? Varint.get(base, at: directoryCursor, limit: storedCount) else {
                preconditionFailure("the column directory was checked")
            }
            directoryCursor = next
            let start = openedColumns == 0 ? keysEnd : columns[openedColumns - 1].end
            BlockColumns.append(
                ColumnState(cursor: start, end: start + length), to: &columns, count: openedColumns,
                capacity: &columnCapacity)
            openedColumns += 1
        }

        /// Rebuilds the next document, `length` bytes, at `output`, where `room` bytes may be written (the bytes past
        /// the document are scratch until the next document or the lengths are written over them).
        mutating func rebuild(length: Int, into output: UnsafeMutableRawPointer, room: Int) throws(FirePackError) {
            let keysStart = keyCursor
            self.room = room
            movedCount = 0
            var rootSize = try rebuildRootValue(length: length, into: output, keysStart: keysStart)
            if numberedKeys && rootSize < length && !recordsLiterals {
                // A key table follows the root value (a document written with key references): its entries name the
                // document's key literals by where they are in its rows, which only such a document needs recorded.
                // It is walked again recording them, and so are the block's documents after it, from the start (a
                // block written with references has tables in most of its documents).
                moveBackColumns()
                keyCursor = keysStart
                recordsLiterals = true
                rootSize = try rebuildRootValue(length: length, into: output, keysStart: keysStart)
            }
            // The bytes after the root value: its key table.
            let tail = length - rootSize
            if numberedKeys && tail > 0 {
                try writeKeyTable(of: tail, into: output + rootSize)
            } else {
                guard tail <= keysEnd - keyCursor else {
                    throw FirePackError(
                        .lengthMismatch, offset: keyCursor,
                        "document \(documentNumber) is \(length) bytes, but its root value \(rootSize) and the keys hold \(keysEnd - keyCursor) more"
                    )
                }
                (output + rootSize).copyMemory(from: base + keyCursor, byteCount: tail)
                keyCursor += tail
            }
            documentNumber += 1
        }

        /// Rebuilds the document's root value at `output` and returns its size: in one pass, or in two when moving
        /// bodies passes its budget.
        private mutating func rebuildRootValue(length: Int, into output: UnsafeMutableRawPointer, keysStart: Int)
            throws(FirePackError) -> Int
        {
            if let size = try walk(.moving, length: length, into: output) { return size }
            startedOver += 1
            moveBackColumns()
            keyCursor = keysStart
            sizes.removeAll(keepingCapacity: true)
            let size = try walk(.measuring, length: length, into: output)!
            moveBackColumns()
            keyCursor = keysStart
            _ = try walk(.writing, length: length, into: output)
            return size
        }

        /// Moves every column the document moved back to where it was before the document (to start over).
        private mutating func moveBackColumns() {
            for index in 0..<movedCount { columns[moved[index]].cursor = columns[moved[index]].start }
        }

        /// Writes the document's key table, `size` bytes, from the keys (numbered keys): `D3`, the count `N` and the
        /// width `W` as written, then `N` ordinals of the document's key literals, each written as that literal's
        /// offset in `W` bytes, little-endian (Docs/FORMAT.md §3). Throws for a table that is not `D3`, of a width
        /// outside 1…8, whose size is not `size`, or an ordinal past the literals or an offset wider than `W`.
        private mutating func writeKeyTable(of size: Int, into output: UnsafeMutableRawPointer)
            throws(FirePackError)
        {
            let start = keyCursor
            func refused(_ reason: String, at offset: Int) -> FirePackError {
                FirePackError(.badKeyTable, offset: offset, "document \(documentNumber)'s key table: \(reason)")
            }
            guard start < keysEnd, base.load(fromByteOffset: start, as: UInt8.self) == 0xD3 else {
                throw refused("no D3 where its \(size) bytes after the root value belong", at: start)
            }
            let (count, afterCount) = try Varint.get(base, at: start + 1, limit: keysEnd)
            guard afterCount < keysEnd else { throw FirePackError(.truncated, offset: afterCount, "no width") }
            let width = Int(base.load(fromByteOffset: afterCount, as: UInt8.self))
            let header = afterCount + 1 - start
            guard (1...8).contains(width) else { throw refused("a width of \(width)", at: afterCount) }
            guard count <= (size - header) / width, header + count * width == size else {
                throw refused("\(count) entries of \(width) bytes where the document has \(size) bytes", at: start)
            }
            output.copyMemory(from: base + start, byteCount: header)
            var cursor = afterCount + 1
            for entry in 0..<count {
                let (ordinal, next) = try Varint.get(base, at: cursor, limit: keysEnd)
                guard ordinal < literals.count else {
                    throw refused("literal \(ordinal) of \(literals.count)", at: cursor)
                }
                let offset = UInt64(literals[ordinal])
                guard width == 8 || offset >> UInt64(8 * width) == 0 else {
                    throw refused("offset \(offset) in \(width) bytes", at: cursor)
                }
                withUnsafeBytes(of: offset.littleEndian) { bytes in
                    (output + header + entry * width).copyMemory(from: bytes.baseAddress!, byteCount: width)
                }
                cursor = next
            }
            keyCursor = cursor
        }

        /// Checks that the keys and every column were used to their last byte.
        func finish() throws(FirePackError) {
            guard keyCursor == keysEnd else {
                throw FirePackError(
                    .trailingBytes, offset: keyCursor, "\(keysEnd - keyCursor) bytes of keys no document uses")
            }
            guard openedColumns == columnCount else {
                throw FirePackError(
                    .trailingBytes, offset: columns[openedColumns - 1].end,
                    "\(columnCount - openedColumns) of the block's \(columnCount) columns belong to no path")
            }
            for column in 0..<columnCount where columns[column].cursor != columns[column].end {
                throw FirePackError(
                    .trailingBytes, offset: columns[column].cursor,
                    "column \(column) holds \(columns[column].end - columns[column].cursor) bytes no document uses")
            }
        }

        /// Walks the root value of a document of `length` bytes as `pass` says, and returns its size; nil when
        /// moving bodies passed its budget (the document then starts over in two passes).
        private mutating func walk(_ pass: Pass, length: Int, into output: UnsafeMutableRawPointer)
            throws(FirePackError)
            -> Int?
        {
            paths.startDocument()
            stack.removeAll()
            literals.removeAll(keepingCapacity: true)
            var size = 0
            var sizeIndex = 0
            var movedBytes = 0
            let movingBudget = 8 * length
            var path: Int32 = 0
            walk: while true {
                let column = Int(path)
                if column == openedColumns {
                    guard column < columnCount else {
                        throw FirePackError(
                            .lengthMismatch, offset: keyCursor,
                            "document \(documentNumber) has more paths than the block's \(columnCount) columns")
                    }
                    openColumn()
                }
                if pass != .writing && columns[column].mark != documentNumber {
                    columns[column].mark = documentNumber
                    columns[column].start = columns[column].cursor
                    BlockColumns.append(column, to: &moved, count: movedCount, capacity: &movedCapacity)
                    movedCount += 1
                }
                let position = columns[column].cursor
                let end = columns[column].end
                guard position < end else {
                    throw FirePackError(
                        .truncated, offset: position,
                        "column \(column) ends before document \(documentNumber)'s value")
                }
                let tag = base.load(fromByteOffset: position, as: UInt8.self)
                if isContainer(tag) {
                    var elements = Int(tag & 0x0F)
                    var headerEnd = position + 1
                    if tag == 0xD0 || tag == 0xD1 {
                        (elements, headerEnd) = try Varint.get(base, at: position + 1, limit: end)
                    }
                    columns[column].cursor = headerEnd
                    guard stack.count < ReaderLimits.maximumDepth else {
                        throw FirePackError(
                            .depthLimitExceeded, offset: position,
                            "document \(documentNumber) nests deeper than \(ReaderLimits.maximumDepth)")
                    }
                    let isMap = tag >= 0xB0 && tag != 0xD0
                    let counted = headerEnd - position - 1
                    switch pass {
                    case .moving:
                        // Tag, a byte kept for the length (just before the body: `end` - 1), the count.
                        guard size + 2 + counted <= length else { throw longer(than: length, at: position) }
                        output.storeBytes(of: tag, toByteOffset: size, as: UInt8.self)
                        stack.push(
                            Open(
                                remaining: elements, isMap: isMap, path: path, end: size + 2, sizeIndex: 0,
                                literalStart: literals.count))
                        size += 2
                    case .measuring:
                        // A container takes two bytes of the document at least (tag and length).
                        guard sizes.count < length / 2 else {
                            throw FirePackError(
                                .lengthMismatch, offset: position,
                                "document \(documentNumber) has more containers than its \(length) bytes hold")
                        }
                        size += 1
                        stack.push(
                            Open(remaining: elements, isMap: isMap, path: path, end: size, sizeIndex: sizes.count))
                        sizes.append(0)
                    case .writing:
                        let body = sizes[sizeIndex]
                        sizeIndex += 1
                        output.storeBytes(of: tag, toByteOffset: size, as: UInt8.self)
                        size += 1
                        size += Varint.write(UInt64(body), to: (output + size).assumingMemoryBound(to: UInt8.self))
                        stack.push(
                            Open(remaining: elements, isMap: isMap, path: path, end: size + body, sizeIndex: 0))
                    }
                    guard size + counted <= length else { throw longer(than: length, at: position) }
                    if pass != .measuring { copy(counted, from: position + 1, to: output, at: size) }
                    size += counted
                } else {
                    let next = try EncodedValue.end(in: base, at: position, limit: end)
                    guard size + next - position <= length else { throw longer(than: length, at: position) }
                    if pass != .measuring { copy(next - position, from: position, to: output, at: size) }
                    columns[column].cursor = next
                    size += next - position
                }
                while !stack.isEmpty {
                    let open = stack.innermost.pointee
                    if open.remaining == 0 {
                        stack.pop()
                        switch pass {
                        case .moving:
                            let body = size - open.end
                            if body < 0x80 {
                                output.storeBytes(of: UInt8(body), toByteOffset: open.end - 1, as: UInt8.self)
                                continue
                            }
                            let extra = Varint.encodedSize(UInt64(body)) - 1
                            movedBytes += body
                            guard movedBytes <= movingBudget else { return nil }
                            guard size + extra <= length else { throw longer(than: length, at: keyCursor) }
                            (output + open.end + extra).copyMemory(from: output + open.end, byteCount: body)
                            _ = Varint.write(
                                UInt64(body), to: (output + open.end - 1).assumingMemoryBound(to: UInt8.self))
                            size += extra
                            // The literals in the body moved with it (at most the bytes moved: within the budget).
                            for literal in open.literalStart..<literals.count { literals[literal] += extra }
                        case .measuring:
                            let body = size - open.end
                            sizes[open.sizeIndex] = body
                            size += Varint.encodedSize(UInt64(body))
                            guard size <= length else { throw longer(than: length, at: keyCursor) }
                        case .writing:
                            break
                        }
                        continue
                    }
                    stack.innermost.pointee.remaining -= 1
                    if open.isMap {
                        // The key: numbered (a path met before, or 0 and the key as written), or as written.
                        let entry = keyCursor
                        let keyStart: Int
                        let (number, afterNumber) =
                            numberedKeys ? try Varint.get(base, at: keyCursor, limit: keysEnd) : (0, keyCursor)
                        if number != 0 {
                            guard number <= keyStarts.count, keyStarts[number - 1] >= 0,
                                paths.parent(of: Int32(number - 1)) == open.path
                            else {
                                throw FirePackError(
                                    .badKeyReference, offset: entry,
                                    "key number \(number) names no key met before in a map of this path")
                            }
                            path = Int32(number - 1)
                            keyStart = keyStarts[number - 1]
                            keyCursor = afterNumber
                        } else {
                            keyStart = afterNumber
                            path = try child(of: open.path, keyAt: keyStart)
                            if numberedKeys && Int(path) == keyStarts.count { keyStarts.append(keyStart) }
                            keyCursor = keyStart + paths.keyLength(of: path)
                        }
                        let keyLength = paths.keyLength(of: path)
                        guard size + keyLength <= length else { throw longer(than: length, at: entry) }
                        if pass != .measuring {
                            copy(keyLength, from: keyStart, to: output, at: size)
                            // A literal's header is even: its first byte's lowest bit is the value's.
                            if recordsLiterals && base.load(fromByteOffset: keyStart, as: UInt8.self) & 1 == 0 {
                                literals.append(size)
                            }
                        }
                        size += keyLength
                    } else {
                        path = paths.child(of: open.path, key: nil)
                        if numberedKeys && Int(path) == keyStarts.count { keyStarts.append(-1) }
                    }
                    continue walk
                }
                return size
            }
        }

        /// The path of `parent`'s entry whose key, as written, starts at `start` in the keys (numbered keys: after
        /// a 0), numbering it next when it is new. Throws when the key is cut.
        private mutating func child(of parent: Int32, keyAt start: Int) throws(FirePackError) -> Int32 {
            let (header, afterHeader) = try Varint.get(base, at: start, limit: keysEnd)
            let literal = header & 1 == 0 ? header >> 1 : 0
            guard literal <= keysEnd - afterHeader else {
                throw FirePackError(
                    .lengthOutOfBounds, offset: start, "a key of \(literal) bytes reaches past the keys")
            }
            return paths.child(
                of: parent, key: UnsafeRawBufferPointer(start: base + start, count: afterHeader + literal - start),
                wordLoadable: start + 8 <= storedCount)
        }

        /// Copies `count` bytes from `source` in the stored bytes to `output + offset`: a short run (16 bytes at
        /// most, most values and keys) as two words with no call when 16 bytes may be read there and written here,
        /// the bytes written past the run being scratch (`room`).
        @inline(__always)
        private func copy(_ count: Int, from source: Int, to output: UnsafeMutableRawPointer, at offset: Int) {
            if count <= 16 && source &+ 16 <= storedCount && offset &+ 16 <= room {
                let low = base.loadUnaligned(fromByteOffset: source, as: UInt64.self)
                let high = base.loadUnaligned(fromByteOffset: source &+ 8, as: UInt64.self)
                (output + offset).storeBytes(of: low, as: UInt64.self)
                (output + (offset &+ 8)).storeBytes(of: high, as: UInt64.self)
            } else {
                (output + offset).copyMemory(from: base + source, byteCount: count)
            }
        }

        private func longer(than length: Int, at offset: Int) -> FirePackError {
            FirePackError(
                .lengthMismatch, offset: offset,
                "document \(documentNumber)'s root value is longer than its \(length) bytes")
        }
    }
}

/// `documents` as a closed version-3 stream whose blocks (closed at `blockSize` bytes) hold their data in the columns
/// form stored as it is (codec byte `30`, or `10` with the keys as written, which FirePack's writer no longer
/// writes), whatever it saves: fuzzing seeds whose mutations reach the rebuilding of rows with no compressor in front.
@_spi(Fuzzing)
public func columnsStreamBytes(_ documents: [Document], blockSize: Int = 4096, numberedKeys: Bool = true) throws
    -> [UInt8]
{
    let sink = MemorySink()
    let writer = try DocumentStreamWriter(sink: sink, codec: .none, blockSize: blockSize)
    writer.blockLayout = numberedKeys ? .columns : .columnsWithKeysAsWritten
    for document in documents { try writer.append(document) }
    try writer.close()
    return sink.bytes
}
