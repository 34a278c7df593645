/// Where one map entry is: its key's bytes and its value, located once.
struct MapEntry {
    var keyStart: Int
    var keyCount: Int
    var valueOffset: Int
    var valueEnd: Int
}

/// The entries of wide maps that generated coding has located so far, kept per decode call so that a key search
/// passes each entry it has already seen at the cost of a comparison.
///
/// A generated `init(firePack:)` looks its keys up one by one in declaration order. A key the map lacks (an optional
/// property left out, as every nil is) is a full pass over the map, and each entry passed was located anew: its key
/// (often a reference into the key table) resolved, its value's end computed: on twitter.json's statuses, objects of
/// 20 to 40 mostly-absent fields, most of the decode (guarded by `Decode twitter model/FirePackDecoder
/// @FirePackCodable`). The searches themselves are unchanged — same order, same wrap-around, same errors at the same
/// entries — only what an earlier search located is remembered.
///
/// Maps of more than `threshold` entries get a region of `entries`, reserved when their fields are first read and
/// filled in entry order as searches advance. Regions form a stack by depth: the maps in use are the ancestors of the
/// value being read, so opening a map drops every region at its depth or deeper (finished siblings and their
/// children). A region is used only while it still belongs to its map (`MapRegion.mapOffset`), so a stale `Fields`
/// falls back to searching without it.
struct MapEntryCache: ~Copyable {
    /// Maps with more entries than this are cached; smaller ones cost little to search again and get no region (a
    /// one-`Book` decode allocates nothing for it).
    static let threshold = 8

    struct MapRegion {
        var mapOffset: Int
        var depth: Int
        var base: Int
        var progress = Progress()
    }

    /// How far the searches of one map have come.
    struct Progress {
        /// Entries located so far: a prefix of the map, in order.
        var located = 0
        /// One bit of 256 per located key (`bit(of:count:)`): once every entry is located, a key whose bit is clear
        /// is not in the map, answered without a pass over it. A generated type looks up each absent optional key, a
        /// pass each on twitter.json's statuses and users (objects of 20 to 40 keys, most of the model's optionals
        /// absent). The answer is the one the pass would give: a fully located map reads no bytes, so it could throw
        /// nothing. 256 bits, not 64: with 40 keys, 64 bits are half set and half the absent keys still took the pass.
        var signature = InlineArray<4, UInt64>(repeating: 0)

        /// Marks the key whose `count` bytes start at `bytes`.
        @inline(__always)
        mutating func insert(_ bytes: UnsafeRawPointer, count: Int) {
            let bit = Self.bit(of: bytes, count: count)
            signature[bit >> 6] |= 1 &<< UInt64(bit & 63)
        }

        /// Whether the key whose `count` bytes start at `bytes` may have been marked (false: it certainly was not).
        @inline(__always)
        func mayContain(_ bytes: UnsafeRawPointer, count: Int) -> Bool {
            let bit = Self.bit(of: bytes, count: count)
            return signature[bit >> 6] & 1 &<< UInt64(bit & 63) != 0
        }

        /// The key's bit, 0..<256: its length and up to its first and last eight bytes (overlapping, never past
        /// the key), mixed by one multiplication (Fibonacci hashing; the top bits are the best mixed).
        @inline(__always)
        static func bit(of bytes: UnsafeRawPointer, count: Int) -> Int {
            let word: UInt64
            if count >= 8 {
                let last = bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                word = bytes.loadUnaligned(as: UInt64.self) ^ (last << 29 | last >> 35)
            } else {
                word = ByteComparison.shortWord(bytes, count: count)
            }
            return Int(truncatingIfNeeded: ((word ^ UInt64(truncatingIfNeeded: count)) &* 0x9E37_79B9_7F4A_7C15) >> 56)
        }
    }

    // Both stacks live in memory the cache manages itself (as `FirePackWriter` does its bytes): a lookup reaches its
    // region through two pointers, where an array's `withUnsafeMutableBufferPointer` checked uniqueness, and a
    // closure retained the decoder, on every key (guarded by `Decode twitter model/FirePackDecoder
    // @FirePackCodable`). Allocated at the first wide map, freed when the cache ends (it cannot be copied).
    private var regions: UnsafeMutablePointer<MapRegion>? = nil
    private var regionCount = 0
    private var regionCapacity = 0
    private var entries: UnsafeMutablePointer<MapEntry>? = nil
    private var entryCount = 0
    private var entryCapacity = 0

    /// Reserves a region for the map at `mapOffset` with `count` entries, inside `depth` containers; returns its index.
    mutating func open(mapOffset: Int, depth: Int, count: Int) -> Int {
        while regionCount > 0, let regions, regions[regionCount - 1].depth >= depth {
            entryCount = regions[regionCount - 1].base
            regionCount -= 1
        }
        if regionCount == regionCapacity { regions = Self.grow(regions, count: regionCount, to: &regionCapacity) }
        regions![regionCount] = MapRegion(mapOffset: mapOffset, depth: depth, base: entryCount)
        regionCount += 1
        // A map's entry count is bounded by its bytes (each entry takes at least two), so this cannot overflow.
        while entryCount + count > entryCapacity {
            entries = Self.grow(entries, count: entryCount, to: &entryCapacity)
        }
        entries!.advanced(by: entryCount).update(
            repeating: MapEntry(keyStart: 0, keyCount: 0, valueOffset: 0, valueEnd: 0), count: count)
        entryCount += count
        return regionCount - 1
    }

    /// `storage` (holding `count` elements) moved into a buffer of twice `capacity` (at least 8), which becomes the
    /// new capacity.
    private static func grow<T>(_ storage: UnsafeMutablePointer<T>?, count: Int, to capacity: inout Int)
        -> UnsafeMutablePointer<T>
    {
        let larger = max(8, capacity * 2)
        let moved = UnsafeMutablePointer<T>.allocate(capacity: larger)
        if let storage {
            moved.moveInitialize(from: storage, count: count)
            storage.deallocate()
        }
        capacity = larger
        return moved
    }

    /// Whether no region is open.
    var isEmpty: Bool { regionCount == 0 }
    /// The entries it can hold without growing.
    var capacity: Int { entryCapacity }

    /// Forgets every region, keeping the storage for the next decode.
    mutating func removeAll() {
        regionCount = 0
        entryCount = 0
    }

    deinit {
        regions?.deallocate()
        entries?.deallocate()
    }

    /// Region `index`'s entries and progress, or nil when the region no longer belongs to the map at `mapOffset`.
    /// The pointers are valid until the next `open`.
    @inline(__always)
    func region(_ index: Int, mapOffset: Int, count: Int) -> (
        entries: UnsafeMutablePointer<MapEntry>, progress: UnsafeMutablePointer<Progress>
    )? {
        guard index >= 0, index < regionCount, let regions, let entries else { return nil }
        let region = regions + index
        guard region.pointee.mapOffset == mapOffset, region.pointee.base + count <= entryCount else { return nil }
        return (entries + region.pointee.base, region.pointer(to: \.progress)!)
    }
}
