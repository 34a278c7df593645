/// Decoding the elements of packed arrays (`D8`, Docs/FORMAT.md §1), which carry no tag each.
///
/// An element is decoded by a decoder of its own whose input is the element written as the tagged value it stands
/// for (`C8` and a binary64, or `C6` and an int64: forms every reader accepts), so that every mapping rule, strategy
/// and error is the one a tagged element meets; its errors report the element's offset in the document. Arrays of
/// `Double` and `Int` in generated code are read in bulk instead (`FirePackValueReader.decodeDoubles`).
extension DecoderImpl {
    /// The size of an element written as a tagged value: a tag and eight bytes.
    static let packedElementSize = 9

    /// A decoder for elements of a packed array whose elements are `depth` containers deep, with the coding path
    /// `path` (whose last entry each `load` sets to the element's index). It owns its 9 bytes.
    func packedElementDecoder(depth: Int, path: [PathEntry]) -> DecoderImpl {
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: Self.packedElementSize, alignment: 8)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: Self.packedElementSize)
        bytes.storeBytes(of: Tag.float64, as: UInt8.self)
        let input = try! ReaderInput(
            UnsafeRawBufferPointer(start: bytes, count: Self.packedElementSize), rootStart: 0, limits: .default)
        let child = DecoderImpl(input: input, options: options, offset: 0, end: Self.packedElementSize, depth: depth)
        child.state.packedElementBytes = bytes
        child.path = path
        return child
    }

    /// Makes this element decoder read `value` (an element of a packed array), element `index` at `offset` of the
    /// document.
    func load(_ value: Value, index: Int, reportedAt offset: Int) {
        guard let bytes = state.packedElementBytes else { preconditionFailure("not a packed-element decoder") }
        switch value {
        case .double(let double):
            bytes.storeBytes(of: Tag.float64, as: UInt8.self)
            bytes.storeBytes(of: double.bitPattern.littleEndian, toByteOffset: 1, as: UInt64.self)
        case .integer(let integer):
            bytes.storeBytes(of: Tag.int64, as: UInt8.self)
            bytes.storeBytes(of: integer.littleEndian, toByteOffset: 1, as: Int64.self)
        default: preconditionFailure("a packed array holds numbers")
        }
        state.packedElementOffset = offset
        if !path.isEmpty { path[path.count - 1] = .index(index) }
        state.offset = 0
        state.end = Self.packedElementSize
    }
}

extension DecoderImpl {
    /// The doubles of the packed array `header` in one pass (`PackedVector.decode`), or nil when an element needs
    /// the element-by-element path: an integer form with an element a double cannot hold exactly is read the same
    /// way either way, but a non-finite double under `.throw` must throw that path's error.
    func bulkDoubles(_ header: ContainerHeader, _ form: PackedArray.Form) -> [Double]? {
        let storage = input.bytes(from: header.bodyStart, count: header.end - header.bodyStart)
        let count = header.count
        switch form {
        case .doubles(let doubles):
            let elements = [Double](unsafeUninitializedCapacity: count) { buffer, initialized in
                PackedVector.decode(
                    storage, form: doubles, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
                initialized = count
            }
            if case .throw = options.floatStrategy, !elements.allSatisfy(\.isFinite) { return nil }
            return elements
        case .integers(let width):
            return bulkIntegers(header, width: width).map { Double($0) }
        }
    }

    /// The integers of the packed array `header`, whose form is integers of `width` bytes.
    func bulkIntegers(_ header: ContainerHeader, width: Int) -> [Int64] {
        let storage = input.bytes(from: header.bodyStart, count: header.end - header.bodyStart)
        let count = header.count
        return [Int64](unsafeUninitializedCapacity: count) { buffer, initialized in
            PackedArray.decodeIntegers(
                storage, width: width, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            initialized = count
        }
    }
}
