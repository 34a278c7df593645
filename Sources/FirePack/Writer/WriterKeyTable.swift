#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The writer's memory of the key literals in the current root value: an open-addressing hash table whose entries
/// point at the literal bytes already in the output buffer, so remembering a key copies nothing.
struct WriterKeyTable {
    struct Entry {
        /// Position of the literal's header varint in the writer's buffer (kept current when bodies move).
        var headerPosition: Int
        var length: Int
        var hash: UInt32
        var slot: Int32
        /// Index in the key table once the key has been referenced, else −1.
        var referenceIndex: Int32
        /// The serial number of the map the key was last written in (to catch a key written twice in one map).
        var lastMap: Int
    }

    /// Literals in the order written, which is also ascending buffer position.
    var entries = GrowableArray<Entry>()
    /// Entry index + 1 for each hash slot; 0 is empty. The count is a power of two (none until the first key).
    var slots = GrowableArray<Int32>()
    /// Entry index of each key-table index, in the order references were assigned.
    var references = GrowableArray<Int32>()
    /// The process's seed (`seed`), held by the table: a global read on every key would pass through its lazy
    /// initialization's check each time.
    private let fastHashSeed = WriterKeyTable.seed

    var isEmpty: Bool { entries.isEmpty }
    var referenceCount: Int { references.count }

    mutating func reset() {
        for entry in entries.elements { slots[Int(entry.slot)] = 0 }
        usesStrongHash = false
        entries.removeAll()
        references.removeAll()
    }

    /// Frees the table's memory; it is not used again.
    func deallocate() {
        entries.deallocate()
        slots.deallocate()
        references.deallocate()
    }

    /// Finds `key` among the remembered literals; otherwise returns the empty slot where it belongs and the key's
    /// hash (for `insert`).
    ///
    /// Keys come from whoever writes the data (user JSON, a request body), so the table must not let them choose
    /// collisions: the fast hash is seeded per process, and a probe sequence longer than `maximumProbes` — which
    /// random keys essentially never reach at the table's load of at most one half — switches this table to Swift's
    /// `Hasher` (SipHash, randomly seeded per process) for the rest of the root value. Either way a lookup costs a
    /// bounded number of probes; HostileInputTests compares colliding keys with random ones.
    mutating func find(_ key: UnsafeRawBufferPointer, in buffer: UnsafeMutablePointer<UInt8>) -> (
        entry: Int?, slot: Int, hash: UInt32
    ) {
        if slots.isEmpty { slots = GrowableArray(repeating: 0, count: 64) }
        while true {
            let hash = usesStrongHash ? Self.strongHash(key) : Self.hash(key, seed: fastHashSeed)
            let mask = slots.count - 1
            var slot = Int(hash) & mask
            var probes = 0
            while true {
                let occupant = Int(slots[slot])
                if occupant == 0 { break }
                let entry = entries[occupant - 1]
                if entry.hash == hash && entry.length == key.count {
                    if key.count == 0
                        || ByteComparison.equal(buffer + literalStart(of: entry), key.baseAddress!, count: key.count)
                    {
                        return (occupant - 1, slot, hash)
                    }
                }
                slot = (slot + 1) & mask
                probes += 1
            }
            if probes <= Self.maximumProbes || usesStrongHash { return (nil, slot, hash) }
            switchToStrongHash(buffer)
        }
    }

    /// Probes after which a table stops trusting the fast hash.
    static let maximumProbes = 64

    /// Whether the table hashes with `Hasher` (after a suspiciously long probe sequence) until the next `reset()`.
    private(set) var usesStrongHash = false

    /// Where the bytes of `entry`'s literal start in the writer's buffer.
    @inline(__always)
    func literalStart(of entry: Entry) -> Int { entry.headerPosition + Varint.encodedSize(UInt64(entry.length) << 1) }

    /// Rehashes every remembered literal with `Hasher`.
    private mutating func switchToStrongHash(_ buffer: UnsafeMutablePointer<UInt8>) {
        usesStrongHash = true
        for index in 0..<entries.count {
            let entry = entries[index]
            entries[index].hash = Self.strongHash(
                UnsafeRawBufferPointer(start: buffer + literalStart(of: entry), count: entry.length))
        }
        rehash(count: slots.count)
    }

    mutating func insert(headerPosition: Int, length: Int, hash: UInt32, slot: Int, map: Int) {
        entries.append(
            Entry(
                headerPosition: headerPosition, length: length, hash: hash, slot: Int32(slot), referenceIndex: -1,
                lastMap: map))
        slots[slot] = Int32(entries.count)
        if entries.count * 2 > slots.count { rehash(count: slots.count * 2) }
    }

    mutating func assignReference(toEntry entry: Int) {
        entries[entry].referenceIndex = Int32(references.count)
        references.append(Int32(entry))
    }

    /// Moves every literal at or after `position` by `delta` bytes (a container body was moved).
    mutating func shift(from position: Int, by delta: Int) {
        var index = entries.count - 1
        while index >= 0 && entries[index].headerPosition >= position {
            entries[index].headerPosition += delta
            index -= 1
        }
    }

    private mutating func rehash(count: Int) {
        slots.deallocate()
        slots = GrowableArray(repeating: 0, count: count)
        let mask = slots.count - 1
        for index in 0..<entries.count {
            var slot = Int(entries[index].hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index + 1)
            entries[index].slot = Int32(slot)
        }
    }

    /// This process's seed for the fast hash, random in every process (the system's random source).
    static let seed: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()

    /// A fast 32-bit hash of a key's bytes (multiply-rotate over 8-byte words), seeded per process.
    ///
    /// Every byte is read in a word: the 8-byte words before the last eight bytes, then those eight bytes (which may
    /// overlap the word before); a key of fewer than eight bytes as one word (`ByteComparison.shortWord`), so no key
    /// is read a byte at a time. The length is mixed in first, so keys that read as the same words but differ in
    /// length hash apart.
    static func hash(_ key: UnsafeRawBufferPointer, seed: UInt64 = WriterKeyTable.seed) -> UInt32 {
        var state: UInt64 = seed ^ UInt64(key.count) &* 0x9E37_79B9_7F4A_7C15
        let count = key.count
        let tail: UInt64
        if count >= 8 {
            var offset = 0
            while offset + 8 < count {
                state = (state ^ key.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                state = (state << 31) | (state >> 33)
                offset += 8
            }
            tail = key.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            tail = ByteComparison.shortWord(key.baseAddress, count: count)
        }
        // MurmurHash3's 64-bit finalizer: the last word holds a key's last bytes in its high bits (where keys that
        // share a prefix differ), and a multiplication carries differences only upwards, so they are shifted down
        // and multiplied again until every bit of the result depends on them.
        state ^= tail
        state = (state ^ (state >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        state = (state ^ (state >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        return UInt32(truncatingIfNeeded: state ^ (state >> 33))
    }

    /// A 32-bit hash of a key's bytes by `Hasher` (SipHash-1-3, randomly seeded per process).
    static func strongHash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        var hasher = Hasher()
        hasher.combine(bytes: key)
        return UInt32(truncatingIfNeeded: hasher.finalize())
    }
}

/// What an attacker who knew this process's seed would send: for the hostile-input benchmarks and tests, not API.
@_spi(Benchmarks) public enum KeyFlood {
    /// `count` distinct keys (`key-N`) whose fast hash shares its low `bits` bits in this process.
    public static func collidingKeys(count: Int, bits: Int = 10) -> [String] {
        var keys: [String] = []
        var candidate = 0
        let mask = UInt32((1 << bits) - 1)
        while keys.count < count {
            var key = "key-\(candidate)"
            candidate += 1
            let hash = key.withUTF8 { WriterKeyTable.hash(UnsafeRawBufferPointer($0)) }
            if hash & mask == 0 { keys.append(key) }
        }
        return keys
    }
}
