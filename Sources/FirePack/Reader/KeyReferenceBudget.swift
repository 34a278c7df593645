/// Where a key literal's bytes are: their start and count. Two entries of a crafted key table can point at different
/// headers whose bytes start at the same offset (a two-byte header, and its second byte read as one), so a literal is
/// known by both.
struct KeySpan: Hashable {
    let start: Int
    let count: Int
}

/// The long key literals that key references have resolved to, each counted once, against the size of the root value
/// (Docs/FORMAT.md §3, "what readers check"; Docs/SAFETY.md, "key references").
///
/// Key literals never overlap, so in a valid input the distinct literals references resolve to add up to the root
/// value's size at most. A crafted key table whose entries point into one another's bytes (into a long string, say)
/// breaks that: each of N entries resolves to its own literal of up to the value's size, and a reader that checks,
/// hashes or copies every literal once would spend N times the value's size. Counting closes that door at the first
/// reference past the budget, before the literal is read. Literals of up to `longKey` bytes are not counted: a
/// reference costs at most that much, which its own bytes pay for.
package struct KeyReferenceBudget {
    /// Literals of more bytes than this are counted.
    static let longKey = 32

    /// A budget with nothing counted.
    package init() {}

    /// The bytes of the literals counted so far.
    private var total = 0
    /// The literals counted so far.
    private var counted: Set<KeySpan> = []
    /// The bytes that the references to long literals counted so far stand for (`expand(by:forReferenceAt:in:)`).
    private var expanded = 0
    /// A bit per byte of the input: set where a counted reference is, so that a reference read twice in one call (a
    /// map read again, `allKeys` asked twice, a walk and a copy of the same entries) counts once, and a reader that
    /// reads more than once refuses no more than one that reads once. Made at the first long reference: an eighth of
    /// the input's size at most.
    private var countedReferences: [UInt64] = []

    /// Counts a reference, at `offset`, to a literal of `count` bytes (more than `longKey`), once per call whoever
    /// reads it: every reader that makes a String of it or hashes it pays `count` again for it. Throws
    /// `limitExceeded` at `offset`, counting nothing, when the references counted so far would stand for more than
    /// `ReaderLimits.maxKeyExpansion` times the root value's size; read again, the same reference throws again.
    mutating func expand(by count: Int, forReferenceAt offset: Int, in input: ReaderInput) throws(FirePackError) {
        if countedReferences.isEmpty { countedReferences = Array(repeating: 0, count: input.count / 64 + 1) }
        let (word, bit) = (offset >> 6, UInt64(1) << UInt64(offset & 63))
        if countedReferences[word] & bit != 0 { return }
        // No overflow: each count is at most the input's size, and each reference counted takes a byte of it, so
        // the sum stays below the square of the input's size.
        let total = expanded &+ count
        let size = input.rootEnd - input.rootStart
        let (allowed, overflow) = size.multipliedReportingOverflow(by: max(0, input.limits.maxKeyExpansion))
        guard overflow || total <= allowed else {
            throw FirePackError(
                .limitExceeded, offset: offset,
                "key references stand for \(total) bytes of keys longer than \(Self.longKey) bytes in a value of "
                    + "\(size) bytes, past the limit of \(input.limits.maxKeyExpansion) times its size "
                    + "(ReaderLimits.maxKeyExpansion)")
        }
        expanded = total
        countedReferences[word] |= bit
    }

    /// Counts the literal whose `count` bytes start at `start`, resolved by the reference at `offset`, unless a
    /// reference resolved to it before; returns whether it is new. Throws `badKeyReference` at `offset` when the
    /// counted literals pass the root value's size: the entries overlap.
    mutating func admit(start: Int, count: Int, forReferenceAt offset: Int, in input: ReaderInput) throws(FirePackError)
        -> Bool
    {
        guard counted.insert(KeySpan(start: start, count: count)).inserted else { return false }
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

/// The long keys that references resolve to, for everything that reads one input in one call — the decoder's
/// dictionaries and unknown-field bags (`KeyReferenceMemo.keyString`) and each `Value` it materializes
/// (`Materializer`): one budget (`KeyReferenceBudget`) and one String per key. Without it, a key of L bytes referenced
/// N times would be checked and copied N times, N × L bytes of work and memory from N bytes of input; and each of N
/// `Value`s of an array, with a budget of its own, could spend the value's size again.
final class ReferencedKeyStrings {
    private var budget = KeyReferenceBudget()
    private var strings: [KeySpan: String] = [:]

    /// The key of more than `KeyReferenceBudget.longKey` bytes whose `count` bytes start at `start`, resolved by the
    /// reference at `offset`: counted against the budget and checked as UTF-8 the first time, then the same String;
    /// each reference counts, once, against the limit on what references stand for (`KeyReferenceBudget.expand`).
    func string(start: Int, count: Int, forReferenceAt offset: Int, in input: ReaderInput) throws(FirePackError)
        -> String
    {
        let span = KeySpan(start: start, count: count)
        let known = strings[span]
        if known == nil { _ = try budget.admit(start: start, count: count, forReferenceAt: offset, in: input) }
        try budget.expand(by: count, forReferenceAt: offset, in: input)
        if let known { return known }
        try input.validateUTF8(start: start, count: count, what: "key")
        let key = UTF8Validation.makeString(validated: input.bytes(from: start, count: count))
        strings[span] = key
        return key
    }

    /// Counts the literal a reference resolved to (`KeyReferenceBudget.admit`), without making its String.
    func admit(start: Int, count: Int, forReferenceAt offset: Int, in input: ReaderInput) throws(FirePackError) {
        _ = try budget.admit(start: start, count: count, forReferenceAt: offset, in: input)
    }

    /// Counts the reference at `offset` to a literal of `count` bytes against the limit on what references stand for
    /// (`KeyReferenceBudget.expand`), as `string(start:count:forReferenceAt:in:)` does, without making its String.
    func expand(by count: Int, forReferenceAt offset: Int, in input: ReaderInput) throws(FirePackError) {
        try budget.expand(by: count, forReferenceAt: offset, in: input)
    }

    /// What readers of the input worked out about a long key (which column or field it names), by who asked and
    /// where the key's bytes are (`FirePackReader.readKeyUnchecked(answering:)`).
    private var answers: [KeyAnswer: Int] = [:]

    private struct KeyAnswer: Hashable {
        let asker: ObjectIdentifier
        let span: KeySpan
    }

    /// The answer `asker` gave about the key whose `count` bytes start at `start`, if it gave one.
    func answer(start: Int, count: Int, by asker: ObjectIdentifier) -> Int? {
        answers[KeyAnswer(asker: asker, span: KeySpan(start: start, count: count))]
    }

    /// Keeps `answer` as what `asker` worked out about the key whose `count` bytes start at `start`.
    func remember(_ answer: Int, start: Int, count: Int, by asker: ObjectIdentifier) {
        answers[KeyAnswer(asker: asker, span: KeySpan(start: start, count: count))] = answer
    }
}
