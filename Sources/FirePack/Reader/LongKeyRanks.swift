/// The long keys of a value's key table (more than `KeyReferenceBudget.longKey` bytes) ranked by their bytes, so that
/// sorting a map's keys compares two of them by rank: a key that references repeat is compared with another long one
/// by its bytes once, here, not again in every map that holds both (two 1 MiB keys alike up to their last byte, in each
/// of 10,000 maps of a 2 MB record, were 10 GiB of comparisons). Made once per value sorted, in time for the table's
/// long literals' bytes (each compared O(log n) times).
package struct LongKeyRanks {
    /// The rank of each ranked literal, by where its bytes are (one literal a place); keys of equal bytes share one.
    private var ranks: [UnsafeRawPointer: Int] = [:]

    /// No ranks: every key compared by its bytes.
    package static var none: LongKeyRanks { LongKeyRanks() }

    private init() {}

    /// Ranks the long literals that the key table of `input` points at (entries that point at no literal are left
    /// out: a reference to one fails where it is read).
    init(_ input: ReaderInput) {
        var literals: [UnsafeRawBufferPointer] = []
        for index in 0..<input.keyTableCount {
            guard let (_, start, count) = try? input.keyLiteral(index, forReferenceAt: .max),
                count > KeyReferenceBudget.longKey
            else { continue }
            literals.append(input.bytes(from: start, count: count))
        }
        guard !literals.isEmpty else { return }
        literals.sort { ByteComparison.precedes($0, $1) }
        var rank = 0
        for index in literals.indices {
            if index > 0 && !ByteComparison.equal(literals[index - 1], literals[index]) { rank += 1 }
            ranks[literals[index].baseAddress!] = rank
        }
    }

    /// The rank of a key, where `key` is the bytes of a ranked literal (a long key the table points at, read as a
    /// reference or as that literal itself).
    @inline(__always)
    private func rank(of key: UnsafeRawBufferPointer) -> Int? {
        guard key.count > KeyReferenceBudget.longKey, !ranks.isEmpty, let base = key.baseAddress else { return nil }
        return ranks[base]
    }

    /// Whether a key of `count` bytes may be ranked: sorting keys that are all shorter needs no ranks.
    package static func isLong(_ count: Int) -> Bool { count > KeyReferenceBudget.longKey }

    /// Whether key `a` comes before key `b` in ascending unsigned-byte order.
    package func precedes(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        if let first = rank(of: a), let second = rank(of: b) { return first < second }
        return ByteComparison.precedes(a, b)
    }

    /// Whether keys `a` and `b` hold the same bytes.
    package func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        if let first = rank(of: a), let second = rank(of: b) { return first == second }
        return ByteComparison.equal(a, b)
    }
}

extension FirePackReader {
    /// The ranks of the long keys of this reader's key table, for sorting keys read through it.
    package func longKeyRanks() -> LongKeyRanks { LongKeyRanks(input) }
}
