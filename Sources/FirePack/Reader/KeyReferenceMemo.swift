/// The key-table entries a decode call has resolved, so that a key written once and referenced in every document of
/// an array is looked up in the table once.
///
/// Resolving a reference reads the table's entry (a little-endian offset), checks it, and reads the literal's header:
/// for 1,000 `Book`s, whose three keys are references after the first book, once per key instead of once per book
/// (guarded by `Decode 1000 Book`).
/// What the memo keeps depends on the index alone; the one check that depends on where the reference is (its literal
/// must come before it) is made for every reference, so every key reads and fails exactly as without the memo.
///
/// Inputs under `minimumInputSize` bytes resolve their few references directly: for one `BookWithTags` the memo's
/// array cost more (an allocation per call) than the lookups it saved.
struct KeyReferenceMemo {
    static let minimumInputSize = 2048

    /// Whether references are remembered (the input is large enough and has a key table).
    private var isOn: Bool
    /// Per key-table index: the literal's offset (-1 until resolved), its bytes' start and count.
    private var literals: [(literal: Int, start: Int, count: Int)] = []
    /// Long referenced keys and their budget, for the whole call (`keyString`, `sharedKeys()`); made when first
    /// needed, and only while the memo is on (a small input's few references cost little), so that a memo reset for
    /// a new input never keeps the last input's keys.
    private var longKeys: ReferencedKeyStrings?

    /// A memo for the references of `input`.
    init(for input: ReaderInput) {
        isOn = input.count >= Self.minimumInputSize && input.keyTableCount > 0
    }

    /// Makes this memo, new for a child decoder over the same input, share `parent`'s long keys and their budget: a
    /// nested container or super decoder is a decoder of its own, and with keys of its own it counted what
    /// references stand for from zero again, so a limit meant for the call held for each subtree only.
    mutating func share(longKeysOf parent: inout KeyReferenceMemo) {
        longKeys = parent.sharedKeys()
    }

    /// Makes the memo one for `input`, as `init(for:)` would; a memo that is off stays as it is for a small input
    /// (nothing to forget, and no new array to release).
    @inline(__always)
    mutating func reset(for input: ReaderInput) {
        if isOn || input.count >= Self.minimumInputSize { self = KeyReferenceMemo(for: input) }
    }

    /// Reads the key at `offset` as `ReaderInput.getKey` does, resolving a reference through the memo.
    @inline(__always)
    mutating func getKey(at offset: Int, limit: Int, in input: ReaderInput) throws(FirePackError) -> (
        start: Int, count: Int, next: Int
    ) {
        guard isOn else { return try input.getKey(at: offset, limit: limit) }
        let (header, next) = try Varint.get(input.base, at: offset, limit: limit)
        guard header & 1 == 1 else {
            return try ReaderInput.literalKey(header: header, next: next, at: offset, limit: limit)
        }
        let index = header >> 1
        if index < literals.count {
            let known = literals[index]
            if known.literal >= 0 {
                try ReaderInput.checkLiteral(known.literal, of: index, precedes: offset)
                return (known.start, known.count, next)
            }
        }
        let (start, count) = try resolve(index, forReferenceAt: offset, in: input)
        return (start, count, next)
    }

    /// Resolves a reference not seen before and remembers it. Out of line, so that no caller's loop sees the array
    /// written: the optimizer would otherwise make it unique before the loop, copying the empty array on every search
    /// (a malloc per search).
    @inline(never)
    private mutating func resolve(_ index: Int, forReferenceAt offset: Int, in input: ReaderInput) throws(FirePackError)
        -> (start: Int, count: Int)
    {
        let resolved = try input.keyLiteral(index, forReferenceAt: offset)
        if resolved.count > KeyReferenceBudget.longKey {
            try sharedKeys()?.admit(
                start: resolved.start, count: resolved.count, forReferenceAt: offset, in: input)
        }
        // Grown to the index only once it resolved, so at most the table's size.
        if index >= literals.count {
            literals.append(
                contentsOf: repeatElement((literal: -1, start: 0, count: 0), count: index + 1 - literals.count))
        }
        literals[index] = resolved
        return (resolved.start, resolved.count)
    }

    /// The call's long referenced keys, for a `Materializer` to share (`Materializer(input:sharing:)`); nil while
    /// the memo is off.
    mutating func sharedKeys() -> ReferencedKeyStrings? {
        guard isOn else { return nil }
        if longKeys == nil { longKeys = ReferencedKeyStrings() }
        return longKeys
    }

    /// Reads the key at `offset` as a checked String, with what follows it: a long key that references repeat (a
    /// dictionary keyed by long strings, in every element of an array) is checked and made once, and every repeat
    /// shares that String. Without it, a key of L bytes referenced N times would be checked and copied N times: N × L
    /// bytes of work and memory from N bytes of input (Docs/SAFETY.md, "key references").
    mutating func keyString(at offset: Int, limit: Int, in input: ReaderInput) throws(FirePackError) -> (
        key: String, next: Int
    ) {
        let (start, count, next) = try getKey(at: offset, limit: limit, in: input)
        guard input.isLongReference(count: count, at: offset), let shared = sharedKeys() else {
            try input.validateUTF8(start: start, count: count, what: "key")
            return (UTF8Validation.makeString(validated: input.bytes(from: start, count: count)), next)
        }
        return (try shared.string(start: start, count: count, forReferenceAt: offset, in: input), next)
    }
}
