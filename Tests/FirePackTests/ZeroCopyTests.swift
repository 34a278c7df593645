import Foundation
import Testing
@testable import FirePack

@Suite("Zero copy")
struct ZeroCopyTests {
    @Test("string, key, bytes and vector views point into the input buffer")
    func viewsPointIntoTheInput() throws {
        let value: Value = ["title": "The Hitchhiker's Guide to the Galaxy", "cover": .bytes(Data(repeating: 7, count: 64)),
                            "embedding": .vector(VectorValue([0.5, 1.5, 2.5]))]
        let encoded = value.firePackBytes()
        try encoded.withUnsafeBytes { raw in
            let range = UInt(bitPattern: raw.baseAddress!)..<UInt(bitPattern: raw.baseAddress! + raw.count)
            func inside(_ pointer: UnsafeRawPointer?) -> Bool { range.contains(UInt(bitPattern: pointer!)) }
            var reader = try FirePackReader(bytes: raw)
            let map = try reader.enterMap()
            let key = try reader.readKey()
            #expect(key == "title")
            #expect(inside(key.utf8.baseAddress))
            let title = try reader.readString()
            #expect(inside(title.utf8.baseAddress))
            #expect(title.string == "The Hitchhiker's Guide to the Galaxy")
            _ = try reader.readKey()
            let cover = try reader.readBytes()
            #expect(inside(cover.bytes.baseAddress) && cover.count == 64)
            _ = try reader.readKey()
            let vector = try reader.readVector()
            #expect(inside(vector.storage.baseAddress) && Array(vector) == [0.5, 1.5, 2.5])
            try reader.exitMap(map)
            #expect(reader.isAtEnd)
            let viaLookup = try #require(try reader.root["title"]).stringView()
            #expect(viaLookup.utf8.baseAddress == title.utf8.baseAddress)
        }
    }

    @Test("a failed read leaves the cursor unmoved; skip is O(1) per value")
    func cursorRules() throws {
        let value: Value = [.string(String(repeating: "s", count: 10_000)), ["a": [1, 2, 3]], 5]
        try FirePackReader.withReader(value.firePackBytes()) { reader in
            let array = try reader.enterArray()
            let before = reader.readerIndex
            #expect(throws: FirePackError.self) { try reader.readInteger() }
            #expect(reader.readerIndex == before)
            try reader.skipValue()
            #expect(reader.readerIndex == before + 3 + 10_000)
            try reader.skipValue()
            #expect(try reader.readInteger() == 5)
            try reader.exitArray(array)
        }
    }

    @Test("exitArray refuses a cursor that is not at the container's end")
    func exitChecksTheEnd() throws {
        try FirePackReader.withReader(Value.array([1, 2]).firePackBytes()) { reader in
            let array = try reader.enterArray()
            _ = try reader.readInteger()
            #expect(throws: FirePackError.self) { try reader.exitArray(array) }
            _ = try reader.readInteger()
            #expect(reader.isAtEnd)
            #expect(throws: FirePackError.self) { try reader.readInteger() }
            try reader.exitArray(array)
        }
    }
}

@Suite("Unchecked keys")
struct UncheckedKeyTests {
    @Test("readKeyUnchecked(answering:) hands out the key's bytes; checkKey gives readKey's verdict, error and offset")
    func uncheckedKeysAreCheckedOnRequest() throws {
        // {"Ab": 1, "nested": {"Ab": 2}}: the inner "Ab" refers to the outer literal; then "b" made 0xFF.
        let value: Value = ["Ab": 1, "nested": ["Ab": 2]]
        var bytes = value.firePackBytes()
        final class Asker {}
        let checkedKeys = Asker()
        for valid in [true, false] {
            if !valid { bytes[try #require(bytes.firstIndex(of: 0x62))] = 0xFF }   // the literal; the reference shares it
            try bytes.withUnsafeBytes { raw in
                var checked = try FirePackReader(bytes: raw), unchecked = try FirePackReader(bytes: raw)
                let map = try checked.enterMap()
                _ = try unchecked.enterMap()
                for _ in 0..<map.count {
                    let before = checked.readerIndex
                    let key = try unchecked.readKeyUnchecked(answering: checkedKeys).key
                    let keyOffset = key.baseAddress! - raw.baseAddress!
                    #expect(keyOffset > 0 && keyOffset + key.count <= raw.count)
                    do {
                        let expected = try checked.readKey()
                        #expect(try valid && unchecked.checkKey(key).string == expected.string)
                    } catch let error as FirePackError {
                        #expect(!valid && checked.readerIndex == before)   // readKey stays; the unchecked read moved on
                        #expect(throws: error) { _ = try unchecked.checkKey(key) }
                        #expect(error.code == .invalidUTF8 && error.offset == keyOffset + 1)
                        return
                    }
                    try checked.skipValue()
                    try unchecked.skipValue()
                }
                #expect(valid)
            }
        }
    }
}
