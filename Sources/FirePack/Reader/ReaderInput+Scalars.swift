/// Decoding of each scalar type at an offset; each returns the value and the offset after it.
extension ReaderInput {
    @inline(__always)
    func tag(at offset: Int, limit: Int) throws(FirePackError) -> UInt8 {
        guard offset < limit else { throw .truncated(at: offset, needing: "a value") }
        return byte(at: offset)
    }

    func getInteger(at offset: Int, limit: Int) throws(FirePackError) -> (Int64, next: Int) {
        if let integer = getFittingInteger(at: offset, limit: limit) { return integer }
        return try getIntegerOfAnyForm(at: offset, limit: limit)
    }

    /// The integer at `offset`, when it is one and fits before `limit`: nil for anything else, which `getInteger`
    /// leaves to `getIntegerOfAnyForm` (out of line, with every error).
    @inline(__always)
    func getFittingInteger(at offset: Int, limit: Int) -> (Int64, next: Int)? {
        guard offset < limit else { return nil }
        let tag = byte(at: offset)
        if tag <= 0x7F { return (Int64(tag), offset &+ 1) }
        if tag >= Tag.negativeFixIntMin { return (Int64(Int8(bitPattern: tag)), offset &+ 1) }
        guard tag >= Tag.int8, tag <= Tag.int64, Tag.fixedSize(tag) <= limit &- offset else { return nil }
        switch tag {
        case Tag.int8: return (Int64(Int8(bitPattern: byte(at: offset &+ 1))), offset &+ 2)
        case Tag.int16: return (Int64(load(Int16.self, at: offset &+ 1)), offset &+ 3)
        case Tag.int32: return (Int64(load(Int32.self, at: offset &+ 1)), offset &+ 5)
        default: return (load(Int64.self, at: offset &+ 1), offset &+ 9)
        }
    }

    /// `getInteger(at:limit:)` for every value, and its errors.
    @inline(never)
    func getIntegerOfAnyForm(at offset: Int, limit: Int) throws(FirePackError) -> (Int64, next: Int) {
        let tag = try tag(at: offset, limit: limit)
        switch tag {
        case 0x00...0x7F: return (Int64(tag), offset + 1)
        case 0xE0...0xFF: return (Int64(Int8(bitPattern: tag)), offset + 1)
        case Tag.int8:
            try require(2, at: offset, limit: limit, for: "an int8")
            return (Int64(Int8(bitPattern: byte(at: offset + 1))), offset + 2)
        case Tag.int16:
            try require(3, at: offset, limit: limit, for: "an int16")
            return (Int64(load(Int16.self, at: offset + 1)), offset + 3)
        case Tag.int32:
            try require(5, at: offset, limit: limit, for: "an int32")
            return (Int64(load(Int32.self, at: offset + 1)), offset + 5)
        case Tag.int64:
            try require(9, at: offset, limit: limit, for: "an int64")
            return (load(Int64.self, at: offset + 1), offset + 9)
        default:
            throw .typeMismatch(expected: "integer", foundTag: tag, at: offset)
        }
    }

    func getDouble(at offset: Int, limit: Int) throws(FirePackError) -> (Double, next: Int) {
        if let double = getFittingDouble(at: offset, limit: limit) { return double }
        return try getDoubleOfAnyForm(at: offset, limit: limit)
    }

    /// The double at `offset`, when it is one, fits before `limit` and (a decimal) has a valid mantissa: nil for
    /// anything else, which `getDouble` leaves to `getDoubleOfAnyForm` (out of line, with every error).
    @inline(__always)
    func getFittingDouble(at offset: Int, limit: Int) -> (Double, next: Int)? {
        guard offset < limit else { return nil }
        let left = limit &- offset
        switch byte(at: offset) {
        case Tag.float64:
            guard left >= 9 else { return nil }
            return (Double(bitPattern: load(UInt64.self, at: offset &+ 1)), offset &+ 9)
        case Tag.decimal:
            guard let (mantissa, header, next) = getFittingDecimalParts(at: offset, limit: limit) else { return nil }
            return (DecimalDouble.compose(mantissa: mantissa, header: header), next)
        case Tag.float32:
            guard left >= 5 else { return nil }
            return (Double(Float(bitPattern: load(UInt32.self, at: offset &+ 1))), offset &+ 5)
        default:
            return nil
        }
    }

    /// `getDouble(at:limit:)` for every value, and its errors.
    @inline(never)
    func getDoubleOfAnyForm(at offset: Int, limit: Int) throws(FirePackError) -> (Double, next: Int) {
        let tag = try tag(at: offset, limit: limit)
        switch tag {
        case Tag.float32:
            try require(5, at: offset, limit: limit, for: "a binary32 double")
            return (Double(Float(bitPattern: load(UInt32.self, at: offset + 1))), offset + 5)
        case Tag.float64:
            try require(9, at: offset, limit: limit, for: "a double")
            return (Double(bitPattern: load(UInt64.self, at: offset + 1)), offset + 9)
        case Tag.decimal:
            return try getDecimal(at: offset, limit: limit)
        default:
            throw .typeMismatch(expected: "double", foundTag: tag, at: offset)
        }
    }

    /// A decimal double (`D5`, header byte, big-endian mantissa), whose tag the caller has read at `offset`.
    func getDecimal(at offset: Int, limit: Int) throws(FirePackError) -> (Double, next: Int) {
        let (mantissa, header, next) = try getDecimalParts(at: offset, limit: limit)
        return (DecimalDouble.compose(mantissa: mantissa, header: header), next)
    }

    /// A decimal double's mantissa and header byte (`D5`, whose tag the caller has read at `offset`), checked.
    func getDecimalParts(at offset: Int, limit: Int) throws(FirePackError) -> (UInt64, header: UInt8, next: Int) {
        if let parts = getFittingDecimalParts(at: offset, limit: limit) { return parts }
        return try getDecimalPartsOfAnyForm(at: offset, limit: limit)
    }

    /// A decimal double's parts, when they fit before `limit` and the mantissa is valid: nil otherwise.
    @inline(__always)
    func getFittingDecimalParts(at offset: Int, limit: Int) -> (UInt64, header: UInt8, next: Int)? {
        guard limit &- offset >= 2 else { return nil }
        let header = byte(at: offset &+ 1)
        let count = DecimalDouble.mantissaBytes(header)
        guard limit &- offset >= 2 &+ count else { return nil }
        var mantissa: UInt64 = 0
        for index in 0..<count { mantissa = mantissa << 8 | UInt64(byte(at: offset &+ 2 &+ index)) }
        guard mantissa <= DecimalDouble.readerMantissaLimit else { return nil }
        return (mantissa, header, offset &+ 2 &+ count)
    }

    /// `getDecimalParts(at:limit:)` for every input, and its errors.
    @inline(never)
    func getDecimalPartsOfAnyForm(at offset: Int, limit: Int) throws(FirePackError) -> (
        UInt64, header: UInt8, next: Int
    ) {
        try require(2, at: offset, limit: limit, for: "a decimal double")
        let header = byte(at: offset + 1)
        let count = DecimalDouble.mantissaBytes(header)
        try require(2 + count, at: offset, limit: limit, for: "a decimal double")
        var mantissa: UInt64 = 0
        for index in 0..<count { mantissa = mantissa << 8 | UInt64(byte(at: offset + 2 + index)) }
        guard mantissa <= DecimalDouble.readerMantissaLimit else {
            throw FirePackError(.invalidDecimal, offset: offset + 2, "decimal mantissa \(mantissa) above 2^53")
        }
        return (mantissa, header, offset + 2 + count)
    }

    func getBoolean(at offset: Int, limit: Int) throws(FirePackError) -> (Bool, next: Int) {
        let tag = try tag(at: offset, limit: limit)
        switch tag {
        case Tag.true: return (true, offset + 1)
        case Tag.false: return (false, offset + 1)
        default: throw .typeMismatch(expected: "boolean", foundTag: tag, at: offset)
        }
    }

    func getTimestamp(at offset: Int, limit: Int) throws(FirePackError) -> (Timestamp, next: Int) {
        let tag = try tag(at: offset, limit: limit)
        switch tag {
        case Tag.timestampSeconds:
            try require(9, at: offset, limit: limit, for: "a timestamp")
            return (Timestamp(uncheckedSeconds: load(Int64.self, at: offset + 1), nanoseconds: 0), offset + 9)
        case Tag.timestamp:
            try require(13, at: offset, limit: limit, for: "a timestamp")
            let nanoseconds = load(UInt32.self, at: offset + 9)
            guard nanoseconds < 1_000_000_000 else {
                throw FirePackError(
                    .invalidTimestamp, offset: offset + 9, "nanoseconds \(nanoseconds) outside 0 ..< 1000000000")
            }
            return (
                Timestamp(uncheckedSeconds: load(Int64.self, at: offset + 1), nanoseconds: Int32(nanoseconds)),
                offset + 13
            )
        default:
            throw .typeMismatch(expected: "timestamp", foundTag: tag, at: offset)
        }
    }

    /// A geopoint: `CB` and two binary64, or packed (`D7`): a form byte as a packed vector's and two elements.
    func getGeoPoint(at offset: Int, limit: Int) throws(FirePackError) -> (GeoPoint, next: Int) {
        let tag = try tag(at: offset, limit: limit)
        let latitude: Double, longitude: Double, next: Int
        if tag == Tag.geoPoint {
            try require(17, at: offset, limit: limit, for: "a geopoint")
            latitude = Double(bitPattern: load(UInt64.self, at: offset + 1))
            longitude = Double(bitPattern: load(UInt64.self, at: offset + 9))
            next = offset + 17
        } else if tag == Tag.packedGeoPoint {
            let form = try packedGeoPointForm(at: offset, limit: limit)
            let pair = bytes(from: offset + 2, count: 2 * form.width)
            try checkMantissas(of: form, in: pair, at: offset + 2)
            (latitude, longitude) = (form.element(at: 0, in: pair), form.element(at: 1, in: pair))
            next = offset + 2 + 2 * form.width
        } else {
            throw .typeMismatch(expected: "geopoint", foundTag: tag, at: offset)
        }
        do {
            return (try GeoPoint(validatingLatitude: latitude, longitude: longitude), next)
        } catch {
            throw FirePackError(.invalidGeoPoint, offset: offset, error.message)
        }
    }

    /// The form of the packed geopoint (`D7`) at `offset`, its two elements checked to be present.
    func packedGeoPointForm(at offset: Int, limit: Int) throws(FirePackError) -> PackedVector.Form {
        let form = try packedForm(at: offset, limit: limit, of: "a packed geopoint")
        try require(2 + 2 * form.width, at: offset, limit: limit, for: "a packed geopoint")
        return form
    }

    /// The form byte after the tag of a packed vector or geopoint (`D6`, `D7`) at `offset`.
    func packedForm(at offset: Int, limit: Int, of what: @autoclosure () -> String) throws(FirePackError)
        -> PackedVector.Form
    {
        try formByte(at: offset, limit: limit, of: what(), PackedVector.Form.init(byte:))
    }

    /// The form byte after the tag at `offset` of a packed value (`D6`–`D9`), as `parse` reads it; `unknownTag` at
    /// the form byte when it names no form.
    func formByte<Form>(
        at offset: Int, limit: Int, of what: @autoclosure () -> String, _ parse: (UInt8) -> Form?
    ) throws(FirePackError) -> Form {
        try require(2, at: offset, limit: limit, for: what())
        guard let form = parse(byte(at: offset + 1)) else {
            throw FirePackError(
                .unknownTag, offset: offset + 1,
                "\(what()): form 0x\(Tag.hex(byte(at: offset + 1))) is not defined in format version 3")
        }
        return form
    }

    /// Throws `invalidDecimal` at the first decimal mantissa of `elements` (at `start` in the input) above 2^53.
    func checkMantissas(of form: PackedVector.Form, in elements: UnsafeRawBufferPointer, at start: Int)
        throws(FirePackError)
    {
        guard case .decimal(let width, _) = form,
            let bad = PackedVector.firstInvalidMantissa(width: width, in: elements)
        else { return }
        throw FirePackError(.invalidDecimal, offset: start + bad * width, "element \(bad): decimal mantissa above 2^53")
    }

    /// A string's UTF-8 bytes, validated. An ASCII string ends here; any other, and every error, is left to
    /// `getStringOfAnyForm`, whose messages would give this function a stack frame that every string paid (guarded by
    /// `Decode 1000 Book/FirePackDecoder @FirePackCodable`).
    func getString(at offset: Int, limit: Int) throws(FirePackError) -> (start: Int, count: Int, next: Int) {
        if let (start, count) = getASCIIString(at: offset, limit: limit) { return (start, count, start &+ count) }
        return try getStringOfAnyForm(at: offset, limit: limit)
    }

    /// Where the string at `offset` is, when it is one, fits before `limit` and is all ASCII (most strings are):
    /// nil for anything else, which `getString` leaves to `getStringOfAnyForm` (out of line, with every error).
    @inline(__always)
    func getASCIIString(at offset: Int, limit: Int) -> (start: Int, count: Int)? {
        guard offset < limit else { return nil }
        let tag = byte(at: offset)
        var start = offset &+ 1
        let count: Int
        if tag & 0xE0 == Tag.fixStringBase {
            count = Int(tag & 0x1F)
        } else if tag == Tag.string, let (length, next) = try? Varint.get(base, at: start, limit: limit) {
            (count, start) = (length, next)
        } else {
            return nil
        }
        guard count <= limit &- start, UTF8Validation.isASCII(base, start: start, count: count) else { return nil }
        return (start, count)
    }

    /// `getString(at:limit:)` for every string, and its errors.
    @inline(never)
    func getStringOfAnyForm(at offset: Int, limit: Int) throws(FirePackError) -> (start: Int, count: Int, next: Int) {
        let tag = try tag(at: offset, limit: limit)
        let start: Int, length: Int
        if tag & 0xE0 == Tag.fixStringBase {
            length = Int(tag & 0x1F)
            start = offset + 1
            try require(1 + length, at: offset, limit: limit, for: "a string")
        } else if tag == Tag.string {
            (length, start) = try getLength(at: offset + 1, limit: limit, of: "a string")
        } else {
            throw .typeMismatch(expected: "string", foundTag: tag, at: offset)
        }
        try validateUTF8(start: start, count: length, what: "string")
        return (start, length, start + length)
    }

    /// The payload of a `CE` bytes or `CF` reference value.
    func getLengthPrefixed(at offset: Int, limit: Int, tag expected: UInt8, expecting what: String)
        throws(FirePackError) -> (start: Int, count: Int, next: Int)
    {
        let tag = try tag(at: offset, limit: limit)
        guard tag == expected else { throw .typeMismatch(expected: what, foundTag: tag, at: offset) }
        let (length, start) = try getLength(at: offset + 1, limit: limit, of: what)
        return (start, length, start + length)
    }

    func getReference(at offset: Int, limit: Int) throws(FirePackError) -> (DocumentReference, next: Int) {
        let (start, length, next) = try getLengthPrefixed(
            at: offset, limit: limit, tag: Tag.reference, expecting: "reference")
        try validateUTF8(start: start, count: length, what: "reference path")
        let path = UTF8Validation.makeString(validated: bytes(from: start, count: length))
        if let problem = ReferencePath.problem(in: path, naming: .document) {
            throw FirePackError(.invalidReference, offset: offset, "'\(path)' is not a document path: \(problem)")
        }
        return (DocumentReference(validatedPath: path), next)
    }

    /// A vector (`D2`, or packed: `D6`) as a view of its elements, and the offset after it. A packed vector's form
    /// byte and, for decimal mantissas of 7 or 8 bytes, every mantissa are checked here, so the view's loads cannot
    /// fail.
    func getVector(at offset: Int, limit: Int) throws(FirePackError) -> (VectorView, next: Int) {
        let tag = try tag(at: offset, limit: limit)
        var form = PackedVector.Form.binary64
        var countOffset = offset + 1
        if tag == Tag.packedVector {
            form = try packedForm(at: offset, limit: limit, of: "a packed vector")
            countOffset += 1
        } else if tag != Tag.vector {
            throw .typeMismatch(expected: "vector", foundTag: tag, at: offset)
        }
        let (elements, start) = try Varint.get(base, at: countOffset, limit: limit)
        // The bytes, then the limit (Docs/FORMAT.md §7: a count is checked against the bytes present first).
        let width = form.width
        guard elements <= (limit - start) / width else {
            throw FirePackError(
                .lengthOutOfBounds, offset: countOffset, "vector of \(elements) elements reaches past the end")
        }
        guard elements <= limits.maxElementCount else {
            throw FirePackError(
                .limitExceeded, offset: offset,
                "\(elements) vector elements exceed the limit of \(limits.maxElementCount)")
        }
        let storage = bytes(from: start, count: elements * width)
        try checkMantissas(of: form, in: storage, at: start)
        return (VectorView(storage, form: form), start + elements * width)
    }
}

extension ReaderInput {
    /// Reads an array or map header and checks its count against its length and the reader's limits.
    ///
    /// `depth` is the depth of the container's elements; it must not exceed `limits.maxDepth`.
    func getContainerHeader(at offset: Int, limit: Int, depth: Int) throws(FirePackError) -> ContainerHeader {
        let tag = try tag(at: offset, limit: limit)
        // The depth limit is met at the tag, before the header's varints (Docs/FORMAT.md §6, §7); the packed forms
        // check it in their own headers.
        let count: Int, bodyStart: Int, end: Int
        switch tag {
        case 0xA0...0xBF:
            try checkDepth(depth, at: offset)
            count = Int(tag & 0x0F)
            let (length, next) = try getLength(at: offset + 1, limit: limit, of: "a container")
            bodyStart = next
            end = next + length
        case Tag.array, Tag.map:
            try checkDepth(depth, at: offset)
            let (length, next) = try getLength(at: offset + 1, limit: limit, of: "a container")
            end = next + length
            (count, bodyStart) = try Varint.get(base, at: next, limit: end)
        case Tag.packedArray:
            return try getPackedArrayHeader(at: offset, limit: limit, depth: depth)
        case Tag.packedRows:
            return try getPackedRowsHeader(at: offset, limit: limit, depth: depth)
        default:
            throw .typeMismatch(expected: "array or map", foundTag: tag, at: offset)
        }
        let isMap = tag == Tag.map || tag & 0xF0 == Tag.fixMapBase
        try checkElementLimit(count, at: offset)
        // Every element takes at least one byte, every map entry two (a key header and a value).
        guard count <= (end - bodyStart) / (isMap ? 2 : 1) else {
            throw containerOverfilled(count, isMap: isMap, room: end - bodyStart, at: offset)
        }
        return ContainerHeader(count: count, isMap: isMap, bodyStart: bodyStart, end: end)
    }

    /// The error of a container header whose count cannot fit in its length, built out of line as `depthExceeded` is.
    @inline(never)
    private func containerOverfilled(_ count: Int, isMap: Bool, room: Int, at offset: Int) -> FirePackError {
        FirePackError(
            .lengthMismatch, offset: offset, "\(count) \(isMap ? "entries" : "elements") cannot fit in \(room) bytes")
    }
}
