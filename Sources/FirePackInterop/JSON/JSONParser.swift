import CFirePackSystem  // strtod(3): correctly rounded, no allocation
import FirePack

/// A recursive-descent JSON parser over borrowed bytes, building `Value`s directly.
struct JSONParser {
    let base: UnsafeRawPointer
    let count: Int
    let maxDepth: Int
    let readsMarkers: Bool
    let largeIntegersAsDoubles: Bool
    var index = 0
    /// Reused for strings with escapes.
    var scratch: [UInt8] = []
    /// What `keyFollowsValue` found for the containers inside the last value it scanned (JSONParser+KeyFollows.swift).
    var scannedFollows = ScannedFollows()

    init(
        base: UnsafeRawPointer, count: Int, maxDepth: Int, readsMarkers: Bool = true,
        largeIntegers: JSONOptions.LargeIntegers = .reject
    ) {
        self.base = base
        self.count = count
        self.maxDepth = maxDepth
        self.readsMarkers = readsMarkers
        largeIntegersAsDoubles = largeIntegers == .asDoubles
    }

    /// The byte at `offset`, or `0` when `offset` lies outside the input.
    ///
    /// Every read of the input goes through here, so no grammar rule can read out of bounds, however it checks (or
    /// forgets to check) `index < count` first. NUL never starts or continues a JSON token and is rejected inside
    /// strings as a control character, so a rule that sees the `0` of the end throws; rules that report truncation
    /// check `index < count` themselves. The check costs nothing measurable: the loops already compare against
    /// `count` and the optimizer merges the two.
    @inline(__always) func byte(_ offset: Int) -> UInt8 {
        guard offset >= 0 && offset < count else { return 0 }
        return base.load(fromByteOffset: offset, as: UInt8.self)
    }

    func fail(_ message: String, at offset: Int? = nil) -> FirePackError {
        FirePackError(.invalidJSON, offset: offset ?? index, message)
    }

    /// The error for a container one level past `maxDepth`, reported at its opening bracket.
    func depthLimitExceeded(at offset: Int) -> FirePackError {
        FirePackError(.depthLimitExceeded, offset: offset, "arrays and objects nested deeper than \(maxDepth)")
    }

    /// "unexpected character 'N'", with the way to write it when it starts a literal JSON has not got (NaN,
    /// Infinity: a double FirePack keeps exactly is written `{"__double__": "NaN"}`), and control bytes escaped.
    func unexpectedCharacter() -> FirePackError {
        let byte = self.byte(index)
        let shown =
            byte < 0x20 || byte >= 0x7F
            ? "byte 0x" + String(byte, radix: 16, uppercase: true) : "'\(Unicode.Scalar(byte))'"
        var message = "unexpected character \(shown)"
        for literal in ["NaN", "Infinity", "-Infinity"] where matches(literal) {
            message += "; JSON has no \(literal): write {\"__double__\": \"\(literal)\"} for FirePack's exact double"
        }
        return fail(message)
    }

    /// Whether the text at the cursor starts with `literal`.
    func matches(_ literal: String) -> Bool {
        literal.utf8.enumerated().allSatisfy { byte(index + $0.offset) == $0.element }
    }

    mutating func parseDocument() throws(FirePackError) -> Value {
        // A UTF-8 byte order mark may precede the text (RFC 8259 §8.1 lets a parser ignore it).
        if count >= 3 && byte(0) == 0xEF && byte(1) == 0xBB && byte(2) == 0xBF { index = 3 }
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == count else { throw FirePackError(.trailingBytes, offset: index, "text follows the JSON value") }
        return value
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < count {
            switch byte(index) {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(FirePackError) -> Value {
        guard index < count else { throw FirePackError(.truncated, offset: index, "input ends where a value belongs") }
        switch byte(index) {
        case UInt8(ascii: "{"):
            // An object that may be a marker is entered at its parent's depth: a marker is a scalar, no container.
            if readsMarkers && firstKeyMayBeMarker() {
                return try parseObject(depth: depth, readsMarkers: true, possibleMarker: true)
            }
            return try parseObject(depth: depth + 1, readsMarkers: readsMarkers)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .boolean(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .boolean(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw unexpectedCharacter()
        }
    }

    mutating func expectLiteral(_ literal: StaticString) throws(FirePackError) {
        let length = literal.utf8CodeUnitCount
        guard count - index >= length, ByteComparison.equal(base + index, literal.utf8Start, count: length) else {
            throw fail("invalid literal (expected \(literal))")
        }
        index += length
    }

    /// The error for a key that appears twice in one object, at the repeat's key (both parsers, tree and transcoder).
    func duplicateKey(_ key: String, at offset: Int) -> FirePackError {
        FirePackError(.duplicateKey, offset: offset, "key \(key.debugDescription) appears twice in one object")
    }

    /// The error for an array at `start` with more elements than readers take (Docs/FORMAT.md §6).
    static func tooManyElements(at start: Int) -> FirePackError {
        FirePackError(
            .limitExceeded, offset: start,
            "an array of more than \(ReaderLimits.default.maxElementCount) elements (the readers' limit, Docs/FORMAT.md §6)"
        )
    }

    /// Parses an array; with `marker`, the array is that marker's payload (a geopoint's or a vector's numbers): it
    /// may lie one level past the depth limit, as the marker stands for a scalar in the deepest container, and holds
    /// numbers and markers of scalars (`{"__double__": "NaN"}`), no array and no marker holding one, so that payloads
    /// cannot nest.
    mutating func parseArray(depth: Int, payloadOf marker: String? = nil) throws(FirePackError) -> Value {
        guard depth <= maxDepth || (marker != nil && depth == maxDepth + 1) else {
            throw depthLimitExceeded(at: index)
        }
        let start = index
        index += 1
        var elements: [Value] = []
        skipWhitespace()
        if index < count && byte(index) == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            do throws(FirePackError) {
                if let marker, byte(index) == UInt8(ascii: "[") {
                    throw FirePackError(.invalidJSON, offset: index, "\(marker) marker: its array holds no array")
                } else if marker != nil, byte(index) == UInt8(ascii: "{") {
                    elements.append(try parseObject(depth: depth, readsMarkers: readsMarkers, scalarsOnlyIn: marker))
                } else {
                    elements.append(try parseValue(depth: depth))
                }
            } catch {
                throw error.prefixingPath(with: .index(elements.count))
            }
            // The readers' element limit, checked as the array grows (not once it is all in memory).
            if elements.count > ReaderLimits.default.maxElementCount { throw Self.tooManyElements(at: start) }
            skipWhitespace()
            guard index < count else { throw FirePackError(.truncated, offset: index, "input ends inside an array") }
            let separator = byte(index)
            index += 1
            if separator == UInt8(ascii: "]") { return .array(elements) }
            guard separator == UInt8(ascii: ",") else { throw fail("expected ',' or ']' in an array", at: index - 1) }
        }
    }

    /// Parses an object; `readsMarkers` is false for the payload of a `__map__` escape, which is a map whatever its key.
    ///
    /// With `possibleMarker` (its first key may be a marker's), `depth` is its parent's: a marker stands for a scalar
    /// (or, `__map__`, for the one map it escapes, counted where that map opens), so a geopoint, a vector or an
    /// escaped map in the deepest container FirePack allows reads back. Once another key, or a key no marker has,
    /// shows the object to be a map, it counts its level, and one past the limit is refused at its `{`.
    ///
    /// With `scalarsOnlyIn` (an element of that marker's payload array, which may lie one past the limit), each of its
    /// values must be a scalar: it reads as a marker of a scalar or is refused, and opens nothing.
    mutating func parseObject(
        depth: Int, readsMarkers: Bool, possibleMarker: Bool = false, scalarsOnlyIn payload: String? = nil
    ) throws(FirePackError) -> Value {
        guard depth <= maxDepth || payload != nil else {
            throw depthLimitExceeded(at: index)
        }
        let objectStart = index
        var depth = depth, possibleMarker = possibleMarker
        index += 1
        var map = MapValue()
        // Whether the first value was read as an escape's object (`{"__map__": {…}}` with no other key).
        var escaped = false
        skipWhitespace()
        if index < count && byte(index) == UInt8(ascii: "}") {
            index += 1
            return .map(map)
        }
        while true {
            skipWhitespace()
            let keyOffset = index
            guard index < count else { throw FirePackError(.truncated, offset: index, "input ends inside an object") }
            guard byte(index) == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            guard index < count, byte(index) == UInt8(ascii: ":") else { throw fail("expected ':' after a key") }
            index += 1
            skipWhitespace()
            // Before the value, as the transcoder's writer finds it: which of two defects is reported is one rule.
            guard map[key] == nil else { throw duplicateKey(key, at: keyOffset) }
            // Whether another key follows a container value is found by passing over its brackets and strings first
            // (`keyFollowsValue`), so that the value is read once, as what it is (reading it both ways, level within
            // level, doubled the time per level); the scan keeps its answers for the marker values nested inside, so
            // escapes within escapes are scanned once in all.
            let opensContainer = index < count && (byte(index) == UInt8(ascii: "{") || byte(index) == UInt8(ascii: "["))
            // Whether another key follows this value, found once at most (a scan of the value).
            var follows: Bool?
            func keyFollows() -> Bool {
                if follows == nil { follows = keyFollowsValue(at: index) }
                return follows!
            }
            if let payload, opensContainer {
                throw FirePackError(
                    .invalidJSON, offset: index, "\(payload) marker: an element of its array holds a container")
            }
            // Only an escape (`__map__`) holds an object: under any other marker key an object counts its level, so
            // that objects under marker keys cannot nest without limit (such a marker is refused once read).
            if possibleMarker
                && (!map.isEmpty || !JSONMarker.all.contains(key)
                    || (key != JSONMarker.map && index < count && byte(index) == UInt8(ascii: "{"))
                    || (opensContainer && keyFollows()))
            {
                // A map after all: it counts its level.
                possibleMarker = false
                depth += 1
                guard depth <= maxDepth else {
                    throw depthLimitExceeded(at: objectStart)
                }
            }
            var value: Value
            do throws(FirePackError) {
                let escapedMap =
                    readsMarkers && map.isEmpty && key == JSONMarker.map && index < count
                    && byte(index) == UInt8(ascii: "{")
                if escapedMap && (possibleMarker || !keyFollows()) {
                    // An escape: `{"__map__": {…}}` and no other key; the map it holds opens a level.
                    value = try parseObject(depth: possibleMarker ? depth + 1 : depth, readsMarkers: false)
                    escaped = true
                } else if possibleMarker && index < count && byte(index) == UInt8(ascii: "[") {
                    value = try parseArray(depth: depth + 1, payloadOf: key)
                } else {
                    value = try parseValue(depth: depth)
                }
            } catch {
                throw error.prefixingPath(with: .key(key))
            }
            map[key] = value
            skipWhitespace()
            guard index < count else { throw FirePackError(.truncated, offset: index, "input ends inside an object") }
            let separator = byte(index)
            index += 1
            if separator == UInt8(ascii: "}") { break }
            guard separator == UInt8(ascii: ",") else { throw fail("expected ',' or '}' in an object", at: index - 1) }
        }
        guard readsMarkers, map.keys.first?.utf8.first == UInt8(ascii: "_") else { return .map(map) }
        if map.count == 1, escaped || JSONMarker.all.contains(map.keys[0]) {
            return try MarkerPayloads.decode(marker: map.keys[0], payload: map.values[0], at: index - 1)
        }
        return .map(map)
    }

    /// Where a scanned string's UTF-8 bytes are: in the input (no escapes) or, unescaped, in `scratch`.
    enum ScannedString {
        case inInput(start: Int, count: Int)
        case inScratch
    }

    /// Parses a string starting at its opening quote.
    mutating func parseString() throws(FirePackError) -> String {
        switch try scanString() {
        case .inInput(let start, let length):
            String(decoding: UnsafeRawBufferPointer(start: base + start, count: length), as: UTF8.self)
        case .inScratch: String(decoding: scratch, as: UTF8.self)
        }
    }

    /// Scans a string starting at its opening quote, checking its escapes and UTF-8, and moves past it: strings without
    /// escapes stay in the input, others are unescaped into `scratch`.
    mutating func scanString() throws(FirePackError) -> ScannedString {
        let start = index + 1
        // Fast path: no escapes. Eight bytes at a time up to the first byte that ends the fast path (a quote, a
        // backslash, a control character), then byte by byte from there (and for the last bytes of the input); the
        // high bits of the bytes passed, kept, say whether the string is ASCII and needs no UTF-8 check.
        var high: UInt64 = 0
        var cursor = plainRunEnd(from: start, high: &high)
        while cursor < count {
            let current = byte(cursor)
            high |= UInt64(current)
            if current == UInt8(ascii: "\"") {
                if high & 0x8080_8080_8080_8080 != 0 { try validate(start: start, count: cursor - start) }
                index = cursor + 1
                return .inInput(start: start, count: cursor - start)
            }
            if current == UInt8(ascii: "\\") { break }
            if current < 0x20 { throw fail("unescaped control character in a string", at: cursor) }
            cursor += 1
        }
        guard cursor < count else { throw FirePackError(.truncated, offset: index, "input ends inside a string") }
        try unescapeString(from: start, firstEscape: cursor)
        return .inScratch
    }

    /// Where the plain run of string bytes starting at `start` ends, found eight bytes at a time: at the first byte
    /// that may be a quote, a backslash or a control character, or at the first of the input's last bytes too few
    /// to load as a word (the caller goes on byte by byte from there). `high` gains the high bits of the bytes
    /// passed: non-zero when one of them was not ASCII.
    @inline(__always) func plainRunEnd(from start: Int, high: inout UInt64) -> Int {
        var cursor = start
        while cursor &+ 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: cursor, as: UInt64.self)
            let ends = Self.plainStringEnds(word)
            if ends != 0 {
                let passed = ends.trailingZeroBitCount >> 3
                high |= word & ((1 &<< UInt64(passed &* 8)) &- 1)
                return cursor &+ passed
            }
            high |= word
            cursor &+= 8
        }
        return cursor
    }

    /// The bytes of `word` (loaded little-endian) that may be a quote, a backslash or a control character (below
    /// 0x20), each as its high bit; 0 when none is. The lowest byte flagged is exact — bytes above it may be flagged
    /// wrongly — so it is the first such byte (the zero-byte test of Hacker's Delight §6-1, on `word` XOR the byte
    /// sought; bytes of 0x80 and above, their high bit set, are never flagged).
    @inline(__always) static func plainStringEnds(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let flagged = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
        return flagged & 0x8080_8080_8080_8080
    }

    func validate(start: Int, count: Int) throws(FirePackError) {
        if let bad = UTF8Validator.firstInvalidOffset(in: UnsafeRawBufferPointer(start: base + start, count: count)) {
            throw FirePackError(.invalidUTF8, offset: start + bad, "string is not valid UTF-8")
        }
    }

    /// Unescapes a string whose content starts at `start` into `scratch` and moves past its closing quote; the fast
    /// path has already scanned up to the first escape at `firstEscape` (no quote, no control character before it), so
    /// scanning resumes there.
    mutating func unescapeString(from start: Int, firstEscape: Int) throws(FirePackError) {
        scratch.removeAll(keepingCapacity: true)
        var cursor = firstEscape
        var segmentStart = start
        while true {
            guard cursor < count else { throw FirePackError(.truncated, offset: index, "input ends inside a string") }
            let current = byte(cursor)
            if current == UInt8(ascii: "\"") || current == UInt8(ascii: "\\") {
                try validate(start: segmentStart, count: cursor - segmentStart)
                scratch.append(
                    contentsOf: UnsafeRawBufferPointer(start: base + segmentStart, count: cursor - segmentStart))
                if current == UInt8(ascii: "\"") {
                    index = cursor + 1
                    return
                }
                cursor = try appendEscape(at: cursor)
                segmentStart = cursor
                continue
            }
            if current < 0x20 { throw fail("unescaped control character in a string", at: cursor) }
            cursor += 1
        }
    }

    /// Decodes the escape at `offset` (its backslash) into `scratch`; returns the offset after it.
    mutating func appendEscape(at offset: Int) throws(FirePackError) -> Int {
        guard offset + 1 < count else { throw FirePackError(.truncated, offset: offset, "input ends inside an escape") }
        let simple: UInt8?
        switch byte(offset + 1) {
        case UInt8(ascii: "\""): simple = 0x22
        case UInt8(ascii: "\\"): simple = 0x5C
        case UInt8(ascii: "/"): simple = 0x2F
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"): simple = nil
        default: throw fail("invalid escape", at: offset)
        }
        if let simple {
            scratch.append(simple)
            return offset + 2
        }
        var scalar = try hex4(at: offset + 2)
        var next = offset + 6
        if scalar >= 0xD800 && scalar < 0xDC00 {
            guard next + 6 <= count, byte(next) == UInt8(ascii: "\\"), byte(next + 1) == UInt8(ascii: "u") else {
                throw FirePackError(.invalidUTF8, offset: offset, "unpaired surrogate escape")
            }
            let low = try hex4(at: next + 2)
            guard low >= 0xDC00 && low < 0xE000 else {
                throw FirePackError(.invalidUTF8, offset: offset, "unpaired surrogate escape")
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            next += 6
        } else if scalar >= 0xDC00 && scalar < 0xE000 {
            throw FirePackError(.invalidUTF8, offset: offset, "unpaired surrogate escape")
        }
        scratch.append(contentsOf: Array(String(Unicode.Scalar(scalar)!).utf8))
        return next
    }

    func hex4(at offset: Int) throws(FirePackError) -> UInt32 {
        guard offset + 4 <= count else {
            throw FirePackError(.truncated, offset: offset, "input ends inside a \\u escape")
        }
        var value: UInt32 = 0
        for position in offset..<offset + 4 {
            let digit = byte(position)
            let nibble: UInt8
            switch digit {
            case 0x30...0x39: nibble = digit - 0x30
            case 0x41...0x46: nibble = digit - 0x37
            case 0x61...0x66: nibble = digit - 0x57
            default: throw fail("invalid \\u escape", at: position)
            }
            value = value << 4 | UInt32(nibble)
        }
        return value
    }

    mutating func parseNumber() throws(FirePackError) -> Value {
        guard index < count else { throw FirePackError(.truncated, offset: index, "input ends where a number belongs") }
        let start = index
        var cursor = index
        let negative = byte(cursor) == UInt8(ascii: "-")
        if negative { cursor += 1 }
        guard cursor < count, isDigit(byte(cursor)) else { throw fail("expected a digit", at: cursor) }
        var integer: Int64 = 0
        var overflow = false
        // Whether a digit other than 0 was read: a number that reads as 0 without being 0 was too small for a double.
        var nonzero = byte(cursor) != UInt8(ascii: "0")
        if byte(cursor) == UInt8(ascii: "0") {
            cursor += 1
        } else {
            while cursor < count, isDigit(byte(cursor)) {
                let digit = Int64(byte(cursor) - 0x30)
                let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
                let (sum, o2) =
                    negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
                overflow = overflow || o1 || o2
                integer = sum
                cursor += 1
            }
        }
        var isInteger = true
        // A fraction's digits go on the integer's as one mantissa, counting significant digits as `clingerDouble`
        // does: with no exponent after them, its reading in the same pass (`exactDecimal`).
        var mantissa = integer.magnitude
        var significant = integer == 0 ? 0 : cursor - start - (negative ? 1 : 0)
        var fractionDigits = 0
        if cursor < count && byte(cursor) == UInt8(ascii: ".") {
            isInteger = false
            cursor += 1
            guard cursor < count, isDigit(byte(cursor)) else { throw fail("expected a digit after '.'", at: cursor) }
            while cursor < count, isDigit(byte(cursor)) {
                let digit = UInt64(byte(cursor) &- 0x30)
                if mantissa != 0 || digit != 0 { significant += 1 }
                if digit != 0 { nonzero = true }
                mantissa = mantissa &* 10 &+ digit
                fractionDigits += 1
                cursor += 1
            }
        }
        if cursor < count && (byte(cursor) | 0x20) == UInt8(ascii: "e") {
            isInteger = false
            significant = .max  // an exponent: read by `parseDouble`
            cursor += 1
            if cursor < count && (byte(cursor) == UInt8(ascii: "+") || byte(cursor) == UInt8(ascii: "-")) {
                cursor += 1
            }
            guard cursor < count, isDigit(byte(cursor)) else {
                throw fail("expected a digit in the exponent", at: cursor)
            }
            while cursor < count, isDigit(byte(cursor)) { cursor += 1 }
        }
        index = cursor
        // `-0` is the double −0.0, as Firestore's JavaScript SDK stores it (an integer has no −0): its sign is kept.
        if isInteger && !overflow { return negative && integer == 0 ? .double(-0.0) : .integer(integer) }
        if !isInteger && !overflow && significant <= 19,
            let double = Self.exactDecimal(mantissa, exponent: -fractionDigits, negative: negative)
        {
            return .double(double)
        }
        if isInteger && !largeIntegersAsDoubles {
            let digits = String(
                decoding: UnsafeRawBufferPointer(start: base + start, count: cursor - start), as: UTF8.self)
            throw fail(
                "integer \(digits) is outside Int64, Firestore's integer range (read it as a double only if losing digits is acceptable)",
                at: start)
        }
        let double = parseDouble(start: start, count: cursor - start)
        guard double.isFinite else { throw fail("number out of the range of a double", at: start) }
        // Rounded to zero, a number such as 1E-400 would be read as 0 without a word: refused, as one too large is.
        guard double != 0 || !nonzero else {
            throw fail("number too small for a double, below 4.9E-324 (it would read as 0)", at: start)
        }
        return .double(double)
    }

    @inline(__always) func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    /// Correctly rounded decimal-to-binary conversion (strtod in the C locale) without a heap allocation: the
    /// Clinger fast path where it applies (`JSONNumberTests` compares both on random decimals), else strtod.
    func parseDouble(start: Int, count length: Int) -> Double {
        if let double = Self.clingerDouble(base + start, count: length) { return double }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
            UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: base + start, byteCount: length)
            buffer[length] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }

    /// The powers of ten a double holds exactly: 10^0 … 10^22.
    static let exactPowersOfTen: [Double] = (0...22).map { power in
        (0..<power).reduce(1.0) { product, _ in product * 10 }
    }

    /// The JSON number `text` (already checked: sign, digits, fraction, exponent) by the fast path of Clinger, "How
    /// to Read Floating Point Numbers Accurately" (PLDI 1990): when its digits form an integer m ≤ 2^53 and its
    /// decimal exponent e is within ±22, both m and 10^|e| are exact doubles and one IEEE multiplication or division
    /// gives the correctly rounded result — strtod's, bit for bit. nil when it does not apply. Prices, coordinates
    /// and most JSON doubles take it (Docs/FORMAT.md's appendix on decimal doubles).
    static func clingerDouble(_ text: UnsafeRawPointer, count: Int) -> Double? {
        var index = 0
        let negative = text.load(as: UInt8.self) == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var inFraction = false
        while index < count {
            let byte = text.load(fromByteOffset: index, as: UInt8.self)
            if byte == UInt8(ascii: ".") {
                inFraction = true
            } else if byte &- 0x30 < 10 {
                // Leading zeros cost nothing; 19 digits cannot overflow a UInt64.
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                guard digits <= 19 else { return nil }
                mantissa = mantissa &* 10 &+ UInt64(byte &- 0x30)
                if inFraction { exponent -= 1 }
            } else {
                break
            }
            index += 1
        }
        if index < count {
            // An exponent: e or E, a sign, then digits (more than four cannot be within ±22 with ≤ 19 digits).
            index += 1
            var sign = 1
            let first = text.load(fromByteOffset: index, as: UInt8.self)
            if first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
                if first == UInt8(ascii: "-") { sign = -1 }
                index += 1
            }
            guard count - index <= 4 else { return nil }
            var value = 0
            while index < count {
                value = value * 10 + Int(text.load(fromByteOffset: index, as: UInt8.self) &- 0x30)
                index += 1
            }
            exponent += sign * value
        }
        return exactDecimal(mantissa, exponent: exponent, negative: negative)
    }

    /// ±`mantissa` · 10^`exponent` when both factors are exact doubles (a mantissa up to 2^53, an exponent within
    /// ±22): one correctly rounded multiplication or division, Clinger's fast path. nil otherwise.
    @inline(__always)
    static func exactDecimal(_ mantissa: UInt64, exponent: Int, negative: Bool) -> Double? {
        guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        let magnitude =
            exponent < 0
            ? Double(mantissa) / exactPowersOfTen[-exponent] : Double(mantissa) * exactPowersOfTen[exponent]
        return negative ? -magnitude : magnitude
    }
}
