@_spi(Wire) import FirePack

/// Protocol-buffer wire primitives: varints, tags, fixed-width fields, length-delimited fields.
enum ProtoWire {
    static let varint = 0
    static let fixed64 = 1
    static let lengthDelimited = 2
    /// proto2 groups (Datastore's entity_pb uses them): a start tag, the fields, an end tag of the same number.
    static let startGroup = 3
    static let endGroup = 4
    static let fixed32 = 5
}

/// Appends protobuf fields to a byte array; nested messages are written in place and their length patched in.
struct ProtoWriter {
    var bytes: [UInt8] = []
    /// The longest message FirePack's readers take of what is being written (`FirestoreProtoReader`: a document, at
    /// most the record limit). Past it, `checkLimit` throws before the next map entry, so that keys that the input
    /// repeats by reference (a key of L bytes for each one-byte reference) cannot make the message longer than the
    /// limit by more than one entry.
    var limit = Int.max

    /// Throws `limitExceeded` once the message has passed `limit`, naming `what` it is and the path reached.
    func checkLimit(_ what: @autoclosure () -> String, path: @autoclosure () -> [PathComponent] = [])
        throws(FirePackError)
    {
        guard bytes.count > limit else { return }
        throw FirePackError(
            .limitExceeded,
            "\(what()) would be a protobuf message of more than \(limit) bytes, the most FirePack's readers take",
            path: path())
    }

    mutating func writeVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func writeTag(_ field: Int, _ wireType: Int) { writeVarint(UInt64(field << 3 | wireType)) }

    mutating func writeFixed64(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func writeBytesField(_ field: Int, _ payload: UnsafeRawBufferPointer) {
        writeTag(field, ProtoWire.lengthDelimited)
        writeVarint(UInt64(payload.count))
        bytes.append(contentsOf: payload)
    }

    mutating func writeStringField(_ field: Int, _ string: String) {
        string.withUTF8Bytes { writeBytesField(field, $0) }
    }

    /// Starts a length-delimited field; returns where its one reserved length byte is.
    mutating func beginMessage(_ field: Int) -> Int {
        writeTag(field, ProtoWire.lengthDelimited)
        bytes.append(0)
        return bytes.count - 1
    }

    /// Writes the field's length (minimal varint), moving the body when it needs more than one byte.
    mutating func endMessage(_ mark: Int) {
        let length = bytes.count - mark - 1
        let size = Varint.encodedSize(UInt64(length))
        if size > 1 { bytes.insert(contentsOf: repeatElement(0, count: size - 1), at: mark + 1) }
        var value = UInt64(length)
        for index in 0..<size {
            bytes[mark + index] = UInt8(truncatingIfNeeded: value) | (index < size - 1 ? 0x80 : 0)
            value >>= 7
        }
    }
}

/// Reads protobuf fields from borrowed bytes; every read is bounded by the enclosing message's end.
struct ProtoReader {
    let base: UnsafeRawPointer
    let count: Int

    func fail(_ offset: Int, _ message: String) -> FirePackError {
        FirePackError(.invalidValue, offset: offset, message)
    }

    /// A protobuf varint (non-minimal forms allowed, as protobuf parsers must).
    func getVarint(at offset: Int, end: Int) throws(FirePackError) -> (UInt64, Int) {
        var result: UInt64 = 0
        var index = offset
        var shift: UInt64 = 0
        while true {
            guard index < end else {
                throw FirePackError(.truncated, offset: index, "protobuf varint runs past the end")
            }
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            index += 1
            if shift == 63 && byte > 1 {
                throw FirePackError(.badVarint, offset: offset, "protobuf varint above 64 bits")
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return (result, index) }
            shift += 7
            guard shift < 70 else {
                throw FirePackError(.badVarint, offset: offset, "protobuf varint longer than 10 bytes")
            }
        }
    }

    /// A field's tag: its number, its wire type, and where its payload starts.
    func getTag(at offset: Int, end: Int) throws(FirePackError) -> (field: Int, wireType: Int, next: Int) {
        let (tag, next) = try getVarint(at: offset, end: end)
        guard tag >> 3 > 0, tag >> 3 <= 536_870_911 else {
            throw fail(offset, "protobuf field number \(tag >> 3) is invalid")
        }
        return (Int(tag >> 3), Int(tag & 7), next)
    }

    /// The payload range of a length-delimited field whose length starts at `offset`.
    func getLength(at offset: Int, end: Int) throws(FirePackError) -> (start: Int, end: Int) {
        let (length, start) = try getVarint(at: offset, end: end)
        guard length <= UInt64(end - start) else {
            throw FirePackError(
                .lengthOutOfBounds, offset: offset, "protobuf length \(length) reaches past the end of its message")
        }
        return (start, start + Int(length))
    }

    func readFixed64(at offset: Int, end: Int) throws(FirePackError) -> (UInt64, Int) {
        guard end - offset >= 8 else {
            throw FirePackError(.truncated, offset: offset, "protobuf fixed64 runs past the end")
        }
        return (UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)), offset + 8)
    }

    /// Skips a field of an unknown number (protobuf parsers must tolerate them).
    func skip(wireType: Int, at offset: Int, end: Int) throws(FirePackError) -> Int {
        switch wireType {
        case ProtoWire.varint: return try getVarint(at: offset, end: end).1
        case ProtoWire.fixed64:
            guard end - offset >= 8 else {
                throw FirePackError(.truncated, offset: offset, "protobuf fixed64 runs past the end")
            }
            return offset + 8
        case ProtoWire.lengthDelimited: return try getLength(at: offset, end: end).end
        case ProtoWire.fixed32:
            guard end - offset >= 4 else {
                throw FirePackError(.truncated, offset: offset, "protobuf fixed32 runs past the end")
            }
            return offset + 4
        default: throw fail(offset, "protobuf wire type \(wireType) is not supported")
        }
    }

    /// A validated UTF-8 string field payload.
    func readString(_ range: (start: Int, end: Int)) throws(FirePackError) -> String {
        let bytes = UnsafeRawBufferPointer(start: base + range.start, count: range.end - range.start)
        if let bad = UTF8Validator.firstInvalidOffset(in: bytes) {
            throw FirePackError(.invalidUTF8, offset: range.start + bad, "protobuf string is not valid UTF-8")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
