#if FirePackHummingbird
import FirePack
import Hummingbird
import Synchronization

/// The service's books: a fixed catalog of 1,000 plus the most recently created ones — at most `createdCapacity`
/// books and `createdByteCapacity` bytes (counted as their FirePack encodings), the oldest dropped first, so that a
/// load test of the create route runs in constant memory. A request whose books alone exceed the byte capacity is
/// refused (413, naming the capacity) and nothing of it is stored.
public final class BookStore: Sendable {
    /// The number of books in the catalog, the largest page the list route serves.
    public static let catalogSize = 1_000
    /// How many created books the store keeps.
    public let createdCapacity: Int
    /// How many bytes of created books (their FirePack encodings) the store keeps.
    public let createdByteCapacity: Int

    private let catalog: [BookWithTags]
    private let catalogIndex: [String: Int]
    private let created: Mutex<Created>

    private struct Created: ~Copyable {
        var books: [String: (book: BookWithTags, size: Int)] = [:]
        var bytes = 0
        /// The oldest created book still kept (ring slots before it, modulo the ring, are empty).
        var oldest = 0
        /// The ids in creation order, as a ring: slot `n % createdCapacity` holds the `n`th id.
        var ring: [String?]
        var next = 0
    }

    /// A store with the sample catalog, keeping up to `createdCapacity` created books and `createdByteCapacity` bytes.
    public init(createdCapacity: Int = 10_000, createdByteCapacity: Int = 64 << 20) {
        self.createdCapacity = createdCapacity
        self.createdByteCapacity = createdByteCapacity
        catalog = (0 ..< Self.catalogSize).map(BookWithTags.sample)
        catalogIndex = Dictionary(uniqueKeysWithValues: catalog.enumerated().map { ($1.id!, $0) })
        created = Mutex(Created(ring: Array(repeating: nil, count: max(createdCapacity, 1))))
    }

    /// The first `count` books of the catalog.
    public func list(count: Int) -> ArraySlice<BookWithTags> { catalog.prefix(count) }

    /// The book with this id, from the catalog or the created books.
    public func book(id: String) -> BookWithTags? {
        if let index = catalogIndex[id] { return catalog[index] }
        return created.withLock { $0.books[id]?.book }
    }

    /// Stores the books under new ids (`created-N`) and returns them with their ids; the oldest created books are
    /// dropped to stay within the store's count and byte capacities. Throws (413) when the books alone exceed the byte
    /// capacity, storing none of them.
    public func create(_ books: [BookWithTags]) throws -> [BookWithTags] {
        let encoder = FirePackEncoder()
        let sizes = try books.map { try encoder.encodeToBytes($0).count }
        let total = sizes.reduce(0, +)
        guard total <= createdByteCapacity else {
            throw HTTPError(.contentTooLarge, message: "These \(books.count) books take \(total) bytes; the store keeps at most \(createdByteCapacity) bytes of created books")
        }
        return created.withLock { state in
            zip(books, sizes).map { book, size in
                var stored = book
                stored.id = "created-\(state.next)"
                // Make room: a ring slot to reuse, and bytes.
                while state.next - state.oldest >= state.ring.count || state.bytes + size > createdByteCapacity {
                    let slot = state.oldest % state.ring.count
                    if let dropped = state.ring[slot], let removed = state.books.removeValue(forKey: dropped) {
                        state.bytes -= removed.size
                    }
                    state.ring[slot] = nil
                    state.oldest += 1
                }
                state.ring[state.next % state.ring.count] = stored.id
                state.books[stored.id!] = (stored, size)
                state.bytes += size
                state.next += 1
                return stored
            }
        }
    }

    /// Bytes of created books kept now (at most `createdByteCapacity`).
    public var createdBytes: Int { created.withLock { $0.bytes } }
    /// Created books kept now (at most `createdCapacity`).
    public var createdCount: Int { created.withLock { $0.books.count } }
}
#endif
