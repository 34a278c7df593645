/// Base64 text in its canonical form (RFC 4648 §4, padded, what `Data.base64EncodedString()` writes) decoded without
/// a `String` or a `Data`: the direct JSON → FirePack path writes a `__bytes__` marker's payload straight from its
/// text (`JSONParser.transcodeMarker`). It made a `String`, a `Data` and a `Value` for each (guarded by
/// `Convert JSON lines to fpks`).
///
/// Only the canonical form is taken: a length that is a multiple of four, the 64 characters, `=` only as the last one
/// or two, and zero bits where padding leaves some unused (RFC 4648 §3.5). Foundation's `Data(base64Encoded:)`
/// decodes every such text to the same bytes; anything else (unpadded, whitespace, unused bits set, another alphabet)
/// is left to the tree path, which decodes or refuses it as `MarkerPayloads` says.
enum Base64Text {
    /// The number of bytes `text` decodes to when it is canonical base64, else nil.
    static func canonicalByteCount(_ text: UnsafeRawBufferPointer) -> Int? {
        let count = text.count
        guard count > 0, count % 4 == 0 else { return nil }
        let padding = text[count - 1] != UInt8(ascii: "=") ? 0 : text[count - 2] != UInt8(ascii: "=") ? 1 : 2
        for index in 0..<count - padding where sextet(text[index]) > 63 { return nil }
        // The bits the padding leaves unused: 4 of the last character's 6 after "==", 2 after "=".
        if padding == 2 && sextet(text[count - 3]) & 0x0F != 0 { return nil }
        if padding == 1 && sextet(text[count - 2]) & 0x03 != 0 { return nil }
        return count / 4 * 3 - padding
    }

    /// Decodes `text`, which `canonicalByteCount` took, into `bytes`, which holds exactly that many.
    static func decode(canonical text: UnsafeRawBufferPointer, into bytes: UnsafeMutableRawBufferPointer) {
        var written = 0
        var offset = 0
        while offset < text.count {
            let group =
                UInt32(sextet(text[offset])) << 18 | UInt32(sextet(text[offset + 1])) << 12
                | UInt32(sextet(text[offset + 2]) & 0x3F) << 6 | UInt32(sextet(text[offset + 3]) & 0x3F)
            // A padding `=` gives 64 (masked to 0 above): its byte is past the end, not written.
            bytes[written] = UInt8(truncatingIfNeeded: group >> 16)
            if written + 1 < bytes.count { bytes[written + 1] = UInt8(truncatingIfNeeded: group >> 8) }
            if written + 2 < bytes.count { bytes[written + 2] = UInt8(truncatingIfNeeded: group) }
            written += 3
            offset += 4
        }
    }

    /// The six bits a base64 character stands for; 64 for `=`, and more for anything else.
    @inline(__always)
    static func sextet(_ character: UInt8) -> UInt8 {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): character &- UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): character &- UInt8(ascii: "a") &+ 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character &- UInt8(ascii: "0") &+ 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        case UInt8(ascii: "="): 64
        default: 255
        }
    }
}
