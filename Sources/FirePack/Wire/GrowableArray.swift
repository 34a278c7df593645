/// A growable array of plain values (`BitwiseCopyable`) in memory it manages itself: the writer's stacks of open
/// containers and keys, and its key table.
///
/// The counterpart of `GrowableBytes` for elements other than bytes. An `Array` checks that its storage is unique
/// before every write and goes through a generic copy; the writer changes these arrays for every key it writes
/// (guarded by `Encode 1000 Book/FirePackEncoder @FirePackCodable`). Here an append checks capacity, and an index is
/// checked against `count` (a trap, as an array's), nothing else. Dropping elements only lowers `count`: the memory
/// stays for the next appends.
///
/// An empty array allocates nothing (a writer made for one call makes none of them).
///
/// Copies share the memory, so exactly one owner holds it and frees it with `deallocate()`, as the writer's state
/// does. Used by one thread at a time.
struct GrowableArray<Element: BitwiseCopyable> {
    /// Where the elements are (nil until the first append); valid until the next append that grows.
    private var base: UnsafeMutablePointer<Element>?
    /// The number of elements.
    private(set) var count = 0
    /// How many elements fit before the array grows.
    private var capacity = 0

    /// An empty array.
    init() {}

    /// An array of `count` copies of `element`.
    init(repeating element: Element, count: Int) {
        let base = UnsafeMutablePointer<Element>.allocate(capacity: count)
        base.initialize(repeating: element, count: count)
        (self.base, self.count, capacity) = (base, count, count)
    }

    /// Frees the memory; the array is not used again.
    func deallocate() { base?.deallocate() }

    var isEmpty: Bool { count == 0 }

    /// The element at `index`, below `count`.
    @inline(__always)
    subscript(index: Int) -> Element {
        get {
            precondition(index >= 0 && index < count, "index out of range")
            return base.unsafelyUnwrapped[index]
        }
        nonmutating _modify {
            precondition(index >= 0 && index < count, "index out of range")
            yield &base.unsafelyUnwrapped[index]
        }
    }

    /// The elements, valid until the next append that grows.
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    /// Appends `element`.
    @inline(__always)
    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count += 1
    }

    /// Moves the elements into memory twice as large (at least 16 elements).
    @inline(never)
    private mutating func grow() {
        capacity = max(16, capacity * 2)
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        if let base {
            larger.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = larger
    }

    /// Removes and returns the last element; only when there is one.
    @inline(__always)
    mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast() of an empty array")
        count -= 1
        return base.unsafelyUnwrapped[count]
    }

    /// Drops the last `dropped` elements.
    @inline(__always)
    mutating func removeLast(_ dropped: Int) {
        precondition(dropped >= 0 && dropped <= count, "more elements dropped than held")
        count -= dropped
    }

    /// Drops every element, keeping the memory.
    mutating func removeAll() { count = 0 }
}
