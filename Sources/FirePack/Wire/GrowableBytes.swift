/// A growable run of bytes: where they are, how many, and how many fit — the one buffer FirePack's writers write
/// into (`FirePackWriter`'s values, and through FirePackInterop's `ByteOutput` the JSON and Arrow text writers).
///
/// An append checks capacity and nothing else: an `Array`'s append also checks that its storage is unique and goes
/// through a generic copy. Owners hold it where a call reaches it without reference counting (the writer's state,
/// `ByteOutput`'s pointer) and free it with `deallocate()`; memory it was created borrowing is never freed, and
/// growing moves the bytes into memory of its own. Used by one thread at a time.
///
/// SPI public rather than `package`: the other modules' writers append a byte at a time, and only a `public`
/// `@inlinable` body reaches them (a `package` one is not serialized into the module, so each append was a call).
@_spi(Buffers)
public struct GrowableBytes {
    /// Where the bytes are; valid until the next append that grows.
    public var base: UnsafeMutablePointer<UInt8>
    /// The number of bytes written: where the next one goes.
    public var count = 0
    /// How many bytes fit before the buffer grows.
    public private(set) var capacity: Int
    /// False while `base` is memory the buffer was created borrowing.
    public private(set) var ownsMemory = true

    /// An empty buffer of its own with room for `capacity` bytes (at least 64).
    package init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    /// An empty buffer in `capacity` bytes of memory at `base` that the caller owns and keeps valid.
    package init(borrowing base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
        ownsMemory = false
    }

    /// Frees the memory when it is the buffer's own; the buffer is not used again.
    package func deallocate() {
        if ownsMemory { base.deallocate() }
    }

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always)
    public mutating func reserve(_ extra: Int) {
        if capacity &- count < extra { grow(toFit: extra) }
    }

    /// Moves the bytes into memory of its own with room for `extra` more: at least twice the capacity.
    @usableFromInline @inline(never)
    package mutating func grow(toFit extra: Int) {
        let newCapacity = max(capacity * 2, count + extra)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        deallocate()
        base = grown
        capacity = newCapacity
        ownsMemory = true
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Appends `bytes`.
    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// Appends the bytes of a static string.
    @inlinable @inline(__always)
    public mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends `bytes`.
    package mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Writes at most `maximum` bytes in place: `write` gets where they go and returns how many it wrote.
    @inlinable @inline(__always)
    public mutating func append(atMost maximum: Int, _ write: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maximum)
        let written = write(base + count)
        precondition(written >= 0 && written <= maximum, "wrote outside the reserved bytes")
        count += written
    }

    /// Drops the bytes after the first `count`.
    package mutating func truncate(to count: Int) {
        precondition(count >= 0 && count <= self.count)
        self.count = count
    }
}
