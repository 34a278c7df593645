@_spi(Wire) import FirePack

/// A block's record lengths (Docs/FORMAT.md §8): `count` varints, one per document in order, that add up to the
/// documents' bytes. The row form keeps them after the documents, the columns form before its columns; both check
/// them here, with the same errors at the same offsets.
enum BlockLengths {
    /// Where the `count` lengths that start at `start` end; throws `lengthMismatch` (at the length that passes the
    /// documents' bytes, or where the lengths end when they add up to less) unless they add up to `documents`, and
    /// what `Varint.get` throws for a length cut by `limit`.
    static func end(in base: UnsafeRawPointer, from start: Int, limit: Int, count: Int, documents: Int)
        throws(FirePackError) -> Int
    {
        var cursor = start
        var total = 0
        for _ in 0..<count {
            let (length, next) = try Varint.get(base, at: cursor, limit: limit)
            guard length <= documents - total else {
                throw FirePackError(
                    .lengthMismatch, offset: cursor,
                    "the lengths add up to more than the documents' \(documents) bytes")
            }
            total += length
            cursor = next
        }
        guard total == documents else {
            throw FirePackError(
                .lengthMismatch, offset: cursor, "the lengths add up to \(total) bytes, not the documents' \(documents)"
            )
        }
        return cursor
    }
}
