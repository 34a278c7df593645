import Testing

@testable import FirePack

/// The primitives of key matching: byte equality, the located-key signature and the entry cache's storage.
@Suite struct KeyMatchingTests {
    /// Equal buffers of every length up to 40 compare equal; a difference at any position, in any bit, is found.
    @Test func byteComparisonFindsADifferenceAtEveryPosition() {
        for count in 0...40 {
            let a = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            // One byte before and after the compared range, different in each buffer: never read as part of it.
            let paddedA = [0xAA] + a + [0xBB]
            for position in -1...count {
                for bit in [0, 7] {
                    var b = a
                    if position >= 0 && position < count { b[position] ^= 1 << bit }
                    let paddedB = [0x55] + b + [0x44]
                    let equal = paddedA.withUnsafeBytes { pa in
                        paddedB.withUnsafeBytes { pb in
                            ByteComparison.equal(pa.baseAddress! + 1, pb.baseAddress! + 1, count: count)
                        }
                    }
                    #expect(equal == (a == b), "count \(count), position \(position), bit \(bit)")
                }
            }
        }
    }

    /// Byte order eight bytes at a time is `lexicographicallyPrecedes` on the bytes, at every length up to 40 and at
    /// a difference in any position and bit (high bits included: unsigned bytes), prefixes first; so are the String
    /// helpers for UTF-8 keys, which compare bytes, not canonical equivalence ("é" composed or not are two keys).
    @Test func byteOrderIsLexicographicOrderOfTheBytes() {
        for count in 0...40 {
            let a = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            for position in 0..<max(count, 1) where count > 0 {
                for bit in [0, 7] {
                    var b = a
                    b[position] ^= 1 << bit
                    for (x, y) in [(a, b), (b, a), (a, Array(b.prefix(position))), (Array(a.prefix(position + 1)), a)] {
                        let precedes = x.withUnsafeBytes { px in y.withUnsafeBytes { py in ByteComparison.precedes(px, py) } }
                        #expect(precedes == x.lexicographicallyPrecedes(y), "count \(count), position \(position), bit \(bit)")
                    }
                }
            }
        }
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed && !composed.hasSameUTF8(as: decomposed))
        #expect(decomposed.utf8Precedes(composed) == decomposed.utf8.lexicographicallyPrecedes(composed.utf8))
        let long = String(repeating: "k", count: 1_000)
        #expect((long + "a").hasSameUTF8(as: long + "a") && !(long + "a").hasSameUTF8(as: long + "b"))
        #expect((long + "a").utf8Precedes(long + "b") && !(long + "b").utf8Precedes(long + "a") && long.utf8Precedes(long + "a"))
    }

    /// A key that was inserted is always reported as possibly present, whatever its length; keys that were not are
    /// mostly reported absent (the point of the signature), and the bit depends on bytes past the eighth.
    @Test func signatureNeverMissesAnInsertedKey() {
        var progress = MapEntryCache.Progress()
        let inserted = (0..<40).map { "key_\($0)_" + String(repeating: "x", count: $0 % 13) }
        for key in inserted { key.utf8.withContiguousStorageIfAvailable { progress.insert($0.baseAddress!, count: $0.count) } }
        for key in inserted {
            let found = key.utf8.withContiguousStorageIfAvailable { progress.mayContain($0.baseAddress!, count: $0.count) }
            #expect(found == true, "\(key)")
        }
        let absent = (0..<400).map { "other_\($0)" }
        let falsePositives = absent.count { key in
            key.utf8.withContiguousStorageIfAvailable { progress.mayContain($0.baseAddress!, count: $0.count) } == true
        }
        // 40 keys set at most 40 of 256 bits: about 15% of absent keys collide; far fewer than half.
        #expect(falsePositives < absent.count / 3, "\(falsePositives) of \(absent.count)")
        let bits = Set(["in_reply_to_status_id", "in_reply_to_user_id", "in_reply_to_screen_name"].map { key in
            key.utf8.withContiguousStorageIfAvailable { MapEntryCache.Progress.bit(of: $0.baseAddress!, count: $0.count) }!
        })
        #expect(bits.count == 3)
    }

    /// Regions grow their storage as maps open, keep earlier regions' entries across a growth, and close (with every
    /// deeper region) when a map opens at their depth.
    @Test func entryCacheRegionsSurviveGrowthAndCloseByDepth() {
        var cache = MapEntryCache()
        let outer = cache.open(mapOffset: 10, depth: 1, count: 12)
        cache.region(outer, mapOffset: 10, count: 12)!.entries[11] = MapEntry(
            keyStart: 1, keyCount: 2, valueOffset: 3, valueEnd: 4)
        cache.region(outer, mapOffset: 10, count: 12)!.progress.pointee.located = 12
        // Deeper maps, large enough to move the storage several times.
        var deeper: [Int] = []
        for depth in 2...6 { deeper.append(cache.open(mapOffset: 100 * depth, depth: depth, count: 200)) }
        let kept = cache.region(outer, mapOffset: 10, count: 12)!
        #expect(kept.entries[11].valueEnd == 4)
        #expect(kept.progress.pointee.located == 12)
        #expect(cache.region(deeper[4], mapOffset: 600, count: 200) != nil)
        #expect(cache.region(outer, mapOffset: 11, count: 12) == nil, "another map at the region's index")
        // A sibling at depth 3 drops the regions at depths 3…6.
        let sibling = cache.open(mapOffset: 999, depth: 3, count: 9)
        #expect(sibling == 2)
        #expect(cache.region(deeper[0], mapOffset: 200, count: 200) != nil)
        #expect(cache.region(deeper[3], mapOffset: 500, count: 200) == nil)
        #expect(cache.region(sibling, mapOffset: 999, count: 9)!.progress.pointee.located == 0)
        cache.removeAll()
        let (isEmpty, capacity) = (cache.isEmpty, cache.capacity)
        #expect(isEmpty)
        #expect(capacity >= 12 + 5 * 200)
    }
}
