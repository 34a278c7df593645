import Foundation
import Testing
import FirePack
@testable import FirePackInterop

@Suite("Firestore protobuf")
struct FirestoreProtoTests {
    @Test func wireBytesForSimpleValues() throws {
        #expect(try Value.boolean(true).firestoreProtoBytes() == [0x08, 0x01])
        #expect(try Value.integer(-1).firestoreProtoBytes() == [0x10] + [UInt8](repeating: 0xFF, count: 9) + [0x01])
        #expect(try Value.null.firestoreProtoBytes() == [0x58, 0x00])
        #expect(try Value.string("hi").firestoreProtoBytes() == [0x8A, 0x01, 0x02, 0x68, 0x69])
        #expect(try (["a": 1] as Value).firestoreProtoBytes() == [0x32, 0x09, 0x0A, 0x07, 0x0A, 0x01, 0x61, 0x12, 0x02, 0x10, 0x01])
    }

    @Test func anyOrderIsAcceptedAndUnknownValueFieldsAreRefused() throws {
        // A Timestamp with nanos before seconds.
        let timestamp: [UInt8] = [0x10, 0x05, 0x08, 0x03]
        let value: [UInt8] = [0x52, UInt8(timestamp.count)] + timestamp
        #expect(try Value(firestoreProto: value) == .timestamp(Timestamp(seconds: 3, nanoseconds: 5)))
        // Inside the messages a Value holds, a field they do not have, or one of theirs with another wire type, is
        // refused at its tag: skipped, a latitude sent as a varint became 0, an array element vanished.
        let latitudeAsVarint: [UInt8] = [0x42, 0x0B, 0x08, 0x2D, 0x11] + Array(repeating: 0, count: 6) + [0x1E, 0x40]
        let strays: [(bytes: [UInt8], offset: Int)] = [
            ([0x52, 0x06, 0x10, 0x05, 0x38, 0x2A, 0x08, 0x03], 4),  // Timestamp field 7
            ([0x52, 0x04, 0x11, 0x05, 0x08, 0x03], 2),  // Timestamp nanos as a fixed64
            (latitudeAsVarint, 2),  // LatLng latitude as a varint
            ([0x4A, 0x06, 0x0A, 0x02, 0x10, 0x01, 0x08, 0x07], 6),  // ArrayValue field 1 as a varint
            ([0x32, 0x04, 0x10, 0x01, 0x0A, 0x00], 2),  // MapValue field 2
            ([0x32, 0x08, 0x0A, 0x06, 0x0A, 0x01, 0x61, 0x18, 0x01, 0x00], 7),  // a map entry's field 3
        ]
        for (bytes, offset) in strays {
            do { _ = try Value(firestoreProto: bytes); Issue.record("accepted \(bytes)") } catch {
                #expect(error.offset == offset, "\(bytes): \(error)")
            }
        }
        // An unknown field of the Value (here 1023) would be a value FirePack cannot convert: refused, not dropped.
        #expect(throws: FirePackError.self) { try Value(firestoreProto: value + [0xF8, 0x3F, 0x01]) }
        do { _ = try Value(firestoreProto: value + [0xF8, 0x3F, 0x01]) } catch {
            #expect(error.code == .invalidValue && error.offset == value.count)
        }
        // The same for a Document: field 5 is not one of name, fields, createTime, updateTime.
        let document = try (Document(reference: try DocumentReference(path: "books/b"), fields: ["n": 1])).firestoreProtoBytes()
        do { _ = try Document(firestoreProto: document + [0x28, 0x01]); Issue.record("unknown document field accepted") } catch {
            #expect(error.code == .invalidDocument && error.offset == document.count)
        }
        // A oneof with two members set: the last wins, as protobuf requires.
        #expect(try Value(firestoreProto: [0x08, 0x01, 0x10, 0x07]) == 7)
        // One message member given twice merges, as protobuf parsers merge a repeated embedded message.
        let one = try (Value.array([1])).firestoreProtoBytes(), two = try (Value.array([2, "x"])).firestoreProtoBytes()
        #expect(try Value(firestoreProto: one + two) == [1, 2, "x"])
        let first = try (["x": 1] as Value).firestoreProtoBytes(), second = try (["y": 2, "x": 3] as Value).firestoreProtoBytes()
        #expect(try Value(firestoreProto: first + second) == ["x": 3, "y": 2])
        let seconds = try Value.timestamp(Timestamp(seconds: 1_000, nanoseconds: 0)).firestoreProtoBytes()
        #expect(try Value(firestoreProto: seconds + [0x52, 0x02, 0x10, 0x05]) == .timestamp(Timestamp(seconds: 1_000, nanoseconds: 5)))
        // Another member between them: the last member alone.
        #expect(try Value(firestoreProto: one + [0x10, 0x07] + two) == [2, "x"])
        #expect(try Value(firestoreProto: []) == .null)
    }

    @Test func hostileInputIsRejectedWithAnOffset() {
        func fails(_ bytes: [UInt8], _ code: FirePackError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                _ = try Value(firestoreProto: bytes)
                Issue.record("accepted \(bytes)", sourceLocation: sourceLocation)
            } catch {
                #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
                #expect(error.offset != nil, sourceLocation: sourceLocation)
            }
        }
        fails([0x8A, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F], .lengthOutOfBounds)                 // 4 GiB string
        fails([0x8A, 0x01, 0x02, 0xC3, 0x28], .invalidUTF8)
        fails([0x10, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01], .badVarint)
        fails([0x19, 0x00, 0x00], .truncated)
        fails([0x2A, 0x05, 0x62, 0x6F, 0x6F, 0x6B, 0x73], .invalidReference)                   // "books"
        fails([0x52, 0x06, 0x10, 0x80, 0x94, 0xEB, 0xDC, 0x03], .invalidTimestamp)             // nanos 1e9
        fails([0x0B], .invalidValue)                                                             // group wire type
        var deep: [UInt8] = [0x58, 0x00]
        for _ in 0..<200 { deep = [0x4A, 0x00] + [0x0A] + lengthPrefix(deep.count) + deep; deep = fixLength(deep) }
        fails(deep, .depthLimitExceeded)
    }

    func lengthPrefix(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        var value = count
        repeat { bytes.append(UInt8(value & 0x7F) | (value > 0x7F ? 0x80 : 0)); value >>= 7 } while value > 0
        return bytes
    }

    /// Rewrites `4A 00 <element>` as `4A <length> <element>`.
    func fixLength(_ bytes: [UInt8]) -> [UInt8] { [0x4A] + lengthPrefix(bytes.count - 2) + bytes.dropFirst(2) }

    @Test func serverTimestampsHaveNoProtobufForm() {
        #expect(throws: FirePackError.self) { try (["pending": .serverTimestamp] as Value).firestoreProtoBytes() }
    }

    @Test("seeded random values round-trip (sentinels aside)")
    func randomRoundTrips() throws {
        var generator = RandomValuesForJSON(seed: 123)
        for index in 0..<400 {
            let value = withoutSentinels(generator.value())
            #expect(try Value(firestoreProto: value.firestoreProtoBytes()) == value, "case \(index)")
        }
    }

    @Test("corpus files round-trip through Firestore protobuf", arguments: CorpusFiles.names)
    func corpusRoundTrip(name: String) throws {
        guard CorpusFiles.isAvailable else { print(CorpusFiles.skipMessage); return }
        let value = try Value(json: CorpusFiles.load(name))
        #expect(try Value(firestoreProto: value.firestoreProtoBytes()) == value)
    }

    @Test func delimitedDocumentStreams() throws {
        var stream: [UInt8] = []
        let documents = try (0..<50).map { index in
            Document(reference: try DocumentReference(path: "books/b\(index)"), fields: ["index": .integer(Int64(index)), "title": "Book"],
                     updateTime: Timestamp(seconds: Int64(index), nanoseconds: 0))
        }
        for document in documents { try document.appendFirestoreProtoDelimited(to: &stream) }
        #expect(try [Document](firestoreProtoDelimited: stream) == documents)
        stream.removeLast(3)
        do {
            _ = try [Document](firestoreProtoDelimited: stream)
            Issue.record("accepted a truncated stream")
        } catch {
            #expect(error.code == .lengthOutOfBounds || error.message.contains("record 49"), "\(error)")
        }
    }

    func withoutSentinels(_ value: Value) -> Value {
        switch value {
        case .serverTimestamp: return .null
        case .array(let elements): return .array(elements.map(withoutSentinels))
        case .map(let map): return .map(MapValue(map.map { ($0.key, withoutSentinels($0.value)) }))
        default: return value
        }
    }
}

@Suite("Firestore's vector form")
struct FirestoreVectorFormTests {
    let vectorShaped: Value = ["__type__": "__vector__", "value": [1.5, 2.0]]

    @Test func vectorsRoundTripThroughBothFormats() throws {
        let vector = Value.vector(VectorValue([1.5, 2]))
        #expect(try Value(firestoreProto: vector.firestoreProtoBytes()) == vector)
        #expect(try Value(firestoreJSON: vector.firestoreJSONBytes()) == vector)
    }

    /// A map that only looks like a vector would come back as a vector: refused, with its path, not converted.
    @Test func aVectorShapedMapIsRefusedNotRetyped() throws {
        let document: Value = ["outer": ["inner": vectorShaped]]
        for write in [{ try document.firestoreProtoBytes() }, { try document.firestoreJSONBytes() }] as [() throws -> [UInt8]] {
            do {
                _ = try write()
                Issue.record("a vector-shaped map was written")
            } catch let error as FirePackError {
                #expect(error.code == .invalidValue && error.path == [.key("outer"), .key("inner")], "\(error)")
            } catch {
                Issue.record("\(error)")
            }
        }
        // With other keys, non-numbers, or an integer among the numbers, it is an ordinary map, kept as it is both
        // ways (an integer read as a vector's double would change type without a word).
        for ordinary: Value in [["__type__": "__vector__", "value": ["x"]], ["__type__": "__vector__", "value": [1.5, 2]],
                                ["__type__": "__vector__", "value": [1, 2]]] {
            #expect(try Value(firestoreJSON: ordinary.firestoreJSONBytes()) == ordinary)
            #expect(try Value(firestoreProto: ordinary.firestoreProtoBytes()) == ordinary)
        }
    }
}
