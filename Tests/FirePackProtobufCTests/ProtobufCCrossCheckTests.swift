import CFirestoreProto
import Foundation
import Testing
import FirePackTestSupport
import FirePack
import FirePackInterop

/// FirePack's Firestore protobuf against protobuf-c, an independent implementation: FirePack encodes, protobuf-c
/// decodes and describes every field; protobuf-c encodes, FirePack decodes.
@Suite("protobuf-c cross-check")
struct ProtobufCCrossCheckTests {
    // MARK: the C side

    func cDescription(value bytes: [UInt8]) -> String? {
        var out: UnsafeMutablePointer<CChar>?
        guard bytes.withUnsafeBufferPointer({ fpc_describe_value($0.baseAddress, $0.count, &out) }) == 0, let out else { return nil }
        defer { fpc_free(out) }
        return String(cString: out)
    }

    func cDescription(document bytes: [UInt8]) -> String? {
        var out: UnsafeMutablePointer<CChar>?
        guard bytes.withUnsafeBufferPointer({ fpc_describe_document($0.baseAddress, $0.count, &out) }) == 0, let out else { return nil }
        defer { fpc_free(out) }
        return String(cString: out)
    }

    func cRepack(value bytes: [UInt8]) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard bytes.withUnsafeBufferPointer({ fpc_repack_value($0.baseAddress, $0.count, &out, &length) }) == 0, let out else { return nil }
        defer { fpc_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    func cRepack(document bytes: [UInt8]) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard bytes.withUnsafeBufferPointer({ fpc_repack_document($0.baseAddress, $0.count, &out, &length) }) == 0, let out else { return nil }
        defer { fpc_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    // MARK: the same description, from a Value

    func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
    func bits(_ double: Double) -> String { String(format: "%016llx", double.bitPattern) }

    func describe(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let flag): return "bool(\(flag ? 1 : 0))"
        case .integer(let integer): return "int(\(integer))"
        case .double(let double): return "double(\(bits(double)))"
        case .timestamp(let t): return "ts(\(t.seconds),\(t.nanoseconds))"
        case .string(let string): return "str(\(hex(string.utf8)))"
        case .bytes(let data): return "bytes(\(hex(data)))"
        case .reference(let reference): return "ref(\(hex(reference.path.utf8)))"
        case .geoPoint(let point): return "geo(\(bits(point.latitude)),\(bits(point.longitude)))"
        case .array(let elements): return "array[" + elements.map(describe).joined(separator: ",") + "]"
        case .map(let map): return describeEntries(map)
        case .vector(let vector): return describe(["__type__": "__vector__", "value": .array(vector.array.map(Value.double))])
        case .serverTimestamp: return "unrepresentable"
        }
    }

    func describeEntries(_ map: MapValue) -> String {
        "map{" + map.map { hex($0.key.utf8) + "=" + describe($0.value) + ";" }.joined() + "}"
    }

    func describe(_ document: Document) -> String {
        var text = "doc(\(hex(document.reference.path.utf8)))" + describeEntries(document.fields)
        if let t = document.createTime { text += "create:ts(\(t.seconds),\(t.nanoseconds))" }
        if let t = document.updateTime { text += "update:ts(\(t.seconds),\(t.nanoseconds))" }
        return text
    }

    /// Checks one value both ways.
    func check(_ value: Value, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let encoded = try value.firestoreProtoBytes()
        let description = try #require(cDescription(value: encoded), "protobuf-c rejected FirePack's encoding of \(value)", sourceLocation: sourceLocation)
        #expect(description == describe(value), "field by field, \(value)", sourceLocation: sourceLocation)
        let repacked = try #require(cRepack(value: encoded), sourceLocation: sourceLocation)
        #expect(try Value(firestoreProto: repacked) == value, "protobuf-c's encoding read by FirePack, \(value)", sourceLocation: sourceLocation)
        #expect(repacked == encoded, "FirePack writes the same bytes as protobuf-c, \(value)", sourceLocation: sourceLocation)
    }

    // MARK: tests

    @Test func everyTypeAndEdgeValue() throws {
        let values: [Value] = [
            nil, true, false, 0, 1, -1, .integer(.min), .integer(.max), 0.0, -0.0, 1.5, .double(.nan),
            .double(Double(bitPattern: 0x7FF8_0000_0000_0042)), .double(.infinity), .double(-.infinity), .double(.leastNonzeroMagnitude),
            .timestamp(Timestamp(seconds: 0, nanoseconds: 0)), .timestamp(Timestamp(seconds: 1, nanoseconds: 999_999_999)),
            .timestamp(Timestamp(seconds: -62_135_596_800, nanoseconds: 0)), .timestamp(Timestamp(seconds: 253_402_300_799, nanoseconds: 999_999_999)),
            .timestamp(try Timestamp(validatingSeconds: .min, nanoseconds: 1)),
            "", "plain", "日本語 ✓ 🔥", .bytes(Data()), .bytes(Data([0, 1, 255])),
            .reference(try DocumentReference(path: "books/b")), .reference(try DocumentReference(path: "projects/p/databases/(default)/documents/a/b/c/d")),
            .geoPoint(GeoPoint(latitude: 0, longitude: 0)), .geoPoint(GeoPoint(latitude: -90, longitude: 180)),
            .geoPoint(GeoPoint(latitude: 37.422, longitude: -122.084)),
            [], [1, "two", [3.0]], .map([:]), ["ключ": 1, "🔑": ["nested": [nil]], "": "empty key"],
            .vector(VectorValue([])), .vector(VectorValue([1, -0.5, .nan])),
        ]
        for value in values { try check(value) }
    }

    @Test func negativeZeroInAGeoPoint() throws {
        // FirePack writes -0.0 explicitly so its sign survives; protobuf-c reads it exactly.
        let value = Value.geoPoint(GeoPoint(latitude: -0.0, longitude: 1))
        let encoded = try value.firestoreProtoBytes()
        #expect(cDescription(value: encoded) == describe(value))
        #expect(try Value(firestoreProto: encoded) == value)
    }

    @Test func documentsBothWays() throws {
        let document = Document(reference: try DocumentReference(path: "projects/p/databases/(default)/documents/books/dune"),
                                fields: ["title": "Dune", "pages": 412, "nested": ["a": [true, nil]], "when": .timestamp(Timestamp(seconds: 5, nanoseconds: 6))],
                                createTime: Timestamp(seconds: 1, nanoseconds: 2), updateTime: Timestamp(seconds: 3, nanoseconds: 0))
        let encoded = try document.firestoreProtoBytes()
        #expect(cDescription(document: encoded) == describe(document))
        let repacked = try #require(cRepack(document: encoded))
        #expect(try Document(firestoreProto: repacked) == document)
        #expect(repacked == encoded)
        // A delimited stream of protobuf-c's encodings reads back document by document.
        var stream: [UInt8] = []
        for index in 0..<5 {
            var copy = document
            copy.fields["index"] = .integer(Int64(index))
            var prefix: [UInt8] = []
            let message = try #require(cRepack(document: try copy.firestoreProtoBytes()))
            var length = message.count
            repeat { prefix.append(UInt8(length & 0x7F) | (length > 0x7F ? 0x80 : 0)); length >>= 7 } while length > 0
            stream += prefix + message
        }
        let documents = try [Document](firestoreProtoDelimited: stream)
        #expect(documents.map { $0.fields["index"] } == (0..<5).map { .integer(Int64($0)) })
    }

    @Test("seeded random values, both ways")
    func randomValues() throws {
        var generator = ProtoRandomValues(seed: 2026)
        for _ in 0..<500 { try check(generator.value()) }
    }

    @Test("what protobuf-c rejects, FirePack rejects too")
    func truncatedMessages() throws {
        let encoded = try (["a": [1, "xyz", ["b": 2.5]]] as Value).firestoreProtoBytes()
        for length in 1..<encoded.count {
            let prefix = Array(encoded[..<length])
            let cAccepts = cDescription(value: prefix) != nil
            let firePackAccepts = (try? Value(firestoreProto: prefix)) != nil
            if !cAccepts { #expect(!firePackAccepts, "FirePack accepted a truncation protobuf-c rejects (\(length) bytes)") }
        }
    }
}

/// Random values the Firestore protobuf form can hold: no server-timestamp sentinel, and strings without NUL
/// (protobuf-c keeps strings as C strings).
struct ProtoRandomValues {
    var rng: SeededGenerator
    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &rng) }

    mutating func value(depth: Int = 0) -> Value {
        switch int(0..<(depth < 3 ? 13 : 11)) {
        case 0: return .null
        case 1: return .boolean(int(0..<2) == 1)
        case 2: return .integer(Int64.random(in: .min ... .max, using: &rng))
        case 3: return .double(Double(bitPattern: rng.next()))
        case 4: return .timestamp(Timestamp(seconds: Int64.random(in: -62_135_596_800...253_402_300_799, using: &rng),
                                                 nanoseconds: Int32.random(in: 0..<1_000_000_000, using: &rng)))
        case 5: return .string(["", "a", "é\"\\\n", "😀 日本"][int(0..<4)])
        case 6: return .bytes(Data((0..<int(0..<20)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 7: return .reference(try! DocumentReference(path: "c/d\(int(0..<9))"))
        case 8: return .geoPoint(GeoPoint(latitude: Double.random(in: -90...90, using: &rng), longitude: Double.random(in: -180...180, using: &rng)))
        case 9: return .vector(VectorValue((0..<int(0..<4)).map { _ in Double(bitPattern: rng.next()) }))
        case 10: return .integer(Int64(int(-40..<200)))
        case 11: return .array((0..<int(0..<5)).map { _ in value(depth: depth + 1) })
        default:
            var map = MapValue()
            for _ in 0..<int(0..<5) { map[["id", "ключ", "", "x", "__type__"][int(0..<5)]] = value(depth: depth + 1) }
            return .map(map)
        }
    }
}

