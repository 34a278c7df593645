/// A vector's elements inside the reader's input, loaded one at a time; valid only while the input is alive.
///
/// The elements are stored in one of the vector forms of Docs/FORMAT.md §1: binary64 (`D2`), or packed (`D6`) as
/// binary32 or as decimal mantissas over one power of ten. Each element reads back as the exact double written.
public struct VectorView: RandomAccessCollection {
    let storage: UnsafeRawBufferPointer
    let form: PackedVector.Form

    /// A view of `form`'s elements in `storage` (whose size the caller checked: `count × form.width` bytes).
    init(_ storage: UnsafeRawBufferPointer, form: PackedVector.Form = .binary64) {
        self.storage = storage
        self.form = form
    }

    /// Index of the first element.
    public var startIndex: Int { 0 }
    /// One past the last element.
    public var endIndex: Int { storage.count / form.width }

    /// The element at `index`.
    public subscript(index: Int) -> Double {
        precondition(index >= 0 && index < endIndex, "vector index out of range")
        return form.element(at: index, in: storage)
    }

    /// The scale of a vector stored as decimal mantissas (element `i` is `mantissa(at: i) / 10^scale`), else nil.
    package var decimalScale: Int? {
        guard case .decimal(_, let scale) = form else { return nil }
        return scale
    }

    /// The mantissa of element `index` of a vector stored as decimal mantissas (`decimalScale` is not nil).
    package func mantissa(at index: Int) -> Int64 {
        guard case .decimal(let width, _) = form, index >= 0, index < endIndex else {
            preconditionFailure("a decimal vector's index out of range")
        }
        return PackedVector.mantissa(at: index * width, width: width, in: storage)
    }

    /// A copy as a `VectorValue`: one memory copy for binary64, one pass of conversions otherwise
    /// (`PackedVector.decode`, a loop per form that the compiler vectorizes).
    public var vectorValue: VectorValue {
        let count = endIndex
        let elements = [Double](unsafeUninitializedCapacity: count) { buffer, initialized in
            PackedVector.decode(storage, form: form, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            initialized = count
        }
        return VectorValue(elements)
    }
}
