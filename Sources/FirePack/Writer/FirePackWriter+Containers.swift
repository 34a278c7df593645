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
        key.withUTF8Bytes { writeKey(utf8: $0) }
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
        if length > 0 && checksKeysInPlace {
            guard noteKeyInPlace(key, at: writerIndex + Varint.encodedSize(literalHeader)) else { return false }
        } else if length > 0 {
            if state.keysInPlace { moveOpenKeysToTable() }  // this map reached `keysCheckedInPlace`
            // The table finds repeats for references and duplicates within this map.
            let (found, slot, hash) = keys.find(key, in: storage)
            if let entry = found {
                let (isNew, wroteReference) = noteRepeatedKey(entry, length: length, literalSize: literalSize)
                if !isNew || wroteReference { return isNew }
            } else {
                keys.insert(headerPosition: writerIndex, length: length, hash: hash, slot: slot, map: top.serial)
                openMapKeys.append(OpenMapKey(entry: Int32(keys.entries.count - 1), previousMap: 0))
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

    /// `writeKey(utf8:)` for a key that the key table holds as `entry` (`lastKeyEntry` after this root value wrote
    /// the same bytes): the same bytes and answer, without hashing and comparing the key again. A copy of a key that
    /// references repeat (`write(_: ValueView)`) so costs its length once, not once per reference.
    func writeKey(utf8 key: UnsafeRawBufferPointer, tableEntry entry: Int) -> Bool {
        precondition(depth > 0 && top.isMap && top.expectingKey, "writeKey(_:) outside a map or twice in a row")
        guard !state.keysInPlace, key.count > 0 else { return writeKey(utf8: key) }
        let literalHeader = UInt64(key.count) << 1
        reserve(10 + key.count)
        let (isNew, wroteReference) = noteRepeatedKey(
            entry, length: key.count, literalSize: Varint.encodedSize(literalHeader) + key.count)
        if !isNew || wroteReference { return isNew }
        top.expectingKey = false
        writerIndex &+= Varint.write(literalHeader, to: storage + writerIndex)
        appendRaw(key)
        return true
    }

    /// A key the key table holds as `entry`, about to be written in the innermost map: `isNew` false when the map
    /// has it already (nothing written); else it is noted as this map's, and when a reference is shorter than its
    /// literal (`literalSize` bytes, header included) and the key (`length` bytes) may be referenced
    /// (`referencesKey(ofLength:)`), the reference is written (`wroteReference`), else the caller writes the literal.
    @inline(__always)
    private func noteRepeatedKey(_ entry: Int, length: Int, literalSize: Int) -> (isNew: Bool, wroteReference: Bool) {
        if keys.entries[entry].lastMap == top.serial { return (false, false) }  // written in this map already
        openMapKeys.append(OpenMapKey(entry: Int32(entry), previousMap: keys.entries[entry].lastMap))
        keys.entries[entry].lastMap = top.serial
        let assigned = keys.entries[entry].referenceIndex
        let index = assigned >= 0 ? Int(assigned) : keys.referenceCount
        let referenceHeader = UInt64(index) << 1 | 1
        guard
            options.keyReferences && referencesKey(ofLength: length)
                && Varint.encodedSize(referenceHeader) < literalSize
        else { return (true, false) }
        if assigned < 0 { keys.assignReference(toEntry: entry) }
        writerIndex &+= Varint.write(referenceHeader, to: storage + writerIndex)
        top.expectingKey = false
        return (true, true)
    }

    /// Whether a repeat of a key of `length` bytes may be a reference (Docs/FORMAT.md §3): a key of up to
    /// `KeyReferenceBudget.longKey` bytes always; a longer one only when it is at most twice the readers'
    /// `maxKeyExpansion`. Each reference and its value take two bytes of the root value at least, so references to
    /// such keys stand for at most `maxKeyExpansion` times the value, and readers with these limits accept them; a key
    /// past that is written out each time. Under the default limits: keys of up to 32 bytes.
    @inline(__always)
    func referencesKey(ofLength length: Int) -> Bool {
        length <= KeyReferenceBudget.longKey || (length + 1) / 2 <= options.limits.maxKeyExpansion
    }

    /// The key-table entry of the key just written by `writeKey(utf8:)`, when the root value's keys are checked in
    /// the table; nil while they are checked in place. After the empty key (never in the table) it is the entry of
    /// the key before it: callers ask after keys that are not empty.
    var lastKeyEntry: Int? {
        guard !state.keysInPlace, openMapKeys.count > 0 else { return nil }
        return Int(openMapKeys[openMapKeys.count - 1].entry)
    }

    /// Writes the key of the next map entry as a literal, past the key table: for keys known to be unique in their map
    /// (a `MapValue`'s) when the writer makes no key references, so the table has nothing to find.
    func writeLiteralKey(_ key: String) {
        precondition(depth > 0 && top.isMap && top.expectingKey, "writeKey(_:) outside a map or twice in a row")
        key.withUTF8Bytes { key in
            let header = UInt64(key.count) << 1
            reserve(10 + key.count)
            top.expectingKey = false
            if key.isEmpty { top.hasEmptyKey = true }
            writerIndex &+= Varint.write(header, to: storage + writerIndex)
            appendRaw(key)
        }
    }

    func beginContainer(isMap: Bool) {
        willWriteValue()
        if depth > 0 { outerFrames.append(top) }
        depth += 1
        if depth > options.limits.maxDepth {
            noteLimitViolation(
                .depthLimitExceeded, at: writerIndex,
                "containers nested \(depth) deep, past the limit of \(options.limits.maxDepth)")
        }
        reserve(Tag.reservedContainerHeader)
        if isMap { mapSerial &+= 1 }
        top = ContainerFrame(
            headerStart: writerIndex, count: 0, isMap: isMap, expectingKey: isMap, serial: mapSerial,
            hasEmptyKey: false, keysStart: nextKeysStart, keyFilter: 0)
        writerIndex &+= Tag.reservedContainerHeader
    }

    /// Writes the container's header into the two bytes reserved for it, first moving the body when the header
    /// needs more (a body of 128 bytes or more, or more than 15 elements).
    func endContainer(isMap: Bool, mayPack: Bool = true) {
        precondition(
            depth > 0 && top.isMap == isMap, isMap ? "endMap() without beginMap()" : "endArray() without beginArray()")
        let bodyStart = top.headerStart + Tag.reservedContainerHeader
        let bodyLength = writerIndex - bodyStart
        let count = top.count
        if count > options.limits.maxElementCount {
            noteLimitViolation(
                .limitExceeded, at: top.headerStart,
                "\(isMap ? "a map" : "an array") of \(count) elements, past the limit of \(options.limits.maxElementCount)"
            )
        }
        let fixed = count <= Tag.fixContainerMaxCount
        let lengthField = fixed ? bodyLength : Varint.encodedSize(count) + bodyLength
        let headerSize = 1 + Varint.encodedSize(lengthField) + (fixed ? 0 : Varint.encodedSize(count))
        if !isMap && count >= 2 && decimalDoubles && mayPack
            && packArray(count: count, bodyStart: bodyStart, taggedSize: headerSize + bodyLength)
        {
            depth -= 1
            if depth > 0 { top = outerFrames.removeLast() }
            didWriteValue()
            return
        }
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
        if isMap { closeMapKeys() }
        depth -= 1
        if depth > 0 { top = outerFrames.removeLast() }
        didWriteValue()
    }

    /// Gives each key of the map being closed the map it was last written in before this one.
    ///
    /// So an entry's `lastMap` is always the innermost *open* map that holds the key (maps are numbered as they
    /// begin; a closed map's number never stays behind), and "was this key written in this map already?" is one
    /// comparison, `lastMap == top.serial`, however many keys the map has or its children repeat. Without the
    /// restore, a key last written in a closed child map needed a scan of the parent's keys: quadratic for
    /// `{"k0": {"k1": 0}, "k1": {"k2": 0}, …}` (WriterTests, the hostile-keys case of HostileInputTests).
    @inline(__always)
    func closeMapKeys() {
        if state.keysInPlace {
            state.openKeyLiterals.removeLast(state.openKeyLiterals.count - top.keysStart)
            return
        }
        var index = openMapKeys.count - 1
        while index >= top.keysStart {
            let key = openMapKeys[index]
            keys.entries[Int(key.entry)].lastMap = key.previousMap
            index -= 1
        }
        openMapKeys.removeLast(openMapKeys.count - top.keysStart)
    }

    /// Appends `D3 N W offsets…` for the root value just completed.
    func writeKeyTable() {
        let count = keys.referenceCount
        var largest = 0
        for entry in keys.references.elements {
            largest = max(largest, keys.entries[Int(entry)].headerPosition - rootStart)
        }
        let width = max(1, (64 - UInt64(largest).leadingZeroBitCount + 7) / 8)
        reserve(12 + count * width)
        storage[writerIndex] = Tag.keyTable
        writerIndex &+= 1
        writerIndex &+= Varint.write(UInt64(count), to: storage + writerIndex)
        storage[writerIndex] = UInt8(width)
        writerIndex &+= 1
        for entry in keys.references.elements {
            var offset = UInt64(keys.entries[Int(entry)].headerPosition - rootStart)
            for byte in 0..<width {
                storage[writerIndex + byte] = UInt8(truncatingIfNeeded: offset)
                offset >>= 8
            }
            writerIndex &+= width
        }
    }
}

extension FirePackWriter {
    /// Leaves the value of the key just written to come later, from `insertDeferredValue(at:writing:)`, and returns
    /// its place: the map goes on with its next key. For a record whose name is known only once its fields are
    /// written (a JSON line that names its document by a member read in the same pass).
    package func deferValue() -> Int {
        precondition(depth > 0 && top.isMap && !top.expectingKey, "a deferred value follows a key")
        let position = writerIndex
        didWriteValue()
        return position
    }

    /// Writes the value deferred at `position` with `write`, which writes exactly one value without keys (a string,
    /// a reference, a scalar), and moves it into its place. `position` must lie inside the innermost open container,
    /// where everything after it is complete.
    package func insertDeferredValue(at position: Int, writing write: (FirePackWriter) -> Void) {
        precondition(
            depth > 0 && position >= top.headerStart + Tag.reservedContainerHeader && position <= writerIndex,
            "a deferred value goes back inside the innermost open container")
        let frame = top
        let keyCount = keys.entries.count + state.openKeyLiterals.count
        let start = writerIndex
        top.expectingKey = false
        write(self)
        precondition(depth > 0 && top.headerStart == frame.headerStart, "a deferred value is one value")
        precondition(keys.entries.count + state.openKeyLiterals.count == keyCount, "a deferred value has no keys")
        top = frame
        let length = writerIndex - start
        guard length > 0, start > position else { return }
        // Rotate [position, start) and [start, writerIndex): the new value's bytes go first, through spare capacity.
        reserve(length)
        let moved = storage + writerIndex
        moved.update(from: storage + start, count: length)
        (storage + position + length).update(from: storage + position, count: start - position)
        (storage + position).update(from: moved, count: length)
        keys.shift(from: position, by: length)
        shiftOpenKeyLiterals(from: position, by: length)
        if let violation = state.limitViolation, let offset = violation.offset, offset >= position - rootStart {
            state.limitViolation = FirePackError(
                violation.code, offset: offset + length, violation.message, path: violation.path)
        }
    }
}
