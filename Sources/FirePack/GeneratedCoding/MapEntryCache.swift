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
struct MapEntryCache {
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
        /// One bit per located key (`signatureBit`): once every entry is located, a key whose bit is clear is not in
        /// the map, answered without a pass over it. A generated type looks up each absent optional key, a pass each
        /// on twitter.json's statuses. The answer is the one the pass would give: a fully located map reads no bytes,
        /// so it could throw nothing.
        var signature: UInt64 = 0

        /// The bit of the key whose `count` bytes start at `bytes`: its length and first and last bytes, mixed.
        @inline(__always)
        static func signatureBit(_ bytes: UnsafeRawPointer?, count: Int) -> UInt64 {
            guard count > 0, let bytes else { return 1 }
            let first = UInt64(bytes.load(as: UInt8.self)),
                last = UInt64(bytes.load(fromByteOffset: count - 1, as: UInt8.self))
            return 1 &<< ((first &* 0x9E37 &+ last &* 0x3B &+ UInt64(truncatingIfNeeded: count)) >> 2 & 63)
        }
    }

    var regions: [MapRegion] = []
    var entries: [MapEntry] = []

    /// Reserves a region for the map at `mapOffset` with `count` entries, inside `depth` containers; returns its index.
    mutating func open(mapOffset: Int, depth: Int, count: Int) -> Int {
        while let last = regions.last, last.depth >= depth {
            entries.removeSubrange(last.base...)
            regions.removeLast()
        }
        regions.append(MapRegion(mapOffset: mapOffset, depth: depth, base: entries.count))
        entries.append(
            contentsOf: repeatElement(MapEntry(keyStart: 0, keyCount: 0, valueOffset: 0, valueEnd: 0), count: count))
        return regions.count - 1
    }

    /// Whether no region is open.
    var isEmpty: Bool { regions.isEmpty }
    /// The entries it can hold without growing.
    var capacity: Int { entries.capacity }

    /// Forgets every region, keeping the storage for the next decode.
    mutating func removeAll(keepingCapacity: Bool) {
        regions.removeAll(keepingCapacity: keepingCapacity)
        entries.removeAll(keepingCapacity: keepingCapacity)
    }

    /// Runs `body` with region `index`'s entries and progress, or with nil when the region no longer belongs to the
    /// map at `mapOffset`.
    mutating func withRegion<R>(
        _ index: Int, mapOffset: Int, count: Int,
        _ body: (UnsafeMutablePointer<MapEntry>?, inout Progress) throws(FirePackError) -> R
    ) throws(FirePackError) -> R {
        var unused = Progress()
        guard index >= 0, index < regions.count, regions[index].mapOffset == mapOffset,
            regions[index].base + count <= entries.count
        else { return try body(nil, &unused) }
        let base = regions[index].base
        return try entries.withUnsafeMutableBufferPointer { (buffer) throws(FirePackError) -> R in
            try body(buffer.baseAddress! + base, &regions[index].progress)
        }
    }
}
