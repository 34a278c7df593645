@_spi(Buffers) import FirePack

/// A growable byte buffer for the text writers (`GrowableBytes`, FirePack's one growable buffer, held by pointer).
///
/// The buffer owns its `storage`; writers hold the pointer, so appending costs no reference counting (a writer that
/// held the buffer retained and released it on every call). Guarded by the `Stream fpks to JSON lines` benchmark.
/// Used by one thread at a time, like the writers.
package final class ByteOutput {
    /// The bytes, for writers to append to; valid while the buffer lives.
    package let storage: UnsafeMutablePointer<GrowableBytes>

    /// An empty buffer with room for `capacity` bytes before it grows.
    package init(capacity: Int = 4096) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: GrowableBytes(capacity: capacity))
    }

    deinit {
        storage.pointee.deallocate()
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
