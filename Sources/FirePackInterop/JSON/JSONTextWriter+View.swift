#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Buffers) import FirePack

/// JSON text written straight from FirePack bytes, read with a cursor (`FirePackReader`), without a `Value` tree: the
/// text `write(reader.readValue())` writes, pretty or compact, keys sorted or in the order written, checked as
/// strictly (every byte, UTF-8, duplicate keys, container lengths), at a fraction of the cost. (Walked through
/// `ValueView`'s closures, a closure context per container and per entry was a sixth of converting a document stream
/// to JSON lines, perf.)
extension JSONTextWriter {
    /// Writes the value at the cursor and moves past it. Throws what reading it as a tree would throw (perhaps another
    /// of its problems, first); the output then holds a partial value, which the caller drops.
    mutating func write(_ reader: inout FirePackReader) throws {
        let reversible = options.form == .reversible
        guard let type = try? reader.peekType() else {
            _ = try reader.readValue()
            return
        }
        switch type {
        case .null:
            _ = try reader.readValue()
            append("null")
        case .boolean: try reader.readBoolean() ? append("true") : append("false")
        case .integer: writeInteger(try reader.readInteger())
        case .double:
            if let decimal = try reader.readDecimalDouble() {
                writeDecimal(decimal.mantissa, scale: decimal.scale, negative: decimal.negative) { decimal.value }
            } else {
                writeDouble(try reader.readDouble())
            }
        case .string: writeString(utf8: try reader.readString().utf8)
        case .timestamp: writeTimestamp(try reader.readTimestamp())
        case .geoPoint: writeGeoPoint(try reader.readGeoPoint())
        case .reference: writeReference(try reader.readReference())
        case .bytes: writeBytes(try reader.readBytes().bytes)
        case .vector:
            let vector = try reader.readVector()
            if let scale = vector.decimalScale {
                // The digits are in the bytes: printed from them, as a decimal double is (`writeDecimal`).
                writeVector(count: vector.count) { writer, index in
                    let mantissa = vector.mantissa(at: index)
                    writer.writeDecimal(mantissa.magnitude, scale: scale, negative: mantissa < 0) { vector[index] }
                }
            } else {
                writeVector(count: vector.count) { writer, index in writer.writeDouble(vector[index]) }
            }
        case .serverTimestamp:
            let sentinel = try reader.readValue()
            if let serverTime { writeTimestamp(serverTime) } else { write(sentinel) }
        case .array:
            let array = try reader.enterArray()
            guard array.count > 0 else {
                try reader.exitArray(array)
                return append("[]")
            }
            // As `writeArray(count:_:)` lays it out: one element per line at the next depth when pretty.
            output.pointee.append(UInt8(ascii: "["))
            depth += 1
            for index in 0..<array.count {
                if index > 0 { output.pointee.append(UInt8(ascii: ",")) }
                newline()
                try write(&reader)
                dropCountedText()
            }
            try reader.exitArray(array)
            depth -= 1
            newline()
            output.pointee.append(UInt8(ascii: "]"))
        case .map:
            try writeEntries(from: &reader, escapingMarker: reversible)
        }
    }

    /// Writes the map at the cursor as an object (`{…}`), with `added`'s members last (among the others, when keys
    /// are sorted), refusing a key that appears twice (or, with `added`, a naming member's key or the name's among
    /// the entries), and moves past it. With `escapingMarker`, a map whose one key is a reversible marker is written
    /// escaped, inside `{"__map__": …}`. Laid out as `writeEntries(of:)` lays out a tree's map.
    mutating func writeEntries(
        from reader: inout FirePackReader, appending added: AddedMembers? = nil, escapingMarker: Bool = false
    ) throws {
        let mapStart = reader
        let map = try reader.enterMap()
        if map.count > Self.pairwiseKeyCheckLimit && !options.sortedKeys { try checkUnique(mapStart) }
        var escaped = false
        if escapingMarker && map.count == 1 {
            var peek = reader
            let key = try peek.readKey().utf8
            escaped = ReversibleMarker.isKey(key)
        }
        if escaped {
            if options.pretty {
                output.pointee.append(UInt8(ascii: "{"))
                writeString(JSONMarker.map)
                append(": ")
            } else {
                output.pointee.append(contentsOf: JSONMarker.mapOpening)
            }
        }
        var extraKey = added?.name.key ?? ""
        // Tested in the loop as a flag and bytes, not through `added` (its strings were retained and released per
        // entry).
        let hasExtra = added != nil
        try extraKey.withUTF8 { extraKey in
            let extraKey = UnsafeRawBufferPointer(extraKey)
            /// Throws when `key` is `extra`'s or one of the members plain JSON reads back as a document's name or times
            /// (`DocumentNaming.value(of:)` decides): a document's fields (`hasExtra`) with one are left to the tree.
            func checkNotExtra(_ key: UnsafeRawBufferPointer) throws {
                if hasExtra
                    && (ByteComparison.equal(key, extraKey)
                        || ((key.count == 8 || key.count == 15) && Self.isNamingMember(key)))
                {
                    throw FirePackError(.invalidValue, "the extra key is among the entries")
                }
            }
            if options.sortedKeys {
                try writeSortedEntries(&reader, count: map.count, added: added, nameKey: extraKey) {
                    try checkNotExtra($0)
                }
                try reader.exitMap(map)
                return
            }
            guard map.count > 0 || hasExtra else {
                try reader.exitMap(map)
                return append("{}")
            }
            try withUnsafeTemporaryAllocation(of: UnsafeRawBufferPointer.self, capacity: Self.pairwiseKeyCheckLimit) {
                seen in
                output.pointee.append(UInt8(ascii: "{"))
                depth += 1
                for index in 0..<map.count {
                    try checkLimit("the map")
                    let key = try reader.readKey(counting: &keyBudget).utf8
                    try checkNotExtra(key)
                    if map.count <= Self.pairwiseKeyCheckLimit {
                        for earlier in 0..<index where ByteComparison.equal(seen[earlier], key) {
                            throw FirePackError(.duplicateKey, "a key appears twice in one map")
                        }
                        seen[index] = key
                    }
                    if index > 0 { output.pointee.append(UInt8(ascii: ",")) }
                    newline()
                    writeString(utf8: key)
                    writeKeySeparator()
                    try write(&reader)
                    dropCountedText()
                }
                try reader.exitMap(map)
                if let added {
                    var first = map.count == 0
                    for member in AddedMembers.Member.allCases {
                        guard let key = member == .name ? extraKey : added.key(of: member) else { continue }
                        if !first { output.pointee.append(UInt8(ascii: ",")) }
                        first = false
                        newline()
                        writeString(utf8: key)
                        writeKeySeparator()
                        writeValue(of: member, in: added)
                    }
                }
                depth -= 1
                newline()
                output.pointee.append(UInt8(ascii: "}"))
            }
        }
        if escaped { output.pointee.append(UInt8(ascii: "}")) }
    }

    /// `:`, or `: ` when pretty.
    mutating func writeKeySeparator() {
        options.pretty ? append(": ") : output.pointee.append(UInt8(ascii: ":"))
    }

    /// Writes the `count` entries at the cursor (inside their map), and `added`'s members (the name's key as
    /// `nameKey`'s bytes), in ascending unsigned-byte order of their keys, as `writeEntries(of:)` sorts a tree's,
    /// moving past them; `check` sees each key first. Each entry's key and value offset are kept (memory for one
    /// position per entry), the values then read in order of their keys; a repeated key is found beside its twin.
    mutating func writeSortedEntries(
        _ reader: inout FirePackReader, count: Int, added: AddedMembers?, nameKey: UnsafeRawBufferPointer,
        checking check: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let inside = reader
        var entries: [(key: UnsafeRawBufferPointer, value: Int)] = []
        entries.reserveCapacity(count + 1)
        for _ in 0..<count {
            let key = try reader.readKey(counting: &keyBudget).utf8
            try check(key)
            entries.append((key, reader.readerIndex))
            try reader.skipValue()
        }
        // An added member's value offset is −1 − its index in `AddedMembers.Member`.
        if let added {
            for member in AddedMembers.Member.allCases {
                guard let key = member == .name ? nameKey : added.key(of: member) else { continue }
                entries.append((key, -1 - member.rawValue))
            }
        }
        guard !entries.isEmpty else { return append("{}") }
        // Long keys by their rank in the key table: a pair that references repeat in every map is compared once per
        // value, not once per map (`LongKeyRanks`).
        if longKeyRanks == nil && entries.contains(where: { LongKeyRanks.isLong($0.key.count) }) {
            longKeyRanks = inside.longKeyRanks()
        }
        let ranks = longKeyRanks ?? LongKeyRanks.none
        entries.sort { ranks.precedes($0.key, $1.key) }
        for index in entries.indices.dropFirst() where ranks.equal(entries[index - 1].key, entries[index].key) {
            throw FirePackError(.duplicateKey, "a key appears twice in one map")
        }
        output.pointee.append(UInt8(ascii: "{"))
        depth += 1
        for (index, entry) in entries.enumerated() {
            try checkLimit("the map")
            if index > 0 { output.pointee.append(UInt8(ascii: ",")) }
            newline()
            writeString(utf8: entry.key)
            writeKeySeparator()
            if entry.value < 0, let added, let member = AddedMembers.Member(rawValue: -1 - entry.value) {
                writeValue(of: member, in: added)
            } else {
                var value = inside.positioned(at: entry.value)
                try write(&value)
                dropCountedText()
            }
        }
        depth -= 1
        newline()
        output.pointee.append(UInt8(ascii: "}"))
    }

    /// Writes the value of `added`'s `member`: a time, or the name's string.
    private mutating func writeValue(of member: AddedMembers.Member, in added: AddedMembers) {
        switch member {
        case .createTime: added.createTime.map { writeTimestamp($0) }
        case .updateTime: added.updateTime.map { writeTimestamp($0) }
        case .name: writeString(added.name.value)
        }
    }

    /// Whether `key` is `__name__`, `__create_time__` or `__update_time__`: a member that plain JSON reads back as
    /// the document's own, whatever the naming writes.
    static func isNamingMember(_ key: UnsafeRawBufferPointer) -> Bool {
        DocumentMembers.all.contains { member in member.withUnsafeBytes { ByteComparison.equal(key, $0) } }
    }

    /// Maps with more keys than this are checked for duplicates in one pass through a set instead of pairwise.
    static var pairwiseKeyCheckLimit: Int { 32 }

    /// Throws `duplicateKey` when the map at `reader`'s cursor holds a key twice, hashing the keys where they are;
    /// `limitExceeded` as soon as its keys alone pass the room the text's limit leaves (every key is written); and
    /// `badKeyReference` for key-table entries that overlap (`keyBudget`, which counts each key once, here or when
    /// it is written): so that keys repeated by reference cost no more here than when they are written.
    mutating func checkUnique(_ reader: FirePackReader) throws {
        var reader = reader
        let map = try reader.enterMap()
        var seen = Set<KeyInPlace>(minimumCapacity: map.count)
        let room = textEnd == .max ? Int.max : textEnd - output.pointee.count
        var total = 0
        for _ in 0..<map.count {
            let key = try reader.readKey(counting: &keyBudget).utf8
            try reader.skipValue()
            total += key.count
            if total > room { throw limitError("the map") }
            guard seen.insert(KeyInPlace(bytes: key)).inserted else {
                throw FirePackError(.duplicateKey, "a key appears twice in one map")
            }
        }
    }

    /// A key's bytes where the reader holds them, hashed and compared by content.
    struct KeyInPlace: Hashable {
        let bytes: UnsafeRawBufferPointer
        static func == (left: Self, right: Self) -> Bool { ByteComparison.equal(left.bytes, right.bytes) }
        func hash(into hasher: inout Hasher) { hasher.combine(bytes: bytes) }
    }
}

/// What plain JSON writes beside a document's fields (`DocumentNaming.value(of:)`), after them unless keys are sorted:
/// its create and update times when it has them (`__create_time__`, `__update_time__`), then its name member (its ID
/// under the ID field, or its path under `__name__`).
package struct AddedMembers {
    /// The document's create time, if it has one.
    var createTime: Timestamp?
    /// The document's update time, if it has one.
    var updateTime: Timestamp?
    /// The naming's member for the document (`DocumentNaming.member(for:)`).
    var name: (key: String, value: String)

    /// The members of a document with these times and this naming member.
    package init(createTime: Timestamp? = nil, updateTime: Timestamp? = nil, name: (key: String, value: String)) {
        (self.createTime, self.updateTime, self.name) = (createTime, updateTime, name)
    }

    /// The members in the order they are written after the fields.
    enum Member: Int, CaseIterable {
        case createTime, updateTime, name
    }

    /// The UTF-8 of a time member's key when the document has that time; nil for `.name` (its key is a `String`,
    /// the caller's bytes) and for a time it does not have.
    func key(of member: Member) -> UnsafeRawBufferPointer? {
        switch member {
        case .createTime: createTime == nil ? nil : Self.bytes(of: Self.createTimeKey)
        case .updateTime: updateTime == nil ? nil : Self.bytes(of: Self.updateTimeKey)
        case .name: nil
        }
    }

    /// `DocumentNaming.createTimeMember` and `updateTimeMember` as static text, whose bytes stay where they are.
    private static let createTimeKey: StaticString = "__create_time__"
    private static let updateTimeKey: StaticString = "__update_time__"

    private static func bytes(of key: StaticString) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
    }
}

extension JSONTranscoding {
    /// The length of the compact JSON text of the value at `reader`'s cursor in the order written — what
    /// `readValue().jsonBytes(options:maxLength:what:)` writes — counted without a tree and without holding the text
    /// (at most 64 KiB of it at a time besides the longest scalar's), moving past the value. Throws what reading the
    /// value would, or `limitExceeded` (naming it as `what`) for text longer than `maxLength`. `options` must ask for
    /// neither sorted keys nor pretty output. What `firepack stats` measures a record's JSON by: a record's text can
    /// be thousands of times its bytes (keys repeated by reference, packed rows), and it was held whole.
    package static func jsonLength(
        reading reader: inout FirePackReader, options: JSONOptions, maxLength: Int, what: @autoclosure () -> String
    ) throws -> Int {
        precondition(!options.sortedKeys && !options.pretty, "the length of compact text in the order written")
        let output = ByteOutput(capacity: (1 << 16) + 4096)
        var writer = JSONTextWriter(options: options, output: output)
        writer.limitingText(to: maxLength)
        writer.countingText(droppingAbove: 1 << 16)
        try writer.write(&reader)
        if writer.isPastLimit { throw writer.limitError(what()) }
        return withExtendedLifetime(output) { writer.droppedCount + output.count }
    }

    /// Appends the map at `fields`' cursor as a JSON object with `added`'s members (the last, unless keys are
    /// sorted) — what `Value.map(fields + added).jsonBytes(options:)` writes, at `depth` when pretty — to `output`;
    /// nil `fields` is an empty map.
    ///
    /// Returns false, leaving `output` as it was, when the tree must do it: the name's key or a naming member's
    /// among the fields, the name's key a marker, or bytes the tree path would reject (which it then reports).
    package static func appendObject(
        _ fields: FirePackReader?, appending added: AddedMembers, options: JSONOptions,
        to output: ByteOutput, maxLength: Int = JSONTextLimits.document, depth: Int = 0, serverTime: Timestamp? = nil
    ) -> Bool {
        // The marker check by bytes and lengths, not by `ReversibleMarker(rawValue:)` (a string switch), for the one
        // key every record appends (guarded by `Stream fpks to JSON lines`).
        var nameKey = added.name.key
        guard !nameKey.withUTF8({ ReversibleMarker.isKey(UnsafeRawBufferPointer($0)) }) else { return false }
        let mark = output.count
        var writer = JSONTextWriter(options: options, output: output)  // `output` is the caller's, alive throughout
        writer.depth = depth
        writer.serverTime = serverTime
        writer.limitingText(to: maxLength)  // past it, the tree path refuses the document
        do {
            if var fields {
                try writer.writeEntries(from: &fields, appending: added)
            } else {
                var members = MapValue()
                if let time = added.createTime { members[DocumentNaming.createTimeMember] = .timestamp(time) }
                if let time = added.updateTime { members[DocumentNaming.updateTimeMember] = .timestamp(time) }
                members[added.name.key] = .string(added.name.value)
                writer.writeEntries(of: members)
            }
            if !writer.isPastLimit { return true }
            output.truncate(to: mark)
            return false
        } catch {
            output.truncate(to: mark)
            return false
        }
    }
}
