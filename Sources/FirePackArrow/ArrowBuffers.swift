/// A growable, 64-byte-aligned byte buffer whose memory is handed to an exported Arrow array (Arrow recommends
/// 64-byte alignment; the C Data Interface requires 8).
struct ArrowBuffer {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var count = 0
    private(set) var capacity: Int

    init(capacity: Int = 256) {
        self.capacity = max(capacity, 64)
        base = .allocate(byteCount: self.capacity, alignment: 64)
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    mutating func grow(to needed: Int) {
        var grown = capacity * 2
        while grown < needed { grown *= 2 }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 64)
        buffer.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = buffer
        capacity = grown
    }

    @inline(__always)
    mutating func append<T: FixedWidthInteger>(_ value: T) {
        reserve(MemoryLayout<T>.size)
        base.storeBytes(of: value.littleEndian, toByteOffset: count, as: T.self)
        count += MemoryLayout<T>.size
    }

    /// Appends a double's bit pattern unchanged (a NaN's payload included).
    @inline(__always)
    mutating func append(bitsOf value: Double) { append(value.bitPattern) }

    mutating func append(bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        count += bytes.count
    }

    mutating func appendZeros(_ byteCount: Int) {
        reserve(byteCount)
        (base + count).initializeMemory(as: UInt8.self, repeating: 0, count: byteCount)
        count += byteCount
    }

    /// Forgets the bytes past `count` (a row taken back).
    mutating func truncate(to newCount: Int) { count = newCount }

    /// Gives the memory away (to an exported array, which frees it) and starts empty.
    mutating func take() -> UnsafeMutableRawPointer {
        let taken = base
        capacity = 64
        base = .allocate(byteCount: capacity, alignment: 64)
        count = 0
        return taken
    }

    func free() { base.deallocate() }
}

/// A bitmap built bit by bit, least significant bit first (Arrow's validity and boolean layout).
struct ArrowBitmap {
    var buffer = ArrowBuffer()
    private(set) var length = 0

    @inline(__always)
    mutating func append(_ bit: Bool) {
        if length & 7 == 0 { buffer.append(UInt8(0)) }
        if bit {
            let byte = buffer.base.advanced(by: length >> 3)
            byte.storeBytes(of: byte.load(as: UInt8.self) | UInt8(1 << (length & 7)), as: UInt8.self)
        }
        length += 1
    }

    /// Appends `count` set bits (a validity bitmap started late, when the first null arrives).
    mutating func appendOnes(_ count: Int) {
        for _ in 0..<count { append(true) }
    }

    /// Forgets the bits past `newLength`, clearing them in the last byte kept (appends OR bits in).
    mutating func truncate(to newLength: Int) {
        guard newLength < length else { return }
        buffer.truncate(to: (newLength + 7) >> 3)
        if newLength & 7 != 0 {
            let byte = buffer.base.advanced(by: newLength >> 3)
            byte.storeBytes(of: byte.load(as: UInt8.self) & UInt8((1 << (newLength & 7)) - 1), as: UInt8.self)
        }
        length = newLength
    }

    mutating func take() -> UnsafeMutableRawPointer {
        length = 0
        return buffer.take()
    }

    func free() { buffer.free() }
}
