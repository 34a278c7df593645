extension FirePackWriter {
    /// Rewrites the array being closed as a packed array (`D8`, Docs/FORMAT.md §1, "Which form an array takes") when
    /// its elements are all doubles or all integers and the packed form is shorter than `taggedSize`, the bytes the
    /// tagged array takes with its header; returns whether it did. The elements were written by this writer, so
    /// their tags are the ones it writes.
    ///
    /// The form depends on the elements' values alone (through their canonical tags), so deterministic output stays
    /// deterministic. Numbers hold no keys, so no key-table position moves.
    func packArray(count: Int, bodyStart: Int, taggedSize: Int) -> Bool {
        let first = storage[bodyStart]
        let form: PackedArray.Form
        switch first {
        case 0x00...0x7F, 0xE0...0xFF, Tag.int8...Tag.int64:
            guard let width = readPackableIntegers(count: count, from: bodyStart) else { return false }
            form = .integers(width: width)
        case Tag.float32, Tag.float64, Tag.decimal:
            guard readPackableDoubles(count: count, from: bodyStart) else { return false }
            let doubles = state.packedDoubles.withUnsafeBufferPointer {
                PackedVector.form(for: $0, mantissas: &state.mantissas)
            }
            form = .doubles(doubles)
        default:
            return false
        }
        let packedSize = 2 + Varint.encodedSize(count) + count * form.width
        guard packedSize < taggedSize else { return false }
        reserve(16)  // the last mantissa's 8-byte store may pass the packed end, never the tagged one by more
        var index = top.headerStart
        storage[index] = Tag.packedArray
        storage[index + 1] = form.byte
        index += 2 + Varint.write(UInt64(count), to: storage + index + 2)
        switch form {
        case .integers(let width):
            for value in state.packedIntegers {
                storeLittleEndian(value, at: index)
                index += width
            }
        case .doubles(.binary64):
            for value in state.packedDoubles {
                storeLittleEndian(value.bitPattern, at: index)
                index += 8
            }
        case .doubles(.binary32):
            for value in state.packedDoubles {
                storeLittleEndian(Float(value).bitPattern, at: index)
                index += 4
            }
        case .doubles(.decimal(let width, _)):
            for mantissa in state.mantissas {
                storeLittleEndian(mantissa, at: index)
                index += width
            }
        }
        writerIndex = index
        return true
    }

    /// Reads the `count` elements from `start` into `state.packedIntegers` when every one is an integer, and returns
    /// the narrowest width that holds them all.
    private func readPackableIntegers(count: Int, from start: Int) -> Int? {
        state.packedIntegers.removeAll(keepingCapacity: true)
        var position = start
        var low = Int64.max, high = Int64.min
        for _ in 0..<count {
            let tag = storage[position]
            let value: Int64
            switch tag {
            case 0x00...0x7F:
                value = Int64(tag)
                position += 1
            case 0xE0...0xFF:
                value = Int64(Int8(bitPattern: tag))
                position += 1
            case Tag.int8:
                value = Int64(Int8(bitPattern: storage[position + 1]))
                position += 2
            case Tag.int16:
                value = Int64(loadLittleEndian(Int16.self, at: position + 1))
                position += 3
            case Tag.int32:
                value = Int64(loadLittleEndian(Int32.self, at: position + 1))
                position += 5
            case Tag.int64:
                value = loadLittleEndian(Int64.self, at: position + 1)
                position += 9
            default:
                return nil
            }
            low = min(low, value)
            high = max(high, value)
            state.packedIntegers.append(value)
        }
        return PackedArray.integerWidth(low: low, high: high)
    }

    /// Reads the `count` elements from `start` into `state.packedDoubles` when every one is a double.
    private func readPackableDoubles(count: Int, from start: Int) -> Bool {
        state.packedDoubles.removeAll(keepingCapacity: true)
        var position = start
        for _ in 0..<count {
            let tag = storage[position]
            switch tag {
            case Tag.float32:
                state.packedDoubles.append(Double(Float(bitPattern: loadLittleEndian(UInt32.self, at: position + 1))))
                position += 5
            case Tag.float64:
                state.packedDoubles.append(Double(bitPattern: loadLittleEndian(UInt64.self, at: position + 1)))
                position += 9
            case Tag.decimal:
                let header = storage[position + 1]
                let bytes = DecimalDouble.mantissaBytes(header)
                var mantissa: UInt64 = 0
                for offset in 0..<bytes { mantissa = mantissa << 8 | UInt64(storage[position + 2 + offset]) }
                state.packedDoubles.append(DecimalDouble.compose(mantissa: mantissa, header: header))
                position += 2 + bytes
            default:
                return false
            }
        }
        return true
    }

    @inline(__always)
    private func loadLittleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(littleEndian: UnsafeRawPointer(storage + offset).loadUnaligned(as: T.self))
    }
}
