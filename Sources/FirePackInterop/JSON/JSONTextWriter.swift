#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
@_spi(Buffers) import FirePack

/// Writes JSON text straight into a byte buffer.
struct JSONTextWriter {
    let options: JSONOptions
    /// Where the text goes: a `ByteOutput`'s storage, which the caller keeps alive while it uses the writer.
    let output: UnsafeMutablePointer<GrowableBytes>
    var depth = 0
    /// The scale of the last decimal form found, the first one tried for the next double
    /// (`DecimalDouble.decompose(_:below:near:)`).
    var decimalScale = 0
    /// Where the text must end, at most (an output count), and how long that lets it be (`limitingText(to:)`). Past
    /// it, keys are no longer written — the text is refused by its caller — so that keys that the input repeats by
    /// reference (a key of L bytes for each one-byte reference) cannot make it longer than the limit by more than
    /// the input's own size (Docs/SAFETY.md, "JSON text").
    private(set) var textEnd = Int.max
    private(set) var textLimit = Int.max
    /// The long keys references resolve to in the value written from bytes (`writeEntries(from:)`), counted as
    /// whole-input validation counts them: entries that overlap are refused, not written.
    var keyBudget = KeyReferenceBudget()
    /// The ranks of the long keys of the input whose maps are written with sorted keys, made when first needed.
    var longKeyRanks: LongKeyRanks?
    /// Past this many bytes of output, between two values written from bytes, the text is counted and dropped
    /// (`countingText(droppingAbove:)`); the bytes dropped so far.
    private(set) var dropsAbove = Int.max
    private(set) var droppedCount = 0
    /// The time a pending server timestamp written from bytes is written as (nil: as itself), as
    /// `Value.resolvingServerTimestamps(at:)` replaces it in a tree.
    var serverTime: Timestamp?

    /// A writer that appends to `output`, which the caller keeps alive for as long as it uses the writer.
    init(options: JSONOptions, output: ByteOutput) {
        self.options = options
        self.output = output.storage
    }

    /// Runs `body` with a writer into a new buffer and returns the text it wrote.
    static func text<E: Error>(options: JSONOptions, _ body: (inout JSONTextWriter) throws(E) -> Void) throws(E)
        -> [UInt8]
    {
        let output = ByteOutput(capacity: 256)
        var writer = JSONTextWriter(options: options, output: output)
        try body(&writer)
        return withExtendedLifetime(output) { output.bytes }
    }

    /// Limits the text from here on to `length` bytes.
    mutating func limitingText(to length: Int) {
        textLimit = length
        let (end, overflow) = output.pointee.count.addingReportingOverflow(length)
        textEnd = overflow ? Int.max : end
    }

    /// From here on, the text written from bytes is counted and dropped whenever the output holds more than `count`
    /// bytes between two values: for a caller that wants only its length (`droppedCount` plus what is left), which
    /// then costs memory for `count` bytes and the longest scalar, not for the text. The limit counts what is dropped.
    mutating func countingText(droppingAbove count: Int) { dropsAbove = count }

    /// Drops the output when it holds more than `dropsAbove` bytes (`countingText(droppingAbove:)`).
    @inline(__always)
    mutating func dropCountedText() {
        guard output.pointee.count > dropsAbove else { return }
        let held = output.pointee.count
        droppedCount += held
        if textEnd != .max { textEnd -= held }
        output.pointee.truncate(to: 0)
    }

    /// Whether the text has passed its limit (`limitingText(to:)`), so that no more keys are written.
    @inline(__always)
    var isPastLimit: Bool { output.pointee.count > textEnd }

    /// The error for text past its limit, naming `what` the text is.
    func limitError(_ what: String) -> FirePackError { JSONTextLimits.tooLong(what, limit: textLimit) }

    /// Throws `limitError` once the text has passed its limit.
    @inline(__always)
    func checkLimit(_ what: @autoclosure () -> String) throws(FirePackError) {
        if isPastLimit { throw limitError(what()) }
    }

    func append(_ text: StaticString) {
        output.pointee.append(text)
    }

    func append(_ text: String) {
        text.withUTF8Bytes { output.pointee.append($0) }
    }

    mutating func write(_ value: Value) {
        let reversible = options.form == .reversible
        switch value {
        case .null: append("null")
        case .boolean(let flag): flag ? append("true") : append("false")
        case .integer(let integer): writeInteger(integer)
        case .double(let double): writeDouble(double)
        case .string(let string): writeString(string)
        case .timestamp(let timestamp): writeTimestamp(timestamp)
        case .geoPoint(let point): writeGeoPoint(point)
        case .reference(let reference): writeReference(reference)
        case .bytes(let data): data.withUnsafeBytes { writeBytes($0) }
        case .vector(let vector):
            let elements = vector.array
            writeVector(count: elements.count) { writer, index in writer.writeDouble(elements[index]) }
        case .serverTimestamp:
            reversible ? writeMarker(JSONMarker.serverTimestamp) { $0.append("true") } : append("null")
        case .array(let elements): writeArray(count: elements.count) { $0.write(elements[$1]) }
        case .map(let map):
            if reversible, map.count == 1, JSONMarker.all.contains(map.keys[0]) {
                writeMarker(JSONMarker.map) { $0.writeEntries(of: map) }
            } else {
                writeEntries(of: map)
            }
        }
    }

    mutating func writeEntries(of map: MapValue) {
        guard !map.isEmpty else {
            append("{}")
            return
        }
        if isPastLimit { return }  // refused by the caller (`limitingText(to:)`): not even sorted
        output.pointee.append(UInt8(ascii: "{"))
        depth += 1
        let positions =
            options.sortedKeys
            ? map.indices.sorted { map.keys[$0].utf8Precedes(map.keys[$1]) }
            : Array(map.indices)
        for (count, position) in positions.enumerated() {
            if isPastLimit { return }  // refused by the caller (`limitingText(to:)`)
            if count > 0 { output.pointee.append(UInt8(ascii: ",")) }
            newline()
            writeString(map.keys[position])
            options.pretty ? append(": ") : output.pointee.append(UInt8(ascii: ":"))
            write(map.values[position])
        }
        depth -= 1
        newline()
        output.pointee.append(UInt8(ascii: "}"))
    }

    mutating func writeMarker(_ marker: String, _ payload: (inout JSONTextWriter) throws -> Void) rethrows {
        output.pointee.append(UInt8(ascii: "{"))
        writeString(marker)
        options.pretty ? append(": ") : output.pointee.append(UInt8(ascii: ":"))
        try payload(&self)
        output.pointee.append(UInt8(ascii: "}"))
    }

    mutating func newline() {
        guard options.pretty else { return }
        output.pointee.append(0x0A)
        for _ in 0..<depth * 2 { output.pointee.append(UInt8(ascii: " ")) }
    }

    /// Finite doubles in the shortest form that reads back to the same bits (always with `.` or an exponent, so they
    /// read back as doubles); NaN and ±∞ as markers (reversible) or null (plain).
    ///
    /// A double with a decimal form (`DecimalDouble.decompose`, the writer's own search) is printed from its digits
    /// by `writeDecimal`, which gives the text `Double.description` gives without a `String` per number; coordinates,
    /// prices and embeddings mostly have one (guarded by `Stream fpks to JSON lines`).
    mutating func writeDouble(_ double: Double) {
        if let (mantissa, scale) = DecimalDouble.decompose(
            double.magnitude, below: DecimalDouble.writerMantissaLimit, near: &decimalScale)
        {
            writeDecimal(mantissa, scale: scale, negative: double.sign == .minus) { double }
        } else {
            writeShortest(double)
        }
    }

    /// `writeDouble` through `Double.description`, for doubles whose digits are not at hand.
    mutating func writeShortest(_ double: Double) {
        guard let text = ReversibleMarker.text(forNonFinite: double) else {
            append(double.description)
            return
        }
        guard options.form == .reversible else {
            append("null")
            return
        }
        writeMarker(JSONMarker.double) { $0.writeString(text) }
    }

    /// Writes `value`, read from a decimal form (`mantissa / 10^scale`), as `writeDouble` does, from its digits when
    /// they are the text `writeDouble` gives: a decimal of at most 15 significant digits is the only one of at most 15
    /// that reads back as its double (IEEE 754's 15-digit round trip), so without trailing zeros (which a packed
    /// array's shared scale adds) it is the shortest that does, the digits `Double.description` prints; which prints
    /// them in fixed notation from 10^-4 up to 2^53. Other parts (16 or 17 digits, a smaller magnitude) go through
    /// `writeDouble`. The digits are at hand in the bytes; printing the double searched for them again (`Stream fpks
    /// to JSON lines`).
    mutating func writeDecimal(_ mantissa: UInt64, scale: Int, negative: Bool, value: () -> Double) {
        var (mantissa, scale) = (mantissa, scale)
        while scale > 0 && mantissa % 10 == 0 {
            mantissa /= 10
            scale -= 1
        }
        let digits = Self.digitCount(of: mantissa)
        guard mantissa < 1_000_000_000_000_000, digits - scale >= -3 else {
            writeShortest(value())
            return
        }
        // [-] integer digits (or 0) [.] fraction digits, zero-padded to `scale`; ".0" for a whole number. Written
        // right to left, in place, two digits at a time.
        let integerDigits = max(digits - scale, 0)
        let length = (negative ? 1 : 0) + max(integerDigits, 1) + 1 + max(scale, 1)
        output.pointee.append(atMost: 40) { text in
            var end = text + length
            var rest = mantissa
            if scale == 0 {
                end -= 2
                end[0] = UInt8(ascii: ".")
                end[1] = UInt8(ascii: "0")
            } else {
                rest = Self.writeDigits(of: rest, count: scale, before: end)
                end -= scale + 1
                end[0] = UInt8(ascii: ".")
            }
            if integerDigits == 0 {
                end[-1] = UInt8(ascii: "0")
            } else {
                _ = Self.writeDigits(of: rest, count: integerDigits, before: end)
            }
            if negative { text[0] = UInt8(ascii: "-") }
            return length
        }
    }

    /// The number of decimal digits of `value` (1 for 0).
    @inline(__always)
    static func digitCount(of value: UInt64) -> Int {
        var digits = 1
        var power: UInt64 = 10
        while digits < 20 && value >= power {
            digits += 1
            power &*= 10
        }
        return digits
    }

    /// Writes the last `count` decimal digits of `value` (zero-padded) to the `count` bytes before `end`, two at a
    /// time, and returns what is left of `value` above them.
    @inline(__always)
    static func writeDigits(of value: UInt64, count: Int, before end: UnsafeMutablePointer<UInt8>) -> UInt64 {
        var rest = value
        var cursor = end
        var left = count
        while left >= 2 {
            let next = rest / 100
            let pair = UInt8(truncatingIfNeeded: rest &- next &* 100)
            let tens = pair / 10
            cursor -= 2
            cursor[0] = UInt8(ascii: "0") &+ tens
            cursor[1] = UInt8(ascii: "0") &+ (pair &- tens &* 10)
            rest = next
            left -= 2
        }
        if left == 1 {
            let next = rest / 10
            cursor[-1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest &- next &* 10)
            rest = next
        }
        return rest
    }

    func writeString(_ string: String) {
        string.withUTF8Bytes { writeString(utf8: $0) }
    }

    /// A geopoint: `{"__geopoint__":[latitude,longitude]}` when reversible, else a map of the two.
    mutating func writeGeoPoint(_ point: GeoPoint) {
        guard options.form == .reversible else {
            write(.map(["latitude": .double(point.latitude), "longitude": .double(point.longitude)]))
            return
        }
        writeMarker(JSONMarker.geoPoint) { writer in
            writer.writeArray(count: 2) { $0.writeDouble($1 == 0 ? point.latitude : point.longitude) }
        }
    }

    /// A reference: its path, in its marker when reversible.
    mutating func writeReference(_ reference: DocumentReference) {
        options.form == .reversible
            ? writeMarker(JSONMarker.reference) { $0.writeString(reference.path) } : writeString(reference.path)
    }

    /// Bytes: their base64 text (RFC 4648 §4, padded: what `Data.base64EncodedString()` gives), in its marker when
    /// reversible.
    mutating func writeBytes(_ bytes: UnsafeRawBufferPointer) {
        options.form == .reversible
            ? writeMarker(JSONMarker.bytes) { $0.writeBase64(bytes) } : writeBase64(bytes)
    }

    /// A vector of `count` elements, each written by `element`: an array of numbers, in its marker when reversible.
    @inline(__always)
    mutating func writeVector(count: Int, _ element: (inout JSONTextWriter, Int) -> Void) {
        guard options.form == .reversible else {
            writeArray(count: count, element)
            return
        }
        writeMarker(JSONMarker.vector) { $0.writeArray(count: count, element) }
    }

    /// An array of `count` elements, each written by `element`: `[]`, or one per line at the next depth when pretty.
    @inline(__always)
    mutating func writeArray(count: Int, _ element: (inout JSONTextWriter, Int) -> Void) {
        guard count > 0 else {
            append("[]")
            return
        }
        output.pointee.append(UInt8(ascii: "["))
        depth += 1
        for index in 0..<count {
            if index > 0 { output.pointee.append(UInt8(ascii: ",")) }
            newline()
            element(&self, index)
        }
        depth -= 1
        newline()
        output.pointee.append(UInt8(ascii: "]"))
    }

    /// `bytes` in base64 as a JSON string: four characters for every three bytes, `=` padding the last group.
    func writeBase64(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        output.pointee.append(atMost: 2 + (count + 2) / 3 * 4) { text in
            @inline(__always) func character(_ sextet: UInt32) -> UInt8 {
                switch sextet & 0x3F {
                case 0..<26: UInt8(ascii: "A") + UInt8(sextet & 0x3F)
                case 26..<52: UInt8(ascii: "a") + UInt8(sextet & 0x3F) - 26
                case 52..<62: UInt8(ascii: "0") + UInt8(sextet & 0x3F) - 52
                case 62: UInt8(ascii: "+")
                default: UInt8(ascii: "/")
                }
            }
            text[0] = UInt8(ascii: "\"")
            var written = 1
            var offset = 0
            while offset < count {
                let remaining = count - offset
                var group = UInt32(bytes[offset]) << 16
                if remaining > 1 { group |= UInt32(bytes[offset + 1]) << 8 }
                if remaining > 2 { group |= UInt32(bytes[offset + 2]) }
                text[written] = character(group >> 18)
                text[written + 1] = character(group >> 12)
                text[written + 2] = remaining > 1 ? character(group >> 6) : UInt8(ascii: "=")
                text[written + 3] = remaining > 2 ? character(group) : UInt8(ascii: "=")
                written += 4
                offset += 3
            }
            text[written] = UInt8(ascii: "\"")
            return written + 1
        }
    }

    /// A timestamp: RFC 3339 text, in its marker when reversible.
    mutating func writeTimestamp(_ timestamp: Timestamp) {
        // The marker's opening bytes written whole, not through `writeMarker` (its closure copied the writer).
        if options.form == .reversible { output.pointee.append(contentsOf: JSONMarker.timestampOpening) }
        timestamp.withRFC3339Bytes { writeString(utf8: $0) }
        if options.form == .reversible { output.pointee.append(UInt8(ascii: "}")) }
    }

    /// An integer in decimal, written from a stack buffer in one append (through `String(_:)` it cost a string per
    /// number, perf).
    func writeInteger(_ integer: Int64) {
        output.pointee.append(atMost: 20) { text in
            let magnitude = integer.magnitude
            let digits = Self.digitCount(of: magnitude)
            let length = digits + (integer < 0 ? 1 : 0)
            _ = Self.writeDigits(of: magnitude, count: digits, before: text + length)
            if integer < 0 { text[0] = UInt8(ascii: "-") }
            return length
        }
    }

    /// Writes UTF-8 bytes as a JSON string, escaping quotes, backslashes and control characters.
    func writeString(utf8 bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        // At most six bytes per byte (`\u00XX`) and the quotes, written in place.
        output.pointee.append(atMost: 2 + 6 * count) { text in
            text[0] = UInt8(ascii: "\"")
            guard let base = bytes.baseAddress else {
                text[1] = UInt8(ascii: "\"")
                return 2
            }
            // Most strings need no escape: then they are copied whole, not a byte at a time (guarded by the
            // `Stream fpks to JSON lines` benchmark).
            if !Self.needsEscape(base, count: count) {
                Self.copy(count, from: base, to: UnsafeMutableRawPointer(text + 1))
                text[count + 1] = UInt8(ascii: "\"")
                return count + 2
            }
            var written = 1
            var segmentStart = 0
            @inline(__always) func copySegment(to end: Int) {
                if end > segmentStart {
                    UnsafeMutableRawPointer(text + written).copyMemory(
                        from: base + segmentStart, byteCount: end - segmentStart)
                    written += end - segmentStart
                }
            }
            for offset in 0..<count {
                let byte = base.load(fromByteOffset: offset, as: UInt8.self)
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                copySegment(to: offset)
                segmentStart = offset + 1
                text[written] = UInt8(ascii: "\\")
                switch byte {
                case 0x22:
                    text[written + 1] = UInt8(ascii: "\"")
                    written += 2
                case 0x5C:
                    text[written + 1] = UInt8(ascii: "\\")
                    written += 2
                case 0x0A:
                    text[written + 1] = UInt8(ascii: "n")
                    written += 2
                case 0x0D:
                    text[written + 1] = UInt8(ascii: "r")
                    written += 2
                case 0x09:
                    text[written + 1] = UInt8(ascii: "t")
                    written += 2
                case 0x08:
                    text[written + 1] = UInt8(ascii: "b")
                    written += 2
                case 0x0C:
                    text[written + 1] = UInt8(ascii: "f")
                    written += 2
                default:
                    text[written + 1] = UInt8(ascii: "u")
                    text[written + 2] = UInt8(ascii: "0")
                    text[written + 3] = UInt8(ascii: "0")
                    text[written + 4] = Self.hexDigit(byte >> 4)
                    text[written + 5] = Self.hexDigit(byte & 0xF)
                    written += 6
                }
            }
            copySegment(to: count)
            text[written] = UInt8(ascii: "\"")
            return written + 1
        }
    }

    /// Copies `count` bytes: from 4 to 16 (most keys and short strings) as two overlapping words, each loaded whole
    /// before it is stored, without a call to `memcpy` (guarded by `Stream fpks to JSON lines`).
    @inline(__always)
    static func copy(_ count: Int, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer) {
        if count >= 8 && count <= 16 {
            let first = source.loadUnaligned(as: UInt64.self)
            let last = source.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
            destination.storeBytes(of: first, as: UInt64.self)
            destination.storeBytes(of: last, toByteOffset: count &- 8, as: UInt64.self)
        } else if count >= 4 && count < 8 {
            let first = source.loadUnaligned(as: UInt32.self)
            let last = source.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self)
            destination.storeBytes(of: first, as: UInt32.self)
            destination.storeBytes(of: last, toByteOffset: count &- 4, as: UInt32.self)
        } else {
            destination.copyMemory(from: source, byteCount: count)
        }
    }

    /// Whether any of the `count` bytes at `base` is below 0x20, a quote or a backslash: eight bytes at a time, the
    /// last (or only) word overlapping the one before, so no byte is tested alone.
    @inline(__always)
    static func needsEscape(_ base: UnsafeRawPointer, count: Int) -> Bool {
        @inline(__always) func special(_ word: UInt64) -> Bool {
            // A byte below 0x20, a quote or a backslash, found exactly by these bit tests (carries only ever set bits
            // above a byte that qualifies).
            let quotes = word ^ 0x2222_2222_2222_2222, backslashes = word ^ 0x5C5C_5C5C_5C5C_5C5C
            let found =
                (word &- 0x2020_2020_2020_2020) & ~word
                | (quotes &- 0x0101_0101_0101_0101) & ~quotes
                | (backslashes &- 0x0101_0101_0101_0101) & ~backslashes
            return found & 0x8080_8080_8080_8080 != 0
        }
        if count >= 8 {
            var offset = 0
            while offset &+ 8 <= count {
                if special(base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) { return true }
                offset &+= 8
            }
            return offset < count && special(base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
        }
        // Under eight bytes: two overlapping halves, or single bytes, padded with "A"s (which need no escape).
        var word: UInt64 = 0x4141_4141_4141_4141
        if count >= 4 {
            word =
                UInt64(base.loadUnaligned(as: UInt32.self)) | UInt64(
                    base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)) << 32
        } else {
            for offset in 0..<count { word = word << 8 | UInt64(base.load(fromByteOffset: offset, as: UInt8.self)) }
        }
        return special(word)
    }

    /// The lowercase hex digit of a nibble (computed: a table in a global array was retained on every call).
    @inline(__always)
    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
    }
}
