#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds `Value` trees, checking everything on the way: UTF-8, exact container extents, duplicate keys, ranges.
struct Materializer {
    let input: ReaderInput
    /// Strings made for referenced keys, by table index up to `cachedIndices`, so every repeat of a key shares one
    /// String. Grown to the index met, not the table's size: a decode call can make a materializer per `Value`.
    private var referencedKeys: [String?] = []
    /// Indices past this are resolved at each reference (a key of up to 32 bytes; longer ones are shared through
    /// `longKeys`), so that no materializer clears more than a few KB for its cache.
    static let cachedIndices = 256
    /// Long referenced keys and their budget, shared with the other readers of the call when it gives them
    /// (`KeyReferenceMemo.sharedKeys()`); made at the first long reference otherwise.
    private var longKeys: ReferencedKeyStrings?

    init(input: ReaderInput, sharing longKeys: ReferencedKeyStrings? = nil) {
        self.input = input
        self.longKeys = longKeys
    }

    /// Checks a key that `ReaderInput.getKey` found at `offset` as UTF-8, as `ReaderInput.validateKey` does, a long
    /// referenced key through this materializer's long keys (made here at the first).
    mutating func validateKey(start: Int, count: Int, at offset: Int) throws(FirePackError) {
        if longKeys == nil && input.isLongReference(count: count, at: offset) { longKeys = ReferencedKeyStrings() }
        try input.validateKey(start: start, count: count, at: offset, sharing: longKeys)
    }

    /// Decodes the value at `offset` and returns it with the offset after it.
    mutating func value(at offset: Int, limit: Int, depth: Int) throws(FirePackError) -> (Value, next: Int) {
        let tag = try input.tag(at: offset, limit: limit)
        switch tag {
        case 0x00...0x7F: return (.integer(Int64(tag)), offset + 1)
        case 0xE0...0xFF: return (.integer(Int64(Int8(bitPattern: tag))), offset + 1)
        case 0x80...0x9F, Tag.string:
            let (start, count, next) = try input.getString(at: offset, limit: limit)
            return (.string(UTF8Validation.makeString(validated: input.bytes(from: start, count: count))), next)
        case 0xA0...0xAF, Tag.array, Tag.packedArray, Tag.packedRows:
            let header = try input.getContainerHeader(at: offset, limit: limit, depth: depth + 1)
            if header.isPacked { return (packedArray(header), header.end) }
            var elements: [Value] = []
            elements.reserveCapacity(header.count)
            var cursor = header.bodyStart
            for _ in 0..<header.count {
                let (element, next) = try value(at: cursor, limit: header.end, depth: depth + 1)
                elements.append(element)
                cursor = next
            }
            try Self.checkEnd(cursor, header, containerAt: offset)
            return (.array(elements), header.end)
        case 0xB0...0xBF, Tag.map:
            let header = try input.getContainerHeader(at: offset, limit: limit, depth: depth + 1)
            var map = MapValue(reservingCapacity: header.count)
            var cursor = header.bodyStart
            for _ in 0..<header.count {
                let keyOffset = cursor
                let (key, afterKey) = try self.key(at: cursor, limit: header.end)
                let (element, next) = try value(at: afterKey, limit: header.end, depth: depth + 1)
                guard map.appendIfAbsent(key: key, value: element) else {
                    throw FirePackError(
                        .duplicateKey, offset: keyOffset, "key \(key.debugDescription) appears twice in one map")
                }
                cursor = next
            }
            try Self.checkEnd(cursor, header, containerAt: offset)
            return (.map(map), header.end)
        case Tag.null: return (.null, offset + 1)
        case Tag.false: return (.boolean(false), offset + 1)
        case Tag.true: return (.boolean(true), offset + 1)
        case Tag.serverTimestamp: return (.serverTimestamp, offset + 1)
        case Tag.int8...Tag.int64:
            let (integer, next) = try input.getInteger(at: offset, limit: limit)
            return (.integer(integer), next)
        case Tag.float32, Tag.float64, Tag.decimal:
            let (double, next) = try input.getDouble(at: offset, limit: limit)
            return (.double(double), next)
        case Tag.timestampSeconds, Tag.timestamp:
            let (timestamp, next) = try input.getTimestamp(at: offset, limit: limit)
            return (.timestamp(timestamp), next)
        case Tag.geoPoint, Tag.packedGeoPoint:
            let (point, next) = try input.getGeoPoint(at: offset, limit: limit)
            return (.geoPoint(point), next)
        case Tag.bytes:
            let (start, count, next) = try input.getLengthPrefixed(
                at: offset, limit: limit, tag: Tag.bytes, expecting: "bytes")
            return (.bytes(Data(input.bytes(from: start, count: count))), next)
        case Tag.reference:
            let (reference, next) = try input.getReference(at: offset, limit: limit)
            return (.reference(reference), next)
        case Tag.vector, Tag.packedVector:
            let (view, next) = try input.getVector(at: offset, limit: limit)
            return (.vector(view.vectorValue), next)
        default:
            try input.throwUndefinedValue(tag, at: offset, limit: limit)
        }
    }

    /// Reads a map key as a validated String.
    mutating func key(at offset: Int, limit: Int) throws(FirePackError) -> (String, next: Int) {
        let (header, next) = try Varint.get(input.base, at: offset, limit: limit)
        if header & 1 == 1 {
            let index = header >> 1
            if index < referencedKeys.count, let cached = referencedKeys[index] { return (cached, next) }
            let (start, count) = try input.resolveKeyReference(index, at: offset)
            let key: String
            if count > KeyReferenceBudget.longKey {
                if longKeys == nil { longKeys = ReferencedKeyStrings() }
                key = try longKeys!.string(start: start, count: count, forReferenceAt: offset, in: input)
            } else {
                try input.validateUTF8(start: start, count: count, what: "key")
                key = UTF8Validation.makeString(validated: input.bytes(from: start, count: count))
            }
            // Long keys stay out of the cache: each reference to one is counted (`ReferencedKeyStrings.string`).
            if index < Self.cachedIndices && count <= KeyReferenceBudget.longKey {
                if index >= referencedKeys.count {
                    referencedKeys.append(contentsOf: repeatElement(nil, count: index + 1 - referencedKeys.count))
                }
                referencedKeys[index] = key
            }
            return (key, next)
        }
        let (start, count, after) = try input.getKey(at: offset, limit: limit)
        try input.validateUTF8(start: start, count: count, what: "key")
        return (UTF8Validation.makeString(validated: input.bytes(from: start, count: count)), after)
    }

    static func checkEnd(_ cursor: Int, _ header: ContainerHeader, containerAt offset: Int) throws(FirePackError) {
        guard cursor == header.end else {
            throw FirePackError(
                .lengthMismatch, offset: offset,
                "container of \(header.count) elements ends at byte \(cursor), its length says \(header.end)")
        }
    }
}

extension ReaderInput {
    /// Throws for a value no reader of format version 1 reads: an extension (`unsupportedExtension`), or a tag that is
    /// not defined (`unknownTag`); a value whose extent is damaged throws that first, as `valueEnd` finds it.
    func throwUndefinedValue(_ tag: UInt8, at offset: Int, limit: Int) throws(FirePackError) -> Never {
        _ = try valueEnd(at: offset, limit: limit)
        if tag == Tag.extension {
            throw FirePackError(
                .unsupportedExtension, offset: offset, "extension values are not defined in format version 3 or before")
        }
        throw FirePackError(.unknownTag, offset: offset, "tag 0x\(Tag.hex(tag))")
    }
}

extension Materializer {
    /// The packed array (`D8`) or array of packed rows (`D9`) of `header`, whose header checked every element.
    func packedArray(_ header: ContainerHeader) -> Value {
        var elements: [Value] = []
        elements.reserveCapacity(header.count)
        if header.packedRows != nil {
            for index in 0..<header.count { elements.append(packedArray(header.row(index))) }
        } else if let form = header.packed {
            let storage = input.bytes(from: header.bodyStart, count: header.end - header.bodyStart)
            for index in 0..<header.count { elements.append(form.element(at: index, in: storage)) }
        }
        return .array(elements)
    }
}
