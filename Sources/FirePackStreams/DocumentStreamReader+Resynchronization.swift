import FirePack

// Finding the next unit after damage: the search for a sync marker (Docs/FORMAT.md §8, "A damaged record costs only
// itself") and the marker tests it and the readers share.
extension DocumentStreamReader {
    /// Moves to the next sync marker after the current position whose record header is plausible; returns whether
    /// one was found (otherwise the stream is consumed). In a closed version-3 stream file whose index is usable, the
    /// next unit is the next one the index lists: a marker found by searching may lie inside a block's payload (a
    /// document holding a stream, stored as it is), whose records no writer wrote.
    @discardableResult
    func resynchronize() throws -> Bool {
        start += 1
        // A listed unit whose marker is gone is damaged too: reported, and the next listed one is tried (searching
        // from inside it could land in its payload).
        while let target = try listedUnit(atOrAfter: bufferOffset + start) {
            switch try skip(to: target) {
            case .unit: return true
            case .pastEnd: return try continueResynchronizing()
            case .noMarker:
                try report(target, .badSyncMarker, "no sync marker where the stream's index lists a block")
                start += 1
            }
        }
        return try continueResynchronizing()
    }

    /// What `skip(to:)` found at its target.
    enum SkipOutcome {
        case unit, noMarker, pastEnd
    }

    /// Moves ahead to stream offset `target`, reading and dropping the bytes before it a chunk at a time; says whether
    /// a unit's marker starts there, or the stream ends before it (the reader is then at its end).
    func skip(to target: Int) throws -> SkipOutcome {
        while bufferOffset + end < target + 4 && !sourceEnded {
            // Every buffered byte before the target is dropped; the buffer never grows for the bytes passed over.
            start = bufferOffset + end <= target ? end : target - bufferOffset
            try fill(atLeast: Swift.min(target + 4 - (bufferOffset + start), 1 << 16))
        }
        guard bufferOffset + end >= target + 4 else {
            start = end
            return .pastEnd
        }
        start = target - bufferOffset
        return startsUnit(at: start) ? .unit : .noMarker
    }

    /// Scans from `start` for the next marker (see `resynchronize()`); `resynchronizing` stays set while it waits for
    /// bytes, so that a source that throws for want of them (an asynchronous one) resumes the scan, not the record.
    @discardableResult
    func continueResynchronizing() throws -> Bool {
        resynchronizing = true
        while true {
            var index = start
            while index + 4 <= end {
                if matchesMarker(at: index) || (version >= 2 && matchesCloseMarker(at: index))
                    || (version >= 3 && matchesIndexMarker(at: index))
                {
                    start = index
                    searchLanding = bufferOffset + index
                    resynchronizing = false
                    return true
                }
                index += 1
            }
            // Keep the last three bytes: a marker may straddle the chunk boundary.
            start = max(start, end - 3)
            if sourceEnded {
                start = end
                resynchronizing = false
                return false
            }
            try fill(atLeast: end - start + 1)
        }
    }

    /// Whether a block, an index or a close record starts at `index` (its four marker bytes are buffered).
    func startsUnit(at index: Int) -> Bool {
        matchesMarker(at: index) || matchesCloseMarker(at: index) || matchesIndexMarker(at: index)
    }

    @inline(__always)
    func matchesMarker(at index: Int) -> Bool {
        storage.loadUnaligned(fromByteOffset: index, as: UInt32.self) == UInt32(littleEndian: 0x1E52_50F3)
    }

    /// Whether the bytes from `index` to the end of the stream, fewer than a record header, are the start of a
    /// marker the version has: a torn record, where any other bytes are no record at all (FORMAT.md §8, "A tail
    /// shorter than a record header"). Markers differ only in their fourth byte, and the close and index markers
    /// are matched before this is asked.
    func startsMarker(at index: Int) -> Bool {
        let marker: [UInt8] = [0xF3, 0x50, 0x52, 0x1E]
        for offset in 0..<Swift.min(end - index, 4) where byte(index + offset) != marker[offset] { return false }
        return true
    }

    @inline(__always)
    func matchesCloseMarker(at index: Int) -> Bool {
        end - index >= 4
            && storage.loadUnaligned(fromByteOffset: index, as: UInt32.self) == UInt32(littleEndian: 0x4552_50F3)
    }

    @inline(__always)
    func matchesIndexMarker(at index: Int) -> Bool {
        end - index >= 4
            && storage.loadUnaligned(fromByteOffset: index, as: UInt32.self) == UInt32(littleEndian: 0x4952_50F3)
    }

    @inline(__always)
    func load32(at index: Int) -> UInt32 {
        UInt32(littleEndian: storage.loadUnaligned(fromByteOffset: index, as: UInt32.self))
    }
}
