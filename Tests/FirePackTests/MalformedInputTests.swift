import Foundation
import Testing
@testable import FirePack

/// One test per error the reader can raise, each with the offset it must name.
@Suite("Malformed input")
struct MalformedInputTests {
    @Test func emptyInputIsTruncated() { assertDecodeFails([], .truncated, offset: 0) }

    @Test func truncatedScalars() {
        assertDecodeFails(hex: "C6 00 00", .truncated, offset: 0)
        assertDecodeFails(hex: "CA 00 00 00 00 00 00 00 00 00", .truncated, offset: 0)
        assertDecodeFails(hex: "83 61 62", .truncated, offset: 0)
        assertDecodeFails(hex: "CD", .truncated, offset: 1)
        assertDecodeFails(hex: "CB 00", .truncated, offset: 0)
    }

    @Test func unknownTags() {
        for tag in UInt8(0xDA)...0xDF { assertDecodeFails([tag], .unknownTag, offset: 0) }
        assertDecodeFails(hex: "A1 01 DA", .unknownTag, offset: 2)
        assertDecodeFails(hex: "D3 00", .unknownTag, offset: 0)
    }

    @Test func badVarints() {
        assertDecodeFails(hex: "CD 80 00", .badVarint, offset: 1)                        // not minimal
        assertDecodeFails(hex: "CD FF FF FF FF FF FF FF FF FF 01", .badVarint, offset: 1) // 2^63 or more
        assertDecodeFails(hex: "CD FF FF FF FF FF FF FF FF FF 81", .badVarint, offset: 1) // runs on past 10 bytes
        // A cut varint at its first byte (Docs/FORMAT.md §7), whether the input or its container cuts it.
        assertDecodeFails(hex: "CD FF FF FF FF FF FF FF FF", .truncated, offset: 1)
        assertDecodeFails(hex: "CD 80", .truncated, offset: 1)
        assertDecodeFails(hex: "A2 05 B1 02 80 80 01", .truncated, offset: 4)
    }

    @Test func lengthsPastTheEnd() {
        assertDecodeFails(hex: "CD 05 61", .lengthOutOfBounds, offset: 1)
        assertDecodeFails(hex: "CE FF FF FF FF FF FF FF FF 7F", .lengthOutOfBounds, offset: 1) // huge, not allocated
        assertDecodeFails(hex: "A1 09 01", .lengthOutOfBounds, offset: 1)
        assertDecodeFails(hex: "D2 FF FF FF FF 0F", .lengthOutOfBounds, offset: 1)
        // An element may not reach past its container, even when the input goes on.
        assertDecodeFails(hex: "A2 07 A2 03 01 82 61 62 02", .truncated, offset: 5)
    }

    @Test func containerLengthsThatDisagree() {
        assertDecodeFails(hex: "A2 01 01", .lengthMismatch, offset: 0)          // 2 elements in 1 byte
        assertDecodeFails(hex: "A1 02 01 01", .lengthMismatch, offset: 0)       // 1 element, 2 bytes
        assertDecodeFails(hex: "D0 FF FF 03 01", .lengthOutOfBounds, offset: 1)
        assertDecodeFails(hex: "D0 03 FF FF 03", .lengthMismatch, offset: 0)    // count 65535 in 2 bytes
    }

    /// Docs/FORMAT.md §7, "Which defect is reported": the first met reading front to back, a duplicate key once its
    /// value has been read, a container's `lengthMismatch` after its last element — by the tree and by `verify` alike.
    @Test func theFirstOfTwoDefects() throws {
        let cases: [(String, FirePackError.Code, Int)] = [
            ("B2 07 02 61 01 02 61 C4 00", .truncated, 7),  // the repeated key's value is cut: the value's defect
            ("B3 09 02 61 01 02 61 02 02 FF 03", .duplicateKey, 5),  // a repeat, then a key that is not UTF-8
            ("A2 05 81 FF 01 00 00", .invalidUTF8, 3),  // a bad string, then elements that end early
            ("A2 80 00 82 FF FF", .badVarint, 1),  // the header before the elements
            ("B1 03 02 61 DA", .unknownTag, 4),  // the value before anything after the map
        ]
        for (text, code, offset) in cases {
            assertDecodeFails(hex: text, code, offset: offset)
            do {
                try FirePackReader.verify(bytes(hex: text))
                Issue.record("verify accepted \(text)")
            } catch {
                #expect(error.code == code && error.offset == offset, "\(text): \(error)")
            }
        }
    }

    @Test func invalidUTF8() {
        assertDecodeFails(hex: "82 C3 28", .invalidUTF8, offset: 1)              // bad continuation
        assertDecodeFails(hex: "82 C0 80", .invalidUTF8, offset: 1)              // overlong
        assertDecodeFails(hex: "83 ED A0 80", .invalidUTF8, offset: 1)           // surrogate
        assertDecodeFails(hex: "84 F4 90 80 80", .invalidUTF8, offset: 1)        // above U+10FFFF
        assertDecodeFails(hex: "B1 03 02 FF 01", .invalidUTF8, offset: 3)        // key
        assertDecodeFails(hex: "CF 03 61 2F FF", .invalidUTF8, offset: 4)        // reference path
    }

    @Test func nestingBeyondTheLimit() {
        let writer = FirePackWriter()
        for _ in 0..<101 { writer.beginArray() }
        for _ in 0..<101 { writer.endArray() }
        assertDecodeFails(writer.takeBytes(), .depthLimitExceeded)
        for _ in 0..<100 { writer.beginArray() }
        for _ in 0..<100 { writer.endArray() }
        #expect(throws: Never.self) { try Value(firePackBytes: writer.takeBytes()) }
        // A well-formed input nesting far deeper than any limit is rejected without deep recursion.
        for _ in 0..<20_000 { writer.beginArray() }
        writer.writeNull()
        for _ in 0..<20_000 { writer.endArray() }
        let hostile = writer.takeBytes()
        assertDecodeFails(hostile, .depthLimitExceeded)
        assertDecodeFails(hostile, .depthLimitExceeded, limits: ReaderLimits(maxDepth: 5_000))
        let deep: [UInt8] = (0..<5_000).flatMap { _ -> [UInt8] in [0xD0, 0x80, 0x80, 0x80, 0x01, 0x01] }
        assertDecodeFails(deep, .lengthOutOfBounds)
    }

    @Test func limitsAreConfigurable() {
        assertDecodeFails(hex: "A3 03 01 02 03", .limitExceeded, offset: 0, limits: ReaderLimits(maxElementCount: 2))
        assertDecodeFails(hex: "A1 02 A0 00", .depthLimitExceeded, offset: 2, limits: ReaderLimits(maxDepth: 1))
        // The depth limit is met at the tag, before a defect in the container's own header (Docs/FORMAT.md §7).
        assertDecodeFails(hex: "A1 03 A1 05 00", .depthLimitExceeded, offset: 2, limits: ReaderLimits(maxDepth: 1))
        assertDecodeFails(hex: "A1 03 D8 9F 00", .depthLimitExceeded, offset: 2, limits: ReaderLimits(maxDepth: 1))
        assertDecodeFails(hex: "D9 C3 01 01 05", .depthLimitExceeded, offset: 0, limits: ReaderLimits(maxDepth: 1))
        // A root container past the limit is refused at its tag, before bytes after the value are looked at.
        assertDecodeFails(hex: "A0 00 FF", .depthLimitExceeded, offset: 0, limits: ReaderLimits(maxDepth: 0))
        assertDecodeFails(hex: "D9 C3 01 01 05 FF", .depthLimitExceeded, offset: 0, limits: ReaderLimits(maxDepth: 1))
        // A D0 count past both the bytes and the limit: the limit, then the count against the length (§7).
        assertDecodeFails(hex: "D0 05 81 80 80 08 00", .limitExceeded, offset: 0)
        assertDecodeFails(hex: "82 61 62", .limitExceeded, limits: ReaderLimits(maxInputSize: 2))
        #expect(ReaderLimits(maxDepth: 1_000_000).maxDepth == ReaderLimits.maximumDepth)
    }

    @Test func duplicateKeys() {
        assertDecodeFails(hex: "B2 06 02 61 01 02 61 02", .duplicateKey, offset: 5)
        // Through a key reference too.
        assertDecodeFails(hex: "B2 05 02 61 01 01 02 D3 01 01 02", .duplicateKey, offset: 5)
    }

    @Test func badKeyReferences() {
        assertDecodeFails(hex: "B1 02 01 01", .badKeyReference, offset: 2)                 // no table
        assertDecodeFails(hex: "B1 02 03 01 D3 01 01 00", .badKeyReference, offset: 2)     // index 1 of 1
        assertDecodeFails(hex: "B1 02 01 01 D3 01 01 40", .badKeyReference, offset: 2)     // outside the value
        assertDecodeFails(hex: "B1 02 01 01 D3 01 01 02", .badKeyReference, offset: 2)     // points at itself (odd)
    }

    @Test func badKeyTables() {
        assertDecodeFails(hex: "B1 02 01 01 D3 01 09", .badKeyTable, offset: 6)
        assertDecodeFails(hex: "B1 02 01 01 D3 00 01", .badKeyTable, offset: 4)
        // A table cut after its N at its tag (Docs/FORMAT.md §3, §7); a cut N at its first byte, as every varint.
        assertDecodeFails(hex: "B1 02 01 01 D3 02 01 00", .truncated, offset: 4)
        assertDecodeFails(hex: "B1 02 01 01 D3 01", .truncated, offset: 4)
        assertDecodeFails(hex: "B1 02 01 01 D3 81", .truncated, offset: 5)
        assertDecodeFails(hex: "B1 02 01 01 D3 01 01 00 00", .trailingBytes, offset: 8)
        // `encodedLength(ofValueAt:)` checks a table in the reader's order, with its codes and offsets.
        for hex in ["C0 D3 00", "B1 02 01 01 D3 01 09", "B1 02 01 01 D3 01", "B1 02 01 01 D3 02 01 00", "B1 02 01 01 D3 05 01"] {
            let input = bytes(hex: hex)
            var fromReader: FirePackError?
            do { _ = try Value(firePackBytes: input) } catch { fromReader = error }
            do {
                _ = try FirePackReader.encodedLength(ofValueAt: input)
                Issue.record("\(hex): expected \(String(describing: fromReader))")
            } catch {
                #expect(error.code == fromReader?.code && error.offset == fromReader?.offset, "\(hex): \(error)")
            }
        }
    }

    @Test func geoPointsOutOfRange() {
        var input: [UInt8] = [0xCB]
        withUnsafeBytes(of: (91.0).bitPattern.littleEndian) { input += $0 }
        withUnsafeBytes(of: (0.0).bitPattern.littleEndian) { input += $0 }
        assertDecodeFails(input, .invalidGeoPoint, offset: 0)
        input.replaceSubrange(1..<9, with: withUnsafeBytes(of: Double.nan.bitPattern.littleEndian, Array.init))
        assertDecodeFails(input, .invalidGeoPoint, offset: 0)
    }

    @Test func nanosecondsOutOfRange() {
        assertDecodeFails(hex: "CA 00 00 00 00 00 00 00 00 00 CA 9A 3B", .invalidTimestamp, offset: 9)
    }

    @Test func invalidReferences() {
        assertDecodeFails(hex: "CF 05 62 6F 6F 6B 73", .invalidReference, offset: 0)     // "books": a collection
        assertDecodeFails(hex: "CF 04 61 2F 2F 62", .invalidReference, offset: 0)        // "a//b": empty segment
    }

    @Test func trailingBytes() {
        assertDecodeFails(hex: "C0 C0", .trailingBytes, offset: 1)
        assertDecodeFails(hex: "A1 01 01 00", .trailingBytes, offset: 3)
    }

    @Test func typeMismatchNamesBothTypes() throws {
        try bytes(hex: "82 68 69").withUnsafeBytes { raw in
            var reader = try FirePackReader(bytes: raw)
            do {
                _ = try reader.readInteger()
                Issue.record("expected a type mismatch")
            } catch let error as FirePackError {
                #expect(error.code == .typeMismatch)
                #expect(error.offset == 0)
                #expect(error.message.contains("integer") && error.message.contains("string"))
                #expect(reader.readerIndex == 0, "a failed read leaves the cursor where it was")
            }
        }
    }

    @Test func fileHeaders() {
        let check = { (input: [UInt8], code: FirePackError.Code, offset: Int) in
            input.withUnsafeBytes { raw in
                do {
                    _ = try FirePackReader(fileBytes: raw)
                    Issue.record("expected \(code)")
                } catch let error as FirePackError {
                    #expect(error.code == code && error.offset == offset, "\(error)")
                } catch {
                    Issue.record("unexpected \(error)")
                }
            }
        }
        check(bytes(hex: "89 46 50 58 01 C0"), .badMagic, 3)
        check(bytes(hex: "89 46 50 4B 02 C0"), .unsupportedVersion, 4)
        // A header cut short at its first byte; one that differs before it ends is not a FirePack file.
        check(bytes(hex: "89 46 50"), .truncated, 0)
        check(bytes(hex: "89 46 50 4B"), .truncated, 0)
        check(bytes(hex: "89 46 51"), .badMagic, 2)
        check(bytes(hex: "89 46 50 4B 01 CD 05"), .lengthOutOfBounds, 6)
    }
}
