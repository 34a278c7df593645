extension FirePackWriter {
    /// Rewrites the array being closed as a packed array (`D8`, Docs/FORMAT.md §1, "Which form an array takes") when
    /// its elements are all doubles or all integers, or as an array of packed rows (`D9`) when they are all arrays
    /// of one length holding one kind of number, and the packed form is shorter than `taggedSize`, the bytes
    /// the tagged array takes with its header; returns whether it did. The elements were written by this writer, so
    /// their tags are the ones it writes.
    ///
    /// The form depends on the elements' values alone (through their canonical tags), so deterministic output stays
    /// deterministic. Numbers hold no keys, so no key-table position moves.
    func packArray(count: Int, bodyStart: Int, taggedSize: Int) -> Bool {
        let first = storage[bodyStart]
        var columns = 0
        let holdsDoubles: Bool
        switch first {
        case 0x00...0x7F, 0xE0...0xFF, Tag.int8...Tag.int64:
            guard readPackableIntegers(count: count, from: bodyStart) else { return false }
            holdsDoubles = false
        case Tag.float32, Tag.float64, Tag.decimal:
            guard readPackableDoubles(count: count, from: bodyStart) else { return false }
            holdsDoubles = true
        case Tag.packedArray, Tag.fixArrayBase + 1...Tag.fixArrayBase + 15, Tag.array:
            guard let (rowLength, doubles) = readPackableRows(count: count, from: bodyStart) else { return false }
            columns = rowLength
            holdsDoubles = doubles
        default:
            return false
        }
        let form: PackedArray.Form
        if holdsDoubles {
            form = .doubles(
                state.packedDoubles.withUnsafeBufferPointer { PackedVector.form(for: $0, mantissas: &state.mantissas) })
        } else {
            let low = state.packedIntegers.min() ?? 0, high = state.packedIntegers.max() ?? 0
            form = .integers(width: PackedArray.integerWidth(low: low, high: high))
        }
        let numbers = holdsDoubles ? state.packedDoubles.count : state.packedIntegers.count
        let headerSize = 2 + Varint.encodedSize(count) + (columns > 0 ? Varint.encodedSize(columns) : 0)
        guard headerSize + numbers * form.width < taggedSize else { return false }
        reserve(16)  // the last mantissa's 8-byte store may pass the packed end, never the tagged one by more
        var index = top.headerStart
        storage[index] = columns > 0 ? Tag.packedRows : Tag.packedArray
        storage[index + 1] = form.byte
        index += 2 + Varint.write(UInt64(count), to: storage + index + 2)
        if columns > 0 { index += Varint.write(UInt64(columns), to: storage + index) }
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

    /// Reads the `count` elements from `start` into `state.packedIntegers` when every one is an integer.
    private func readPackableIntegers(count: Int, from start: Int) -> Bool {
        state.packedDoubles.removeAll(keepingCapacity: true)
        state.packedIntegers.removeAll(keepingCapacity: true)
        return appendNumbers(count: count, from: start, doubles: false) != nil
    }

    /// Reads the `count` elements from `start` into `state.packedDoubles` when every one is a double.
    private func readPackableDoubles(count: Int, from start: Int) -> Bool {
        state.packedDoubles.removeAll(keepingCapacity: true)
        state.packedIntegers.removeAll(keepingCapacity: true)
        return appendNumbers(count: count, from: start, doubles: true) != nil
    }

    /// Reads the `count` elements from `start` into `state.packedDoubles` or `state.packedIntegers`, row after row,
    /// when every one is an array of the same length, at least 1, whose elements are all doubles or all integers
    /// (one kind in every row), packed or tagged; returns the length and whether the numbers are doubles.
    private func readPackableRows(count: Int, from start: Int) -> (columns: Int, doubles: Bool)? {
        state.packedDoubles.removeAll(keepingCapacity: true)
        state.packedIntegers.removeAll(keepingCapacity: true)
        var position = start
        var columns = -1
        var doubles = false
        for row in 0..<count {
            let tag = storage[position]
            // The writer's own bytes: every varint in them is well formed.
            let (length, elements): (Int, Int)
            var form: PackedArray.Form? = nil
            switch tag {
            case Tag.packedArray:
                form = PackedArray.Form(byte: storage[position + 1])
                guard let read = varint(at: position + 2) else { return nil }
                (length, elements) = read
            case Tag.fixArrayBase + 1...Tag.fixArrayBase + 15:
                guard let (_, next) = varint(at: position + 1) else { return nil }
                (length, elements) = (Int(tag & 0x0F), next)
            case Tag.array:
                guard let (_, countAt) = varint(at: position + 1), let read = varint(at: countAt) else { return nil }
                (length, elements) = read
            default:
                return nil
            }
            if row == 0 {
                guard length > 0 else { return nil }
                columns = length
                doubles = form?.holdsDoubles ?? (storage[elements] == Tag.float32 || storage[elements] == Tag.float64
                    || storage[elements] == Tag.decimal)
            }
            guard length == columns else { return nil }
            if let form {
                guard form.holdsDoubles == doubles else { return nil }
                let payload = UnsafeRawBufferPointer(start: storage + elements, count: length * form.width)
                for index in 0..<length {
                    switch form.element(at: index, in: payload) {
                    case .double(let value): state.packedDoubles.append(value)
                    case .integer(let value): state.packedIntegers.append(value)
                    default: return nil
                    }
                }
                position = elements + length * form.width
            } else {
                guard let end = appendNumbers(count: length, from: elements, doubles: doubles) else { return nil }
                position = end
            }
        }
        return (columns, doubles)
    }

    /// The varint the writer wrote at `offset`, and the offset after it.
    private func varint(at offset: Int) -> (value: Int, next: Int)? {
        try? Varint.get(UnsafeRawPointer(storage), at: offset, limit: writerIndex)
    }

    /// Appends the `count` tagged numbers from `start` to `state.packedDoubles` (when `doubles`) or
    /// `state.packedIntegers`, and returns the offset after them; nil when one is of another kind.
    private func appendNumbers(count: Int, from start: Int, doubles: Bool) -> Int? {
        var position = start
        for _ in 0..<count {
            let tag = storage[position]
            if doubles {
                switch tag {
                case Tag.float32:
                    state.packedDoubles.append(
                        Double(Float(bitPattern: loadLittleEndian(UInt32.self, at: position + 1))))
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
                    return nil
                }
                continue
            }
            switch tag {
            case 0x00...0x7F:
                state.packedIntegers.append(Int64(tag))
                position += 1
            case 0xE0...0xFF:
                state.packedIntegers.append(Int64(Int8(bitPattern: tag)))
                position += 1
            case Tag.int8:
                state.packedIntegers.append(Int64(Int8(bitPattern: storage[position + 1])))
                position += 2
            case Tag.int16:
                state.packedIntegers.append(Int64(loadLittleEndian(Int16.self, at: position + 1)))
                position += 3
            case Tag.int32:
                state.packedIntegers.append(Int64(loadLittleEndian(Int32.self, at: position + 1)))
                position += 5
            case Tag.int64:
                state.packedIntegers.append(loadLittleEndian(Int64.self, at: position + 1))
                position += 9
            default:
                return nil
            }
        }
        return position
    }

    @inline(__always)
    private func loadLittleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(littleEndian: UnsafeRawPointer(storage + offset).loadUnaligned(as: T.self))
    }
}
