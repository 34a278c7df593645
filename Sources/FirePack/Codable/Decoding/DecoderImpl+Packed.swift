/// Decoding the elements of packed arrays (`D8`, `D9`, Docs/FORMAT.md §1), which carry no tag each.
///
/// An element is decoded by a decoder of its own whose input is the element written as the tagged value it stands
/// for: a number as `C8` and a binary64 or `C6` and an int64, a row of `D9` as a `D8` (forms every reader accepts),
/// so that every mapping rule, strategy and error is the one a tagged element meets; its errors report the element's
/// offset in the document. Arrays of `Double` and `Int` in generated code are read in bulk instead
/// (`FirePackValueReader.decodeDoubles`).
extension DecoderImpl {
    /// The size of a number written as a tagged value: a tag and eight bytes.
    static let packedElementSize = 9

    /// Packed arrays up to this many elements are decoded element by element, longer ones in one pass.
    static let shortPackedArray = 16

    /// The offset in the document of offset `offset` of this decoder's input (the same unless it is a decoder of a
    /// packed element or row).
    func reportedOffset(_ offset: Int) -> Int {
        guard let document = state.packedDocumentOffset else { return offset }
        return document + max(0, offset - state.packedBodyStart)
    }

    /// A decoder for the elements (numbers) of a packed array whose elements are `depth` containers deep, with the
    /// coding path `path` (whose last entry each `load` sets to the element's index).
    func packedElementDecoder(depth: Int, path: [PathEntry]) -> DecoderImpl {
        packedDecoder(size: Self.packedElementSize, depth: depth, path: path) { bytes in
            bytes.storeBytes(of: Tag.float64, as: UInt8.self)
        }
    }

    /// A decoder for the rows of an array of packed rows (`D9`) of `form`, `columns` elements each, the rows `depth`
    /// containers deep: each row is written as a `D8` (`loadRow`).
    func packedRowDecoder(form: PackedArray.Form, columns: Int, depth: Int, path: [PathEntry]) -> DecoderImpl {
        let headerSize = 2 + Varint.encodedSize(columns)
        let child = packedDecoder(size: headerSize + columns * form.width, depth: depth, path: path) { bytes in
            bytes.storeBytes(of: Tag.packedArray, as: UInt8.self)
            bytes.storeBytes(of: form.byte, toByteOffset: 1, as: UInt8.self)
            _ = Varint.write(UInt64(columns), to: bytes.assumingMemoryBound(to: UInt8.self) + 2)
        }
        child.state.packedBodyStart = headerSize
        return child
    }

    /// A decoder over `size` bytes of its own, zeroed and then given their first bytes by `start`.
    private func packedDecoder(
        size: Int, depth: Int, path: [PathEntry], start: (UnsafeMutableRawPointer) -> Void
    ) -> DecoderImpl {
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        start(bytes)
        // The limits of this call: a row is checked against them as the array of rows was. The bytes are one value
        // from an array that was within them; only their size can pass `maxInputSize` (a packed byte becomes a
        // tagged number of up to 9), so that limit is at least the size here and opening them cannot fail.
        var limits = self.input.limits
        limits.maxInputSize = max(limits.maxInputSize, size)
        let input = try! ReaderInput(UnsafeRawBufferPointer(start: bytes, count: size), rootStart: 0, limits: limits)
        let child = DecoderImpl(input: input, options: options, offset: 0, end: size, depth: depth)
        child.state.packedBytes = bytes
        child.state.packedBodyStart = size
        child.path = path
        return child
    }

    /// Makes this element decoder read `value` (an element of a packed array), element `index` at `offset` of the
    /// document.
    func load(_ value: Value, index: Int, reportedAt offset: Int) {
        guard let bytes = state.packedBytes else { preconditionFailure("not a packed-element decoder") }
        switch value {
        case .double(let double):
            bytes.storeBytes(of: Tag.float64, as: UInt8.self)
            bytes.storeBytes(of: double.bitPattern.littleEndian, toByteOffset: 1, as: UInt64.self)
        case .integer(let integer):
            bytes.storeBytes(of: Tag.int64, as: UInt8.self)
            bytes.storeBytes(of: integer.littleEndian, toByteOffset: 1, as: Int64.self)
        default: preconditionFailure("a packed array holds numbers")
        }
        moveTo(index: index, reportedAt: offset)
    }

    /// Makes this row decoder read `row` of `source` (a row of a `D9` there), row `index` at `offset` of the
    /// document.
    func loadRow(_ row: ContainerHeader, of source: DecoderImpl, index: Int, reportedAt offset: Int) {
        guard let bytes = state.packedBytes else { preconditionFailure("not a packed-row decoder") }
        (bytes + state.packedBodyStart).copyMemory(
            from: source.input.base + row.bodyStart, byteCount: row.end - row.bodyStart)
        moveTo(index: index, reportedAt: offset)
    }

    private func moveTo(index: Int, reportedAt offset: Int) {
        state.packedDocumentOffset = offset
        if !path.isEmpty { path[path.count - 1] = .index(index) }
        state.offset = 0
        state.end = input.count
    }
}

extension DecoderImpl {
    /// The doubles of the packed array `header` in one pass (`PackedVector.decode`), or nil when an element needs
    /// the element-by-element path: an integer form with an element a double cannot hold exactly is read the same
    /// way either way, but a non-finite double under `.throw` must throw that path's error.
    func bulkDoubles(_ header: ContainerHeader, _ form: PackedArray.Form) -> [Double]? {
        let storage = input.bytes(from: header.bodyStart, count: header.end - header.bodyStart)
        switch form {
        case .doubles(let doubles):
            var elements: [Double]
            if header.count <= Self.shortPackedArray {
                // Appended one by one: making a short array by `init(unsafeUninitializedCapacity:)` or
                // `init(repeating:count:)` looked up its storage type at run time on every call, which cost a row of
                // two coordinates more than its elements (guarded by `Decode canada model/FirePackDecoder
                // @FirePackCodable`).
                elements = []
                elements.reserveCapacity(header.count)
                for index in 0..<header.count { elements.append(doubles.element(at: index, in: storage)) }
            } else {
                elements = [Double](unsafeUninitializedCapacity: header.count) { buffer, initialized in
                    PackedVector.decode(storage, form: doubles, into: buffer)
                    initialized = buffer.count
                }
            }
            if case .throw = options.floatStrategy {
                for element in elements where !element.isFinite { return nil }
            }
            return elements
        case .integers(let width):
            var elements: [Double] = []
            elements.reserveCapacity(header.count)
            for index in 0..<header.count {
                elements.append(Double(PackedVector.mantissa(at: index * width, width: width, in: storage)))
            }
            return elements
        case .mixed:
            var elements: [Double] = []
            elements.reserveCapacity(header.count)
            for index in 0..<header.count {
                let bits = PackedArray.bits(at: index, in: storage)
                if PackedArray.isBoxed(bits) {
                    elements.append(Double(PackedArray.integer(boxedIn: bits)))
                    continue
                }
                let double = Double(bitPattern: bits)
                if !double.isFinite, case .throw = options.floatStrategy { return nil }
                elements.append(double)
            }
            return elements
        }
    }

    /// The integers of the packed array `header`, whose form is integers of `width` bytes, as `Int`s (64 bits).
    func bulkInts(_ header: ContainerHeader, width: Int) -> [Int] {
        let storage = input.bytes(from: header.bodyStart, count: header.end - header.bodyStart)
        var elements: [Int] = []
        elements.reserveCapacity(header.count)  // as `bulkDoubles`: no run-time lookup of the storage type
        for index in 0..<header.count {
            elements.append(Int(PackedVector.mantissa(at: index * width, width: width, in: storage)))
        }
        return elements
    }
}

extension DecoderImpl {
    /// `number` (an element of a packed array) as the scalar type `T`, when it is one of the common numeric types and
    /// converts without an error; nil sends the caller to the element decoder, which throws the error a tagged
    /// element gives (or converts the rarer types). Guarded by `Decode canada model/FirePackDecoder Codable`.
    @inline(__always)
    func packedScalar<T>(_ scalar: NativeScalar, _ number: Value) -> T? {
        switch (scalar, number) {
        case (.double, .double(let double)):
            if !double.isFinite, case .throw = options.floatStrategy { return nil }
            return unsafeBitCast(double, to: T.self)
        case (.double, .integer(let integer)):
            return unsafeBitCast(Double(integer), to: T.self)
        case (.float, .double(let double)):
            if !double.isFinite || abs(double) > Double(Float.greatestFiniteMagnitude) { return nil }
            return unsafeBitCast(Float(double), to: T.self)
        case (.int, .integer(let integer)):
            guard let value = Int(exactly: integer) else { return nil }
            return unsafeBitCast(value, to: T.self)
        case (.int64, .integer(let integer)):
            return unsafeBitCast(integer, to: T.self)
        default:
            return nil
        }
    }
}
