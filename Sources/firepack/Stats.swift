import ArgumentParser
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// `firepack stats FILE`: what the data is made of, and what it costs in each format.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count values and bytes per type, key reuse and depth; compare sizes with minified JSON and gzip.",
        discussion: """
            Byte shares are measured on the FirePack encoding (keys, container headers and the key table counted
            apart). For streams, every document is counted.

            Examples:
              firepack stats Fixtures/books.json
              firepack stats export.fpks.gz
            """
    )

    @OptionGroup var input: InputOptions

    var file: String { input.file }

    func run() throws {
        let (format, gzip) = try input.format()
        var census = Census()
        let packedGzip = CountingSink(), packed = CountingSink()
        // JSON text is counted, not kept.
        var jsonBytes = 0
        let gzipSink = try GzipSink(packedGzip)
        func add(_ value: Value) throws {
            let bytes = value.firePackBytes()
            try census.measure(bytes)
            try bytes.withUnsafeBytes {
                try packed.write($0)
                try gzipSink.write($0)
            }
            let text = try value.jsonBytes(
                options: JSONOptions(), maxLength: JSONTextLimits.value, what: "the value")
            jsonBytes += text.count
        }
        // A value read from its bytes (a `.fpk` file's, a stream record's fields): the measures `add` takes of a tree,
        // in memory for the bytes and the text, not for a tree of them (Docs/SAFETY.md).
        let valueWriter = FirePackWriter()
        var valuesPastTextLimit = 0
        func addValue(reading reader: inout FirePackReader) throws {
            try valueWriter.write(reader.peekValueView())
            try valueWriter.withUnsafeWrittenBytes { bytes in
                try census.measure(bytes)
                try packed.write(bytes)
                try gzipSink.write(bytes)
            }
            valueWriter.clear()
            // Its text is counted, not held, and up to what FirePack's JSON readers take for one document: keys
            // repeated by reference make text without bound from small bytes (184 KB once made 2 GB of text).
            do {
                jsonBytes += try JSONTranscoding.jsonLength(
                    reading: &reader, options: JSONOptions(), maxLength: JSONTextLimits.document, what: "the value")
            } catch let error as FirePackError where error.code == .limitExceeded {
                // The bytes were checked before: only the text's length is past a limit.
                valuesPastTextLimit += 1
            }
        }
        func addFields(of payload: UnsafeRawBufferPointer, limits: ReaderLimits) throws {
            var fields: FirePackReader?
            _ = try Document.scanRecord(payload, limits: limits) { reader throws(FirePackError) in
                fields = reader
                try reader.skipValue()
            }
            try addValue(reading: &fields!)
        }
        var documents = 0, damaged = 0, missingPlaces = 0
        var pastExpansion = (blocks: 0, needed: 0)
        var total: Int?
        do {
            if format.isStream {
                let source = try Files.source(file, gzip: gzip, format: format)
                let input = try format.documentInput(
                    source, file: file,
                    naming: DocumentNaming(collection: Convert.defaultCollection(file), idField: nil),
                    maxBlockExpansion: self.input.streamLimits.blockExpansion,
                    limits: self.input.streamLimits.readerLimits)
                if let stream = (input as? StreamInput)?.reader {
                    // Measured from each record's bytes, as `validate` checks them: memory for one record, not for
                    // a tree of it (Docs/SAFETY.md).
                    while let (record, _) = try stream.nextCheckedRecord() {
                        try addFields(of: record.payload, limits: stream.limits)
                        documents += 1
                    }
                } else {
                    while let document = try input.next() {
                        try add(.map(document.fields))
                        documents += 1
                    }
                }
                (input as? StreamInput)?.reportNotClosed(done: "measured")
                (input as? StreamInput)?.reportDamageThatLosesNothing()
                damaged = input.problemCount
                missingPlaces = input.missingRecordPlaces
                pastExpansion = input.pastExpansion
                total = input.closedRecordCount
            } else if format == .fpk {
                // Every byte checked first, as `validate` checks it (the copy below reads lazily), then measured from
                // the bytes: a file of packed rows is a tree of over 100 bytes per byte.
                let bytes = try StandardStreams.read(file, gzip: gzip)
                try bytes.withUnsafeBytes { raw throws in
                    let limits = self.input.streamLimits.readerLimits
                    try FirePackReader.verify(fileBytes: raw, limits: limits)
                    var reader = try FirePackReader(fileBytes: raw, limits: limits)
                    try addValue(reading: &reader)
                }
            } else {
                try add(format.readValue(StandardStreams.read(file, gzip: gzip), file: file))
            }
        } catch let error as FirePackError {
            throw CommandFailure.data(file, error)
        }
        try gzipSink.finish()
        try StandardStreams.printChecked(
            report(
                format: format, documents: documents, census: census,
                sizes: (packed.count, packedGzip.count, jsonBytes),
                valuesPastTextLimit: valuesPastTextLimit,
                damaged: damaged, missingPlaces: missingPlaces,
                pastExpansion: pastExpansion.blocks, total: total))
        // Damage is reported as validate reports it (and counted in the first line above), never passed over.
        if damaged > 0 {
            let summary = problemSummary(
                damaged, missingPlaces: missingPlaces, pastExpansion: pastExpansion.blocks, records: (documents, total))
            let advice = expansionAdvice(pastExpansion) ?? "firepack validate says which and why"
            throw CommandFailure(message: "\(file): \(summary), left out of these figures; \(advice)")
        }
    }

    func report(
        format: FileFormat, documents: Int, census: Census, sizes: (packed: Int, gzip: Int, json: Int),
        valuesPastTextLimit: Int = 0,
        damaged: Int = 0,
        missingPlaces: Int = 0, pastExpansion: Int = 0, total: Int? = nil
    ) -> String {
        let summary = problemSummary(
            damaged, missingPlaces: missingPlaces, pastExpansion: pastExpansion, records: (documents, total))
        let damage = damaged > 0 ? ", \(summary), left out" : ""
        var lines = ["\(file): \(format.rawValue)\(format.isStream ? ", \(documents) documents\(damage)" : "")", ""]
        func column(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        lines.append("type            " + column("values", 10) + column("bytes", 13) + column("share", 8))
        let total = max(census.bytes.reduce(0, +), 1)
        for (name, count, bytes) in census.rows {
            let count = count.map(String.init) ?? ""
            let share = String(format: "%.1f%%", 100 * Double(bytes) / Double(total))
            lines.append(
                name.padding(toLength: 16, withPad: " ", startingAt: 0) + column(count, 10) + column(String(bytes), 13)
                    + column(share, 8))
        }
        lines.append("")
        let distinct = census.distinctKeys.count
        let reuse =
            distinct == 0 ? "" : String(format: " (%.1f uses each)", Double(census.keyOccurrences) / Double(distinct))
        let estimated = census.distinctKeys.isEstimate ? "about " : ""
        let note =
            census.distinctKeys.isEstimate
            ? "; estimated past \(census.distinctKeys.exactLimit) distinct keys, ±1%" : ""
        lines.append("keys: \(census.keyOccurrences) written, \(estimated)\(distinct) distinct\(reuse)\(note)")
        lines.append("deepest nesting: \(census.maxDepth)")
        lines.append("")
        lines.append(String(format: "FirePack        %11d bytes", sizes.packed))
        lines.append(String(format: "FirePack + gzip %11d bytes", sizes.gzip))
        if valuesPastTextLimit > 0 {
            // Not measured past the limit: a lower bound, and why.
            let lowerBound = sizes.json + valuesPastTextLimit * JSONTextLimits.document
            let which = format.isStream ? "record(s)" : "value"
            let beyond =
                format.isStream
                ? "each, the most FirePack's JSON readers take for one document"
                : "(stats measures that much of one value; firepack convert writes it)"
            lines.append(
                "minified JSON   more than \(lowerBound) bytes: \(valuesPastTextLimit) \(which) of more than "
                    + "\(JSONTextLimits.document) bytes of JSON text \(beyond)")
        } else {
            lines.append(
                String(
                    format: "minified JSON   %11d bytes  (FirePack is %.1f%% of it)", sizes.json,
                    100 * Double(sizes.packed) / Double(max(sizes.json, 1))))
        }
        return lines.joined(separator: "\n")
    }
}

/// Counts values, bytes per type, keys and depth by walking FirePack encodings: in arrays indexed by row, so that a
/// value costs no hashing (a `[String: Int]` per figure spent a third of `stats`' time on a record of 2,000,000 rows).
struct Census {
    /// The rows of the report: each value type, an extension, then keys and the key table apart.
    static let names =
        [
            ValueType.null, .boolean, .integer, .double, .timestamp, .string, .bytes, .reference, .geoPoint,
            .array, .map, .vector, .serverTimestamp
        ].map(\.description) + ["extension", "keys", "key table"]
    static let extensionRow = names.count - 3, keysRow = names.count - 2, keyTableRow = names.count - 1

    /// Values counted per row (keys and the key table are not values).
    var counts = [Int](repeating: 0, count: names.count)
    var bytes = [Int](repeating: 0, count: names.count)
    /// Whether a row has had anything added (the key table's row may be of 0 bytes).
    var present = [Bool](repeating: false, count: names.count)
    var keyOccurrences = 0
    var distinctKeys = DistinctCounter()
    var maxDepth = 0

    /// The rows that have had anything, the most bytes first (in the order of `names` among equals).
    var rows: [(name: String, count: Int?, bytes: Int)] {
        Self.names.indices.filter { present[$0] }.sorted { (bytes[$0], $1) > (bytes[$1], $0) }.map {
            (Self.names[$0], $0 >= Self.keysRow ? nil : counts[$0], bytes[$0])
        }
    }

    /// The row of a value of `type` (nil: an extension).
    static func row(_ type: ValueType?) -> Int {
        switch type {
        case .null: 0
        case .boolean: 1
        case .integer: 2
        case .double: 3
        case .timestamp: 4
        case .string: 5
        case .bytes: 6
        case .reference: 7
        case .geoPoint: 8
        case .array: 9
        case .map: 10
        case .vector: 11
        case .serverTimestamp: 12
        case nil: extensionRow
        }
    }

    mutating func add(_ byteCount: Int, to row: Int) {
        bytes[row] += byteCount
        present[row] = true
    }

    /// The key literals counted in the encoding being measured, by where they lie (a direct-mapped cache): a key that
    /// the encoding repeats by reference is the same bytes in the same place, counted once, not hashed again (a 184 KB
    /// file repeating a 100 KB key 21,000 times took 17 s to hash).
    private var countedKeys = [UnsafeRawPointer?](repeating: nil, count: 256)

    mutating func insertKey(_ utf8: UnsafeRawBufferPointer) {
        guard let base = utf8.baseAddress else { return distinctKeys.insert(utf8) }
        let slot = (Int(bitPattern: base) >> 3) & (countedKeys.count - 1)
        if countedKeys[slot] == base { return }
        countedKeys[slot] = base
        distinctKeys.insert(utf8)
    }

    mutating func measure(_ encoding: some ContiguousBytes) throws {
        // Each encoding's bytes lie in their own place: places seen in another are not its keys.
        for slot in countedKeys.indices { countedKeys[slot] = nil }
        let count = encoding.withUnsafeBytes { $0.count }
        try FirePackReader.withReader(encoding) { reader in
            let root = reader.root
            add(count - root.endOffset, to: Self.keyTableRow)
            try visit(root, depth: 0)
        }
    }

    mutating func visit(_ view: ValueView, depth: Int) throws {
        let row = Self.row(view.type)
        counts[row] += 1
        maxDepth = max(maxDepth, depth)
        guard view.type == .array || view.type == .map else {
            add(view.byteCount, to: row)
            return
        }
        let content = try view.contentOffset()
        add(content - view.offset, to: row)
        if view.type == .array {
            try view.forEachElement { try visit($0, depth: depth + 1) }
        } else {
            var cursor = content
            try view.forEachEntry { key, value in
                keyOccurrences += 1
                insertKey(key.utf8)
                add(value.offset - cursor, to: Self.keysRow)
                cursor = value.endOffset
                try visit(value, depth: depth + 1)
            }
        }
    }
}
