#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FirePackWriter {
    /// Writes `null` (`C0`).
    public func writeNull() {
        writeSingleByte(Tag.null)
    }

    /// Writes a boolean (`C1` / `C2`).
    public func writeBoolean(_ value: Bool) {
        writeSingleByte(value ? Tag.true : Tag.false)
    }

    /// Writes the server-timestamp sentinel (`CC`).
    public func writeServerTimestamp() {
        writeSingleByte(Tag.serverTimestamp)
    }

    @inline(__always)
    func writeSingleByte(_ tag: UInt8) {
        willWriteValue()
        reserve(1)
        storage[writerIndex] = tag
        writerIndex &+= 1
        didWriteValue()
    }

    /// Writes an integer in its shortest form: the tag itself for −32 … 127, else int8/16/32/64.
    public func writeInteger(_ value: Int64) {
        willWriteValue()
        reserve(9)
        let out = storage + writerIndex
        if value >= -32 && value <= 127 {
            out[0] = UInt8(truncatingIfNeeded: value)
            writerIndex &+= 1
        } else if value >= -128 && value <= 127 {
            out[0] = Tag.int8
            out[1] = UInt8(truncatingIfNeeded: value)
            writerIndex &+= 2
        } else if value >= -32_768 && value <= 32_767 {
            out[0] = Tag.int16
            storeLittleEndian(Int16(truncatingIfNeeded: value), at: writerIndex + 1)
            writerIndex &+= 3
        } else if value >= -2_147_483_648 && value <= 2_147_483_647 {
            out[0] = Tag.int32
            storeLittleEndian(Int32(truncatingIfNeeded: value), at: writerIndex + 1)
            writerIndex &+= 5
        } else {
            out[0] = Tag.int64
            storeLittleEndian(value, at: writerIndex + 1)
            writerIndex &+= 9
        }
        didWriteValue()
    }

    /// Writes a double bit for bit, in the shortest of its forms (Docs/FORMAT.md §1, "Which form a double takes"):
    /// decimal (`D5`, format version 3) when a mantissa below 2^50 over a power of ten gives it back exactly and that
    /// is shorter than the binary form; else binary32 (`C7`) when that converts back exactly and it is not NaN; else
    /// binary64 (`C8`).
    public func writeDouble(_ value: Double) {
        willWriteValue()
        reserve(10)
        let narrow = Float(value)
        let fitsBinary32 = !value.isNaN && Double(narrow).bitPattern == value.bitPattern
        // Below these bounds the decimal form has at most 2 or 6 mantissa bytes: shorter than 5 or 9.
        if decimalDoubles,
            let (mantissa, scale) = DecimalDouble.decompose(
                value.magnitude, below: fitsBinary32 ? 0x1p16 : 0x1p48, near: &state.decimalScale)
        {
            let count = DecimalDouble.byteCount(mantissa)
            storage[writerIndex] = Tag.decimal
            storage[writerIndex + 1] = DecimalDouble.header(
                negative: value.sign == .minus, mantissaBytes: count, scale: scale)
            // The mantissa's `count` low bytes, most significant first: the top of an 8-byte big-endian store.
            storeLittleEndian((mantissa << (64 - 8 * count)).byteSwapped, at: writerIndex + 2)
            writerIndex &+= 2 + count
        } else if fitsBinary32 {
            storage[writerIndex] = Tag.float32
            storeLittleEndian(narrow.bitPattern, at: writerIndex + 1)
            writerIndex &+= 5
        } else {
            storage[writerIndex] = Tag.float64
            storeLittleEndian(value.bitPattern, at: writerIndex + 1)
            writerIndex &+= 9
        }
        didWriteValue()
    }

    /// Writes a timestamp: `C9` + seconds when the nanoseconds are 0, else `CA` + seconds + nanoseconds.
    public func writeTimestamp(_ value: Timestamp) {
        willWriteValue()
        reserve(13)
        storeLittleEndian(value.seconds, at: writerIndex + 1)
        if value.nanoseconds == 0 {
            storage[writerIndex] = Tag.timestampSeconds
            writerIndex &+= 9
        } else {
            storage[writerIndex] = Tag.timestamp
            storeLittleEndian(UInt32(value.nanoseconds), at: writerIndex + 9)
            writerIndex &+= 13
        }
        didWriteValue()
    }

    /// Writes a geopoint: packed (`D7`, format version 3) as two binary32 or two decimal mantissas when it takes a
    /// packed form as the vector `[latitude, longitude]` would (Docs/FORMAT.md §1), else `CB` + latitude + longitude
    /// as binary64.
    public func writeGeoPoint(_ value: GeoPoint) {
        willWriteValue()
        reserve(18)
        var form = PackedVector.Form.binary64
        if decimalDoubles {
            form = withUnsafeTemporaryAllocation(of: Double.self, capacity: 2) { pair in
                pair.initializeElement(at: 0, to: value.latitude)
                pair.initializeElement(at: 1, to: value.longitude)
                return PackedVector.form(
                    for: UnsafeBufferPointer(pair), mantissas: &state.mantissas, scale: &state.decimalScale)
            }
        }
        switch form {
        case .binary64:
            storage[writerIndex] = Tag.geoPoint
            storeLittleEndian(value.latitude.bitPattern, at: writerIndex + 1)
            storeLittleEndian(value.longitude.bitPattern, at: writerIndex + 9)
            writerIndex &+= 17
        case .binary32:
            storage[writerIndex] = Tag.packedGeoPoint
            storage[writerIndex + 1] = form.byte
            storeLittleEndian(Float(value.latitude).bitPattern, at: writerIndex + 2)
            storeLittleEndian(Float(value.longitude).bitPattern, at: writerIndex + 6)
            writerIndex &+= 10
        case .decimal(let width, _):
            storage[writerIndex] = Tag.packedGeoPoint
            storage[writerIndex + 1] = form.byte
            // Two 8-byte stores, the second overwriting the first's unused high bytes: 2 + width + 8 ≤ 18.
            storeLittleEndian(state.mantissas[0], at: writerIndex + 2)
            storeLittleEndian(state.mantissas[1], at: writerIndex + 2 + width)
            writerIndex &+= 2 + 2 * width
        }
        didWriteValue()
    }

    /// Writes a string (`80`–`9F` up to 31 bytes, else `CD`).
    public func writeString(_ value: String) {
        value.withUTF8Bytes { writeString(utf8: $0) }
    }

    /// Writes a string from bytes the caller guarantees are valid UTF-8 (for example a `String`'s own bytes).
    public func writeString(utf8 bytes: UnsafeRawBufferPointer) {
        willWriteValue()
        let count = bytes.count
        if count <= Tag.fixStringMaxLength {
            reserve(1 + count)
            storage[writerIndex] = Tag.fixStringBase | UInt8(count)
            writerIndex &+= 1
        } else {
            reserve(11 + count)
            storage[writerIndex] = Tag.string
            writerIndex &+= 1 + Varint.write(UInt64(count), to: storage + writerIndex + 1)
        }
        appendRaw(bytes)
        didWriteValue()
    }

    /// Writes bytes (`CE`).
    public func writeBytes(_ bytes: UnsafeRawBufferPointer) {
        writeLengthPrefixed(tag: Tag.bytes, bytes)
    }

    /// Writes bytes (`CE`).
    public func writeBytes(_ data: Data) {
        data.withUnsafeBytes { writeBytes($0) }
    }

    /// Writes bytes (`CE`).
    public func writeBytes(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { writeBytes($0) }
    }

    /// Writes a document reference (`CF` + its path).
    public func writeReference(_ reference: DocumentReference) {
        reference.path.withUTF8Bytes { writeLengthPrefixed(tag: Tag.reference, $0) }
    }

    /// Writes a vector in the shortest of its forms (Docs/FORMAT.md §1, "Which form a vector takes"): packed
    /// (`D6`, format version 3) in binary32 or as decimal mantissas when that is shorter, else binary64 (`D2`).
    public func writeVector(_ vector: VectorValue) {
        writeVector(vector.array)
    }

    /// Writes a vector in the shortest of its forms, as `writeVector(_: VectorValue)`.
    public func writeVector(_ elements: [Double]) {
        willWriteValue()
        if elements.count > options.limits.maxElementCount {
            noteLimitViolation(
                .limitExceeded, at: writerIndex,
                "a vector of \(elements.count) elements, past the limit of \(options.limits.maxElementCount)")
        }
        reserve(12 + elements.count * 8)
        let form =
            decimalDoubles
            ? elements.withUnsafeBufferPointer {
                PackedVector.form(for: $0, mantissas: &state.mantissas, scale: &state.decimalScale)
            } : .binary64
        if form == .binary64 {
            storage[writerIndex] = Tag.vector
            writerIndex &+= 1
        } else {
            storage[writerIndex] = Tag.packedVector
            storage[writerIndex + 1] = form.byte
            writerIndex &+= 2
        }
        writerIndex &+= Varint.write(UInt64(elements.count), to: storage + writerIndex)
        switch form {
        case .binary64:
            for element in elements {
                storeLittleEndian(element.bitPattern, at: writerIndex)
                writerIndex &+= 8
            }
        case .binary32:
            for element in elements {
                storeLittleEndian(Float(element).bitPattern, at: writerIndex)
                writerIndex &+= 4
            }
        case .decimal(let width, _):
            // Each mantissa's `width` low bytes, little-endian (an 8-byte store; `reserve` left room for it).
            for mantissa in state.mantissas {
                storeLittleEndian(mantissa, at: writerIndex)
                writerIndex &+= width
            }
        }
        didWriteValue()
    }

    func writeLengthPrefixed(tag: UInt8, _ bytes: UnsafeRawBufferPointer) {
        willWriteValue()
        reserve(11 + bytes.count)
        storage[writerIndex] = tag
        writerIndex &+= 1 + Varint.write(UInt64(bytes.count), to: storage + writerIndex + 1)
        appendRaw(bytes)
        didWriteValue()
    }

    /// Copies bytes into the reserved space at `writerIndex`.
    @inline(__always)
    func appendRaw(_ bytes: UnsafeRawBufferPointer) {
        if let source = bytes.baseAddress, bytes.count > 0 {
            UnsafeMutableRawPointer(storage + writerIndex).copyMemory(from: source, byteCount: bytes.count)
            writerIndex &+= bytes.count
        }
    }

    /// Stores `value` at `offset`, inside space the calling write function reserved with `reserve(_:)`.
    @inline(__always)
    func storeLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        UnsafeMutableRawPointer(storage + offset).storeBytes(of: value.littleEndian, as: T.self)
    }
}
