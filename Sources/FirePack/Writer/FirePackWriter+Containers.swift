extension FirePackWriter {
    /// Opens an array; write its elements, then call `endArray()`.
    public func beginArray() {
        beginContainer(isMap: false)
    }

    /// Closes the innermost open array, writing its header.
    public func endArray() {
        endContainer(isMap: false)
    }

    /// Opens a map; write `writeKey(_:)` and a value for each entry, then call `endMap()`.
    public func beginMap() {
        beginContainer(isMap: true)
    }

    /// Closes the innermost open map, writing its header.
    public func endMap() {
        precondition(depth > 0 && top.expectingKey, "endMap() after a key with no value")
        endContainer(isMap: true)
    }

    /// Writes the key of the next map entry, as a literal or, when it repeats, as a key reference.
    ///
    /// Returns false, writing nothing, when the key was already written in this map (a map never holds a key
    /// twice); the caller then writes no value for it.
    @discardableResult
    public func writeKey(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { writeKey(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Writes the key of the next map entry from bytes the caller guarantees are valid UTF-8; returns false,
    /// writing nothing, when the key was already written in this map.
    @discardableResult
    public func writeKey(utf8 key: UnsafeRawBufferPointer) -> Bool {
        precondition(depth > 0 && top.isMap && top.expectingKey, "writeKey(_:) outside a map or twice in a row")
        let length = key.count
        let literalHeader = UInt64(length) << 1
        let literalSize = Varint.encodedSize(literalHeader) + length
        reserve(10 + length)
        if length > 0 {
            // Every key goes through the table: it finds repeats for references and duplicates within this map.
            let hash = WriterKeyTable.hash(key)
            let (found, slot) = keys.find(key, hash: hash, in: storage)
            if let entry = found {
                if isRepeatInThisMap(entry: entry) { return false }
                keys.entries[entry].lastMap = top.serial
                openMapKeys.append(Int32(entry))
                let assigned = keys.entries[entry].referenceIndex
                let index = assigned >= 0 ? Int(assigned) : keys.referenceCount
                let referenceHeader = UInt64(index) << 1 | 1
                if options.keyReferences && Varint.encodedSize(referenceHeader) < literalSize {
                    if assigned < 0 { keys.assignReference(toEntry: entry) }
                    writerIndex &+= Varint.write(referenceHeader, to: storage + writerIndex)
                    top.expectingKey = false
                    return true
                }
            } else {
                keys.insert(headerPosition: writerIndex, length: length, hash: hash, slot: slot, map: top.serial)
                openMapKeys.append(Int32(keys.entries.count - 1))
            }
        } else {
            if top.hasEmptyKey { return false }
            top.hasEmptyKey = true
        }
        top.expectingKey = false
        writerIndex &+= Varint.write(literalHeader, to: storage + writerIndex)
        appendRaw(key)
        return true
    }

    /// Writes the key of the next map entry as a literal, past the key table: for keys known to be unique in their map
    /// (a `MapValue`'s) when the writer makes no key references, so the table has nothing to find.
    func writeLiteralKey(_ key: String) {
        precondition(depth > 0 && top.isMap && top.expectingKey, "writeKey(_:) outside a map or twice in a row")
        var key = key
        key.withUTF8 { key in
            let header = UInt64(key.count) << 1
            reserve(10 + key.count)
            top.expectingKey = false
            if key.isEmpty { top.hasEmptyKey = true }
            writerIndex &+= Varint.write(header, to: storage + writerIndex)
            appendRaw(UnsafeRawBufferPointer(key))
        }
    }

    /// Whether the key of `entry` was already written in the innermost open map.
    ///
    /// Maps are numbered as they begin, so a key last written in a map numbered below this one was not written in
    /// this one, and one last written in this very map was. Only a key last written in a map nested inside this one
    /// needs a look at this map's own key list.
    @inline(__always)
    func isRepeatInThisMap(entry: Int) -> Bool {
        let last = keys.entries[entry].lastMap
        if last < top.serial { return false }
        if last == top.serial { return true }
        return openMapKeys[top.keysStart...].contains(Int32(entry))
    }

    func beginContainer(isMap: Bool) {
        willWriteValue()
        if depth > 0 { outerFrames.append(top) }
        depth += 1
        reserve(Tag.reservedContainerHeader)
        if isMap { mapSerial &+= 1 }
        top = ContainerFrame(headerStart: writerIndex, count: 0, isMap: isMap, expectingKey: isMap, serial: mapSerial,
                             hasEmptyKey: false, keysStart: openMapKeys.count)
        writerIndex &+= Tag.reservedContainerHeader
    }

    /// Writes the container's header into the two bytes reserved for it, first moving the body when the header
    /// needs more (a body of 128 bytes or more, or more than 15 elements).
    func endContainer(isMap: Bool) {
        precondition(depth > 0 && top.isMap == isMap, isMap ? "endMap() without beginMap()" : "endArray() without beginArray()")
        let bodyStart = top.headerStart + Tag.reservedContainerHeader
        let bodyLength = writerIndex - bodyStart
        let count = top.count
        let fixed = count <= Tag.fixContainerMaxCount
        let lengthField = fixed ? bodyLength : Varint.encodedSize(count) + bodyLength
        let headerSize = 1 + Varint.encodedSize(lengthField) + (fixed ? 0 : Varint.encodedSize(count))
        let extra = headerSize - Tag.reservedContainerHeader
        if extra > 0 {
            reserve(extra)
            (storage + bodyStart + extra).update(from: storage + bodyStart, count: bodyLength)
            writerIndex &+= extra
            keys.shift(from: bodyStart, by: extra)
        }
        var out = storage + top.headerStart
        if fixed {
            out[0] = (isMap ? Tag.fixMapBase : Tag.fixArrayBase) | UInt8(count)
            _ = Varint.write(UInt64(lengthField), to: out + 1)
        } else {
            out[0] = isMap ? Tag.map : Tag.array
            out += 1
            out += Varint.write(UInt64(lengthField), to: out)
            _ = Varint.write(UInt64(count), to: out)
        }
        if isMap { openMapKeys.removeSubrange(top.keysStart...) }
        depth -= 1
        if depth > 0 { top = outerFrames.removeLast() }
        didWriteValue()
    }

    /// Appends `D3 N W offsets…` for the root value just completed.
    func writeKeyTable() {
        let count = keys.referenceCount
        var largest = 0
        for entry in keys.references { largest = max(largest, keys.entries[Int(entry)].headerPosition - rootStart) }
        let width = max(1, (64 - UInt64(largest).leadingZeroBitCount + 7) / 8)
        reserve(12 + count * width)
        storage[writerIndex] = Tag.keyTable
        writerIndex &+= 1
        writerIndex &+= Varint.write(UInt64(count), to: storage + writerIndex)
        storage[writerIndex] = UInt8(width)
        writerIndex &+= 1
        for entry in keys.references {
            var offset = UInt64(keys.entries[Int(entry)].headerPosition - rootStart)
            for byte in 0..<width {
                storage[writerIndex + byte] = UInt8(truncatingIfNeeded: offset)
                offset >>= 8
            }
            writerIndex &+= width
        }
    }
}
