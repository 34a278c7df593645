/// Finds documents that share a path — two records Firestore would store as one, the later write replacing the
/// earlier — in bounded memory.
///
/// Each path is kept as a 64-bit fingerprint (the standard library's `Hasher`, seeded at random per process, so no
/// input can be made to collide) with the position (record or line) where it was first seen, in an open-addressed
/// table that grows with the input up to `capacity` paths (12 bytes a slot, three quarters full at most: 12 MiB at
/// the default 786,432). Past that, later paths are still checked against those kept, and `saturated` says that the
/// check was partial. A fingerprint match between different paths (63 bits are kept) has a chance of about n²/2⁶⁴
/// (about 5 × 10⁻⁸ at a million documents); it would be reported, never hidden.
package struct DuplicatePaths {
    /// The most paths kept.
    package let capacity: Int
    private var fingerprints: [UInt64]
    private var positions: [UInt32]
    package private(set) var kept = 0
    /// Whether paths were seen after `capacity` were kept (they were checked, not kept).
    package private(set) var saturated = false

    package init(capacity: Int = 3 << 18) {
        self.capacity = capacity
        fingerprints = [UInt64](repeating: 0, count: 1 << 10)
        positions = [UInt32](repeating: 0, count: 1 << 10)
    }

    /// The fingerprint of the path whose UTF-8 bytes are `path`: the same on every thread of the process, so that
    /// worker threads can take it off the thread that checks (`check(fingerprint:at:)`).
    package static func fingerprint(of path: UnsafeRawBufferPointer) -> UInt64 {
        // The path's bytes: paths are equal byte for byte (String's own hashing would equate canonically
        // equivalent spellings, which are two documents to Firestore).
        var hasher = Hasher()
        hasher.combine(bytes: path)
        return UInt64(bitPattern: Int64(hasher.finalize())) | 1  // 0 marks an empty slot
    }

    /// The fingerprint of `path`.
    package static func fingerprint(of path: String) -> UInt64 {
        path.withUTF8Bytes { fingerprint(of: $0) }
    }

    /// Where the path whose fingerprint is `fingerprint` (`fingerprint(of:)`) was first seen when it was seen
    /// before; otherwise remembers it at `position` and returns nil.
    package mutating func check(fingerprint: UInt64, at position: Int) -> Int? {
        let mask = fingerprints.count - 1
        var slot = Int(truncatingIfNeeded: fingerprint >> 1) & mask
        while fingerprints[slot] != 0 {
            if fingerprints[slot] == fingerprint { return Int(positions[slot]) }
            slot = (slot + 1) & mask
        }
        guard kept < capacity else {
            saturated = true
            return nil
        }
        fingerprints[slot] = fingerprint
        positions[slot] = UInt32(clamping: position)
        kept += 1
        if kept * 4 > fingerprints.count * 3 { grow() }
        return nil
    }

    /// Doubles the table (load stays at most three quarters).
    private mutating func grow() {
        let (oldFingerprints, oldPositions) = (fingerprints, positions)
        fingerprints = [UInt64](repeating: 0, count: oldFingerprints.count * 2)
        positions = [UInt32](repeating: 0, count: oldFingerprints.count * 2)
        let mask = fingerprints.count - 1
        for (fingerprint, position) in zip(oldFingerprints, oldPositions) where fingerprint != 0 {
            var slot = Int(truncatingIfNeeded: fingerprint >> 1) & mask
            while fingerprints[slot] != 0 { slot = (slot + 1) & mask }
            fingerprints[slot] = fingerprint
            positions[slot] = position
        }
    }

    /// Checks `path`, seen at `position` (a `unit`: "line" or "record"), and adds a repeat to `report`, naming both
    /// places — the one wording `convert`'s warnings and `validate`'s problems share.
    package mutating func check(_ path: String, at position: Int, unit: String, into report: inout ProblemReport) {
        check(fingerprint: Self.fingerprint(of: path), at: position, unit: unit, into: &report, path: path)
    }

    /// The same for the path whose fingerprint is `fingerprint`, made by `path` when it repeats.
    package mutating func check(
        fingerprint: UInt64, at position: Int, unit: String, into report: inout ProblemReport,
        path: @autoclosure () -> String
    ) {
        guard let first = check(fingerprint: fingerprint, at: position) else { return }
        report.add(
            kind: "repeated document path", "\(unit) \(position) repeats the path of \(unit) \(first): \(path())")
    }

    /// The note that goes with a report when the check was partial.
    package var partialNote: String? {
        saturated
            ? "paths were checked for repeats against the first \(capacity) documents' paths only (later paths were checked, not kept, to bound memory)"
            : nil
    }
}

/// Where a worker thread put a document's path in its batch's `NotedPaths`, with the path's fingerprint.
struct NotedPath {
    var bytes = 0..<0
    var fingerprint: UInt64 = 0
}

/// The paths of a batch's documents, noted by the worker thread that wrote them: their bytes one after another and
/// their fingerprints (`DuplicatePaths.fingerprint(of:)`), so that the thread that checks them for repeats hashes
/// nothing and makes a `String` only for a repeat's message, and no path's memory changes threads.
struct NotedPaths {
    private var text: [UInt8] = []

    /// Notes `path`.
    mutating func note(_ path: String) -> NotedPath {
        path.withUTF8Bytes { bytes in
            let start = text.count
            text.append(contentsOf: bytes)
            return NotedPath(bytes: start..<text.count, fingerprint: DuplicatePaths.fingerprint(of: bytes))
        }
    }

    /// The path noted as `noted`.
    func path(_ noted: NotedPath) -> String { String(decoding: text[noted.bytes], as: UTF8.self) }

    /// Forgets every path, keeping the memory.
    mutating func removeAll() { text.removeAll(keepingCapacity: true) }
}
