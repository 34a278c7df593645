/// What `keyFollowsValue` learned about the containers inside the last value it scanned: for each one that is the
/// value of a key that may begin with `__` (a marker's key, the only kind it is asked about), whether another member of its
/// object follows it. An escape within an escape is asked about after its enclosing escape was scanned, and is
/// answered from here, so that nested escapes cost one scan in all rather than one per level (which made 20 MB of
/// escapes 999 levels deep take seconds where plain objects took milliseconds).
struct ScannedFollows {
    /// Each answer as `offset << 1 | follows`, by increasing offset of the container's opening bracket.
    var answers: [Int] = []
    /// The first answer not yet passed: the parser only moves forward, so the ones before it are not asked again.
    var next = 0
    /// The answer index of each open level of the scan in progress (`-1`: not kept), reused from scan to scan.
    var levels: [Int] = []
    /// The bytes passed by every scan so far: each byte of the input is passed at most once (the tests read it).
    var scannedBytes = 0
}

extension JSONParser {
    /// Whether, after the container value at `start`, another member of the enclosing object follows (a `,`), found
    /// by passing over brackets and strings without reading them (no recursion; linear in the value). Malformed text
    /// reads as "no": the value is then read as an escape's object, which reports the defect.
    ///
    /// The scan keeps the answer for every container in the value that follows a `"__…":` key (or one whose first
    /// characters are escaped), and a later question
    /// about one of them is answered from it; a question the last scan cannot answer starts a new scan there.
    mutating func keyFollowsValue(at start: Int) -> Bool {
        while scannedFollows.next < scannedFollows.answers.count
            && scannedFollows.answers[scannedFollows.next] >> 1 < start
        {
            scannedFollows.next += 1
        }
        if scannedFollows.next < scannedFollows.answers.count,
            scannedFollows.answers[scannedFollows.next] >> 1 == start
        {
            return scannedFollows.answers[scannedFollows.next] & 1 == 1
        }
        scannedFollows.answers.removeAll(keepingCapacity: true)
        scannedFollows.levels.removeAll(keepingCapacity: true)
        scannedFollows.next = 0
        // Levels past twice the depth limit are never asked about (a marker's object opens no level, its value one at
        // most), so their answers are not kept and the scan's memory stays bounded by the limit.
        let keptLevels = 2 * maxDepth + 4
        var cursor = start, open = 0
        // Whether the last string began with `__`, and whether the bytes since its end are whitespace and a `:`.
        var markerKey = false, afterMarkerKey = false
        defer { scannedFollows.scannedBytes += cursor - start }
        while cursor < count {
            let current = byte(cursor)
            switch current {
            case UInt8(ascii: "\""):
                // Spelled with escapes too (`"\u005f_map__"` is a marker's key): kept for any key that may begin `__`.
                let first = byte(cursor + 1), second = byte(cursor + 2)
                markerKey =
                    first == UInt8(ascii: "\\")
                    || (first == UInt8(ascii: "_") && (second == UInt8(ascii: "_") || second == UInt8(ascii: "\\")))
                afterMarkerKey = false
                cursor += 1
                while cursor < count && byte(cursor) != UInt8(ascii: "\"") {
                    cursor += byte(cursor) == UInt8(ascii: "\\") ? 2 : 1
                }
            case UInt8(ascii: ":"):
                afterMarkerKey = markerKey
                markerKey = false
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if open < keptLevels {
                    if open > 0 && afterMarkerKey {
                        scannedFollows.answers.append(cursor << 1)
                        scannedFollows.levels.append(scannedFollows.answers.count - 1)
                    } else {
                        scannedFollows.levels.append(-1)
                    }
                }
                open += 1
                markerKey = false
                afterMarkerKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                open -= 1
                var kept = -1
                if open < keptLevels { kept = scannedFollows.levels.removeLast() }
                if kept >= 0 || open == 0 {
                    var after = cursor + 1
                    while after < count, [0x20, 0x09, 0x0A, 0x0D].contains(byte(after)) { after += 1 }
                    let follows = after < count && byte(after) == UInt8(ascii: ",")
                    if open == 0 {
                        cursor += 1
                        return follows
                    }
                    if follows { scannedFollows.answers[kept] |= 1 }
                }
                markerKey = false
                afterMarkerKey = false
            case 0x20, 0x09, 0x0A, 0x0D:
                break
            default:
                markerKey = false
                afterMarkerKey = false
            }
            cursor += 1
        }
        return false
    }
}
