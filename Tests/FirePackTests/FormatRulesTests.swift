import Foundation
import Testing
import FirePackTestSupport
@testable import FirePack

/// The rules FORMAT.md states beyond the tag table, each byte-exact: non-shortest forms, key-table checks,
/// references, limits, error offsets, versions, documents.
@Suite("Format rules")
struct FormatRulesTests {
    func canonicalOffset(_ text: String) throws -> Int? {
        try bytes(hex: text).withUnsafeBytes { try FirePackReader.firstNonCanonicalOffset(in: $0) }
    }

    func validate(_ text: String) throws {
        _ = try bytes(hex: text).withUnsafeBytes { try FirePackReader.validate($0) }
    }

    @Test func infinitiesAndNegativeZeroTakeBinary32() {
        assertEncode(.double(-.infinity), "C7 00 00 80 FF")
        assertEncode(.double(.nan), "C8 00 00 00 00 00 00 F8 7F")
    }

    @Test func nonShortestFormsAreReadAndReportedAsNotCanonical() throws {
        let cases: [(String, Value, Int)] = [
            ("C3 05", 5, 0),                                               // int8 for a tag-embedded integer
            ("C8 00 00 00 00 00 00 F8 3F", 1.5, 0),                         // binary64 for a binary32-exact double
            ("CA C3 68 2D 54 00 00 00 00 00 00 00 00", .timestamp(Timestamp(seconds: 1_412_262_083, nanoseconds: 0)), 0),
            ("CD 02 68 69", "hi", 0),                                      // CD for a short string
            ("D0 03 02 01 02", [1, 2], 0),                                  // D0 for two elements
            ("D1 04 01 02 61 01", ["a": 1], 0),                             // D1 for one entry
            ("A1 05 C7 00 00 C0 7F", [.double(Double(Float.nan))], 1),     // a binary32 NaN (the array's length differs first)
        ]
        for (text, value, offset) in cases {
            #expect(try Value(firePackBytes: bytes(hex: text)) == value, "\(text)")
            #expect(try canonicalOffset(text) == offset, "\(text)")
        }
        #expect(try canonicalOffset("2A") == nil)
    }

    @Test func deterministicAndNormalOutputIsCanonical() throws {
        var generator = RandomValues(seed: 77)
        for _ in 0..<300 {
            let value = generator.value()
            for deterministic in [false, true] {
                let encoded = value.firePackBytes(deterministic: deterministic)
                #expect(try encoded.withUnsafeBytes { try FirePackReader.firstNonCanonicalOffset(in: $0) } == nil, "\(value)")
            }
        }
    }

    // [{"id": 1}, {"id": 2}] is A2 0A | B1 04 04 69 64 01 | B1 02 01 02 | D3 01 01 04 (FORMAT.md §3).
    @Test func keyTableRulesEveryReaderChecks() {
        assertDecodeFails(hex: "A2 0A B1 04 04 69 64 01 B1 02 03 02 D3 01 01 04", .badKeyReference, offset: 10) // index 1 of 1
        // The entry points at the reference itself (offset 10 - 0): not before it.
        assertDecodeFails(hex: "A2 0A B1 04 04 69 64 01 B1 02 01 02 D3 01 01 0A", .badKeyReference, offset: 10)
        // A forward reference: the first map refers to a literal in the second.
        assertDecodeFails(hex: "A2 0A B1 02 01 01 B1 04 04 69 64 02 D3 01 01 08", .badKeyReference, offset: 4)
        assertDecodeFails(hex: "A2 0A B1 04 04 69 64 01 B1 02 01 02 D3 00 01", .badKeyTable, offset: 12)         // N = 0
        assertDecodeFails(hex: "A2 0A B1 04 04 69 64 01 B1 02 01 02 D3 01 09 04", .badKeyTable, offset: 14)      // W = 9
    }

    @Test func keyTableRulesOnlyValidationSees() throws {
        // [{"id": 1}, {"id": 2, "x": "\u{4}ab"}]: entry 1 is unused and points into the string, whose `04 61 62`
        // reads as the key literal "ab". Lazy reads and Value decoding accept it; validation rejects it at the entry.
        let intoString = "A2 10 B1 04 04 69 64 01 B2 08 01 02 02 78 83 04 61 62 D3 02 01 04 0F"
        #expect(throws: Never.self) { try Value(firePackBytes: bytes(hex: intoString)) }
        do {
            try validate(intoString)
            Issue.record("an entry pointing into a string passed validation")
        } catch {
            let error = error as? FirePackError
            #expect(error?.code == .badKeyTable && error?.offset == 22)
        }
        // An unused entry that points at a real literal, and a needlessly wide W: valid, not canonical.
        let unused = "A2 0A B1 04 04 69 64 01 B1 02 01 02 D3 02 01 04 04"
        try validate(unused)
        #expect(try canonicalOffset(unused) == 13)
        // An unused entry pointing outside the value: rejected by validation only.
        let outside = "A2 0A B1 04 04 69 64 01 B1 02 01 02 D3 02 01 04 7F"
        #expect(throws: Never.self) { try Value(firePackBytes: bytes(hex: outside)) }
        #expect(throws: FirePackError.self) { try validate(outside) }
        // A table no reference uses: valid, not canonical ({"a": 1} needs no table).
        let unusedTable = "B1 03 02 61 01 D3 01 01 02"
        try validate(unusedTable)
        #expect(try canonicalOffset(unusedTable) == 5)
        let wide = "A2 0A B1 04 04 69 64 01 B1 02 01 02 D3 01 02 04 00"
        try validate(wide)
        #expect(try canonicalOffset(wide) == 14)
    }

    @Test func referenceGrammar() throws {
        for valid in ["books/b", "projects/p/databases/d/documents/c", "projects/p/databases/(default)/documents/books/b",
                      "a/b/c/d", "_/x", "___/y", "a.b/c..d"] {
            #expect(throws: Never.self, "\(valid)") { try DocumentReference(path: valid) }
        }
        for invalid in ["", "books", "books/b/c", "books//b", "/books/b", "books/b/", "./b", "books/..", "__x__/b",
                        "books/__id__", "projects/__p__/databases/d/documents/c/d", "projects/p/databases/d/documents"] {
            #expect(throws: FirePackError.self, "\(invalid)") { try DocumentReference(path: invalid) }
        }
        assertDecodeFails(hex: "CF 04 2E 2F 61 62", .invalidReference, offset: 0)
    }

    @Test func vectorsCountTowardTheElementLimit() {
        let limits = ReaderLimits(maxElementCount: 2)
        assertDecodeFails(hex: "D2 03" + String(repeating: " 00", count: 24), .limitExceeded, offset: 0, limits: limits)
        assertDecodeFails(hex: "A1 1A D2 03" + String(repeating: " 00", count: 24), .limitExceeded, offset: 2, limits: limits)
        #expect(throws: Never.self) { try Value(firePackBytes: bytes(hex: "D2 02" + String(repeating: " 00", count: 16)), limits: limits) }
    }

    @Test func depthCountsContainersFromOne() throws {
        func nested(_ levels: Int) -> [UInt8] {
            let writer = FirePackWriter()
            for _ in 0..<levels { writer.beginArray() }
            writer.writeVector(VectorValue([1]))
            for _ in 0..<levels { writer.endArray() }
            return writer.takeBytes()
        }
        let limits = ReaderLimits(maxDepth: 3)
        #expect(throws: Never.self) { try Value(firePackBytes: nested(3), limits: limits) }
        assertDecodeFails(nested(4), .depthLimitExceeded, offset: 6, limits: limits)
    }

    @Test func anElementRunningPastItsContainer() {
        // The string's length runs past the inner array (which ends at byte 6) although the input goes on.
        assertDecodeFails(hex: "A2 09 A1 02 CD 05 61 61 61 61 61", .lengthOutOfBounds, offset: 5)
        // A fixed-size element that does not fit: truncated, at its tag.
        assertDecodeFails(hex: "A2 05 A1 02 C4 01 01", .truncated, offset: 4)
        // Elements that end before the container does.
        assertDecodeFails(hex: "A1 03 01 01 01", .lengthMismatch, offset: 0)
    }

    @Test func fileVersions() {
        for version: UInt8 in [0, 2, 4, 0xFF] {
            let file: [UInt8] = [0x89, 0x46, 0x50, 0x4B, version, 0xC0]
            do {
                _ = try file.withUnsafeBytes { raw throws(FirePackError) in try FirePackReader(fileBytes: raw) }
                Issue.record("version \(version) accepted")
            } catch {
                let error = error as? FirePackError
                #expect(error?.code == .unsupportedVersion && error?.offset == 4)
            }
        }
    }

    @Test func timestampNanosecondsOutOfRange() {
        assertDecodeFails(hex: "CA 00 00 00 00 00 00 00 00 00 CA 9A 3B", .invalidTimestamp, offset: 9)   // 1e9
    }
}

/// §9: the one shape of a document record.
@Suite("Document records")
struct DocumentRecordTests {
    func decode(_ value: Value) throws(FirePackError) -> Document { try Document(firePackBytes: value.firePackBytes()) }

    func expectRejected(_ value: Value, offset: Int? = nil, _ comment: Comment? = nil) {
        do {
            _ = try decode(value)
            Issue.record("accepted \(value)")
        } catch {
            #expect(error.code == .invalidDocument, "\(value): \(error)")
            if let offset { #expect(error.offset == offset, "\(value): \(error)") }
        }
    }

    let name = Value.reference(try! DocumentReference(path: "books/b"))
    let time = Value.timestamp(Timestamp(seconds: 1, nanoseconds: 0))

    @Test func theShapeRoundTrips() throws {
        let document = Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 1],
                                createTime: Timestamp(seconds: 1, nanoseconds: 0), updateTime: Timestamp(seconds: 2, nanoseconds: 0))
        #expect(try Document(firePackBytes: document.firePackBytes()) == document)
        // Deterministic output sorts the fields' keys but keeps the record's own order, so it reads back too.
        let unsorted = Document(reference: document.reference, fields: ["z": 1, "a": ["y": 2, "b": 3]],
                                createTime: document.createTime, updateTime: document.updateTime)
        let deterministic = unsorted.firePackBytes(deterministic: true)
        let sorted = Document(reference: document.reference, fields: ["a": ["b": 3, "y": 2], "z": 1],
                              createTime: document.createTime, updateTime: document.updateTime)
        #expect(try Document(firePackBytes: deterministic) == sorted)
        #expect(try decode(.map(["name": name, "fields": [:]])).fields.isEmpty)
        #expect(try decode(.map(["name": name, "fields": [:], "updateTime": time])).updateTime != nil)
    }

    @Test func everythingElseIsRejected() {
        expectRejected(.map(["name": name]), offset: 0)                                         // no fields
        expectRejected(.map(["fields": [:]]))                                                    // no name
        expectRejected(.map(["name": name, "fields": [:], "extra": 1]), offset: 25)              // an extra key
        expectRejected(.map(["fields": [:], "name": name]))                                      // out of order
        expectRejected(.map(["name": name, "fields": [:], "updateTime": time, "createTime": time]))
        expectRejected(.map(["name": "books/b", "fields": [:]]))                                 // name not a reference
        expectRejected(.map(["name": name, "fields": [1]]))                                      // fields not a map
        expectRejected([1, 2])                                                                   // not a map
    }
}
