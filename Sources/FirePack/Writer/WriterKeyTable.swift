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
    var entries: [Entry] = []
    /// Entry index + 1 for each hash slot; 0 is empty. The count is a power of two.
    var slots = [Int32](repeating: 0, count: 64)
    /// Entry index of each key-table index, in the order references were assigned.
    var references: [Int32] = []

    var isEmpty: Bool { entries.isEmpty }
    var referenceCount: Int { references.count }

    mutating func reset() {
        for entry in entries { slots[Int(entry.slot)] = 0 }
        entries.removeAll(keepingCapacity: true)
        references.removeAll(keepingCapacity: true)
    }

    /// Finds `key` among the remembered literals; otherwise returns the empty slot where it belongs.
    func find(_ key: UnsafeRawBufferPointer, hash: UInt32, in buffer: UnsafeMutablePointer<UInt8>) -> (entry: Int?, slot: Int) {
        let mask = slots.count - 1
        var slot = Int(hash) & mask
        while true {
            let occupant = Int(slots[slot])
            if occupant == 0 { return (nil, slot) }
            let entry = entries[occupant - 1]
            if entry.hash == hash && entry.length == key.count {
                let bytesStart = entry.headerPosition + Varint.encodedSize(UInt64(entry.length) << 1)
                if key.count == 0 || ByteComparison.equal(buffer + bytesStart, key.baseAddress!, count: key.count) {
                    return (occupant - 1, slot)
                }
            }
            slot = (slot + 1) & mask
        }
    }

    mutating func insert(headerPosition: Int, length: Int, hash: UInt32, slot: Int, map: Int) {
        entries.append(Entry(headerPosition: headerPosition, length: length, hash: hash, slot: Int32(slot), referenceIndex: -1, lastMap: map))
        slots[slot] = Int32(entries.count)
        if entries.count * 2 > slots.count { rehash() }
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

    private mutating func rehash() {
        slots = [Int32](repeating: 0, count: slots.count * 2)
        let mask = slots.count - 1
        for index in entries.indices {
            var slot = Int(entries[index].hash) & mask
            while slots[slot] != 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(index + 1)
            entries[index].slot = Int32(slot)
        }
    }

    /// A fast 32-bit hash of a key's bytes (multiply-rotate over 8-byte words).
    static func hash(_ key: UnsafeRawBufferPointer) -> UInt32 {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(key.count)
        var offset = 0
        let count = key.count
        while offset + 8 <= count {
            state = (state ^ key.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            state = (state << 31) | (state >> 33)
            offset += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while offset < count {
            tail |= UInt64(key[offset]) << shift
            shift += 8
            offset += 1
        }
        state = (state ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        state ^= state >> 29
        return UInt32(truncatingIfNeeded: state ^ (state >> 32))
    }
}
