@_spi(Wire) import FirePack

extension BlockColumns {
    /// The columns form of `data` (see `ColumnSplitter.split`), in an array of its own.
    static func split(
        _ data: UnsafeRawBufferPointer, count: Int, documents: Int, valuesPerColumn: Int = valuesPerColumn,
        numbersKeys: Bool = true
    ) -> [UInt8]? {
        let splitter = ColumnSplitter()
        guard
            splitter.split(
                data, count: count, documents: documents, valuesPerColumn: valuesPerColumn, numbersKeys: numbersKeys)
        else {
            return nil
        }
        return splitter.columns
    }
}

/// Splits blocks into the columns form (Docs/FORMAT.md §8, "Columns"), keeping its buffers from block to block (a
/// writer's blocks are alike, and fresh megabytes each block cost page faults). One thread at a time.
final class ColumnSplitter {
    private var buffers = BlockColumns.ColumnBuffers()
    private var paths = ColumnPaths()
    private var stack = BlockColumns.OpenStack()
    /// The columns form of the block last split.
    private(set) var columns: [UInt8] = []
    /// Where the parts of `columns` end, in order: the lengths, directory and keys, then each column, a part of
    /// less than `minimumPart` bytes joined to the next. A compressor gives each part entropy tables of its own
    /// (`BlockCodec.compress(_:into:partEnds:)`).
    private(set) var partEnds: [Int] = []
    /// The smallest part worth tables of its own: each costs a few bytes of headers and tables, which columns of a
    /// few values do not win back (the events of `scripts/measure/stream-sizes.py` came out the same size with parts
    /// of 1 KiB at least as with a part per column; a tiny block, larger).
    static let minimumPart = 1024

    deinit {
        buffers.deallocate()
        stack.deallocate()
    }

    /// Puts into `columns` the columns form of `data`, a block's data in the row form (`count` documents of
    /// `documents` bytes in all, then their lengths), its keys numbered (`numbersKeys`) or as written, and returns
    /// true; or returns false when the rows are better
    /// kept: the block has more than one path per `valuesPerColumn` values, or a document is not laid out as a writer lays it out (a container
    /// length that is not its body's, or not a minimal varint), which the columns could not give back byte for byte.
    ///
    /// One walk copies each value (a container: its tag and count) to the end of its column's buffer and each key to
    /// the keys'; then the buffers are put one after another.
    func split(
        _ data: UnsafeRawBufferPointer, count: Int, documents: Int,
        valuesPerColumn: Int = BlockColumns.valuesPerColumn, numbersKeys: Bool = true
    ) -> Bool {
        guard let base = data.baseAddress, count > 0 else { return false }
        // The walk works on locals (a class's stored properties would each be checked for exclusive access at
        // every use), handed back at the end.
        var buffers = self.buffers
        var stack = self.stack
        var paths = ColumnPaths.empty
        swap(&paths, &self.paths)
        defer {
            self.buffers = buffers
            self.stack = stack
            swap(&paths, &self.paths)
        }
        buffers.reset()
        paths.reset()
        stack.removeAll()
        var values = 0
        var lengthAt = documents
        var start = 0
        // Numbered keys: where the document's key literals start, in the order met (increasing), for its key table.
        var literals: [Int] = []
        do throws(FirePackError) {
            for _ in 0..<count {
                let (length, next) = try Varint.get(base, at: lengthAt, limit: data.count)
                lengthAt = next
                guard length <= documents - start else { return false }
                let end = start + length
                paths.startDocument()
                literals.removeAll(keepingCapacity: true)
                var position = start
                var path: Int32 = 0
                var limit = end
                walk: while true {
                    values += 1
                    guard position < limit else { return false }
                    let tag = base.load(fromByteOffset: position, as: UInt8.self)
                    if BlockColumns.isContainer(tag) {
                        let (body, bodyStart) = try Varint.get(base, at: position + 1, limit: limit)
                        guard bodyStart - position - 1 == Varint.encodedSize(UInt64(body)), body <= limit - bodyStart
                        else { return false }
                        var elements = Int(tag & 0x0F)
                        var first = bodyStart
                        if tag == 0xD0 || tag == 0xD1 {
                            (elements, first) = try Varint.get(base, at: bodyStart, limit: bodyStart + body)
                            buffers.append(column: path, base + position, 1)
                            buffers.append(column: path, base + bodyStart, first - bodyStart)
                        } else {
                            buffers.append(column: path, tag)
                        }
                        stack.push(
                            BlockColumns.Open(
                                remaining: elements, isMap: tag >= 0xB0 && tag != 0xD0, path: path,
                                end: bodyStart + body, sizeIndex: 0))
                        position = first
                        limit = bodyStart + body
                    } else {
                        let next = try EncodedValue.end(in: base, at: position, limit: limit)
                        if next == position + 1 {
                            buffers.append(column: path, tag)
                        } else {
                            buffers.append(
                                column: path, base + position, next - position,
                                readable: data.count - position)
                        }
                        position = next
                    }
                    while !stack.isEmpty {
                        let top = stack.innermost
                        if top.pointee.remaining == 0 {
                            guard position == top.pointee.end else { return false }
                            stack.pop()
                            limit = stack.innermostEnd(or: end)
                            continue
                        }
                        top.pointee.remaining -= 1
                        let parent = top.pointee.path
                        if top.pointee.isMap {
                            let (header, afterHeader) = try Varint.get(base, at: position, limit: limit)
                            let keyEnd = header & 1 == 0 ? afterHeader + header >> 1 : afterHeader
                            guard keyEnd <= limit else { return false }
                            path = paths.child(
                                of: parent,
                                key: UnsafeRawBufferPointer(start: base + position, count: keyEnd - position),
                                wordLoadable: position + 8 <= data.count)
                            if header & 1 == 0 { literals.append(position - start) }
                            if !numbersKeys {
                                buffers.appendKey(base + position, keyEnd - position, readable: data.count - position)
                            } else if Int(path) == buffers.columnCount {
                                // A path met for the first time: 0, then its key as written.
                                buffers.keys.append(0)
                                buffers.appendKey(base + position, keyEnd - position, readable: data.count - position)
                            } else {
                                buffers.appendKeyNumber(Int(path) + 1)
                            }
                            position = keyEnd
                        } else {
                            path = paths.child(of: parent, key: nil)
                        }
                        if Int(path) == buffers.columnCount { buffers.addColumn() }
                        continue walk
                    }
                    break
                }
                // The bytes after the root value: its key table (numbered keys: by ordinals of its literals).
                if end > position && numbersKeys {
                    guard appendKeyTable(base, from: position, to: end, literals: literals, into: &buffers) else {
                        return false
                    }
                } else if end > position {
                    buffers.appendKey(base + position, end - position, readable: 0)
                }
                start = end
            }
        } catch {
            return false
        }
        guard start == documents, lengthAt == data.count, buffers.columnCount * valuesPerColumn <= values else {
            return false
        }
        var columns: [UInt8] = []
        swap(&columns, &self.columns)
        defer { swap(&columns, &self.columns) }
        columns.removeAll(keepingCapacity: true)
        columns.append(contentsOf: UnsafeRawBufferPointer(rebasing: data[documents...]))
        BlockColumns.appendVarint(buffers.columnCount, to: &columns)
        for column in 0..<buffers.columnCount { BlockColumns.appendVarint(buffers.columns[column].count, to: &columns) }
        columns.append(contentsOf: buffers.keys.bytes)
        partEnds.removeAll(keepingCapacity: true)
        var partStart = 0
        for column in -1..<buffers.columnCount {
            if column >= 0 { columns.append(contentsOf: buffers.columns[column].bytes) }
            if columns.count - partStart >= Self.minimumPart || column == buffers.columnCount - 1 {
                partEnds.append(columns.count)
                partStart = columns.count
            }
        }
        return true
    }
}

extension ColumnSplitter {
    /// Appends to the keys the key table at `base[start..<end]` with each entry's offset given as the ordinal of the
    /// literal it points at in `literals` (a document's key literals, increasing); false when the bytes are not a
    /// table whose entries all point at one of them (nothing a writer writes).
    fileprivate func appendKeyTable(
        _ base: UnsafeRawPointer, from start: Int, to end: Int, literals: [Int],
        into buffers: inout BlockColumns.ColumnBuffers
    ) -> Bool {
        guard base.load(fromByteOffset: start, as: UInt8.self) == 0xD3,
            let (count, afterCount) = try? Varint.get(base, at: start + 1, limit: end), afterCount < end
        else { return false }
        let width = Int(base.load(fromByteOffset: afterCount, as: UInt8.self))
        guard (1...8).contains(width), count <= (end - afterCount - 1) / width,
            afterCount + 1 + count * width == end
        else { return false }
        buffers.appendKey(base + start, afterCount + 1 - start, readable: 0)
        for entry in 0..<count {
            var offset: UInt64 = 0
            for byte in 0..<width {
                let value = base.load(fromByteOffset: afterCount + 1 + entry * width + byte, as: UInt8.self)
                offset |= UInt64(value) << UInt64(8 * byte)
            }
            guard let offset = Int(exactly: offset), let ordinal = Self.index(of: offset, in: literals) else {
                return false
            }
            buffers.appendKeyNumber(ordinal)
        }
        return true
    }

    /// The index of `value` in `sorted`, increasing, or nil.
    private static func index(of value: Int, in sorted: [Int]) -> Int? {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low < sorted.count && sorted[low] == value ? low : nil
    }
}

extension BlockColumns {
    /// Growable byte buffers, one per column and one for the keys, that `split` appends to without an array's
    /// uniqueness checks; released by `deallocate()`.
    struct ColumnBuffers {
        struct Buffer {
            var base: UnsafeMutableRawPointer
            var count = 0
            var capacity: Int

            init(capacity: Int) {
                self.capacity = max(capacity, 64)
                base = .allocate(byteCount: self.capacity, alignment: 8)
            }

            var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

            /// Appends `byteCount` bytes from `source`, of which `readable` bytes may be read: a short run (16 bytes
            /// at most, with 16 readable) is copied as two words with no call, the buffer keeping 16 bytes of room
            /// past its count for them.
            @inline(__always)
            mutating func append(_ source: UnsafeRawPointer, _ byteCount: Int, readable: Int = 0) {
                if count + byteCount + 16 > capacity { grow(to: count + byteCount + 16) }
                if byteCount <= 16 && readable >= 16 {
                    let low = source.loadUnaligned(as: UInt64.self)
                    let high = source.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
                    (base + count).storeBytes(of: low, as: UInt64.self)
                    (base + count + 8).storeBytes(of: high, as: UInt64.self)
                } else {
                    (base + count).copyMemory(from: source, byteCount: byteCount)
                }
                count += byteCount
            }

            @inline(__always)
            mutating func append(_ byte: UInt8) {
                if count == capacity { grow(to: count + 1) }
                base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
                count += 1
            }

            mutating func grow(to needed: Int) {
                let grown = UnsafeMutableRawPointer.allocate(byteCount: max(needed, 2 * capacity), alignment: 8)
                grown.copyMemory(from: base, byteCount: count)
                base.deallocate()
                base = grown
                capacity = max(needed, 2 * capacity)
            }
        }

        var keys = Buffer(capacity: 1 << 16)
        var columns: UnsafeMutablePointer<Buffer>
        var columnCount = 1
        /// Buffers made so far (kept for the next block), at most `columnCapacity`.
        var madeCount = 1
        var columnCapacity = 64

        init() {
            columns = .allocate(capacity: columnCapacity)
            columns.initialize(to: Buffer(capacity: 256))
        }

        /// Empties every buffer, keeping them, for the next block.
        mutating func reset() {
            keys.count = 0
            for column in 0..<madeCount { columns[column].count = 0 }
            columnCount = 1
        }

        @inline(__always)
        mutating func append(column: Int32, _ source: UnsafeRawPointer, _ byteCount: Int, readable: Int = 0) {
            columns[Int(column)].append(source, byteCount, readable: readable)
        }

        @inline(__always)
        mutating func append(column: Int32, _ byte: UInt8) { columns[Int(column)].append(byte) }

        @inline(__always)
        mutating func appendKey(_ source: UnsafeRawPointer, _ byteCount: Int, readable: Int) {
            keys.append(source, byteCount, readable: readable)
        }

        /// Appends `number` to the keys as a varint (a key given by its path's number).
        @inline(__always)
        mutating func appendKeyNumber(_ number: Int) {
            if keys.count + 10 + 16 > keys.capacity { keys.grow(to: keys.count + 10 + 16) }
            keys.count += Varint.write(UInt64(number), to: (keys.base + keys.count).assumingMemoryBound(to: UInt8.self))
        }

        /// A buffer for the next column.
        mutating func addColumn() {
            if columnCount == madeCount {
                BlockColumns.append(Buffer(capacity: 256), to: &columns, count: madeCount, capacity: &columnCapacity)
                madeCount += 1
            }
            columnCount += 1
        }

        func deallocate() {
            keys.base.deallocate()
            for column in 0..<madeCount { columns[column].base.deallocate() }
            columns.deallocate()
        }
    }
}
