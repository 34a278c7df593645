#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Checks a whole encoding — every byte, skipped subtrees included — without building a tree: what
/// `Value(firePackBytes:)` and `FirePackReader.validate` refuse, this refuses, with the same code at the same offset
/// (`VerifyTests` compares them on mutated inputs). For bytes from outside (a request body, a file from a user):
/// the lazy decoder checks only what the decoded type reads, so without this an ignored field could hold invalid
/// UTF-8, a duplicate key or a damaged length that another door (the tool, a stricter reader) refuses.
///
/// Work is linear in the input: each value is visited once, keys are compared pairwise in maps of up to
/// `pairwiseKeyLimit` entries and through a `Hasher`-keyed set (randomly seeded, so not floodable) in larger ones.
struct InputVerifier {
    let input: ReaderInput
    /// Maps with more entries than this check duplicate keys through a set instead of pairwise.
    static let pairwiseKeyLimit = 16
    /// Offsets of every key literal's header, in ascending order (collected only when there is a key table).
    private var literals: [Int] = []
    /// Reused per map: where each key's bytes are, and its content hash where it has one (`hashes`).
    private var keys: [KeyBytes] = []
    /// The content hash of each key literal a reference has resolved to (by where its bytes are), or that was
    /// compared with such a literal; a reference's literal is in it once its UTF-8 is checked. A key written once
    /// and referenced N times then costs its length once, not N times: the references' literals are the same bytes
    /// (Docs/SAFETY.md, "key references").
    private var hashes: [KeySpan: Int] = [:]
    /// The long literals references resolved to, against the value's size (entries that overlap).
    private var budget = KeyReferenceBudget()

    init(input: ReaderInput) { self.input = input }

    /// Checks the root value and the key table.
    mutating func verify() throws(FirePackError) {
        let end = try value(at: input.rootStart, limit: input.rootEnd, depth: 0)
        guard end == input.rootEnd else { throw FirePackError(.trailingBytes, offset: end, "bytes follow the value") }
        guard input.keyTableCount > 0 else { return }
        for index in 0..<input.keyTableCount {
            let target = input.keyTableEntry(index)
            guard target < input.rootEnd - input.rootStart, binarySearch(input.rootStart + target) else {
                throw FirePackError(
                    .badKeyTable, offset: input.keyTableStart + index * input.keyTableWidth,
                    "key-table entry \(index) points at byte \(target) of the value, which is not a key literal")
            }
        }
    }

    /// Checks the one value at `offset`, which ends at `end`, inside `depth` containers (a document's fields in a
    /// stream record, say): every byte of it, as `verify()` checks a root value.
    mutating func verifyValue(at offset: Int, end: Int, depth: Int) throws(FirePackError) {
        let stop = try value(at: offset, limit: end, depth: depth)
        guard stop == end else { throw FirePackError(.trailingBytes, offset: stop, "bytes follow the value") }
    }

    /// Checks the one value at `offset`, inside a container (or root value) that ends at `limit`, and returns the
    /// offset after it: `readValue()`'s checks in the same order, without its tree.
    mutating func verifyValue(at offset: Int, limit: Int, depth: Int) throws(FirePackError) -> Int {
        try value(at: offset, limit: limit, depth: depth)
    }

    private func binarySearch(_ offset: Int) -> Bool {
        var low = 0, high = literals.count
        while low < high {
            let middle = (low + high) / 2
            if literals[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low < literals.count && literals[low] == offset
    }

    /// Checks the value at `offset` and returns the offset after it.
    private mutating func value(at offset: Int, limit: Int, depth: Int) throws(FirePackError) -> Int {
        let tag = try input.tag(at: offset, limit: limit)
        switch tag {
        case 0x00...0x7F, 0xE0...0xFF, Tag.null, Tag.false, Tag.true, Tag.serverTimestamp: return offset + 1
        case 0x80...0x9F, Tag.string: return try input.getString(at: offset, limit: limit).next
        case 0xA0...0xAF, Tag.array, Tag.packedArray, Tag.packedRows:
            let header = try input.getContainerHeader(at: offset, limit: limit, depth: depth + 1)
            if header.isPacked { return header.end }  // its header checks every element
            var cursor = header.bodyStart
            for _ in 0..<header.count { cursor = try value(at: cursor, limit: header.end, depth: depth + 1) }
            try Materializer.checkEnd(cursor, header, containerAt: offset)
            return header.end
        case 0xB0...0xBF, Tag.map:
            return try map(at: offset, limit: limit, depth: depth)
        case Tag.int8...Tag.int64: return try input.getInteger(at: offset, limit: limit).next
        case Tag.float32, Tag.float64, Tag.decimal: return try input.getDouble(at: offset, limit: limit).next
        case Tag.timestampSeconds, Tag.timestamp: return try input.getTimestamp(at: offset, limit: limit).next
        case Tag.geoPoint, Tag.packedGeoPoint: return try input.getGeoPoint(at: offset, limit: limit).next
        case Tag.bytes:
            return try input.getLengthPrefixed(at: offset, limit: limit, tag: Tag.bytes, expecting: "bytes").next
        case Tag.reference: return try input.getReference(at: offset, limit: limit).next
        case Tag.vector, Tag.packedVector: return try input.getVector(at: offset, limit: limit).next
        default:
            try input.throwUndefinedValue(tag, at: offset, limit: limit)
        }
    }

    private mutating func map(at offset: Int, limit: Int, depth: Int) throws(FirePackError) -> Int {
        let header = try input.getContainerHeader(at: offset, limit: limit, depth: depth + 1)
        let keysStart = keys.count
        defer { keys.removeSubrange(keysStart...) }
        var seen: Set<KeyBytes>?
        var cursor = header.bodyStart
        for _ in 0..<header.count {
            let keyOffset = cursor
            let (keyHeader, _) = try Varint.get(input.base, at: cursor, limit: header.end)
            let (start, count, afterKey) = try input.getKey(at: cursor, limit: header.end)
            var key = KeyBytes(base: input.base, start: start, count: count)
            if keyHeader & 1 == 1 && count > KeyReferenceBudget.longKey {
                // A reference to a long literal: counted, checked for UTF-8 and hashed once, by the first reference
                // to it (references to keys up to `longKey` bytes are checked at each, as literals are: cheaper
                // than a lookup). Each reference counts against what references may stand for, after the overlap
                // check (`ReferencedKeyStrings.string`, the same order).
                let isNew = try budget.admit(start: start, count: count, forReferenceAt: keyOffset, in: input)
                try budget.expand(by: count, forReferenceAt: keyOffset, in: input)
                if isNew {
                    try input.validateUTF8(start: start, count: count, what: "key")
                    key.hash = Self.hash(of: key, in: &hashes)
                } else {
                    key.hash = hashes[KeySpan(start: start, count: count)]
                }
            } else {
                try input.validateUTF8(start: start, count: count, what: "key")
                if keyHeader & 1 == 0 && input.keyTableCount > 0 { literals.append(keyOffset) }
            }
            // After the value, as `Value(firePackBytes:)` checks it: the same first error for every input.
            cursor = try value(at: afterKey, limit: header.end, depth: depth + 1)
            if header.count <= Self.pairwiseKeyLimit {
                for index in keys.indices[keysStart...]
                where Self.isDuplicate(&keys[index], &key, hashes: &hashes) {
                    throw duplicate(start: start, count: count, at: keyOffset)
                }
                keys.append(key)
            } else {
                if seen == nil { seen = Set(minimumCapacity: header.count) }
                if key.hash == nil { key.hash = key.contentHash() }  // a literal: its own bytes, hashed once
                guard seen!.insert(key).inserted else {
                    throw duplicate(start: start, count: count, at: keyOffset)
                }
            }
        }
        try Materializer.checkEnd(cursor, header, containerAt: offset)
        return header.end
    }

    /// Whether two keys of one map have the same bytes. Where either is a reference, their hashes are compared first
    /// (each literal hashed once, `hashes`), so that references to long literals cost no pass over them per map.
    private static func isDuplicate(_ earlier: inout KeyBytes, _ key: inout KeyBytes, hashes: inout [KeySpan: Int])
        -> Bool
    {
        guard earlier.count == key.count else { return false }
        if key.count == 0 || earlier.start == key.start { return true }
        if earlier.hash != nil || key.hash != nil {
            if earlier.hash == nil { earlier.hash = hash(of: earlier, in: &hashes) }
            if key.hash == nil { key.hash = hash(of: key, in: &hashes) }
            guard earlier.hash == key.hash else { return false }
        }
        return ByteComparison.equal(key.base + earlier.start, key.base + key.start, count: key.count)
    }

    /// The content hash of a literal key, from `hashes` or computed and kept there.
    private static func hash(of key: KeyBytes, in hashes: inout [KeySpan: Int]) -> Int {
        let span = KeySpan(start: key.start, count: key.count)
        if let hash = hashes[span] { return hash }
        let hash = key.contentHash()
        hashes[span] = hash
        return hash
    }

    private func duplicate(start: Int, count: Int, at offset: Int) -> FirePackError {
        let key = UTF8Validation.makeString(validated: input.bytes(from: start, count: count))
        return FirePackError(.duplicateKey, offset: offset, "key \(key.debugDescription) appears twice in one map")
    }
}

/// A key's bytes in the input, hashed and compared by content; `hash`, once set, is the hash of those bytes, so that
/// a set never hashes a key twice.
private struct KeyBytes: Hashable {
    let base: UnsafeRawPointer
    let start: Int
    let count: Int
    var hash: Int?

    init(base: UnsafeRawPointer, start: Int, count: Int) {
        (self.base, self.start, self.count) = (base, start, count)
    }

    /// The hash of the key's bytes (`Hasher`: seeded per process, so not floodable).
    func contentHash() -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(start: base + start, count: count))
        return hasher.finalize()
    }

    static func == (left: KeyBytes, right: KeyBytes) -> Bool {
        left.count == right.count && (left.hash == nil || right.hash == nil || left.hash == right.hash)
            && (left.count == 0 || left.start == right.start
                || ByteComparison.equal(left.base + left.start, right.base + right.start, count: left.count))
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash ?? contentHash())
    }
}

extension FirePackReader {
    /// Checks a bare encoding as strictly as `validate(_:limits:)` — structure, lengths, UTF-8 of every string and key,
    /// references, duplicate keys, every key-table entry — skipped subtrees included, without building a `Value`:
    /// for bytes from outside before a lazy read (FirePackDecoder's `inputValidation`). Throws the first problem with
    /// its offset.
    public static func verify(_ bytes: some ContiguousBytes, limits: ReaderLimits = .default) throws(FirePackError) {
        try bytes.withBorrowedBytes { bytes throws(FirePackError) in try verify(bytes, limits: limits) }
    }

    static func verify(_ bytes: UnsafeRawBufferPointer, limits: ReaderLimits) throws(FirePackError) {
        var verifier = InputVerifier(input: try ReaderInput(bytes, rootStart: 0, limits: limits))
        try verifier.verify()
    }

    /// Checks a `.fpk` file as `verify(_:limits:)` checks a bare encoding, its header first; offsets are the file's.
    package static func verify(fileBytes bytes: UnsafeRawBufferPointer, limits: ReaderLimits = .default)
        throws(FirePackError)
    {
        try checkFileHeader(bytes)
        var verifier = InputVerifier(input: try ReaderInput(bytes, rootStart: Tag.fileHeaderLength, limits: limits))
        try verifier.verify()
    }
}
