import Foundation
import Testing
import FirePackTestSupport
@testable import FirePack

/// `FirePackReader.verify` (the whole-input check behind `FirePackDecoder.inputValidation`) refuses exactly what
/// `FirePackReader.validate` refuses, with the same code at the same offset, without building a tree.
@Suite("Whole-input verification")
struct VerifyTests {
    @Test("verify and validate agree on 20,000 mutated encodings", arguments: 0..<2)
    func agreesWithValidate(batch: Int) {
        var rng = SeededGenerator(seed: 0x5EED_0F00 &+ UInt64(batch))
        var refused = 0
        for _ in 0..<10_000 {
            let bytes = ByteMutation.mutated(MutationTests.corpus[Int.random(in: 0..<MutationTests.corpus.count, using: &rng)], using: &rng)
            let validated = Result { () throws(FirePackError) in try FirePackReader.validate(bytes) }
            let verified = Result { () throws(FirePackError) in try FirePackReader.verify(bytes) }
            switch (validated, verified) {
            case (.success, .success): break
            case (.failure(let expected), .failure(let found)):
                refused += 1
                #expect(expected.code == found.code && expected.offset == found.offset, "\(bytes): \(expected) against \(found)")
            default:
                Issue.record("validate \(validated), verify \(verified) for \(bytes)")
            }
        }
        #expect(refused > 2_000)
    }

    /// What the lazy path passes over and the whole-input check refuses, in an ignored field of a model.
    struct Title: Codable, Equatable { var title: String }

    static func body(ignored: [UInt8]) -> [UInt8] {
        // [{"title": "Dune", "x": <ignored>}]
        let map = [0xB2] + varintBytes(13 + ignored.count) + [0x0A] + Array("title".utf8) + [0x84] + Array("Dune".utf8) + [0x02, 0x78] + ignored
        return [0xA1] + varintBytes(map.count) + map
    }

    static let damagedIgnoredFields: [(String, [UInt8], FirePackError.Code)] = [
        ("invalid UTF-8", [0x82, 0xC3, 0x28], .invalidUTF8),
        ("an invalid reference", [0xCF, 0x01, 0x2F], .invalidReference),
        ("a length mismatch", [0xA1, 0x02, 0x01, 0x02], .lengthMismatch),
        ("a duplicate key", [0xB2, 0x06, 0x02, 0x61, 0x01, 0x02, 0x61, 0x02], .duplicateKey),
    ]

    @Test func theLazyPathPassesOverWhatTheWholeInputCheckRefuses() throws {
        let decoder = FirePackDecoder()
        let strict = FirePackDecoder()
        strict.inputValidation = .complete
        for (name, ignored, code) in Self.damagedIgnoredFields {
            let bytes = Self.body(ignored: ignored)
            #expect(try decoder.decode([Title].self, from: bytes) == [Title(title: "Dune")], "\(name)")
            let error = #expect(throws: DecodingError.self, "\(name)") { try strict.decode([Title].self, from: bytes) }
            guard case .dataCorrupted(let context)? = error else { Issue.record("\(name): \(String(describing: error))"); continue }
            #expect((context.underlyingError as? FirePackError)?.code == code, "\(name): \(context.debugDescription)")
            #expect(throws: FirePackError.self, "\(name)") { try FirePackReader.validate(bytes) }
            // The untrusted door (what FirePackNIO and FirePackHummingbird call) checks the whole input by default.
            #expect(throws: DecodingError.self, "\(name)") {
                try bytes.withUnsafeBytes { try decoder.decode([Title].self, fromUntrusted: $0) }
            }
        }
        // Deep nesting in a skipped field: refused at the depth limit, not walked into.
        var deep: [UInt8] = [0x01]
        for _ in 0..<200 { deep = [0xA1] + varintBytes(deep.count) + deep }
        #expect(throws: DecodingError.self) { try strict.decode([Title].self, from: Self.body(ignored: deep)) }
        // And `.lazy` says the caller trusts the bytes, at every door.
        decoder.inputValidation = .lazy
        let bytes = Self.body(ignored: Self.damagedIgnoredFields[0].1)
        #expect(try bytes.withUnsafeBytes { try decoder.decode([Title].self, fromUntrusted: $0) } == [Title(title: "Dune")])
    }

    /// Large maps check duplicate keys through a seeded set: linear in the map, however the keys collide.
    @Test func largeMapsFindDuplicateKeys() throws {
        var map = MapValue()
        for index in 0..<1_000 { map["key\(index)"] = .integer(Int64(index)) }
        let bytes = Value.map(map).firePackBytes()
        try FirePackReader.verify(bytes)
        // Rename the last key to the first one's name: a duplicate, found at the last key's header.
        var damaged = bytes
        let position = try #require(Self.range(of: Array("key999".utf8), in: damaged))
        damaged.replaceSubrange(position ..< position + 6, with: Array("key100".utf8))
        let error = #expect(throws: FirePackError.self) { try FirePackReader.verify(damaged) }
        let expected = #expect(throws: FirePackError.self) { try FirePackReader.validate(damaged) }
        #expect(error?.code == .duplicateKey && error?.code == expected?.code && error?.offset == expected?.offset)
    }


    static func range(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        var index = 0
        while index + needle.count <= haystack.count {
            if Array(haystack[index ..< index + needle.count]) == needle { return index }
            index += 1
        }
        return nil
    }
}
