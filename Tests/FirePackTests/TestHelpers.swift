import Foundation
import Testing
import FirePackTestSupport
@testable import FirePack

/// `"A2 0A …"` from bytes.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02X", $0) }.joined(separator: " ")
}

/// Bytes from `"A2 0A …"` (spaces optional).
func bytes(hex text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd number of hex digits")
    var result: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        result.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return result
}

/// Encodes `value`, expects exactly `expectedHex`, and decodes those bytes back to an equal value.
func assertEncode(_ value: Value, _ expectedHex: String, deterministic: Bool = false,
                  sourceLocation: SourceLocation = #_sourceLocation) {
    let encoded = value.firePackBytes(deterministic: deterministic)
    #expect(hex(encoded) == hex(bytes(hex: expectedHex)), "encoding of \(value)", sourceLocation: sourceLocation)
    do {
        let decoded = try Value(firePackBytes: encoded)
        #expect(decoded == value, "round trip of \(value)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("decoding \(hex(encoded)) failed: \(error)", sourceLocation: sourceLocation)
    }
}

/// Decodes `bytes` and expects a `FirePackError` with `code` (and `offset` when given).
func assertDecodeFails(_ input: [UInt8], _ code: FirePackError.Code, offset: Int? = nil, limits: ReaderLimits = .default,
                       sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        let value = try Value(firePackBytes: input, limits: limits)
        Issue.record("expected \(code), decoded \(value)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        if let offset { #expect(error.offset == offset, "\(error)", sourceLocation: sourceLocation) }
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    }
}

func assertDecodeFails(hex text: String, _ code: FirePackError.Code, offset: Int? = nil, limits: ReaderLimits = .default,
                       sourceLocation: SourceLocation = #_sourceLocation) {
    assertDecodeFails(bytes(hex: text), code, offset: offset, limits: limits, sourceLocation: sourceLocation)
}


/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
