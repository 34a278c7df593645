import ArgumentParser
import FirePack
import FirePackInterop
import FirePackStreams
import Foundation

/// `firepack bench [FILES…]`: a quick comparison on your own JSON files.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Compare FirePack with JSON, JSONSerialization and the dictionary path on JSON files (through Value).",
        discussion: """
            Each path encodes and decodes every file after a warm-up run; the table shows the median of the timed
            runs, throughput on the JSON text's size, and each path's time relative to FirePack's. Sizes are raw and
            gzip-compressed. For release-build numbers, build with -c release.

            Paths: FirePack (Value ⇄ FirePack bytes), JSON (FirePack's own JSON reader and writer, Value ⇄ text),
            JSONSerialization (Foundation, Any ⇄ text), dictionary (Value ⇄ [String: Any], as the Firestore SDKs
            hand data out).

            Examples:
              firepack bench
              firepack bench export.json --runs 15 --svg bench.svg
            """
    )

    @Argument(help: "JSON files to measure (default: Fixtures/*.json in the current directory, as in a checkout).")
    var files: [String] = []

    @Option(help: "Timed runs per measurement (the median is reported).")
    var runs = 7

    @Option(help: "Write a bar chart of decode and encode throughput to this SVG file.")
    var svg: String?

    struct Row {
        var file: String
        var path: String
        var encode: Double
        var decode: Double
        var bytes: Int
    }

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
    }

    func run() throws {
        let inputs = files.isEmpty ? try Self.defaultFiles() : files
        if let svg {
            for input in inputs {
                try Files.refuseOverwriting(
                    input: input, with: svg, option: "--svg", inPlace: false, offersInPlace: false)
            }
        }
        // Opened now: an unwritable --svg destination fails before the measurements, not after them.
        let chartSink = try svg.map { try Files.sink($0, gzip: false) }
        var rows: [Row] = []
        var sizes: [String] = ["file                         JSON min    gzip   FirePack    gzip   FirePack/JSON"]
        for file in inputs {
            let text = try StandardStreams.read(file, gzip: file.hasSuffix(".gz"))
            let value: Value
            do { value = try Value(json: text) } catch { throw CommandFailure.data(file, error) }
            let name = (file as NSString).lastPathComponent
            let packed = value.firePackBytes()
            let minified = value.jsonBytes()
            // A scalar is JSON too (a fragment, to JSONSerialization); what it still cannot read is said, with the file.
            let foundation: Any
            do { foundation = try JSONSerialization.jsonObject(with: Data(text), options: .fragmentsAllowed) } catch {
                throw CommandFailure(
                    message: "\(file): JSONSerialization cannot read it: \(error.localizedDescription)")
            }
            let any = value.anyValue
            let writer = FirePackWriter(options: .init(initialCapacity: packed.count * 2))
            rows.append(
                Row(
                    file: name, path: "FirePack",
                    encode: median {
                        writer.write(value)
                        writer.clear()
                    },
                    decode: median { _ = try? Value(firePackBytes: packed) }, bytes: text.count))
            rows.append(
                Row(
                    file: name, path: "JSON", encode: median { _ = value.jsonBytes() },
                    decode: median { _ = try? Value(json: text) }, bytes: text.count))
            rows.append(
                Row(
                    file: name, path: "JSONSerialization",
                    encode: median {
                        _ = try? JSONSerialization.data(withJSONObject: foundation, options: .fragmentsAllowed)
                    },
                    decode: median {
                        _ = try? JSONSerialization.jsonObject(with: Data(text), options: .fragmentsAllowed)
                    },
                    bytes: text.count))
            rows.append(
                Row(
                    file: name, path: "dictionary", encode: median { _ = value.anyValue },
                    decode: median { _ = try? Value(any: any) }, bytes: text.count))
            sizes.append(
                name.padding(toLength: 26, withPad: " ", startingAt: 0)
                    + String(
                        format: "%11d %7d %10d %7d   %6.1f%%", minified.count, try gzipSize(minified), packed.count,
                        try gzipSize(packed),
                        100 * Double(packed.count) / Double(max(minified.count, 1))))
        }
        try StandardStreams.printChecked(table(rows) + "\n\n" + sizes.joined(separator: "\n"))
        if let svg, let chartSink {
            do {
                try Array(chart(rows).utf8).withUnsafeBytes { try chartSink.write($0) }
                try chartSink.finish()
            } catch let error as FirePackError {
                throw CommandFailure(message: "\(svg): cannot write the chart: \(error.message)")
            }
            try StandardStreams.printChecked("\nchart: \(svg)")
        }
    }

    static func defaultFiles() throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "Fixtures")) ?? []
        let files = names.filter { $0.hasSuffix(".json") && !$0.hasSuffix(".firestore.json") }.sorted().map {
            "Fixtures/" + $0
        }
        guard !files.isEmpty else { throw CommandFailure.usage("no files given and no Fixtures/*.json here") }
        return files
    }

    /// Seconds for one call of `body`: the median of `runs` timed runs after one warm-up, each run repeating
    /// `body` enough times to last at least a millisecond.
    func median(_ body: () -> Void) -> Double {
        body()
        var repeats = 1
        var start = DispatchTime.now().uptimeNanoseconds
        body()
        while Double(DispatchTime.now().uptimeNanoseconds - start) < 1e6 && repeats < 1 << 20 {
            repeats *= 4
            start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<repeats { body() }
        }
        var times: [Double] = []
        for _ in 0..<runs {
            let begin = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<repeats { body() }
            times.append(Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9 / Double(repeats))
        }
        return times.sorted()[times.count / 2]
    }

    func gzipSize(_ bytes: [UInt8]) throws -> Int {
        let counter = CountingSink()
        let gzip = try GzipSink(counter, level: 6)
        try bytes.withUnsafeBytes { try gzip.write($0) }
        try gzip.finish()
        return counter.count
    }

    func table(_ rows: [Row]) -> String {
        var lines = [
            "file                      path                decode ms   MB/s  ×FirePack   encode ms   MB/s  ×FirePack"
        ]
        for row in rows {
            let base = rows.first { $0.file == row.file && $0.path == "FirePack" }!
            lines.append(
                row.file.padding(toLength: 26, withPad: " ", startingAt: 0)
                    + row.path.padding(toLength: 18, withPad: " ", startingAt: 0)
                    + String(
                        format: "%11.3f %6.0f %9.1fx %11.3f %6.0f %9.1fx", row.decode * 1e3,
                        Double(row.bytes) / row.decode / 1e6,
                        row.decode / base.decode, row.encode * 1e3, Double(row.bytes) / row.encode / 1e6,
                        row.encode / base.encode))
        }
        return lines.joined(separator: "\n")
    }

    /// Horizontal bars of decode and encode throughput (MB/s of JSON text), one group per file.
    func chart(_ rows: [Row]) -> String {
        let paths = ["FirePack", "JSON", "JSONSerialization", "dictionary"]
        let colors = ["FirePack": "#e8590c", "JSON": "#1c7ed6", "JSONSerialization": "#868e96", "dictionary": "#37b24d"]
        let files = rows.map(\.file).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let maximum = rows.map { max(Double($0.bytes) / $0.decode, Double($0.bytes) / $0.encode) / 1e6 }.max() ?? 1
        let barHeight = 14, left = 170, width = 420
        var y = 40
        var body = ""
        for file in files {
            body += "<text x=\"10\" y=\"\(y)\" font-weight=\"bold\">\(escape(file))</text>\n"
            y += 8
            for direction in ["decode", "encode"] {
                for path in paths {
                    guard let row = rows.first(where: { $0.file == file && $0.path == path }) else { continue }
                    let rate = Double(row.bytes) / (direction == "decode" ? row.decode : row.encode) / 1e6
                    let length = max(1, Int(Double(width) * rate / maximum))
                    body +=
                        "<text x=\"\(left - 6)\" y=\"\(y + 11)\" text-anchor=\"end\">\(direction) \(escape(path))</text>"
                    body +=
                        "<rect x=\"\(left)\" y=\"\(y)\" width=\"\(length)\" height=\"\(barHeight - 2)\" fill=\"\(colors[path]!)\"/>"
                    body += "<text x=\"\(left + length + 4)\" y=\"\(y + 11)\">\(Int(rate.rounded())) MB/s</text>\n"
                    y += barHeight
                }
                y += 4
            }
            y += 14
        }
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(left + width + 90)" height="\(y)" font-family="sans-serif" font-size="11">
            <text x="10" y="18" font-size="13">Throughput, MB/s of JSON text (higher is better; median of \(runs) runs)</text>
            \(body)</svg>

            """
    }

    func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
