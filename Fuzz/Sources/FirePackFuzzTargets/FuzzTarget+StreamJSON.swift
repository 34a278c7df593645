import FirePack
import FirePackInterop
import FirePackStreams

extension FuzzTarget {
    /// `.fpks` to JSON lines by the direct path (`JSONLinesWriter.appendNext(from:)`, each record's fields written as
    /// JSON from its bytes, its times and name member added) against the tree path (`DocumentStreamReader.next()`,
    /// then `write(_:)`), under two namings, keys in order and sorted: the same lines and the same problems; and into
    /// Firestore's REST JSON and protobuf with pending server timestamps given a time, by the record route
    /// (`DocumentConversion`) against the resolved trees. The input is one record's payload, framed here as a
    /// version-2 stream (marker, length, CRC-32), so that every mutation reaches the document's bytes.
    public static let streamJSON = FuzzTarget(
        name: "stream-json", summary: "JSONLinesWriter from stream records: the direct path against the tree path"
    ) { input in
        var check = FuzzCheck(input)
        let stream = framedVersion2(input)
        func convert(direct: Bool, naming: DocumentNaming, options: JSONOptions) -> (lines: [UInt8], problems: [String])? {
            do {
                let reader = try DocumentStreamReader(source: MemorySource(stream), mode: .skipAndReport)
                let sink = MemorySink()
                let writer = JSONLinesWriter(sink, naming: naming, options: options)
                if direct {
                    while try writer.appendNext(from: reader) {}
                } else {
                    while let (_, _, document) = try reader.next() { try writer.write(document) }
                }
                try writer.finish()
                return (sink.bytes, reader.problems.map { "\($0.recordNumber) \($0.offset) \($0.code) \($0.reason)" })
            } catch {
                return nil
            }
        }
        for (idField, options) in [(nil, JSONOptions()), ("id", JSONOptions()), (nil, JSONOptions(sortedKeys: true))] {
            let naming = { DocumentNaming(collection: "c", idField: idField) }
            let direct = convert(direct: true, naming: naming(), options: options)
            let tree = convert(direct: false, naming: naming(), options: options)
            check.expect(
                direct?.lines == tree?.lines,
                "the direct path wrote \(direct.map { String(decoding: $0.lines, as: UTF8.self) } ?? "nothing"), the tree path \(tree.map { String(decoding: $0.lines, as: UTF8.self) } ?? "nothing")")
            check.expect(
                direct?.problems == tree?.problems,
                "the paths report \(direct?.problems ?? []) and \(tree?.problems ?? [])")
            if let problems = tree?.problems, !problems.isEmpty { check.attempt("read") { throw FuzzRejection(problems[0]) } }
        }
        let time = Timestamp(seconds: 1_764_900_000, nanoseconds: 5)
        let sinks: [(String, (MemorySink) -> any DocumentSink)] = [
            ("REST JSON", { FirestoreJSONWriter($0) }), ("protobuf", { FirestoreProtoWriter($0) }),
        ]
        for (format, make) in sinks {
            func resolved(byRecord: Bool) -> [UInt8]? {
                do {
                    let reader = try DocumentStreamReader(source: MemorySource(stream), mode: .skipAndReport)
                    let sink = MemorySink()
                    if byRecord {
                        _ = try DocumentConversion(
                            from: StreamDocuments(reader), to: make(sink), resolvingServerTimestamps: time,
                            checksFirestoreLimits: false
                        ).run()
                    } else {
                        let writer = make(sink)
                        while let (_, _, document) = try reader.next() {
                            try writer.write(document.resolvingServerTimestamps(at: time))
                        }
                        try writer.finish()
                    }
                    return sink.bytes
                } catch {
                    return nil
                }
            }
            let byRecord = resolved(byRecord: true), byTree = resolved(byRecord: false)
            check.expect(byRecord == byTree, "\(format) with server timestamps resolved: the record route wrote \(byRecord?.count ?? -1) bytes, the tree \(byTree?.count ?? -1)")
        }
        return check.outcome
    }

    /// `payload` as the one record of a version-2 stream (Docs/FORMAT.md §8), with its CRC-32 (zlib's; the library's
    /// own is not public API, which is all the fuzz package reaches).
    static func framedVersion2(_ payload: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in payload {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        return DocumentStreamFormat.header(version: 2) + DocumentStreamFormat.syncMarker
            + littleEndian(UInt32(payload.count)) + littleEndian(crc) + payload
    }
}

/// A rejection reported by a reader as a problem rather than thrown.
struct FuzzRejection: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
