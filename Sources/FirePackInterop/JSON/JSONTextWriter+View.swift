#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack

/// JSON text written straight from FirePack bytes (a `ValueView`), without a `Value` tree: the text
/// `write(view.value())` writes, checked as strictly (every byte, UTF-8, duplicate keys), at a fraction of the cost.
/// Sorted keys and pretty output need the tree: these functions are for compact output in the order written.
extension JSONTextWriter {
    /// Writes the value `view` shows. Throws what reading it as a tree would throw (perhaps another of its problems,
    /// first); the output then holds a partial value, which the caller drops.
    mutating func write(_ view: ValueView) throws {
        let reversible = options.form == .reversible
        guard let type = view.type else { _ = try view.value(); return }
        switch type {
        case .null: _ = try view.value(); append("null")
        case .boolean: try view.boolean() ? append("true") : append("false")
        case .integer: writeInteger(try view.integer())
        case .double: writeDouble(try view.double())
        case .string: writeString(utf8: try view.stringView().utf8)
        case .timestamp: writeTimestamp(try view.timestamp())
        case .geoPoint, .reference, .bytes, .vector, .serverTimestamp:
            // Small and rare next to strings and numbers: through the tree, one value at a time.
            write(try view.value())
        case .array:
            var first = true
            output.pointee.append(UInt8(ascii: "["))
            try view.forEachElement { element in
                if !first { output.pointee.append(UInt8(ascii: ",")) }
                first = false
                try write(element)
            }
            output.pointee.append(UInt8(ascii: "]"))
        case .map:
            let count = try view.count()
            if reversible && count == 1 {
                var isMarker = false
                try view.forEachEntry { key, _ in isMarker = JSONParser.markerKeys.contains { $0.elementsEqual(key.utf8) } }
                if isMarker {
                    try writeMarker(JSONMarker.map) { writer in try writer.writeEntries(of: view) }
                    return
                }
            }
            try writeEntries(of: view)
        }
    }

    /// Writes a map's entries as an object (`{…}`), with `extra` as a last member, refusing a key that appears twice
    /// (or `extra`'s key among the entries).
    mutating func writeEntries(of view: ValueView, appending extra: (key: String, value: String)? = nil) throws {
        let count = try view.count()
        if count > Self.pairwiseKeyCheckLimit { try checkUnique(view) }
        var extraKey = extra?.key ?? ""
        // Tested in the loop as a flag and bytes, not through `extra` (its strings were retained and released per entry).
        let hasExtra = extra != nil
        try extraKey.withUTF8 { extraKey in
            let extraKey = UnsafeRawBufferPointer(extraKey)
            try withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: Self.pairwiseKeyCheckLimit) { seen in
                var written = 0
                output.pointee.append(UInt8(ascii: "{"))
                try view.forEachEntry { key, value in
                    let bytes = key.utf8
                    if hasExtra && Self.equal(bytes, extraKey) { throw FirePackError(.invalidValue, "the extra key is among the entries") }
                    if count <= Self.pairwiseKeyCheckLimit {
                        for index in 0..<written where Self.equal(seen[index], bytes) {
                            throw FirePackError(.duplicateKey, "a key appears twice in one map")
                        }
                        seen[written] = bytes
                    }
                    if written > 0 { output.pointee.append(UInt8(ascii: ",")) }
                    written += 1
                    writeString(utf8: bytes)
                    output.pointee.append(UInt8(ascii: ":"))
                    try write(value)
                }
                if let extra {
                    if written > 0 { output.pointee.append(UInt8(ascii: ",")) }
                    writeString(extra.key)
                    output.pointee.append(UInt8(ascii: ":"))
                    writeString(extra.value)
                }
                output.pointee.append(UInt8(ascii: "}"))
            }
        }
    }

    /// Whether two keys' bytes are equal: lengths first, then the bytes (`elementsEqual` walked them one at a time).
    @inline(__always)
    static func equal(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        a.count == b.count && (a.count == 0 || ByteComparison.equal(a.baseAddress!, b.baseAddress!, count: a.count))
    }

    /// Maps with more keys than this are checked for duplicates in one pass through a set instead of pairwise.
    static var pairwiseKeyCheckLimit: Int { 32 }

    /// Throws `duplicateKey` when the map `view` holds a key twice.
    func checkUnique(_ view: ValueView) throws {
        var seen = Set<[UInt8]>()
        try view.forEachEntry { key, _ in
            guard seen.insert(Array(key.utf8)).inserted else { throw FirePackError(.duplicateKey, "a key appears twice in one map") }
        }
    }
}

extension JSONTranscoding {
    /// Appends the map `fields` as a one-line JSON object with `extra` as its last member — what
    /// `Value.map(fields + extra).jsonBytes(options:)` writes — to `output`; nil `fields` is an empty map.
    ///
    /// Returns false, leaving `output` as it was, when the tree must do it: sorted keys, pretty output, `extra`'s key
    /// among the fields or a marker, or bytes the tree path would reject (which it then reports).
    package static func appendObject(_ fields: ValueView?, appending extra: (key: String, value: String), options: JSONOptions,
                                     to output: ByteOutput) -> Bool {
        // The marker check by bytes and lengths: `ReversibleMarker(rawValue:)`, a string switch, was 3% of converting a
        // stream to JSON lines (perf), for the one key every record appends.
        guard !options.sortedKeys, !options.pretty,
              !JSONParser.markerKeys.contains(where: { $0.count == extra.key.utf8.count && $0.elementsEqual(extra.key.utf8) }) else { return false }
        let mark = output.count
        var writer = JSONTextWriter(options: options, output: output)   // `output` is the caller's, alive throughout
        do {
            if let fields {
                try writer.writeEntries(of: fields, appending: extra)
            } else {
                writer.writeEntries(of: MapValue([(extra.key, .string(extra.value))]))
            }
            return true
        } catch {
            output.truncate(to: mark)
            return false
        }
    }
}
