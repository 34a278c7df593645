/// The paths of a block's values and the column each is stored in (Docs/FORMAT.md §8, "Columns"): column 0 holds the
/// documents themselves (the root values); a map entry's value is in the column of its map's path followed by the
/// key as written (the key's header and bytes, or a reference's header); an array's elements are in the column of
/// its path followed by "element". Columns are numbered in the order their paths first occur, so a writer and a
/// reader that meet the same keys in the same order number them alike, with nothing stored but the keys.
///
/// Lookups cost no hashing when documents repeat a shape: each path remembers the path looked up after it last time
/// (`follow`), and the next lookup checks that guess first (the parent, the key's length and first eight bytes, and
/// any bytes after them).
struct ColumnPaths {
    struct Entry {
        var parent: Int32
        /// The key's length (−1 for "element"), and where its bytes after the first eight are in `keyBytes`.
        var keyLength: Int
        var keyStart: Int
        /// The path looked up after this one, last time (−1: none yet).
        var follow: Int32 = -1
        /// The key's first eight bytes, little-endian, zero-padded.
        var prefix: UInt64
    }

    private var entries: [Entry] = [Entry(parent: -1, keyLength: -1, keyStart: 0, prefix: 0)]
    private var keyBytes: [UInt8] = []
    /// Open addressing over path numbers (−1: an empty slot), keyed by parent and the whole key; a power of two in
    /// size. A probe past `longestProbe` slots switches the table to the process's seeded `Hasher`, so that no crafted
    /// set of keys makes long chains for more than one lookup.
    private var slots = [Int32](repeating: -1, count: 64)
    private var last: Int32 = 0
    /// Whether the table hashes with the seeded `Hasher` (after keys collided under the quick hash).
    private var seeded = false

    /// A table to swap in for one in use (it allocates nothing).
    static var empty: ColumnPaths { ColumnPaths(slots: []) }

    init() {}

    private init(slots: [Int32]) { self.slots = slots }

    /// Whether the table has switched to the seeded hash.
    var isSeeded: Bool { seeded }

    /// The number of paths (and columns) so far; the root's is 0.
    var count: Int { entries.count }

    /// The path's parent (−1 for the root).
    @inline(__always)
    func parent(of path: Int32) -> Int32 { entries[Int(path)].parent }

    /// The length of the path's key as written (−1 for the root's and an element's path).
    @inline(__always)
    func keyLength(of path: Int32) -> Int { entries[Int(path)].keyLength }

    /// Forgets every path but the root's, keeping the storage, for the next block.
    mutating func reset() {
        entries.removeSubrange(1...)
        entries[0].follow = -1
        keyBytes.removeAll(keepingCapacity: true)
        for slot in slots.indices { slots[slot] = -1 }
        last = 0
        seeded = false
    }

    /// Starts a document: the next lookup is of a child of the root.
    mutating func startDocument() { last = 0 }

    /// The column of `parent`'s child under `key` (a key as written; nil for an array's element), numbering it next
    /// when it is new. `wordLoadable`: eight bytes can be read at the key's start (the caller's buffer goes on).
    @inline(__always)
    mutating func child(of parent: Int32, key: UnsafeRawBufferPointer?, wordLoadable: Bool = false) -> Int32 {
        let length = key?.count ?? -1
        let prefix = key.map { Self.prefix($0, wordLoadable: wordLoadable) } ?? 0
        let guess = entries[Int(last)].follow
        if guess >= 0 && matches(guess, parent: parent, length: length, prefix: prefix, key: key) {
            last = guess
            return guess
        }
        return lookUp(parent: parent, length: length, prefix: prefix, key: key)
    }

    /// `child(of:key:)` when the guess was wrong: the table, then a new path.
    private mutating func lookUp(parent: Int32, length: Int, prefix: UInt64, key: UnsafeRawBufferPointer?) -> Int32 {
        let hash = hash(
            parent: parent, prefix: prefix,
            rest: key.flatMap { $0.count > 8 ? UnsafeRawBufferPointer(rebasing: $0[8...]) : nil })
        let mask = slots.count - 1
        var slot = hash & mask
        var probes = 0
        while true {
            let found = slots[slot]
            if found < 0 { break }
            if matches(found, parent: parent, length: length, prefix: prefix, key: key) {
                entries[Int(last)].follow = found
                last = found
                return found
            }
            slot = (slot + 1) & mask
            probes += 1
            if probes > Self.longestProbe && !seeded {
                // Keys made to collide under the quick hash: the table is hashed again, seeded, and stays so.
                seeded = true
                rehash(size: slots.count)
                return lookUp(parent: parent, length: length, prefix: prefix, key: key)
            }
        }
        let path = Int32(entries.count)
        entries.append(Entry(parent: parent, keyLength: length, keyStart: keyBytes.count, prefix: prefix))
        if let key, key.count > 8 { keyBytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: key[8...])) }
        slots[slot] = path
        if entries.count * 2 > slots.count { grow() }
        entries[Int(last)].follow = path
        last = path
        return path
    }

    @inline(__always)
    private func matches(_ path: Int32, parent: Int32, length: Int, prefix: UInt64, key: UnsafeRawBufferPointer?)
        -> Bool
    {
        let entry = entries[Int(path)]
        guard entry.parent == parent && entry.keyLength == length && entry.prefix == prefix else { return false }
        guard let key, length > 8 else { return true }
        return keyBytes.withUnsafeBytes { stored in
            for offset in 8..<length where stored[entry.keyStart + offset - 8] != key[offset] { return false }
            return true
        }
    }

    /// The first eight bytes of `key`, little-endian, zero-padded.
    @inline(__always)
    private static func prefix(_ key: UnsafeRawBufferPointer, wordLoadable: Bool) -> UInt64 {
        if key.count >= 8 { return UInt64(littleEndian: key.loadUnaligned(as: UInt64.self)) }
        if wordLoadable {
            let word = UInt64(littleEndian: key.baseAddress!.loadUnaligned(as: UInt64.self))
            return word & (UInt64(1) << (8 * UInt64(key.count)) &- 1)
        }
        var prefix: UInt64 = 0
        for (index, byte) in key.enumerated() { prefix |= UInt64(byte) << (8 * UInt64(index)) }
        return prefix
    }

    /// Probes past which the quick hash gives way to the seeded one.
    static let longestProbe = 48

    /// The parent's number and the whole key (its first eight bytes as `prefix`, the rest in `rest`; a key's length
    /// is in its header, so keys of different lengths differ in the rest or the header): a quick multiply-and-mix
    /// over words, or, once keys have been seen to collide under it, the process's seeded `Hasher`.
    func hash(parent: Int32, prefix: UInt64, rest: UnsafeRawBufferPointer?) -> Int {
        if seeded {
            var hasher = Hasher()
            hasher.combine(parent)
            hasher.combine(prefix)
            if let rest { hasher.combine(bytes: rest) }
            return hasher.finalize()
        }
        var hash = prefix ^ UInt64(UInt32(bitPattern: parent)) &* 0x9E37_79B9_7F4A_7C15
        if let rest {
            var offset = 0
            while rest.count - offset >= 8 {
                hash =
                    (hash ^ UInt64(littleEndian: rest.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
                    &* 0xc4ce_b9fe_1a85_ec53
                offset += 8
            }
            while offset < rest.count {
                hash = (hash ^ UInt64(rest[offset])) &* 0x0000_0100_0000_01B3
                offset += 1
            }
        }
        // fmix64 (MurmurHash3's finalizer): every input bit reaches the low bits a slot is taken from.
        hash = (hash ^ (hash >> 33)) &* 0xff51_afd7_ed55_8ccd
        hash = (hash ^ (hash >> 33)) &* 0xc4ce_b9fe_1a85_ec53
        hash ^= hash >> 33
        return Int(truncatingIfNeeded: hash)
    }

    private mutating func grow() { rehash(size: slots.count * 2) }

    /// Every path placed again in a table of `size` slots, with the current hash.
    private mutating func rehash(size: Int) {
        var grown = [Int32](repeating: -1, count: size)
        let mask = grown.count - 1
        keyBytes.withUnsafeBytes { stored in
            for path in 1..<entries.count {
                let entry = entries[path]
                let rest =
                    entry.keyLength > 8
                    ? UnsafeRawBufferPointer(rebasing: stored[entry.keyStart..<(entry.keyStart + entry.keyLength - 8)])
                    : nil
                var slot = hash(parent: entry.parent, prefix: entry.prefix, rest: rest) & mask
                while grown[slot] >= 0 { slot = (slot + 1) & mask }
                grown[slot] = Int32(path)
            }
        }
        slots = grown
    }
}
