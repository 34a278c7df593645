import Foundation
import Testing
@testable import FirePack

/// Packed arrays (`D8`, Docs/FORMAT.md §1): what the writer packs, and that every reader reads a packed array as the
/// tagged array of the same elements.
@Suite("Packed arrays")
struct PackedArrayTests {
    /// The encoding of an array in format version 1, which never packs: each element with its tag.
    static func tagged(_ elements: [Value]) -> [UInt8] {
        let writer = FirePackWriter(options: .init(formatVersion: 1))
        writer.write(.array(elements))
        return writer.takeBytes()
    }

    /// Arrays the writer packs, with their element kinds, and arrays it leaves tagged.
    static let packable: [[Value]] = [
        [1.5, 2.5, 65.66, -0.25],
        // binary32: −0.0 and ∞ keep their bits.
        [.double(-0.0), .double(.infinity), .double(Double(Float(0.1))), .double(Double(Float(0.2))), .double(Double(Float(0.3)))],
        // binary64: a NaN keeps its payload.
        [.double(Double(bitPattern: 0x7FF8_0000_0000_1234)), .double(1.0 / 3), .double(2.0 / 3), .double(1.0 / 7)],
        (0..<100).map { .double(Double($0) / 8) },
        (0..<300).map { .double(Double($0 - 150) / 1000) },
        [1000, 2000, 3000],
        [.integer(.min), .integer(.max), .integer(1 << 40), .integer(-(1 << 40))],
        (0..<200).map { .integer(Int64($0) - 100) },
        (0..<50).map { .integer(Int64($0) * 70_000) },
    ]

    @Test("the writer packs arrays of doubles or of integers when that is shorter, and every bit comes back")
    func writerPacks() throws {
        for elements in Self.packable {
            let packed = Value.array(elements).firePackBytes()
            #expect(packed.first == 0xD8, "\(elements.prefix(4)): \(hex(Array(packed.prefix(24))))")
            #expect(packed.count < Self.tagged(elements).count)
            let back = try Value(firePackBytes: packed)
            guard case .array(let decoded) = back else {
                Issue.record("not an array")
                continue
            }
            #expect(decoded.count == elements.count)
            for (a, b) in zip(decoded, elements) {
                switch (a, b) {
                case (.double(let x), .double(let y)): #expect(x.bitPattern == y.bitPattern)
                case (.integer(let x), .integer(let y)): #expect(x == y)
                default: Issue.record("\(a) read back for \(b)")
                }
            }
        }
    }

    @Test("mixed, short and non-numeric arrays stay tagged; an integer-valued double stays a double")
    func writerLeavesTagged() throws {
        let stayTagged: [[Value]] = [
            [1, 2], [1, 1.5], [1.5], ["a", "b"], [1.5, nil], [[1.5, 2.5], [1, 2]], [[1.5, 2.5], [1.5]], [[], []],
            [[1.5, 2.5], "a"],
        ]
        for elements in stayTagged {
            let encoded = Value.array(elements).firePackBytes()
            #expect(encoded.first != 0xD8, "\(elements)")
        }
        // Arrays of equal-length rows of one kind pack whole; rows of unequal length pack each on their own.
        #expect(hex(Value.array([[1.5, 2.5], [3.5, 4.5]]).firePackBytes()) == "D9 01 02 02 0F 19 23 2D")
        #expect(hex(Value.array([[1.5], [2.5]]).firePackBytes()) == "D9 01 02 01 0F 19")
        #expect(hex(Value.array([[1.5, 2.5], [3.5, 4.5, 5.5]]).firePackBytes()) == "A2 0B D8 01 02 0F 19 D8 01 03 23 2D 37")
        let doubles = try Value(firePackBytes: Value.array([3.0, 4.0, 5.0]).firePackBytes())
        #expect(doubles == [3.0, 4.0, 5.0])
        if case .array(let elements) = doubles { #expect(elements.allSatisfy { if case .double = $0 { true } else { false } }) }
    }

    @Test("writeDoubles writes the bytes that writing each double into an array writes")
    func writeDoublesAgrees() {
        var random = SystemRandomNumberGenerator()
        let pool: [Double] = [0, -0.0, 1.5, 65.66, -0.25, 3.0, 1e300, .nan, .infinity, 1.0 / 3, Double(Float(0.1)), 100_000.5]
        for _ in 0..<2_000 {
            let count = Int.random(in: 0...40, using: &random)
            let kind = Int.random(in: 0..<4, using: &random)
            let elements: [Double] = (0..<count).map { _ in
                switch kind {
                case 0: Double(Int.random(in: -99_999...99_999, using: &random)) / 1_000
                case 1: Double(Float(Double.random(in: -1...1, using: &random)))
                case 2: Double(bitPattern: UInt64.random(in: 0 ... .max, using: &random))
                default: pool.randomElement(using: &random)!
                }
            }
            let direct = FirePackWriter(), oneByOne = FirePackWriter()
            elements.withUnsafeBufferPointer { direct.writeDoubles($0) }
            oneByOne.beginArray()
            for element in elements { oneByOne.writeDouble(element) }
            oneByOne.endArray()
            #expect(direct.takeBytes() == oneByOne.takeBytes(), "\(elements)")
        }
    }

    @Test("format version 1 never packs")
    func version1() {
        let writer = FirePackWriter(options: .init(formatVersion: 1))
        writer.write(.array((0..<100).map { .double(Double($0) / 8) }))
        #expect(writer.takeBytes().first == 0xD0)
    }

    @Test("the zero-copy view, the cursor, verify and the tree read a packed array as its elements")
    func readers() throws {
        let doubles = Value.array([1.5, -2.25, 65.66, 7.0]).firePackBytes()
        #expect(doubles.first == 0xD8)
        try FirePackReader.verify(doubles)
        try doubles.withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw)
            let root = reader.root
            #expect(root.type == .array)
            #expect(try root.count() == 4)
            #expect(try root[1]?.double() == -2.25)
            #expect(try root[1]?.type == .double)
            #expect(try root[4] == nil)
            var seen: [Double] = []
            try root.forEachElement { seen.append(try $0.double()) }
            #expect(seen == [1.5, -2.25, 65.66, 7.0])
            // A number read as another type is the tagged element's mismatch, at the element's offset.
            do {
                _ = try root[2]?.string()
                Issue.record("a packed double read as a string")
            } catch let error as FirePackError {
                #expect(error.code == .typeMismatch && error.offset == 3 + 2 * 2, "\(error)")
            }
            let array = try reader.enterArray()
            #expect(array.count == 4)
            #expect(try reader.peekType() == .double)
            #expect(try reader.readDouble() == 1.5)
            #expect(throws: FirePackError.self) { try reader.readInteger() }
            #expect(throws: FirePackError.self) { try reader.readString() }
            #expect(try reader.readNull() == false)
            try reader.skipValue()
            #expect(try reader.readValue() == .double(65.66))
            #expect(try reader.peekValueView().double() == 7)
            #expect(try reader.readDouble() == 7)
            #expect(reader.isAtEnd)
            try reader.exitArray(array)
        }
        let integers = Value.array([1000, -2000, 3000]).firePackBytes()
        #expect(integers.first == 0xD8)
        try integers.withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw)
            #expect(try reader.root[2]?.integer() == 3000)
            let array = try reader.enterArray()
            #expect(try reader.readInteger() == 1000)
            #expect(throws: FirePackError.self) { try reader.readDouble() }
            #expect(try reader.readInteger() == -2000)
            #expect(try reader.readValue() == 3000)
            try reader.exitArray(array)
        }
    }

    @Test("rows of an array of packed rows read as arrays through every reader")
    func rows() throws {
        let matrix: Value = [[1.5, -2.25], [65.66, 7.0], [0.5, 0.25]]
        let bytes = matrix.firePackBytes()
        #expect(bytes.first == 0xD9)
        #expect(try Value(firePackBytes: bytes) == matrix)
        try FirePackReader.verify(bytes)
        // D9, form 12 (2-byte mantissas, scale 2), 3 rows, 2 columns: the rows start at 4, 4 bytes each.
        #expect(Array(bytes.prefix(4)) == [0xD9, 0x12, 0x03, 0x02])
        try bytes.withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw)
            let root = reader.root
            #expect(try root.count() == 3)
            let row = try #require(try root[1])
            #expect(row.type == .array)
            #expect(row.offset == 8)
            #expect(try row.count() == 2)
            #expect(try row[0]?.double() == 65.66)
            #expect(try row.value() == [65.66, 7.0])
            #expect(try root.lookup("[2][1]")?.double() == 0.25)
            var sum = 0.0
            try root.forEachElement { row in try row.forEachElement { sum += try $0.double() } }
            #expect(sum == 1.5 - 2.25 + 65.66 + 7.0 + 0.5 + 0.25)
            do {
                _ = try row.double()
                Issue.record("a row read as a double")
            } catch let error as FirePackError {
                #expect(error.code == .typeMismatch && error.offset == 8, "\(error)")
            }
            let outer = try reader.enterArray()
            #expect(try reader.peekType() == .array)
            #expect(throws: FirePackError.self) { try reader.readDouble() }
            let first = try reader.enterArray()
            #expect(first.count == 2)
            #expect(try reader.readDouble() == 1.5)
            #expect(try reader.readValue() == -2.25)
            try reader.exitArray(first)
            #expect(try reader.readValue() == [65.66, 7.0])
            try reader.skipValue()
            #expect(reader.isAtEnd)
            try reader.exitArray(outer)
            #expect(reader.isAtEnd)
        }
        let decoder = FirePackDecoder()
        #expect(try decoder.decode([[Double]].self, from: bytes) == [[1.5, -2.25], [65.66, 7.0], [0.5, 0.25]])
        #expect(try decoder.decode([[Float]].self, from: bytes) == [[1.5, -2.25], [65.66, 7.0], [0.5, 0.25]])
        #expect(try decoder.decode([Value].self, from: bytes) == [[1.5, -2.25], [65.66, 7.0], [0.5, 0.25]])
        #expect(try decoder.decode([Pair].self, from: bytes) == [Pair(1.5, -2.25), Pair(65.66, 7.0), Pair(0.5, 0.25)])
        do {
            _ = try decoder.decode([[Int]].self, from: bytes)
            Issue.record("1.5 decoded as Int")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.intValue) == [0, 0])
            #expect(context.debugDescription.contains("at byte 4"), "\(context.debugDescription)")
        }
        let wholes = Value.array([[1.0, 2.0], [3.0, 4.5]]).firePackBytes()
        #expect(hex(wholes) == "D9 01 02 02 0A 14 1E 2D")
        #expect(try decoder.decode([[Int]].self, from: Value.array([[1.0, 2.0], [3.0, 4.0]]).firePackBytes()) == [[1, 2], [3, 4]])
        do {
            _ = try decoder.decode([[Int]].self, from: wholes)
            Issue.record("4.5 decoded as Int")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.intValue) == [1, 1])
            #expect(context.debugDescription.contains("at byte 7"), "\(context.debugDescription)")
        }
        // The same through a type of the Codable path alone (an unkeyed container over each row).
        do {
            _ = try decoder.decode([IntPair].self, from: wholes)
            Issue.record("4.5 decoded as Int")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.intValue) == [1, 1])
            #expect(context.debugDescription.contains("at byte 7"), "\(context.debugDescription)")
        }
    }

    struct IntPair: Decodable {
        var a: Int, b: Int
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            (a, b) = (try container.decode(Int.self), try container.decode(Int.self))
        }
    }

    struct Pair: Codable, Equatable {
        var x: Double, y: Double
        init(_ x: Double, _ y: Double) { (self.x, self.y) = (x, y) }
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            (x, y) = (try container.decode(Double.self), try container.decode(Double.self))
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.unkeyedContainer()
            try container.encode(x)
            try container.encode(y)
        }
    }

    struct Meters: Codable, Equatable {
        var value: Double
        init(_ value: Double) { self.value = value }
        init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(value)
        }
    }

    @Test("the Codable decoder reads packed arrays into every element type a tagged array decodes to")
    func codable() throws {
        let decoder = FirePackDecoder()
        let doubles = Value.array([1.5, -2.25, 65.66]).firePackBytes()
        let integers = Value.array([1000, -2000, 3000]).firePackBytes()
        #expect(doubles.first == 0xD8 && integers.first == 0xD8)
        for bytes in [doubles, integers] {
            let tagged = Self.tagged(try #require(try Value(firePackBytes: bytes).arrayValue))
            #expect(try decoder.decode([Double].self, from: bytes) == decoder.decode([Double].self, from: tagged))
            #expect(try decoder.decode([Float].self, from: bytes) == decoder.decode([Float].self, from: tagged))
            #expect(try decoder.decode([Double?].self, from: bytes) == decoder.decode([Double?].self, from: tagged))
            #expect(try decoder.decode([Value].self, from: bytes) == decoder.decode([Value].self, from: tagged))
            #expect(try decoder.decode([Meters].self, from: bytes) == decoder.decode([Meters].self, from: tagged))
        }
        #expect(try decoder.decode([Int].self, from: integers) == [1000, -2000, 3000])
        #expect(try decoder.decode([Int16].self, from: integers) == [1000, -2000, 3000])
        // Errors: the element's offset and index, as for the tagged array.
        do {
            _ = try decoder.decode([Int].self, from: doubles)
            Issue.record("1.5 decoded as Int")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.intValue) == [0])
            #expect(context.debugDescription.contains("at byte 3"), "\(context.debugDescription)")
        }
        do {
            _ = try decoder.decode([String].self, from: integers)
            Issue.record("an integer decoded as String")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.intValue) == [0])
            #expect(context.debugDescription.contains("at byte 3"), "\(context.debugDescription)")
        }
        do {
            _ = try decoder.decode([Int8].self, from: integers)
            Issue.record("1000 decoded as Int8")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.codingPath.map(\.intValue) == [0])
        }
    }

    @Test("the decoder reads from a cursor inside a packed array or its rows")
    func decoderAtCursor() throws {
        let bytes = Value.array([[1.5, 2.5], [3.5, 4.5]]).firePackBytes()
        #expect(bytes.first == 0xD9)
        try bytes.withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw)
            let outer = try reader.enterArray()
            #expect(try FirePackDecoder().decode([Double].self, from: &reader) == [1.5, 2.5])
            let row = try reader.enterArray()
            #expect(try FirePackDecoder().decode(Double.self, from: &reader) == 3.5)
            #expect(try FirePackDecoder().decode(Float.self, from: &reader) == 4.5)
            try reader.exitArray(row)
            try reader.exitArray(outer)
        }
    }

    @Test("a view of a packed element or row copies as the value it is")
    func copyingViews() throws {
        for value: Value in [[1000, 2000], [[1.5, 2.5], [3.5, 4.5]], [1.5, 65.66, -0.25]] {
            let bytes = value.firePackBytes()
            #expect(bytes.first == 0xD8 || bytes.first == 0xD9)
            var copied: [Value] = []
            try bytes.withUnsafeBytes { raw in
                let reader = try FirePackReader(bytes: raw)
                try reader.root.forEachElement { element in
                    let writer = FirePackWriter()
                    try writer.write(element)
                    copied.append(try Value(firePackBytes: writer.takeBytes()))
                }
            }
            #expect(Value.array(copied) == value)
        }
    }

    @Test("a packed array or rows copies as the bytes writing its value writes, in every writer mode")
    func copyingPackedArrays() throws {
        let rows: [Value] = [
            .array((0..<40).map { .array([.integer(Int64($0 % 7))]) }),
            [[1.5, 2.5], [3.5, 4.5], [65.66, -0.25]],
            .array((0..<20).map { .array([.double(Double($0) / 3), .double(-Double($0))]) }),
        ]
        let mixed: Value = .array((0..<30).map { $0 % 2 == 0 ? .integer(Int64($0)) : .double(Double($0) + 0.5) })
        for array in Self.packable.map(Value.array) + rows + [mixed] {
            let source: Value = ["a": array, "b": [array, "x"]]
            let bytes = source.firePackBytes()
            for options in [FirePackWriter.Options(), .init(deterministic: true), .init(keyReferences: false)] {
                try FirePackReader.withReader(bytes) { reader in
                    let copy = FirePackWriter(options: options), rewrite = FirePackWriter(options: options)
                    try copy.write(reader.root)
                    rewrite.write(try reader.root.value())
                    #expect(copy.takeBytes() == rewrite.takeBytes(), "\(array)")
                }
            }
        }
    }

    @Test("a packed element decodes under an input limit smaller than its tagged form, never traps")
    func smallInputLimit() throws {
        let packed = bytes(hex: "D8 C3 01 05"), rows = bytes(hex: "D9 C3 01 01 05")
        for size in [rows.count, 6, 8] {
            let decoder = FirePackDecoder()
            decoder.limits = ReaderLimits(maxInputSize: size)
            #expect(try decoder.decode([Int8].self, from: packed) == [5])
            #expect(try decoder.decode([Int64].self, from: packed) == [5])
            #expect(try decoder.decode([Float].self, from: packed) == [5])
            #expect(try decoder.decode([[Int8]].self, from: rows) == [[5]])
        }
    }

    @Test("a cursor moved off an element's stride by readKey() fails, never reads past the input")
    func cursorOffStride() throws {
        let bytes = bytes(hex: "D8 C8 01 02 41 00 00 00 00 00 00")
        try bytes.withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw)
            _ = try reader.enterArray()
            _ = try? reader.readKey()
            #expect(throws: FirePackError.self) { try reader.readDouble() }
            #expect(throws: FirePackError.self) { try reader.readValue() }
        }
    }

    @Test("writeDoubles past the depth limit records the violation the element-by-element path does")
    func writeDoublesDepth() {
        let limits = ReaderLimits(maxDepth: 3)
        let writer = FirePackWriter(options: .init(limits: limits))
        for _ in 0..<3 { writer.beginArray() }
        [1.5, 2.5].withUnsafeBufferPointer { writer.writeDoubles($0) }
        for _ in 0..<3 { writer.endArray() }
        #expect(throws: FirePackError.self) { try writer.checkLimits() }
    }

    indirect enum Nest: Decodable, Equatable {
        case leaf([[Float]])
        case nest([Nest])
        init(from decoder: any Decoder) throws {
            if let rows = try? decoder.singleValueContainer().decode([[Float]].self) {
                self = .leaf(rows)
            } else {
                self = .nest(try decoder.singleValueContainer().decode([Nest].self))
            }
        }
    }

    @Test("rows are checked against the decoder's limits, not the defaults")
    func rowLimits() throws {
        var value: Value = [[1.5, 2.5], [3.5, 4.5]]
        var expected = Nest.leaf([[1.5, 2.5], [3.5, 4.5]])
        for _ in 0..<110 {
            value = [value]
            expected = .nest([expected])
        }
        let limits = ReaderLimits(maxDepth: 200)
        let writer = FirePackWriter(options: .init(limits: limits))
        writer.write(value)
        try writer.checkLimits()
        let bytes = writer.takeBytes()
        #expect(bytes.contains(0xD9))
        let decoder = FirePackDecoder()
        decoder.limits = limits
        #expect(try decoder.decode(Nest.self, from: bytes) == expected)
    }

    @Test("hostile packed arrays are refused at the byte that is wrong")
    func hostile() {
        assertDecodeFails(hex: "D8", .truncated, offset: 0)
        assertDecodeFails(hex: "D8 9F 01 00", .unknownTag, offset: 1)
        assertDecodeFails(hex: "D8 C7 01 00 00 00 00", .unknownTag, offset: 1)
        assertDecodeFails(hex: "D8 C4 03 00 00", .lengthOutOfBounds, offset: 2)
        assertDecodeFails(hex: "D8 C8 FF FF FF FF FF FF FF FF 7F", .lengthOutOfBounds, offset: 2)
        assertDecodeFails(hex: "D8 C3 05 01 02 03 04 05", .limitExceeded, offset: 0, limits: ReaderLimits(maxElementCount: 4))
        // A decimal mantissa of 7 bytes above 2^53, in the second element.
        assertDecodeFails(
            hex: "D8 60 02 01 00 00 00 00 00 00 01 00 00 00 00 00 40", .invalidDecimal, offset: 3 + 7)
        assertDecodeFails(hex: "A1 04 D8 C3 02 01", .lengthOutOfBounds, offset: 4)
        // Arrays of packed rows: no columns, rows past the end, too many rows, too deep, a bad form.
        assertDecodeFails(hex: "D9 C3 05 00", .lengthMismatch, offset: 3)
        // Columns of which one row cannot fit: refused before `columns × width` is computed, whatever the limits.
        let huge = ReaderLimits(maxElementCount: .max)
        assertDecodeFails(hex: "D9 C8 01 80 80 80 80 80 80 80 80 10", .lengthOutOfBounds, offset: 3, limits: huge)
        assertDecodeFails(hex: "A1 0C D9 C8 01 80 80 80 80 80 80 80 80 10", .lengthOutOfBounds, offset: 5, limits: huge)
        // No rows of such columns take no bytes: the element limit refuses them, and without one they are empty.
        assertDecodeFails(hex: "D9 C8 00 80 80 80 80 80 80 80 80 10", .limitExceeded, offset: 0)
        #expect((try? Value(firePackBytes: bytes(hex: "D9 C8 00 80 80 80 80 80 80 80 80 10"), limits: huge)) == .array([]))
        assertDecodeFails(hex: "D9 C3 03 02 01 02 03 04 05", .lengthOutOfBounds, offset: 2)
        assertDecodeFails(hex: "D9 C3 FF FF FF FF 0F 01 00", .lengthOutOfBounds, offset: 2)
        assertDecodeFails(hex: "D9 C3 05 01 01 02 03 04 05", .limitExceeded, offset: 0, limits: ReaderLimits(maxElementCount: 4))
        // Columns past both the bytes and the limit: the bytes first (Docs/FORMAT.md §7), at the columns' varint.
        assertDecodeFails(hex: "D9 C3 01 FF FF FF FF 0F 00", .lengthOutOfBounds, offset: 3)
        assertDecodeFails(hex: "D8 C3 FF FF FF FF 0F 00", .lengthOutOfBounds, offset: 2)
        assertDecodeFails(hex: "A1 08 D8 C3 FF FF FF FF 0F 00", .lengthOutOfBounds, offset: 4)
        assertDecodeFails(hex: "D9 9F 01 01 00", .unknownTag, offset: 1)
        assertDecodeFails(hex: "A1 06 D9 C3 01 01 05 00", .lengthMismatch, offset: 0)
        assertDecodeFails(hex: "D9 C3 01 01 05", .depthLimitExceeded, offset: 0, limits: ReaderLimits(maxDepth: 1))
    }

    @Test func noRowsTakeNoBytes() throws {
        // No rows take no bytes, whatever follows: the same empty array alone, in an array, and as a view's value (a
        // fuzz finding: the view, bounded by the value's own end, refused what the array had read).
        #expect(try Value(firePackBytes: bytes(hex: "D9 C3 00 02")) == .array([]))
        let inArray = bytes(hex: "A2 05 D9 00 00 01 07")
        #expect(try Value(firePackBytes: inArray) == [[], 7])
        try inArray.withUnsafeBytes { raw in
            let view = try #require(try FirePackReader(bytes: raw).root.lookup([.index(0)]))
            #expect(try view.value() == .array([]))
        }
    }
}

extension Value {
    fileprivate var arrayValue: [Value]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

}
