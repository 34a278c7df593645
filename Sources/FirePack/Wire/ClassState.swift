/// The mutable state of a hot class, kept behind a pointer: the one mechanism FirePackWriter, the decoder and the
/// streaming encoder share.
///
/// Stored `var`s of a class pay a dynamic exclusivity check on every access — several per value written or read
/// (callgrind: 30% of an encode, about a hundred checks per small document decoded); memory behind a pointer does
/// not. The class keeps one of these in a `let`, reads and writes `pointer.pointee`, and calls `release()` in its
/// `deinit`. The class must not let the state escape, and only one thread uses it at a time (the classes are not
/// `Sendable`).
struct ClassState<State> {
    /// The state.
    let pointer: UnsafeMutablePointer<State>

    /// Allocates the state with its initial value.
    init(_ initial: State) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: initial)
    }

    /// Destroys and frees the state; call once, from the owner's `deinit`.
    func release() {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }
}
