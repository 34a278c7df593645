/// The numbers of a packed array inside the reader's input, read in place: one unaligned load each, no view per
/// element. Valid only while the input is alive.
///
/// A packed array (`D8`) gives its elements; an array of packed rows (`D9`) every row's, row after row, `columns`
/// each; one of its rows, that row's. `ValueView.numbers()` makes one (Docs/FORMAT.md §1, "Which form an array
/// takes": the writer packs every array of numbers that packing makes shorter).
public struct NumbersView: RandomAccessCollection {
    let storage: UnsafeRawBufferPointer
    let form: PackedArray.Form
    /// How many numbers a row holds: a `D9` array's row length, else the count (one row).
    public let columns: Int
    /// Whether the view is of an array of rows (`D9`): its elements are the rows, not the numbers.
    public let isRows: Bool

    /// A view of `form`'s numbers in `storage` (whose size the caller's header read checked), `columns` a row.
    init(_ storage: UnsafeRawBufferPointer, form: PackedArray.Form, columns: Int, isRows: Bool = false) {
        self.storage = storage
        self.form = form
        self.columns = columns
        self.isRows = isRows
    }

    /// Index of the first number.
    public var startIndex: Int { 0 }
    /// One past the last number.
    public var endIndex: Int { storage.count / form.width }
    /// How many rows of `columns` numbers the view holds.
    public var rows: Int { columns == 0 ? 0 : endIndex / columns }

    /// Number `index` as a double: an integer converted as `Double(_:)` converts it (rounded beyond 2^53), as
    /// `FirePackDecoder` reads an integer into a `Double`.
    public subscript(index: Int) -> Double {
        precondition(index >= 0 && index < endIndex, "index out of range")
        switch form {
        case .doubles(let doubles):
            return doubles.element(at: index, in: storage)
        case .integers(let width):
            return Double(PackedVector.mantissa(at: index &* width, width: width, in: storage))
        case .mixed:
            let bits = PackedArray.bits(at: index, in: storage)
            return PackedArray.isBoxed(bits) ? Double(PackedArray.integer(boxedIn: bits)) : Double(bitPattern: bits)
        }
    }

    /// Whether every number is a double (no integer, so `self[index]` is each number exactly as written).
    package var holdsOnlyDoubles: Bool { form.holdsDoubles }

    /// How many of the numbers are integers.
    package var integerCount: Int {
        switch form {
        case .doubles: 0
        case .integers: endIndex
        case .mixed: (0..<endIndex).count { PackedArray.isBoxed(PackedArray.bits(at: $0, in: storage)) }
        }
    }

    /// Number `index` as it was written: `.integer` or `.double`, every bit kept.
    public func value(at index: Int) -> Value {
        precondition(index >= 0 && index < endIndex, "index out of range")
        return form.element(at: index, in: storage)
    }
}
