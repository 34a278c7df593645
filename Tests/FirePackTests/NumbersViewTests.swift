import Foundation
import Testing
@testable import FirePack

/// `ValueView.numbers()`: the numbers of a packed array read in place, the same numbers the element views read.
@Suite("Numbers view")
struct NumbersViewTests {
    /// The numbers `forEachElement` reads from `view` (rows flattened), each as `.integer` or `.double`.
    static func elementByElement(_ view: ValueView) throws -> [Value] {
        var numbers: [Value] = []
        try view.forEachElement { element in
            if element.type == .array {
                numbers += try elementByElement(element)
            } else {
                numbers.append(element.type == .integer ? .integer(try element.integer()) : .double(try element.double()))
            }
        }
        return numbers
    }

    static let arrays: [(Value, form: UInt8, columns: Int)] = [
        ([1.5, -2.25, 65.66], 0x12, 3),
        (.array((0..<20).map { .double(Double($0) + 1.0 / 3) }), 0xC8, 20),
        (
            [.double(-0.0), .double(.infinity), .double(Double(Float(0.1))), .double(Double(Float(0.2))), .double(Double(Float(0.3)))],
            0x80, 5
        ),
        ([1000, -2000, 3000], 0xC4, 3),
        ([.integer(.max), .integer(.min), .integer(1 << 60)], 0xC6, 3),
        (.array(PackedMixedArrayTests.mixed), 0x81, PackedMixedArrayTests.mixed.count),
        ([[1.5, -2.25], [65.66, 7.0], [0.5, 0.25]], 0x12, 2),
        (.array(PackedMixedArrayTests.ring), 0x81, 2),
    ]

    @Test("every form, in an array and in rows: the numbers the element views read, in place")
    func everyForm() throws {
        for (array, form, columns) in Self.arrays {
            let bytes = array.firePackBytes()
            #expect(bytes[1] == form, "\(hex(Array(bytes.prefix(4))))")
            try bytes.withUnsafeBytes { raw in
                let root = try FirePackReader(bytes: raw).root
                let numbers = try #require(try root.numbers())
                let expected = try Self.elementByElement(root)
                #expect(numbers.count == expected.count && numbers.columns == columns)
                #expect(numbers.rows * columns == numbers.count)
                #expect(PackedMixedArrayTests.sameNumbers(numbers.indices.map { numbers.value(at: $0) }, expected))
                for (index, number) in expected.enumerated() {
                    switch number {
                    case .double(let double): #expect(numbers[index].bitPattern == double.bitPattern)
                    case .integer(let integer): #expect(numbers[index] == Double(integer))
                    default: Issue.record("\(number)")
                    }
                }
                // A row of an array of rows: that row's numbers.
                if bytes[0] == 0xD9, let row = try root[1] {
                    let rowNumbers = try #require(try row.numbers())
                    #expect(rowNumbers.count == columns && rowNumbers.value(at: 0) == numbers.value(at: columns))
                }
            }
        }
    }

    @Test("tagged arrays give nil, other values throw, empty packed arrays are empty")
    func otherValues() throws {
        for (value, expected) in [(Value.array([1, "a"]), "nil"), ([1.5], "nil"), (["a": 1], "typeMismatch"), (1.5, "typeMismatch")] {
            let bytes = value.firePackBytes()
            try bytes.withUnsafeBytes { raw in
                let root = try FirePackReader(bytes: raw).root
                do {
                    let numbers = try root.numbers()
                    #expect(numbers == nil && expected == "nil", "\(value)")
                } catch let error as FirePackError {
                    #expect(error.code.rawValue == expected && error.offset == 0, "\(value): \(error)")
                }
            }
        }
        // A packed element is a number, not an array.
        try Value.array([1.5, 2.5, 3.5]).firePackBytes().withUnsafeBytes { raw in
            let element = try #require(try FirePackReader(bytes: raw).root[1])
            #expect(throws: FirePackError.self) { try element.numbers() }
        }
        for hex in ["D8 C3 00", "D9 C8 00 02"] {
            try bytes(hex: hex).withUnsafeBytes { raw in
                let numbers = try #require(try FirePackReader(bytes: raw).root.numbers())
                #expect(numbers.isEmpty && numbers.rows == 0)
            }
        }
    }
}
