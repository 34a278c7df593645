/// A growable byte buffer for the text writers: an append checks capacity and nothing else.
///
/// An `Array`'s append also checks that the storage is unique and goes through a generic copy. The buffer owns its
/// `storage`; writers hold the pointer, so appending costs no reference counting (a writer that held the buffer
/// retained and released it on every call). Guarded by the `Stream fpks to JSON lines` benchmark.
/// Used by one thread at a time, like the writers.
package final class ByteOutput {
    /// The bytes, for writers to append to; valid while the buffer lives.
    package let storage: UnsafeMutablePointer<ByteOutputStorage>

    /// An empty buffer with room for `capacity` bytes before it grows.
    package init(capacity: Int = 4096) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: ByteOutputStorage(capacity: max(capacity, 64)))
    }

    deinit {
        storage.pointee.base.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// The number of bytes written.
    package var count: Int { storage.pointee.count }

    /// Appends one byte.
    package func append(_ byte: UInt8) { storage.pointee.append(byte) }

    /// Appends `bytes`.
    package func append(contentsOf bytes: [UInt8]) { bytes.withUnsafeBytes { storage.pointee.append($0) } }

    /// Drops the bytes after the first `count`.
    package func truncate(to count: Int) { storage.pointee.truncate(to: count) }

    /// Drops every byte, keeping the capacity.
    package func removeAll() { storage.pointee.truncate(to: 0) }

    /// A copy of the bytes written.
    package var bytes: [UInt8] { withUnsafeBytes { [UInt8]($0) } }

    /// The bytes written, valid only during `body`.
    package func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.pointee.base, count: storage.pointee.count))
    }
}

/// A `ByteOutput`'s bytes: where they are, how many, and how many fit.
package struct ByteOutputStorage {
    fileprivate var base: UnsafeMutablePointer<UInt8>
    /// The number of bytes written.
    package private(set) var count = 0
    private var capacity: Int

    fileprivate init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    /// Appends one byte.
    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(minimum: count + 1) }
        base[count] = byte
        count += 1
    }

    /// Appends `bytes`.
    @inline(__always)
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        if capacity - count < bytes.count { grow(minimum: count + bytes.count) }
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends the bytes of a static string.
    @inline(__always)
    package mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `bytes`.
    package mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Writes at most `maximum` bytes in place: `write` gets where they go and returns how many it wrote.
    @inline(__always)
    package mutating func append(atMost maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        if capacity - count < maximum { grow(minimum: count + maximum) }
        let written = write(base + count)
        precondition(written >= 0 && written <= maximum, "wrote outside the reserved bytes")
        count += written
    }

    /// Drops the bytes after the first `count`.
    package mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count)
        self.count = count
    }

    @inline(never)
    private mutating func grow(minimum: Int) {
        var newCapacity = capacity
        while newCapacity < minimum { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }
}
