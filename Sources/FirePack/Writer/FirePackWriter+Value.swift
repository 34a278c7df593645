extension FirePackWriter {
    /// Writes a whole `Value` tree; in deterministic mode, map keys are sorted by their UTF-8 bytes.
    public func write(_ value: Value) {
        write(value, sortingKeys: options.deterministic)
        // A root value written: the long keys it held are not kept past it.
        if depth == 0 && !state.longTreeKeys.isEmpty { state.longTreeKeys.removeAll() }
    }

    /// Writes a whole `Value` tree, its map keys sorted by their UTF-8 bytes when `sortingKeys`.
    func write(_ value: Value, sortingKeys: Bool) {
        switch value {
        case .null: writeNull()
        case .boolean(let b): writeBoolean(b)
        case .integer(let i): writeInteger(i)
        case .double(let d): writeDouble(d)
        case .timestamp(let t): writeTimestamp(t)
        case .string(let s): writeString(s)
        case .bytes(let data): writeBytes(data)
        case .reference(let r): writeReference(r)
        case .geoPoint(let g): writeGeoPoint(g)
        case .vector(let v): writeVector(v)
        case .serverTimestamp: writeServerTimestamp()
        case .array(let elements):
            beginArray()
            for element in elements { write(element, sortingKeys: sortingKeys) }
            endArray()
        case .map(let map):
            beginMap()
            if sortingKeys {
                for position in Self.sortedPositions(of: map) {
                    writeTreeKey(map.keys[position])
                    write(map.values[position], sortingKeys: true)
                }
            } else if !options.keyReferences {
                // A map's keys are unique: without references there is nothing to look up in the key table.
                for position in map.indices {
                    writeLiteralKey(map.keys[position])
                    write(map.values[position], sortingKeys: false)
                }
            } else {
                for position in map.indices {
                    writeTreeKey(map.keys[position])
                    write(map.values[position], sortingKeys: false)
                }
            }
            endMap()
        }
    }

    /// Writes a tree's map key as `writeKey(_:)` does; a long one (past `KeyReferenceBudget.longKey` bytes) whose
    /// String this root value wrote before, as the same table entry, without hashing and comparing its bytes again
    /// (`writeKey(utf8:tableEntry:)`). A tree read from bytes shares one String per long key that references repeat
    /// (`Materializer`): written again, each repeat cost the key's length.
    @inline(__always)
    private func writeTreeKey(_ key: String) {
        key.withUTF8Bytes { bytes in
            if bytes.count > KeyReferenceBudget.longKey { writeLongTreeKey(key) } else { _ = writeKey(utf8: bytes) }
        }
    }

    @inline(never)
    private func writeLongTreeKey(_ key: String) {
        guard !state.keysInPlace,
            let address = key.utf8.withContiguousStorageIfAvailable({ UnsafeRawPointer($0.baseAddress) }) ?? nil
        else {
            writeKey(key)
            return
        }
        if let known = state.longTreeKeys[address], known.key.utf8.count == key.utf8.count {
            key.withUTF8Bytes { _ = writeKey(utf8: $0, tableEntry: known.entry) }
            return
        }
        if writeKey(key), let entry = lastKeyEntry { state.longTreeKeys[address] = (key, entry) }
    }

    /// The map's positions in ascending unsigned-byte order of their keys.
    static func sortedPositions(of map: MapValue) -> [Int] {
        map.indices.sorted { map.keys[$0].utf8Precedes(map.keys[$1]) }
    }
}

extension Value {
    /// The value's FirePack encoding (the bare form of Docs/FORMAT.md, without the file header), in format version
    /// 3 unless `formatVersion` is 1, with key references (§3) unless `keyReferences` is false (as the documents of
    /// version-3 stream blocks are written, §8).
    public func firePackBytes(deterministic: Bool = false, keyReferences: Bool = true, formatVersion: Int = 3)
        -> [UInt8]
    {
        let writer = FirePackWriter(
            options: .init(deterministic: deterministic, keyReferences: keyReferences, formatVersion: formatVersion))
        writer.write(self)
        return writer.takeBytes()
    }

    /// Calls `body` with the value written as FirePack bytes for `FirePackDecoder` to read and drop: no key
    /// references (keys are written as they come, with no key table to consult), into a buffer sized for the tree.
    /// The one decoder reads trees this way (`decode(_:from: Value)`, `Document.data(as:)`).
    package func withScratchFirePackBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let writer = FirePackWriter(options: .init(keyReferences: false))
        writer.write(self)
        return try writer.withUnsafeWrittenBytes(body)
    }
}
