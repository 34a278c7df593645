/// A container's header: how many elements, where they start and where the container ends.
///
/// Packed arrays have no tag per element. For `D8` (and for one row of `D9`) `packed` names the form, and the
/// elements are `packed.width` bytes each from `bodyStart`: a loop over elements reads them through
/// `PackedArray.Form.element(at:in:)`, never `valueEnd`. For `D9` `packedRows` names the form and the columns, and
/// element `i` is the row `row(i)`, a header of its own.
@usableFromInline
struct ContainerHeader {
    @usableFromInline var count: Int
    @usableFromInline var isMap: Bool
    @usableFromInline var bodyStart: Int
    @usableFromInline var end: Int
    /// A packed array's form byte, or `notPacked` (a byte no form uses).
    @usableFromInline var packedFormByte: UInt8 = ContainerHeader.notPacked
    /// For `D9`, the elements of each row; 0 otherwise.
    @usableFromInline var packedColumns: Int = 0

    @usableFromInline static let notPacked: UInt8 = 0xFF

    /// Whether this is a packed array (`D8` or `D9`, or a row of one).
    @usableFromInline var isPacked: Bool { packedFormByte != Self.notPacked }

    /// The form of the elements when they are numbers without tags (`D8`, or a row of `D9`).
    var packed: PackedArray.Form? {
        isPacked && packedColumns == 0 ? PackedArray.Form(byte: packedFormByte) : nil
    }

    /// The form and row length when the elements are rows of numbers (`D9`).
    var packedRows: (form: PackedArray.Form, columns: Int)? {
        guard isPacked && packedColumns > 0, let form = PackedArray.Form(byte: packedFormByte) else { return nil }
        return (form, packedColumns)
    }

    /// Row `index` of a `D9` array, as the header of a packed array.
    func row(_ index: Int) -> ContainerHeader {
        let size = packedColumns * (PackedArray.Form(byte: packedFormByte)?.width ?? 0)
        let start = bodyStart + index * size
        return ContainerHeader(
            count: packedColumns, isMap: false, bodyStart: start, end: start + size, packedFormByte: packedFormByte)
    }
}

extension ReaderInput {
    /// Reads a packed array's header (`D8`, form byte, varint count) and checks its elements: present before `limit`,
    /// within the element limit, and for decimal mantissas of 7 or 8 bytes each at most 2^53, so that reading an
    /// element cannot fail.
    func getPackedArrayHeader(at offset: Int, limit: Int, depth: Int) throws(FirePackError) -> ContainerHeader {
        // In the order of Docs/FORMAT.md §7: the depth at the tag, the form byte, the count against the bytes, then
        // against the limit.
        try checkDepth(depth, at: offset)
        let form = try packedArrayForm(at: offset, limit: limit, of: "a packed array")
        let (count, start) = try Varint.get(base, at: offset + 2, limit: limit)
        let width = form.width
        guard count <= (limit - start) / width else {
            throw FirePackError(
                .lengthOutOfBounds, offset: offset + 2, "packed array of \(count) elements reaches past the end")
        }
        try checkElementLimit(count, at: offset)
        try checkMantissas(of: form, from: start, count: count)
        return ContainerHeader(
            count: count, isMap: false, bodyStart: start, end: start + count * width, packedFormByte: form.byte)
    }

    /// Reads the header of an array of packed rows (`D9`, form byte, varint rows, varint columns) and checks it as
    /// `getPackedArrayHeader` does, the rows one container deeper; a row has at least one element, so the rows are
    /// never more than the bytes.
    func getPackedRowsHeader(at offset: Int, limit: Int, depth: Int) throws(FirePackError) -> ContainerHeader {
        // In the order of Docs/FORMAT.md §7: the depth at the tag (the rows are one container deeper), the form
        // byte, the two counts, the bytes (a row, then all rows), then the limits.
        try checkDepth(depth + 1, at: offset)
        let form = try packedArrayForm(at: offset, limit: limit, of: "an array of packed rows")
        let (rows, columnsOffset) = try Varint.get(base, at: offset + 2, limit: limit)
        let (columns, start) = try Varint.get(base, at: columnsOffset, limit: limit)
        guard columns > 0 else {
            throw FirePackError(.lengthMismatch, offset: columnsOffset, "packed rows of no elements")
        }
        // With rows, one row must fit in the bytes left, so that `columns × width` cannot overflow whatever the
        // limits. No rows take no bytes, wherever the value sits (a value's validity never depends on what follows
        // it: a copy of it alone reads the same).
        var end = start
        if rows > 0 {
            guard columns <= (limit - start) / form.width else {
                throw FirePackError(
                    .lengthOutOfBounds, offset: columnsOffset,
                    "a packed row of \(columns) elements reaches past the end")
            }
            let rowSize = columns * form.width
            guard rows <= (limit - start) / rowSize else {
                throw FirePackError(
                    .lengthOutOfBounds, offset: offset + 2,
                    "\(rows) packed rows of \(columns) elements reach past the end")
            }
            end = start + rows * rowSize
        }
        try checkElementLimit(rows, at: offset)
        try checkElementLimit(columns, at: offset)
        try checkMantissas(of: form, from: start, count: rows * columns)
        return ContainerHeader(
            count: rows, isMap: false, bodyStart: start, end: end, packedFormByte: form.byte, packedColumns: columns)
    }

    /// The form byte after a `D8` or `D9` tag at `offset`.
    func packedArrayForm(at offset: Int, limit: Int, of what: @autoclosure () -> String) throws(FirePackError)
        -> PackedArray.Form
    {
        try formByte(at: offset, limit: limit, of: what(), PackedArray.Form.init(byte:))
    }

    /// Throws `depthLimitExceeded` at `offset` (a container's tag) when `depth` is past the limit.
    @inline(__always)
    func checkDepth(_ depth: Int, at offset: Int) throws(FirePackError) {
        if depth > limits.maxDepth { throw depthExceeded(at: offset) }
    }

    /// `checkDepth`'s error, built out of line: a message interpolated in place gave every container header a stack
    /// frame and register saves it used only to throw (guarded by `Decode 1 Book/FirePackDecoder @FirePackCodable`).
    @inline(never)
    private func depthExceeded(at offset: Int) -> FirePackError {
        FirePackError(.depthLimitExceeded, offset: offset, "containers nested deeper than \(limits.maxDepth)")
    }

    /// Throws `limitExceeded` at `offset` (a container's tag) when `count` elements are past the limit.
    @inline(__always)
    func checkElementLimit(_ count: Int, at offset: Int) throws(FirePackError) {
        if count > limits.maxElementCount { throw elementLimitExceeded(count, at: offset) }
    }

    /// `checkElementLimit`'s error, built out of line as `depthExceeded` is.
    @inline(never)
    private func elementLimitExceeded(_ count: Int, at offset: Int) -> FirePackError {
        FirePackError(.limitExceeded, offset: offset, "\(count) elements exceed the limit of \(limits.maxElementCount)")
    }

    /// Checks the decimal mantissas of `count` elements of `form` from `start`.
    private func checkMantissas(of form: PackedArray.Form, from start: Int, count: Int) throws(FirePackError) {
        if case .doubles(let doubles) = form {
            try checkMantissas(of: doubles, in: bytes(from: start, count: count * form.width), at: start)
        }
    }

    /// The end of the packed array (`D8`) or array of packed rows (`D9`) at `offset`, for `valueEnd`: its sizes
    /// checked against `limit`, nothing inside.
    func packedArrayEnd(at offset: Int, limit: Int) throws(FirePackError) -> Int {
        let rows = byte(at: offset) == Tag.packedRows
        let form = try packedArrayForm(
            at: offset, limit: limit, of: rows ? "an array of packed rows" : "a packed array")
        var (count, next) = try Varint.get(base, at: offset + 2, limit: limit)
        var rowSize = form.width
        if rows {
            let (columns, start) = try Varint.get(base, at: next, limit: limit)
            guard columns > 0, columns <= limits.maxElementCount, count == 0 || columns <= (limit - start) / rowSize
            else {
                return try getPackedRowsHeader(at: offset, limit: limit, depth: 0).end  // throws its error
            }
            if count == 0 { return start }
            rowSize *= columns
            next = start
        }
        guard count <= (limit - next) / rowSize else {
            throw FirePackError(
                .lengthOutOfBounds, offset: offset + 2, "packed array of \(count) elements reaches past the end")
        }
        return next + count * rowSize
    }
}
