import FirePack

extension DocumentStreamReader {
    /// The stream's documents as a `Sequence`, which cannot throw: damaged records are skipped into `problems`
    /// (`.skipAndReport`), or end the sequence with the problem in `stoppedBy` (`.stopAtFirstError`); I/O errors
    /// also end it there. Check both after the loop, or iterate with the throwing `next()`.
    public var documents: DocumentSequence { DocumentSequence(reader: self) }

    /// The stream's documents decoded as `T` (with `@DocumentID` filled), as a `Sequence`: a record that does not
    /// decode is skipped into `problems` like a damaged one (`.skipAndReport`), or ends the sequence with its error
    /// in `stoppedBy` (`.stopAtFirstError`). Check both after the loop, or iterate with the throwing `next(as:)`.
    public func values<T: Decodable>(as type: T.Type, decoder: FirePackDecoder = FirePackDecoder()) -> DecodedSequence<
        T
    > {
        DecodedSequence(reader: self, decoder: decoder)
    }
}

/// A stream's documents, one at a time (see `DocumentStreamReader.documents`).
public struct DocumentSequence: Sequence, IteratorProtocol {
    let reader: DocumentStreamReader

    /// The next document, or nil at the end or at an error (then in `reader.stoppedBy`).
    public mutating func next() -> Document? {
        guard reader.stoppedBy == nil else { return nil }
        do { return try reader.next()?.document } catch {
            reader.stoppedBy = error
            return nil
        }
    }
}

/// A stream's documents decoded as `T` (see `DocumentStreamReader.values(as:)`).
public struct DecodedSequence<T: Decodable>: Sequence, IteratorProtocol {
    let reader: DocumentStreamReader
    let decoder: FirePackDecoder

    /// The next value, or nil at the end or at an error (then in `reader.stoppedBy`).
    public mutating func next() -> T? {
        guard reader.stoppedBy == nil else { return nil }
        do { return try reader.next(as: T.self, decoder: decoder)?.value } catch {
            reader.stoppedBy = error
            return nil
        }
    }
}
