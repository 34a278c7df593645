extension FirePackWriter {
    /// Writes an array of doubles in the form `packArray` would leave it in (packed when that is shorter, else each
    /// element as `writeDouble` writes it), deciding from the doubles themselves instead of reading back what was
    /// written: one search per element serves both the tagged size and the packed form (guarded by
    /// `Encode canada model`).
    public func writeDoubles(_ elements: UnsafeBufferPointer<Double>) {
        let count = elements.count
        // Past a limit, the element-by-element path records the violation (`beginContainer`, `endContainer`).
        guard
            decimalDoubles && count >= 2 && count <= options.limits.maxElementCount
                && depth < options.limits.maxDepth
        else {
            beginArray()
            for element in elements { writeDouble(element) }
            endArray()
            return
        }
        var taggedBody = 0
        var search = PackedVector.FormSearch(mantissas: &state.mantissas)
        for value in elements {
            // An element's smallest decimal form below 2^50 is its `D5` form when the mantissa is below the bound
            // `writeDouble` uses (the smallest scale below the smaller bound is the same one).
            let fitsBinary32 = Self.fitsBinary32(value)
            let decomposition = DecimalDouble.decompose(
                value.magnitude, below: DecimalDouble.writerMantissaLimit, near: &state.decimalScale)
            taggedBody += Self.taggedSize(fitsBinary32: fitsBinary32, decomposition: decomposition)
            search.add(value, fitsBinary32: fitsBinary32, decomposition: decomposition, mantissas: &state.mantissas)
        }
        let fixed = count <= Tag.fixContainerMaxCount
        let lengthField = fixed ? taggedBody : Varint.encodedSize(count) + taggedBody
        let taggedSize = 1 + Varint.encodedSize(lengthField) + (fixed ? 0 : Varint.encodedSize(count)) + taggedBody
        let form = PackedArray.Form.doubles(search.finish(mantissas: &state.mantissas))
        let packedSize = 2 + Varint.encodedSize(count) + count * form.width
        guard packedSize < taggedSize else {
            beginArray()
            for element in elements { writeDouble(element) }
            endContainer(isMap: false, mayPack: false)  // decided above: the tagged form is not longer
            return
        }
        willWriteValue()
        reserve(packedSize + 16)
        storage[writerIndex] = Tag.packedArray
        storage[writerIndex + 1] = form.byte
        writerIndex &+= 2 + Varint.write(UInt64(count), to: storage + writerIndex + 2)
        writeNumbers(form, doubles: elements, integers: [])
        didWriteValue()
    }

    /// The size of a double as `writeDouble` writes it, given whether binary32 holds it and its smallest decimal form
    /// below 2^50.
    @inline(__always)
    static func taggedSize(fitsBinary32: Bool, decomposition: (mantissa: UInt64, scale: Int)?) -> Int {
        if let (mantissa, _) = decomposition, Double(mantissa) < (fitsBinary32 ? 0x1p16 : 0x1p48) {
            return 2 + DecimalDouble.byteCount(mantissa)
        }
        return fitsBinary32 ? 5 : 9
    }

    /// Whether `value` is a double that binary32 holds bit for bit (`C7`).
    @inline(__always)
    static func fitsBinary32(_ value: Double) -> Bool {
        !value.isNaN && Double(Float(value)).bitPattern == value.bitPattern
    }

    /// Stores the numbers of a packed array's payload in `form` at `writerIndex` (space reserved by the caller, 8
    /// bytes beyond the payload): the doubles, or for a decimal form `state.mantissas`, or the integers.
    private func writeNumbers(_ form: PackedArray.Form, doubles: UnsafeBufferPointer<Double>, integers: [Int64]) {
        switch form {
        case .integers(let width):
            for value in integers {
                storeLittleEndian(value, at: writerIndex)
                writerIndex &+= width
            }
        case .doubles(.binary64):
            for value in doubles {
                storeLittleEndian(value.bitPattern, at: writerIndex)
                writerIndex &+= 8
            }
        case .doubles(.binary32):
            for value in doubles {
                storeLittleEndian(Float(value).bitPattern, at: writerIndex)
                writerIndex &+= 4
            }
        case .doubles(.decimal(let width, _)):
            for mantissa in state.mantissas {
                storeLittleEndian(mantissa, at: writerIndex)
                writerIndex &+= width
            }
        case .mixed:
            preconditionFailure("mixed arrays are written by packMixed")
        }
    }

    /// Rewrites the array being closed as a packed array (`D8`, Docs/FORMAT.md §1, "Which form an array takes") when
    /// its elements are all doubles or all integers, or as an array of packed rows (`D9`) when they are all arrays
    /// of one length holding one kind of number, and the packed form is shorter than `taggedSize`, the bytes the
    /// tagged array takes with its header; returns whether it did. Numbers of both kinds go to `packMixed` (form
    /// `81`). The elements were written by this writer, so their tags are the ones it writes.
    ///
    /// The form depends on the elements' values alone (through their canonical tags), so deterministic output stays
    /// deterministic. Numbers hold no keys, so no key-table position moves.
    func packArray(count: Int, bodyStart: Int, taggedSize: Int) -> Bool {
        state.packedDoubles.removeAll(keepingCapacity: true)
        state.packedIntegers.removeAll(keepingCapacity: true)
        var search = PackedVector.FormSearch(mantissas: &state.mantissas)
        var columns = 0
        var binary64Rows = false
        let holdsDoubles: Bool
        switch storage[bodyStart] {
        case 0x00...0x7F, 0xE0...0xFF, Tag.int8...Tag.int64:
            guard appendNumbers(count: count, from: bodyStart, doubles: false, search: &search) != nil else {
                return packMixed(count: count, bodyStart: bodyStart, taggedSize: taggedSize, rows: false)
            }
            holdsDoubles = false
        case Tag.float32, Tag.float64, Tag.decimal:
            guard appendNumbers(count: count, from: bodyStart, doubles: true, search: &search) != nil else {
                return packMixed(count: count, bodyStart: bodyStart, taggedSize: taggedSize, rows: false)
            }
            holdsDoubles = true
        case Tag.packedArray, Tag.fixArrayBase + 1...Tag.fixArrayBase + 15, Tag.array:
            guard let rows = appendRows(count: count, from: bodyStart, search: &search) else {
                return packMixed(count: count, bodyStart: bodyStart, taggedSize: taggedSize, rows: true)
            }
            (columns, holdsDoubles, binary64Rows) = rows
        default:
            return false
        }
        let form: PackedArray.Form
        if binary64Rows {
            // A row of two or more doubles packed in binary64 has an element that binary32 cannot hold and one with no
            // decimal form at its scale, or the decimal form would have been shorter; more rows and a larger common
            // scale change neither, so the rows together take binary64 too.
            form = .doubles(.binary64)
        } else if holdsDoubles {
            form = .doubles(search.finish(mantissas: &state.mantissas))
        } else {
            let low = state.packedIntegers.min() ?? 0, high = state.packedIntegers.max() ?? 0
            form = .integers(width: PackedArray.integerWidth(low: low, high: high))
        }
        let numbers = holdsDoubles ? state.packedDoubles.count : state.packedIntegers.count
        guard writePackedHeader(form, count: count, columns: columns, numbers: numbers, taggedSize: taggedSize) else {
            return false
        }
        state.packedDoubles.withUnsafeBufferPointer { writeNumbers(form, doubles: $0, integers: state.packedIntegers) }
        return true
    }

    /// Rewrites the array being closed as `packArray` does, in the `.mixed` form (Docs/FORMAT.md §1: binary64 and
    /// boxed integers, form byte `81`), when its elements (or, with `rows`, the elements of its rows, arrays of one
    /// length) are integers and doubles that the form holds and that form is shorter than `taggedSize`; returns
    /// whether it did. Called when the one-kind forms found a number of the other kind, or anything else.
    private func packMixed(count: Int, bodyStart: Int, taggedSize: Int, rows: Bool) -> Bool {
        state.packedBits.removeAll(keepingCapacity: true)
        var columns = 0
        if rows {
            var position = bodyStart
            for row in 0..<count {
                guard let (length, elements, form) = arrayHeader(at: position), length > 0 else { return false }
                if row == 0 { columns = length }
                guard length == columns else { return false }
                if let form {
                    let payload = UnsafeRawBufferPointer(start: storage + elements, count: length * form.width)
                    for index in 0..<length {
                        guard appendBits(form.element(at: index, in: payload)) else { return false }
                    }
                    position = elements + length * form.width
                } else {
                    guard let end = appendMixed(count: length, from: elements) else { return false }
                    position = end
                }
            }
        } else {
            guard appendMixed(count: count, from: bodyStart) != nil else { return false }
        }
        guard
            writePackedHeader(
                .mixed, count: count, columns: columns, numbers: state.packedBits.count, taggedSize: taggedSize)
        else { return false }
        for bits in state.packedBits {
            storeLittleEndian(bits, at: writerIndex)
            writerIndex &+= 8
        }
        return true
    }

    /// Writes the header of a packed array (`D8`) or, with `columns`, of packed rows (`D9`) over the array being
    /// closed, when `numbers` elements in `form` are shorter than `taggedSize`; returns whether it did.
    private func writePackedHeader(_ form: PackedArray.Form, count: Int, columns: Int, numbers: Int, taggedSize: Int)
        -> Bool
    {
        let headerSize = 2 + Varint.encodedSize(count) + (columns > 0 ? Varint.encodedSize(columns) : 0)
        guard headerSize + numbers * form.width < taggedSize else { return false }
        reserve(16)  // the last mantissa's 8-byte store may pass the packed end, never the tagged one by more
        writerIndex = top.headerStart
        storage[writerIndex] = columns > 0 ? Tag.packedRows : Tag.packedArray
        storage[writerIndex + 1] = form.byte
        writerIndex &+= 2 + Varint.write(UInt64(count), to: storage + writerIndex + 2)
        if columns > 0 { writerIndex &+= Varint.write(UInt64(columns), to: storage + writerIndex) }
        return true
    }

    /// The length of the array the writer wrote at `position`, where its elements start, and its form when packed;
    /// nil when that is not an array. The writer's own bytes: every varint in them is well formed.
    private func arrayHeader(at position: Int) -> (length: Int, elements: Int, form: PackedArray.Form?)? {
        let tag = storage[position]
        switch tag {
        case Tag.packedArray:
            guard let form = PackedArray.Form(byte: storage[position + 1]), let read = varint(at: position + 2) else {
                return nil
            }
            return (read.value, read.next, form)
        case Tag.fixArrayBase...Tag.fixArrayBase + 15:
            guard let (_, next) = varint(at: position + 1) else { return nil }
            return (Int(tag & 0x0F), next, nil)
        case Tag.array:
            guard let (_, countAt) = varint(at: position + 1), let read = varint(at: countAt) else { return nil }
            return (read.value, read.next, nil)
        default:
            return nil
        }
    }

    /// Appends the `count` tagged numbers from `start` to `state.packedBits` in the `.mixed` form, and returns the
    /// offset after them; nil when one is not a number or the form cannot hold it.
    private func appendMixed(count: Int, from start: Int) -> Int? {
        var position = start
        for _ in 0..<count {
            guard let (number, next, _) = taggedNumber(at: position), appendBits(number) else { return nil }
            position = next
        }
        return position
    }

    /// Appends `number` to `state.packedBits` in the `.mixed` form; false when the form cannot hold it (an integer
    /// beyond 48 bits, a double whose bits are a box).
    @inline(__always)
    private func appendBits(_ number: Value) -> Bool {
        switch number {
        case .integer(let integer):
            guard PackedArray.boxableIntegers.contains(integer) else { return false }
            state.packedBits.append(PackedArray.box(integer))
        case .double(let double):
            guard !PackedArray.isBoxed(double.bitPattern) else { return false }
            state.packedBits.append(double.bitPattern)
        default:
            return false
        }
        return true
    }

    /// Reads the `count` elements from `start` into `state.packedDoubles` or `state.packedIntegers`, row after row,
    /// when every one is an array of the same length, at least 1, whose elements are all doubles or all integers
    /// (one kind in every row), packed or tagged; returns the length, whether the numbers are doubles, and whether a
    /// row is a packed array of doubles in binary64.
    private func appendRows(count: Int, from start: Int, search: inout PackedVector.FormSearch) -> (
        columns: Int, doubles: Bool, binary64: Bool
    )? {
        var position = start
        var columns = -1
        var doubles = false
        var binary64 = false
        for row in 0..<count {
            guard let (length, elements, form) = arrayHeader(at: position) else { return nil }
            if row == 0 {
                guard length > 0 else { return nil }
                columns = length
                doubles =
                    form?.holdsDoubles
                    ?? (storage[elements] == Tag.float32 || storage[elements] == Tag.float64
                        || storage[elements] == Tag.decimal)
            }
            guard length == columns else { return nil }
            guard let form else {
                guard let end = appendNumbers(count: length, from: elements, doubles: doubles, search: &search) else {
                    return nil
                }
                position = end
                continue
            }
            guard form != .mixed, form.holdsDoubles == doubles else { return nil }
            let payload = UnsafeRawBufferPointer(start: storage + elements, count: length * form.width)
            switch form {
            case .integers(let width):
                for index in 0..<length {
                    state.packedIntegers.append(PackedVector.mantissa(at: index * width, width: width, in: payload))
                }
            case .doubles(.decimal(let width, let scale)):
                // A decimal row's mantissas at its scale: that scale is the largest of its elements' own, and the
                // mantissas scale up exactly, so they stand in for the elements' own forms.
                for index in 0..<length {
                    let mantissa = PackedVector.mantissa(at: index * width, width: width, in: payload)
                    let value = Double(mantissa) / DecimalDouble.powerOfTen(scale)
                    state.packedDoubles.append(value)
                    search.add(
                        value, fitsBinary32: Self.fitsBinary32(value), decomposition: (mantissa.magnitude, scale),
                        mantissas: &state.mantissas)
                }
            case .mixed:
                return nil
            case .doubles(let doubles):
                if doubles == .binary64 && length >= 2 { binary64 = true }
                for index in 0..<length {
                    let value = doubles.element(at: index, in: payload)
                    state.packedDoubles.append(value)
                    if !binary64 { addSearching(value, to: &search) }
                }
            }
            position = elements + length * form.width
        }
        return (columns, doubles, binary64)
    }

    /// The varint the writer wrote at `offset`, and the offset after it.
    private func varint(at offset: Int) -> (value: Int, next: Int)? {
        try? Varint.get(UnsafeRawPointer(storage), at: offset, limit: writerIndex)
    }

    /// Appends the `count` tagged numbers from `start` to `state.packedDoubles` (when `doubles`, each added to
    /// `search`) or `state.packedIntegers`, and returns the offset after them; nil when one is of another kind.
    private func appendNumbers(count: Int, from start: Int, doubles: Bool, search: inout PackedVector.FormSearch)
        -> Int?
    {
        var position = start
        for _ in 0..<count {
            guard let (number, next, decimal) = taggedNumber(at: position) else { return nil }
            switch number {
            case .double(let value) where doubles:
                state.packedDoubles.append(value)
                if let decimal {
                    // The writer's `D5` is the element's smallest decimal form: no search.
                    search.add(
                        value, fitsBinary32: Self.fitsBinary32(value), decomposition: decimal,
                        mantissas: &state.mantissas)
                } else {
                    addSearching(value, to: &search)
                }
            case .integer(let value) where !doubles:
                state.packedIntegers.append(value)
            default:
                return nil
            }
            position = next
        }
        return position
    }

    /// The number the writer wrote at `position`, the offset after it, and for a decimal double (`D5`) its mantissa
    /// and scale; nil for any other kind of value.
    @inline(__always)
    private func taggedNumber(at position: Int) -> (
        number: Value, next: Int, decimal: (mantissa: UInt64, scale: Int)?
    )? {
        let tag = storage[position]
        switch tag {
        case 0x00...0x7F: return (.integer(Int64(tag)), position + 1, nil)
        case 0xE0...0xFF: return (.integer(Int64(Int8(bitPattern: tag))), position + 1, nil)
        case Tag.int8: return (.integer(Int64(Int8(bitPattern: storage[position + 1]))), position + 2, nil)
        case Tag.int16: return (.integer(Int64(loadLittleEndian(Int16.self, at: position + 1))), position + 3, nil)
        case Tag.int32: return (.integer(Int64(loadLittleEndian(Int32.self, at: position + 1))), position + 5, nil)
        case Tag.int64: return (.integer(loadLittleEndian(Int64.self, at: position + 1)), position + 9, nil)
        case Tag.float32:
            let value = Double(Float(bitPattern: loadLittleEndian(UInt32.self, at: position + 1)))
            return (.double(value), position + 5, nil)
        case Tag.float64:
            return (.double(Double(bitPattern: loadLittleEndian(UInt64.self, at: position + 1))), position + 9, nil)
        case Tag.decimal:
            let header = storage[position + 1]
            let bytes = DecimalDouble.mantissaBytes(header)
            var mantissa: UInt64 = 0
            for offset in 0..<bytes { mantissa = mantissa << 8 | UInt64(storage[position + 2 + offset]) }
            let value = DecimalDouble.compose(mantissa: mantissa, header: header)
            return (.double(value), position + 2 + bytes, (mantissa, Int(header & 0x0F)))
        default:
            return nil
        }
    }

    /// Adds `value` to `search` with its smallest decimal form, searched for.
    @inline(__always)
    private func addSearching(_ value: Double, to search: inout PackedVector.FormSearch) {
        search.add(
            value, fitsBinary32: Self.fitsBinary32(value),
            decomposition: DecimalDouble.decompose(
                value.magnitude, below: DecimalDouble.writerMantissaLimit, near: &state.decimalScale),
            mantissas: &state.mantissas)
    }

    @inline(__always)
    private func loadLittleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(littleEndian: UnsafeRawPointer(storage + offset).loadUnaligned(as: T.self))
    }
}
