import Testing
@testable import FirePack

/// The coders' memo of which types have generated coding answers as the runtime cast does, asking it only for types it
/// has not just seen.
@Suite struct GeneratedConformanceMemoTests {
    private struct Generated: FirePackDecodable {
        init(firePack reader: inout FirePackValueReader) throws {}
        init(from decoder: any Decoder) throws {}
    }
    private struct OtherGenerated: FirePackDecodable {
        init(firePack reader: inout FirePackValueReader) throws {}
        init(from decoder: any Decoder) throws {}
    }
    private struct Plain: Decodable {}
    private struct OtherPlain: Decodable {}

    @Test func answersAsTheCastAndRemembersTheLastOfEachKind() {
        var memo = GeneratedConformanceMemo<any FirePackDecodable.Type>()
        var casts = 0
        func ask<T>(_ type: T.Type) -> (any FirePackDecodable.Type)? {
            memo.conformance(of: type) { casts += 1; return $0 as? any FirePackDecodable.Type }
        }
        let sequence: [(Any.Type, asks: Bool)] = [
            (Plain.self, true), (Plain.self, false), (Generated.self, true), (Plain.self, false), (Generated.self, false),
            (OtherGenerated.self, true), (Generated.self, true),
            // String has generated coding (FirePack's natives do): it takes the generated slot, not the plain one.
            (String.self, true), (Plain.self, false), (OtherPlain.self, true), (Plain.self, true),
        ]
        for (index, (type, asks)) in sequence.enumerated() {
            let before = casts
            func check<T>(_ type: T.Type) {
                let answer = ask(type)
                #expect(answer.map(ObjectIdentifier.init) == (type as? any FirePackDecodable.Type).map(ObjectIdentifier.init), "step \(index)")
            }
            _openExistential(type, do: check)
            #expect((casts > before) == asks, "step \(index): \(type)")
        }
    }
}

/// The writer keeps the Codable encoder's answers from one root value to the next (`WriterState.conformances`): a
/// reused writer asks the runtime nothing it asked before, and writes the bytes a new writer writes, whatever types
/// come in whatever order.
@Suite struct WriterConformancesTests {
    /// A type with its own `encode(to:)` only, as the guide's `Color`.
    private struct Hex: Codable, Equatable {
        var value: UInt32
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(String(value, radix: 16))
        }
        init(_ value: UInt32) { self.value = value }
        init(from decoder: any Decoder) throws {
            value = UInt32(try decoder.singleValueContainer().decode(String.self), radix: 16) ?? 0
        }
    }
    /// Generated coding written by hand, with a field that only `Codable` can write.
    private struct Tagged: FirePackEncodable {
        var name: String
        var color: Hex
        func encode(firePack writer: inout FirePackValueWriter) throws {
            writer.beginFields()
            try writer.encode(name, forKey: "name")
            try writer.encode(color, forKey: "color")
            writer.endFields()
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyCodingKey.self)
            try container.encode(name, forKey: AnyCodingKey(stringValue: "name"))
            try container.encode(color, forKey: AnyCodingKey(stringValue: "color"))
        }
    }
    private enum Genre: String, Codable, CodingKeyRepresentable { case fiction, poetry }

    @Test func aReusedWriterWritesWhatANewOneWritesAndAsksOnce() throws {
        let encoder = FirePackEncoder()
        let values: [any Encodable] = [
            Tagged(name: "a", color: Hex(0xff00ff)), [Tagged(name: "b", color: Hex(1))], Hex(7),
            ["x": Hex(2)], [Genre.fiction: Hex(3)], [Genre.poetry: 4], Tagged(name: "c", color: Hex(9)), Hex(8),
        ]
        func fresh(_ value: some Encodable) throws -> [UInt8] {
            let writer = FirePackWriter()
            try encoder.encode(value, into: writer)
            return writer.takeBytes()
        }
        func reused(_ value: some Encodable, _ writer: FirePackWriter) throws -> [UInt8] {
            writer.clear()
            try encoder.encode(value, into: writer)
            return writer.takeBytes()
        }
        // Every order of these values through one writer: rotations and the reverse.
        var orders = (0..<values.count).map { Array(values[$0...] + values[..<$0]) }
        orders.append(values.reversed())
        for (number, order) in orders.enumerated() {
            let writer = FirePackWriter()
            for (index, value) in order.enumerated() {
                #expect(try reused(value, writer) == fresh(value), "order \(number), value \(index): \(value)")
            }
        }

        // After one root value with a `Hex` inside, the writer answers for `Hex` without a cast.
        let writer = FirePackWriter()
        try encoder.encode(Tagged(name: "d", color: Hex(5)), into: writer)
        var casts = 0
        _ = writer.state.conformances.rawKeyed.conformance(of: Hex.self) { type in
            casts += 1
            return type as? any RawKeyedEncodableDictionary.Type
        }
        _ = writer.state.conformances.generated.conformance(of: Hex.self) { type in
            casts += 1
            return type as? any FirePackEncodable.Type
        }
        #expect(casts == 0)
    }
}
