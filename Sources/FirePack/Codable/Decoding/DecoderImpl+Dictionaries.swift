#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `[String: V]` read straight from the map. Swift's `Dictionary.init(from:)` asks a keyed container for `allKeys`
// (a String per key, then a coding key per String) and then for each value through the type-erased container box,
// looking up generic metadata at run time for every entry (BENCHMARKS.md, the order model). This reads each entry once, with the values, errors and coding paths that path gives:
// a key that is not UTF-8 or an entry that cannot be read throws its error at the map's path when it is reached (as
// decoding the damaged-key marker of `MapReader.keyNames()` does), a value's error carries its key (an integer
// `intValue` when the key reads as one, as the standard library's dictionary coding key has), and a key the map holds
// twice keeps its first value.

/// A dictionary keyed by `String`, read from a FirePack map in one pass.
protocol StringKeyedDecodableDictionary {
    /// Reads the map at the decoder's value into `slot` (uninitialized memory for a `Self`).
    static func decodeMap(from decoder: DecoderImpl, into slot: UnsafeMutableRawPointer) throws
}

extension Dictionary: StringKeyedDecodableDictionary where Key == String, Value: Decodable {
    static func decodeMap(from decoder: DecoderImpl, into slot: UnsafeMutableRawPointer) throws {
        // `[String: String]`, Firestore's commonest map, and maps of counters, amounts and flags by concrete code:
        // generic, each entry looked up the metadata of the dictionary's storage, of `Optional<Value>` and of the
        // value's own decode at run time (ProfileCodable's `intMap` and `stringMap` count it). One branch a type,
        // each naming it: a helper generic over the value type, nested here, was not specialized.
        if Value.self == String.self {
            slot.initializeMemory(as: [String: String].self, to: try decoder.decodeStringMap())
            return
        }
        if Value.self == Int.self {
            let map = try decoder.decodeScalarMap { try decoder.decodeInteger(Int.self, at: $0, end: $1) }
            slot.initializeMemory(as: [String: Int].self, to: map)
            return
        }
        if Value.self == Int64.self {
            let map = try decoder.decodeScalarMap { try decoder.decodeInteger(Int64.self, at: $0, end: $1) }
            slot.initializeMemory(as: [String: Int64].self, to: map)
            return
        }
        if Value.self == Double.self {
            let map = try decoder.decodeScalarMap { try decoder.decodeDouble(at: $0, end: $1) }
            slot.initializeMemory(as: [String: Double].self, to: map)
            return
        }
        if Value.self == Bool.self {
            let map = try decoder.decodeScalarMap { try decoder.decodeBool(at: $0, end: $1) }
            slot.initializeMemory(as: [String: Bool].self, to: map)
            return
        }
        let header = try decoder.entriesHeader()
        var result = Self(minimumCapacity: header.count)
        try decoder.decodeEntries(of: header, keepingFirstInto: &result) { start, end in
            try decoder.decode(Value.self, at: start, end: end, depth: decoder.depth + 1)
        }
        slot.initializeMemory(as: Self.self, to: result)
    }
}

extension DecoderImpl {
    /// Reads the map at the decoder's value as a `[String: String]`.
    func decodeStringMap() throws -> [String: String] {
        try decodeScalarMap { try decodeString(at: $0, end: $1) }
    }

    /// Reads the map at the decoder's value as a `[String: V]`, each value by `read` (from where it starts and ends),
    /// for values whose reading runs no user code (strings and Swift's scalars); called with a concrete `V`, so that
    /// it is specialized.
    @inline(__always)
    func decodeScalarMap<V>(_ read: (Int, Int) throws -> V) throws -> [String: V] {
        let header = try entriesHeader()
        var result = [String: V](minimumCapacity: header.count)
        // One hash per entry: each entry is stored as it is read. A map that held a key twice (fewer entries than its
        // header counts) or had an entry fail is read again keeping first values, so that what it gives or throws is
        // what the keyed container gives or throws. Reading a value twice is harmless: no user code runs.
        do {
            try decodeEntries(of: header) { key, start, end in result[key] = try read(start, end) }
            if result.count == header.count { return result }
        } catch {}
        result.removeAll(keepingCapacity: true)
        try decodeEntries(of: header, keepingFirstInto: &result, read)
        return result
    }

    /// Reads the entries of the map `header` into `result`, each value by `read` (from where it starts and ends); a
    /// key the map holds twice keeps its first value, and its second is never read. (Only input read without
    /// validation, `.lazy`, can hold a key twice; a keyed container finds the entry after the one it found last, so
    /// which of the two a struct gets depends on the order its keys are asked for.)
    func decodeEntries<V>(
        of header: ContainerHeader, keepingFirstInto result: inout [String: V], _ read: (Int, Int) throws -> V
    ) throws {
        try decodeEntries(of: header) { key, start, end in
            if result.index(forKey: key) == nil { result[key] = try read(start, end) }
        }
    }

    /// Decodes the `[String: String]` at `offset` (which ends at `end`, inside `depth` containers) by concrete code,
    /// without the type tests of `decode(_:at:end:depth:)`: generated coding's route for string maps.
    func decodeStringMap(at offset: Int, end: Int, depth: Int) throws -> [String: String] {
        try moved(to: offset, end: end, depth: depth) {
            do { return try decodeStringMap() } catch let error as DecodingError { throw locating(error) }
        }
    }

    /// The header of the map at the decoder's value, as a keyed container reads it.
    func entriesHeader() throws -> ContainerHeader {
        bypassKeyStrategy = false
        return try containerHeader(expectingMap: true, for: [String: Any].self)
    }

    /// Calls `body` with each entry of the map `header` — its key, and where its value starts and ends — with the
    /// entry's key on the coding path while `body` runs. An entry that cannot be read (its key not UTF-8, its extent
    /// damaged) throws at the map's path when it is reached.
    func decodeEntries(of header: ContainerHeader, _ body: (String, Int, Int) throws -> Void) throws {
        let input = self.input, pathDepth = path.count
        var position = header.bodyStart
        for _ in 0..<header.count {
            let entry = position
            let (key, valueStart, valueEnd) = try wrap { () throws(FirePackError) in
                let (key, afterKey) = try state.keyReferences.keyString(at: entry, limit: header.end, in: input)
                return (key, afterKey, try input.valueEnd(at: afterKey, limit: header.end))
            }
            position = valueEnd
            if path.count != pathDepth { path.removeSubrange(Swift.min(pathDepth, path.count)...) }
            path.append(.dictionaryKey(key))
            defer { path.removeLast() }
            try body(key, valueStart, valueEnd)
        }
    }
}

/// The coding key of a dictionary's entry, as the standard library makes it: an `intValue` when the key is an integer.
struct DictionaryCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = Int(stringValue)
    }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}
