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
        let packedGzip = CountingSink(), packed = CountingSink(), json = CountingSink()
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
            try text.withUnsafeBytes { try json.write($0) }
        }
        // A value read from its bytes (a `.fpk` file's, a stream record's fields): the measures `add` takes of a tree,
        // in memory for the bytes and the text, not for a tree of them (Docs/SAFETY.md).
        let valueWriter = FirePackWriter()
        func addValue(reading reader: inout FirePackReader) throws {
            try valueWriter.write(reader.peekValueView())
            try valueWriter.withUnsafeWrittenBytes { bytes in
                try census.measure(bytes)
                try packed.write(bytes)
                try gzipSink.write(bytes)
            }
            valueWriter.clear()
            let text = try JSONTranscoding.jsonBytes(
                reading: &reader, options: JSONOptions(), maxLength: JSONTextLimits.value, what: "the value")
            try text.withUnsafeBytes { try json.write($0) }
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
                    maxBlockExpansion: self.input.streamLimits.blockExpansion)
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
                    try FirePackReader.verify(fileBytes: raw)
                    var reader = try FirePackReader(fileBytes: raw)
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
                sizes: (packed.count, packedGzip.count, json.count), damaged: damaged, missingPlaces: missingPlaces,
                pastExpansion: pastExpansion.blocks))
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
        damaged: Int = 0,
        missingPlaces: Int = 0, pastExpansion: Int = 0
    ) -> String {
        let damage =
            damaged > 0
            ? ", \(problemSummary(damaged, missingPlaces: missingPlaces, pastExpansion: pastExpansion)) left out" : ""
        var lines = ["\(file): \(format.rawValue)\(format.isStream ? ", \(documents) documents\(damage)" : "")", ""]
        func column(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        lines.append("type            " + column("values", 10) + column("bytes", 13) + column("share", 8))
        let total = max(census.bytes.values.reduce(0, +), 1)
        for (name, bytes) in census.bytes.sorted(by: { $0.value > $1.value }) {
            let count = census.counts[name].map(String.init) ?? ""
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
        lines.append(
            String(
                format: "minified JSON   %11d bytes  (FirePack is %.1f%% of it)", sizes.json,
                100 * Double(sizes.packed) / Double(max(sizes.json, 1))))
        return lines.joined(separator: "\n")
    }
}

/// Counts values, bytes per type, keys and depth by walking FirePack encodings.
struct Census {
    var counts: [String: Int] = [:]
    var bytes: [String: Int] = [:]
    var keyOccurrences = 0
    var distinctKeys = DistinctCounter()
    var maxDepth = 0

    mutating func measure(_ encoding: some ContiguousBytes) throws {
        let count = encoding.withUnsafeBytes { $0.count }
        try FirePackReader.withReader(encoding) { reader in
            let root = reader.root
            bytes["key table", default: 0] += count - root.endOffset
            try visit(root, depth: 0)
        }
    }

    mutating func visit(_ view: ValueView, depth: Int) throws {
        let name = view.type?.description ?? "extension"
        counts[name, default: 0] += 1
        maxDepth = max(maxDepth, depth)
        guard view.type == .array || view.type == .map else {
            bytes[name, default: 0] += view.byteCount
            return
        }
        let content = try view.contentOffset()
        bytes[name, default: 0] += content - view.offset
        if view.type == .array {
            try view.forEachElement { try visit($0, depth: depth + 1) }
        } else {
            var cursor = content
            try view.forEachEntry { key, value in
                keyOccurrences += 1
                distinctKeys.insert(key.string)
                bytes["keys", default: 0] += value.offset - cursor
                cursor = value.endOffset
                try visit(value, depth: depth + 1)
            }
        }
    }
}
