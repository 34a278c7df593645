#if FirePackHummingbird
import Synchronization

/// The service's books: a fixed catalog of 1,000 plus the most recently created ones (at most `createdCapacity`, the
/// oldest dropped first, so that a load test of the create route runs in constant memory).
public final class BookStore: Sendable {
    /// The number of books in the catalog, the largest page the list route serves.
    public static let catalogSize = 1_000
    /// How many created books the store keeps.
    public let createdCapacity: Int

    private let catalog: [BookWithTags]
    private let catalogIndex: [String: Int]
    private let created: Mutex<Created>

    private struct Created: ~Copyable {
        var books: [String: BookWithTags] = [:]
        /// The ids in creation order, as a ring: slot `n % createdCapacity` holds the `n`th id.
        var ring: [String?]
        var next = 0
    }

    /// A store with the sample catalog.
    public init(createdCapacity: Int = 10_000) {
        self.createdCapacity = createdCapacity
        catalog = (0 ..< Self.catalogSize).map(BookWithTags.sample)
        catalogIndex = Dictionary(uniqueKeysWithValues: catalog.enumerated().map { ($1.id!, $0) })
        created = Mutex(Created(ring: Array(repeating: nil, count: max(createdCapacity, 1))))
    }

    /// The first `count` books of the catalog.
    public func list(count: Int) -> ArraySlice<BookWithTags> { catalog.prefix(count) }

    /// The book with this id, from the catalog or the created books.
    public func book(id: String) -> BookWithTags? {
        if let index = catalogIndex[id] { return catalog[index] }
        return created.withLock { $0.books[id] }
    }

    /// Stores the books under new ids (`created-N`) and returns them with their ids.
    public func create(_ books: [BookWithTags]) -> [BookWithTags] {
        created.withLock { state in
            books.map { book in
                var stored = book
                stored.id = "created-\(state.next)"
                let slot = state.next % state.ring.count
                if let dropped = state.ring[slot] { state.books[dropped] = nil }
                state.ring[slot] = stored.id
                state.books[stored.id!] = stored
                state.next += 1
                return stored
            }
        }
    }
}
#endif
