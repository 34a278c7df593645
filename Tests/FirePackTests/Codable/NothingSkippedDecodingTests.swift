import Foundation
import Testing
import FirePack

/// Decoding skips nothing in silence: a `[String: T]` whose entry cannot be read throws with the entry's offset
/// (it used to lose the key, or every key after it), and errors a type's own `init(from:)` throws say where.
@Suite("Nothing skipped in decoding")
struct NothingSkippedDecodingTests {
    /// {"a": 1, <key>: 2, "c": 3} with the middle key's bytes given.
    static func map(middleKey: [UInt8]) -> [UInt8] {
        let entries: [UInt8] = [0x02, 0x61, 0x01] + [UInt8(middleKey.count << 1)] + middleKey + [0x02] + [0x02, 0x63, 0x03]
        return [0xB3, UInt8(entries.count)] + entries
    }

    @Test func aKeyThatIsNotUTF8Fails() throws {
        let bytes = Self.map(middleKey: [0x62, 0xFF])
        let error = #expect(throws: DecodingError.self) { try FirePackDecoder().decode([String: Int].self, from: bytes) }
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.debugDescription.contains("at byte 7"), "\(context.debugDescription)")   // the invalid byte
        #expect((context.underlyingError as? FirePackError)?.code == .invalidUTF8)
        // The same bytes through the tree reader fail the same way.
        #expect(throws: FirePackError.self) { try Value(firePackBytes: bytes) }
        // A valid key in its place decodes every entry.
        #expect(try FirePackDecoder().decode([String: Int].self, from: Self.map(middleKey: [0x62])) == ["a": 1, "b": 2, "c": 3])
    }

    @Test func aDamagedEntryFailsInsteadOfEndingTheMap() throws {
        // {"a": 1, "b": <a string of 6 bytes, where 3 are left>, "c": 3}: "b" and "c" used to be dropped without a word.
        let entries: [UInt8] = [0x02, 0x61, 0x01, 0x02, 0x62, 0x86, 0x02, 0x63, 0x03]   // "b": fixstring of 6
        let bytes = [0xB3, UInt8(entries.count)] + entries
        let error = #expect(throws: DecodingError.self) { try FirePackDecoder().decode([String: Int].self, from: bytes) }
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.debugDescription.contains("at byte 7"), "\(context.debugDescription)")
    }

    /// A type that refuses some values in its own `init(from:)`.
    struct Even: Codable {
        var value: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            value = try container.decode(Int.self)
            guard value % 2 == 0 else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(value) is odd")
            }
        }
    }

    @Test func errorsFromATypesOwnInitializerCarryTheOffset() throws {
        let bytes = Value.array([2, 4, 7]).firePackBytes()
        let error = #expect(throws: DecodingError.self) { try FirePackDecoder().decode([Even].self, from: bytes) }
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(context.debugDescription == "7 is odd (at byte 4).", "\(context.debugDescription)")
        #expect(context.codingPath.map(\.intValue) == [2])
    }
}
