import FirePack
import Foundation
import Testing

/// A hand-written reader of two wide maps (more entries than `MapEntryCache` leaves uncached), which reads the outer
/// map's keys out of order, asks for absent keys, reads the inner map between two outer reads, and then reads the
/// outer map again through a `Fields` taken before the inner map was opened and through one opened twice.
private struct WideReader: FirePackDecodable {
    var outer: [Int?] = []
    var inner: [Int?] = []
    var again: [Int?] = []

    static let outerKeys: [StaticString] = ["k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11"]
    static let innerKeys: [StaticString] = ["i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9"]
    /// Out of order, with keys the maps lack.
    static let order = [11, 3, 7, 0, 12, 5, 1, 9, 13, 2, 10, 4, 6, 8]

    init(firePack reader: inout FirePackValueReader) throws {
        var fields = try reader.readFields()
        let stale = fields
        for index in Self.order.prefix(7) { outer.append(try Self.read(index, Self.outerKeys, &reader, &fields)) }
        inner = try reader.decode(Inner.self, forKey: "nested", in: &fields).values
        for index in Self.order.dropFirst(7) { outer.append(try Self.read(index, Self.outerKeys, &reader, &fields)) }
        var staleCopy = stale
        var reopened = try reader.readFields()
        for index in Self.order {
            again.append(try Self.read(index, Self.outerKeys, &reader, &staleCopy))
            again.append(try Self.read(index, Self.outerKeys, &reader, &reopened))
        }
    }

    static func read(_ index: Int, _ keys: [StaticString], _ reader: inout FirePackValueReader,
                     _ fields: inout FirePackValueReader.Fields) throws -> Int? {
        index < keys.count ? try reader.decodeIfPresent(Int.self, forKey: keys[index], in: &fields) : try reader.decodeIfPresent(Int.self, forKey: "absent", in: &fields)
    }

    struct Inner: FirePackDecodable, Decodable {
        var values: [Int?] = []
        init(firePack reader: inout FirePackValueReader) throws {
            var fields = try reader.readFields()
            for index in [9, 0, 4, 11, 2, 7] { values.append(try WideReader.read(index, WideReader.innerKeys, &reader, &fields)) }
        }
        init(from decoder: any Decoder) throws { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "generated only")) }
    }

    init(from decoder: any Decoder) throws { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "generated only")) }
}

@Suite struct WideMapTests {
    /// The outer map holds k0…k11 (k4 missing) and `nested`; the inner map i0…i9 (i7 missing).
    static func bytes(sortedKeys: Bool) -> [UInt8] {
        var outer: MapValue = [:], inner: MapValue = [:]
        for index in 0..<12 where index != 4 { outer["k\(index)"] = .integer(Int64(100 + index)) }
        for index in 0..<10 where index != 7 { inner["i\(index)"] = .integer(Int64(200 + index)) }
        outer["nested"] = .map(inner)
        let writer = FirePackWriter(options: .init(deterministic: sortedKeys))
        writer.write(.map(outer))
        return writer.takeBytes()
    }

    /// Also under `convertFromSnakeCase`, whose converted keys each `Fields` finds in the decoder by its map.
    @Test(arguments: [false, true], [false, true])
    func keysOfWideMapsAreFoundInAnyOrderThroughEveryFields(sortedKeys: Bool, snakeCase: Bool) throws {
        let decoder = FirePackDecoder()
        if snakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        let decoded = try decoder.decode(WideReader.self, from: Self.bytes(sortedKeys: sortedKeys))
        let expectedOuter = WideReader.order.map { $0 < 12 && $0 != 4 ? 100 + $0 : nil }
        #expect(decoded.outer == expectedOuter)
        #expect(decoded.inner == [9, 0, 4, 11, 2, 7].map { $0 < 10 && $0 != 7 ? 200 + $0 : nil })
        #expect(decoded.again == expectedOuter.flatMap { [$0, $0] })
    }

    @Test func aDamagedEntryOfAWideMapIsTheSameErrorOnBothPaths() throws {
        // Everything's wide map, cut at every length: both paths fail (or succeed) alike, wherever the cut falls.
        var generator = ModelGenerator(seed: 0xF12E_0100)
        let value = generator.everything()
        for sorted in [false, true] {
            let bytes = try Paths.encoder(generated: false, deterministic: sorted).encodeToBytes(value)
            for length in stride(from: 1, to: bytes.count, by: max(1, bytes.count / 200)) {
                var damaged = Array(bytes.prefix(length))
                damaged.append(contentsOf: [UInt8](repeating: 0xFF, count: bytes.count - length))
                expectSameDecodingSpecialized(Everything.self, damaged)
            }
        }
    }
}
