#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FirePackReader {
    /// Checks a bare encoding as strictly as the format allows (Docs/FORMAT.md §3, §4): everything
    /// `Value(firePackBytes:)` checks, plus that every key-table entry, used or not, points at the header of a key
    /// literal of the value, which a lazy reader cannot see. Throws the first problem with its offset; returns the
    /// value.
    @discardableResult
    public static func validate(_ bytes: some ContiguousBytes, limits: ReaderLimits = .default) throws(FirePackError)
        -> Value
    {
        try bytes.withBorrowedBytes { bytes throws(FirePackError) in try validate(bytes, limits: limits) }
    }

    static func validate(_ bytes: UnsafeRawBufferPointer, limits: ReaderLimits) throws(FirePackError) -> Value {
        let value = try Value(firePackBytes: bytes, limits: limits)
        let input = try ReaderInput(bytes, rootStart: 0, limits: limits)
        guard input.keyTableCount > 0 else { return value }
        var literals = Set<Int>()
        try input.collectKeyLiterals(at: input.rootStart, limit: input.rootEnd, into: &literals)
        for index in 0..<input.keyTableCount {
            let entry = input.keyTableStart + index * input.keyTableWidth
            let target = input.keyTableEntry(index)
            guard target < input.rootEnd - input.rootStart, literals.contains(input.rootStart + target) else {
                throw FirePackError(
                    .badKeyTable, offset: entry,
                    "key-table entry \(index) points at byte \(target) of the value, which is not a key literal")
            }
        }
        return value
    }

    /// The offset of the first byte where `bytes` differ from the canonical encoding of the value they hold (what
    /// FirePackWriter writes for it, keys in the same order: shortest forms, key references by §3's rule, the
    /// narrowest table width, no unused table entries), or nil when they are canonical. Throws when the bytes are
    /// not a valid encoding. Deterministic output is canonical by construction. `formatVersion` is the version the
    /// bytes claim (a `.fpk` header's, or 1 for the records of a version-1 or 2 stream): in version 1 no double
    /// takes the decimal form and no vector is packed. A version other than 1 or 3 is a programming error and traps.
    /// With `keyReferences` false the canonical form has none, as the documents of version-3 stream blocks (§8).
    public static func firstNonCanonicalOffset(
        in bytes: some ContiguousBytes, limits: ReaderLimits = .default, formatVersion: Int = 3,
        keyReferences: Bool = true
    ) throws(FirePackError) -> Int? {
        try bytes.withBorrowedBytes { bytes throws(FirePackError) in
            try firstNonCanonicalOffset(
                in: bytes, limits: limits, formatVersion: formatVersion, keyReferences: keyReferences)
        }
    }

    static func firstNonCanonicalOffset(
        in bytes: UnsafeRawBufferPointer, limits: ReaderLimits, formatVersion: Int, keyReferences: Bool
    ) throws(FirePackError) -> Int? {
        let canonical = try validate(bytes, limits: limits).firePackBytes(
            keyReferences: keyReferences, formatVersion: formatVersion)
        let common = min(canonical.count, bytes.count)
        for offset in 0..<common where canonical[offset] != bytes[offset] { return offset }
        return canonical.count == bytes.count ? nil : common
    }
}

extension ReaderInput {
    /// The value-relative offset stored in key-table entry `index` (which must be below `keyTableCount`).
    func keyTableEntry(_ index: Int) -> Int {
        var target = 0
        let entry = keyTableStart + index * keyTableWidth
        for byte in (0..<keyTableWidth).reversed() { target = target << 8 | Int(self.byte(at: entry + byte)) }
        return target
    }

    /// Adds the offset of every key literal's header under the value at `offset` to `literals`. The value has been
    /// fully checked already, so every extent read here is known to be in bounds.
    func collectKeyLiterals(at offset: Int, limit: Int, into literals: inout Set<Int>) throws(FirePackError) {
        let tag = try self.tag(at: offset, limit: limit)
        guard (0xA0...0xBF).contains(tag) || tag == Tag.array || tag == Tag.map else { return }
        let header = try getContainerHeader(at: offset, limit: limit, depth: 0)
        var cursor = header.bodyStart
        for _ in 0..<header.count {
            if header.isMap {
                let (keyHeader, _) = try Varint.get(base, at: cursor, limit: header.end)
                if keyHeader & 1 == 0 { literals.insert(cursor) }
                cursor = try getKey(at: cursor, limit: header.end).next
            }
            try collectKeyLiterals(at: cursor, limit: header.end, into: &literals)
            cursor = try valueEnd(at: cursor, limit: header.end)
        }
    }
}
