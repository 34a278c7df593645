/// The long key literals that key references have resolved to, each counted once, against the size of the root value
/// (Docs/FORMAT.md §3, "what readers check"; Docs/SAFETY.md, "key references").
///
/// Key literals never overlap, so in a valid input the distinct literals references resolve to add up to the root
/// value's size at most. A crafted key table whose entries point into one another's bytes (into a long string, say)
/// breaks that: each of N entries resolves to its own literal of up to the value's size, and a reader that checks,
/// hashes or copies every literal once would spend N times the value's size. Counting closes that door at the first
/// reference past the budget, before the literal is read. Literals of up to `longKey` bytes are not counted: a
/// reference costs at most that much, which its own bytes pay for.
struct KeyReferenceBudget {
    /// Literals of more bytes than this are counted.
    static let longKey = 32

    /// The bytes of the literals counted so far.
    private var total = 0
    /// The offsets of the bytes of the literals counted so far.
    private var counted: Set<Int> = []

    /// Counts the literal whose `count` bytes start at `start`, resolved by the reference at `offset`, unless a
    /// reference resolved to it before; returns whether it is new. Throws `badKeyReference` at `offset` when the
    /// counted literals pass the root value's size: the entries overlap.
    mutating func admit(start: Int, count: Int, forReferenceAt offset: Int, in input: ReaderInput) throws(FirePackError)
        -> Bool
    {
        guard counted.insert(start).inserted else { return false }
        total += count
        let size = input.rootEnd - input.rootStart
        guard total <= size else {
            throw FirePackError(
                .badKeyReference, offset: offset,
                "key references resolve to \(total) bytes of distinct keys in a value of \(size) bytes: "
                    + "key-table entries overlap")
        }
        return true
    }
}
