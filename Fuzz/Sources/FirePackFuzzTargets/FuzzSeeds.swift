#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack
import FirePackInterop
@_spi(Fuzzing) import FirePackStreams

/// Starting inputs for each target: small values of every type in the target's format, and the repository's
/// Fixtures converted to it. Generated when a fuzzing run starts, never committed.
public enum FuzzSeeds {
    /// Seeds for `target`; `fixtures` is the repository's Fixtures folder, when at hand.
    public static func seeds(for target: FuzzTarget, fixtures: String?) -> [[UInt8]] {
        let fixtureFiles = fixtures.map(readFixtures) ?? [:]
        let documents = sampleDocuments + fixtureFiles.filter { $0.key.hasSuffix(".fpks") }.flatMap { readDocuments($0.value) }
        func files(_ suffix: String) -> [[UInt8]] {
            // ".json" means plain JSON: the REST forms end in ".firestore.json".
            fixtureFiles.filter { name, _ in name.hasSuffix(suffix) && (suffix == ".firestore.json" || !name.hasSuffix(".firestore.json")) }
                .sorted { $0.key < $1.key }.map(\.value)
        }
        switch target.name {
        case "value":
            return sampleValues.map { $0.firePackBytes() } + files(".fpk")
        case "reader":
            return sampleValues.map { $0.firePackBytes(deterministic: true) } + files(".fpk").map { Array($0.dropFirst(5)) }
        case "decoder":
            return sampleModels + sampleValues.map { $0.firePackBytes() }
        case "json":
            return sampleValues.map { $0.jsonBytes() } + files(".json")
        case "json-lines":
            // Documents as lines (`__name__` last, as FirePack writes it), one file of them all, an ID before a name.
            let naming = DocumentNaming(collection: "c", idField: nil)
            let lines = documents.compactMap { try? naming.value(of: $0).jsonBytes() }
            return lines + [Array(lines.joined(separator: [0x0A]))]
                + [Array(#"{"id":"x","__name__":"c/d","a":[1,{"b":null}]}"#.utf8)]
        case "rest-json":
            let lines = files(".firestore.json").flatMap { $0.split(separator: UInt8(ascii: "\n")).map(Array.init) }
            return sampleValues.compactMap { try? ($0).firestoreJSONBytes() } + documents.compactMap { try? ($0).firestoreJSONBytes() } + lines
        case "proto":
            return sampleValues.compactMap { try? ($0).firestoreProtoBytes() } + documents.compactMap { try? ($0).firestoreProtoBytes() }
        case "stream":
            // Version 3 in every codec (blocks of 256 bytes, so that a seed holds several), in columns stored as they
            // are (keys numbered, and as written), and version 2.
            return BlockCodec.allCases.map { streamBytes(sampleDocuments, codec: $0, blockSize: 256) }
                + [streamBytes(Array(documents.prefix(20))), streamBytes(sampleDocuments, version: 2)] + files(".fpks")
                + [256, 4096].compactMap { try? columnsStreamBytes(sampleDocuments + documents.prefix(20), blockSize: $0) }
                + [try? columnsStreamBytes(sampleDocuments + documents.prefix(20), numberedKeys: false)].compactMap { $0 }
        case "stream-json":
            // Documents' payloads (the target frames each as a record), their fields of every type and a deep one.
            return documents.map { $0.firePackBytes() } + sampleValues.compactMap { value in
                (try? DocumentReference(path: "c/d")).map { Document(reference: $0, fields: ["v": value]).firePackBytes() }
            }
        case "gzip":
            return [gzipBytes(Array("hello, gzip\n".utf8)), gzipBytes(streamBytes(sampleDocuments)), gzipBytes([])]
        case "export":
            // The seed, its first record alone, and the seed with a zero-padded block after it.
            let first = 7 + Int(exportSeed[4]) + Int(exportSeed[5]) << 8
            return [exportSeed, Array(exportSeed.prefix(first)), exportSeed + [UInt8](repeating: 0, count: 64),
                    Array(exportSeed[7..<first])]   // the first record's entity alone
        default:
            return []
        }
    }

    /// One small value of every type, and containers of them.
    static let sampleValues: [Value] = {
        let scalars: [Value] = [
            nil, true, false, 0, 42, -1, -100, 200, 100_000, .integer(.min), .integer(.max), 1.5, 0.1, -0.0,
            65.66, -0.000123, 12_345_678.9, 281_474_976_710_655, 1e-15,  // decimal doubles (D5) of every size
            // Packed vectors and geopoints (D6, D7) in each form, and their binary64 forms (D2, CB).
            .vector(VectorValue([Double(Float(0.1)), -0.0])), .vector(VectorValue([-1.28, 1e9, 0.000001])),
            .vector(VectorValue([1.0 / 3.0])), .geoPoint(GeoPoint(latitude: 0.5, longitude: Double(Float(0.1)))),
            .geoPoint(GeoPoint(latitude: 1.0 / 3.0, longitude: -179.999999)),
            .double(.nan), .double(.infinity), .timestamp(Timestamp(seconds: 1_412_262_083, nanoseconds: 45_123_456)),
            .timestamp(Timestamp(seconds: -62_135_596_800, nanoseconds: 0)), "", "hi", .string(String(repeating: "a", count: 57)),
            .string("\u{1F525} ünïcødé"), .bytes(Data([1, 2, 3])), .reference(try! DocumentReference(path: "books/hitchhiker")),
            .geoPoint(GeoPoint(latitude: 37.422, longitude: -122.084)), .vector(VectorValue([1.0, 2.5])), .serverTimestamp,
        ]
        let containers: [Value] = [
            [], [:], [1, 2], ["a": 1], .array(scalars), [["id": 1], ["id": 2], ["id": 3, "name": "x"]],
            ["nested": ["deeper": ["deepest": [1, [2, [3]]]]], "list": .array(Array(repeating: 0, count: 16))],
            ["__type__": "__vector__", "value": [1.5, 2]], ["__map__": ["__timestamp__": "x"]],
            .map(MapValue((0..<16).map { ("k\($0)", Value.integer(Int64($0))) })),
            // Packed arrays (D8) of every form, and arrays of packed rows (D9).
            [1.5, 2.5, 65.66], [1000, 2000, 3000], [.integer(.min), .integer(.max), .integer(1 << 40), .integer(-(1 << 40))],
            [.double(Double(Float(0.1))), .double(Double(Float(0.2))), .double(-0.0)], [.double(1.0 / 3), .double(.nan)],
            [[1.5, 2.5], [3.5, 4.5]], ["ring": [[-65.613617, 43.420273], [-65.61972, 43.418053], [.double(1.0 / 3), 1.5]]],
            [[100_000, 200_000], [300_000, 400_000]],
            // Integers boxed among doubles (form 81), in an array and in rows.
            .array((0..<12).map { .double(Double($0) + 1.0 / 3) } + [-70, .integer(1 << 47 - 1)]),
            .array((0..<6).map { [$0 == 2 ? -70 : .double(Double($0) - 70.5 / 7), .double(44 + 1.0 / 3)] }),
        ]
        return scalars + containers
    }()

    static let sampleDocuments: [Document] = [
        Document(reference: try! DocumentReference(path: "books/b"), fields: ["n": 1]),
        Document(reference: try! DocumentReference(path: "books/c/notes/d"), fields: ["text": "x", "at": .timestamp(Timestamp(seconds: 1, nanoseconds: 2))],
                 createTime: Timestamp(seconds: 10, nanoseconds: 0), updateTime: Timestamp(seconds: 11, nanoseconds: 5)),
    ]

    static var sampleModels: [[UInt8]] {
        let model = FuzzModel(
            id: "x", updated: nil, note: nil, text: "title", integer: 7, small: -3, unsigned: .max, ratio: 0.5, single: 1.25,
            flag: true, date: Date(timeIntervalSince1970: 1_000_000), data: Data([9, 8]), url: URL(string: "https://example.com/a"),
            uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), timestamp: Timestamp(seconds: 5, nanoseconds: 6),
            point: GeoPoint(latitude: 1, longitude: 2), reference: try! DocumentReference(path: "a/b"), vector: VectorValue([0.5]),
            any: ["k": [1, "v"]], shade: .green, level: .high, parts: [.init(name: "p", weight: 2, tags: ["t"])],
            counts: ["a": 1, "b": 2], matrix: [[1000, 2000], [3000, 4000]], nested: .init(name: "n", weight: nil, tags: nil),
            series: [1.5, 2.5, 65.66], ring: [[-65.613617, 43.420273], [-65.61972, 43.418053]], floats: [0.5, nil, 0.25])
        return [try? FirePackEncoder().encodeToBytes(model)].compactMap { $0 }
    }

    static func readFixtures(_ folder: String) -> [String: [UInt8]] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [:] }
        var files: [String: [UInt8]] = [:]
        for name in names {
            guard let data = FileManager.default.contents(atPath: folder + "/" + name), data.count <= 1 << 16 else { continue }
            files[name] = Array(data)
        }
        return files
    }

    static func readDocuments(_ stream: [UInt8]) -> [Document] {
        guard let reader = try? DocumentStreamReader(source: MemorySource(stream)) else { return [] }
        var documents: [Document] = []
        while let (_, _, document) = (try? reader.next()) ?? nil { documents.append(document) }
        return documents
    }

    static func streamBytes(
        _ documents: [Document], version: UInt8 = 3, codec: BlockCodec = .zstd, blockSize: Int = 4096
    ) -> [UInt8] {
        let sink = MemorySink()
        guard let writer = try? DocumentStreamWriter(sink: sink, version: version, codec: codec, blockSize: blockSize)
        else { return [] }
        for document in documents { try? writer.append(document) }
        try? writer.close()
        return sink.bytes
    }

    static func gzipBytes(_ bytes: [UInt8]) -> [UInt8] {
        let sink = MemorySink()
        guard let gzip = try? GzipSink(sink) else { return [] }
        try? bytes.withUnsafeBytes { try gzip.write($0) }
        try? gzip.finish()
        return sink.bytes
    }
}
