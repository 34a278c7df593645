// A writer without key references (`Options.keyReferences` off: the documents of version-3 stream blocks, whose
// columns number keys by path, Docs/FORMAT.md §8) still refuses a key written twice in one map, but has no repeats
// to find across maps. So it checks a map's keys against that map's own, in place: the literals of the open maps,
// innermost last, are a stack of (where, how long), and a new key is compared with its map's entries, its length
// first. A map that reaches `keysCheckedInPlace` keys moves the root value over to the key table
// (`WriterKeyTable`): every open map's literals go into it, and the rest of the root value is checked there, so a
// map of any size costs a bounded number of probes per key (the hostile-keys cases of HostileInputTests).
//
// Positions in the stack stay current: a container's body moves when it closes (its header needs more than its two
// reserved bytes), and by then its own keys leave the stack and those of its closed maps have left it; a deferred
// value moves what follows it (`shiftOpenKeyLiterals`), and a flush moves everything (`discardCompleted`).

/// A key literal in an open map, while the root value's keys are checked in place: where its bytes start in the
/// writer's buffer (after its header) and how many there are.
struct OpenKeyLiteral {
    var start: Int
    var length: Int
}

extension FirePackWriter {
    /// How many keys a map holds before the root value's keys move to the key table: comparing a key with up to this
    /// many others, their lengths first, costs less than hashing it.
    static let keysCheckedInPlace = 16

    /// Whether the key to write is checked in place (`openKeyLiterals`) rather than in the key table.
    @inline(__always)
    var checksKeysInPlace: Bool {
        state.keysInPlace && state.openKeyLiterals.count - top.keysStart < Self.keysCheckedInPlace
    }

    /// Whether `key` (not empty) was written in the innermost map already, comparing it with that map's literals;
    /// if not, notes it as written at `start` in the buffer.
    @inline(__always)
    func noteKeyInPlace(_ key: UnsafeRawBufferPointer, at start: Int) -> Bool {
        let length = key.count
        let bit = Self.keyFilterBit(key)
        if top.keyFilter & bit != 0 {
            var index = top.keysStart
            let end = state.openKeyLiterals.count
            while index < end {
                let literal = state.openKeyLiterals[index]
                if literal.length == length
                    && ByteComparison.equal(storage + literal.start, key.baseAddress!, count: length)
                {
                    return false
                }
                index += 1
            }
        }
        top.keyFilter |= bit
        state.openKeyLiterals.append(OpenKeyLiteral(start: start, length: length))
        return true
    }

    /// The bit of a map's `keyFilter` that `key` (not empty) sets: from its length and its first and last bytes.
    /// A key whose bit is not set yet was not written in the map, with no comparison; most new keys are found so.
    /// Keys chosen to share a bit cost a comparison with each of the map's at most `keysCheckedInPlace` literals.
    @inline(__always)
    static func keyFilterBit(_ key: UnsafeRawBufferPointer) -> UInt64 {
        let first = UInt64(key.load(as: UInt8.self))
        let last = UInt64(key.load(fromByteOffset: key.count - 1, as: UInt8.self))
        let mixed = (first | last << 8 | UInt64(key.count) << 16) &* 0x9E37_79B9_7F4A_7C15
        return 1 << (mixed >> 58)
    }

    /// Moves the open maps' literals into the key table, each noted in the map that holds it as `writeKey` notes it
    /// there, and checks the rest of the root value's keys in the table. Each open map's entries in `openMapKeys`
    /// start where its literals started, so the frames' `keysStart` hold.
    func moveOpenKeysToTable() {
        state.keysInPlace = false
        let literals = Array(state.openKeyLiterals.elements)
        state.openKeyLiterals.removeAll()
        var maps = outerFrames.elements.filter(\.isMap)
        if top.isMap { maps.append(top) }
        for (index, map) in maps.enumerated() {
            let end = index + 1 < maps.count ? maps[index + 1].keysStart : literals.count
            for literal in literals[map.keysStart..<end] {
                let key = UnsafeRawBufferPointer(start: storage + literal.start, count: literal.length)
                let (found, slot, hash) = keys.find(key, in: storage)
                if let entry = found {
                    openMapKeys.append(OpenMapKey(entry: Int32(entry), previousMap: keys.entries[entry].lastMap))
                    keys.entries[entry].lastMap = map.serial
                } else {
                    let headerPosition = literal.start - Varint.encodedSize(UInt64(literal.length) << 1)
                    keys.insert(
                        headerPosition: headerPosition, length: literal.length, hash: hash, slot: slot, map: map.serial)
                    openMapKeys.append(OpenMapKey(entry: Int32(keys.entries.count - 1), previousMap: 0))
                }
            }
        }
    }

    /// Where the next map's keys start: in `openMapKeys` when keys are checked in the table, else in the stack.
    @inline(__always)
    var nextKeysStart: Int {
        state.keysInPlace ? state.openKeyLiterals.count : openMapKeys.count
    }

    /// Forgets the root value's keys, wherever they are checked.
    @inline(__always)
    func resetKeys() {
        if !keys.isEmpty {
            keys.reset()
            openMapKeys.removeAll()
        }
        state.keysInPlace = !options.keyReferences
        state.openKeyLiterals.removeAll()
        if !state.longTreeKeys.isEmpty { state.longTreeKeys.removeAll(keepingCapacity: true) }
    }

    /// Moves the literals at or after `position` by `delta` bytes, as `WriterKeyTable.shift` moves the table's.
    func shiftOpenKeyLiterals(from position: Int, by delta: Int) {
        var index = state.openKeyLiterals.count - 1
        while index >= 0 && state.openKeyLiterals[index].start >= position {
            state.openKeyLiterals[index].start += delta
            index -= 1
        }
    }
}
