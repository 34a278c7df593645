import FirePack
import FirePackStreams
import FirePackTestSupport
import Foundation
import Synchronization
import Testing

/// A hand-written conformance that counts which path coded it: generated (`init(firePack:)`, `encode(firePack:)`) or
/// Codable (`init(from:)`, `encode(to:)`).
struct Probe: FirePackDecodable, FirePackEncodable, Equatable {
    static let counts = Mutex((generatedDecodes: 0, codableDecodes: 0, generatedEncodes: 0, codableEncodes: 0))

    var number: Int

    init(number: Int) { self.number = number }

    init(firePack reader: inout FirePackValueReader) throws {
        var fields = try reader.readFields()
        number = try reader.decode(Int.self, forKey: "number", in: &fields)
        Self.counts.withLock { $0.generatedDecodes += 1 }
    }

    func encode(firePack writer: inout FirePackValueWriter) throws {
        writer.beginFields()
        try writer.encode(number, forKey: "number")
        writer.endFields()
        Self.counts.withLock { $0.generatedEncodes += 1 }
    }

    private enum CodingKeys: String, CodingKey { case number }

    init(from decoder: any Decoder) throws {
        number = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .number)
        Self.counts.withLock { $0.codableDecodes += 1 }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(number, forKey: .number)
        Self.counts.withLock { $0.codableEncodes += 1 }
    }
}

/// Plain Codable holding probes.
struct ProbeHolder: Codable, Equatable {
    var probe: Probe
    var probes: [Probe]
    var byName: [String: Probe]
    var maybe: Probe?
}

/// The probe's counters are shared: these tests run one at a time.
@Suite(.serialized) struct GeneratedPathTests {
    /// Runs `body` and returns how many values each path coded.
    func counting(_ body: () throws -> Void) throws -> (generatedDecodes: Int, codableDecodes: Int, generatedEncodes: Int, codableEncodes: Int) {
        let before = Probe.counts.withLock { $0 }
        try body()
        let after = Probe.counts.withLock { $0 }
        return (after.generatedDecodes - before.generatedDecodes, after.codableDecodes - before.codableDecodes,
                after.generatedEncodes - before.generatedEncodes, after.codableEncodes - before.codableEncodes)
    }

    @Test func theCodersTakeTheGeneratedPathWhereverTheTypeAppears() throws {
        let holder = ProbeHolder(probe: Probe(number: 1), probes: [Probe(number: 2), Probe(number: 3)],
                                 byName: ["a": Probe(number: 4)], maybe: Probe(number: 5))
        var bytes: Data = Data()
        let encoded = try counting { () throws in bytes = try FirePackEncoder().encode(holder) }
        #expect(encoded.generatedEncodes == 5 && encoded.codableEncodes == 0)
        let decoded = try counting { () throws in #expect(try FirePackDecoder().decode(ProbeHolder.self, from: bytes) == holder) }
        #expect(decoded.generatedDecodes == 5 && decoded.codableDecodes == 0)

        // Top level, arrays, optionals and deterministic output.
        let top = try counting { () throws in
            let encoder = FirePackEncoder()
            encoder.deterministic = true
            let array = try encoder.encode([Probe(number: 1), Probe(number: 2)])
            #expect(try FirePackDecoder().decode([Probe].self, from: array) == [Probe(number: 1), Probe(number: 2)])
            #expect(try FirePackDecoder().decode(Probe?.self, from: FirePackEncoder().encode(Probe?.none)) == nil)
        }
        #expect(top.generatedEncodes == 2 && top.generatedDecodes == 2 && top.codableEncodes == 0 && top.codableDecodes == 0)
    }

    @Test func documentsAndStreamsTakeTheGeneratedPath() throws {
        let reference = try DocumentReference(path: "probes/p1")
        let documents = try counting { () throws in
            let document = try Document(reference: reference, from: Probe(number: 7))
            #expect(try document.data(as: Probe.self) == Probe(number: 7))
        }
        #expect(documents.generatedEncodes == 1 && documents.generatedDecodes == 1 && documents.codableEncodes == 0 && documents.codableDecodes == 0)

        let sink = MemorySink()
        let streams = try counting { () throws in
            let writer = try DocumentStreamWriter(sink: sink)
            for number in 0..<3 { try writer.append(Probe(number: number), reference: DocumentReference(path: "probes/p\(number)")) }
            try writer.close()
            let values = Array(try DocumentStreamReader(source: MemorySource(sink.bytes)).values(as: Probe.self))
            #expect(values.map(\.number) == [0, 1, 2])
        }
        #expect(streams.generatedEncodes == 3 && streams.generatedDecodes == 3 && streams.codableEncodes == 0 && streams.codableDecodes == 0)
        // The record written in place reads back as the same document as one written from a Document.
        let viaDocument = MemorySink()
        let writer = try DocumentStreamWriter(sink: viaDocument)
        for number in 0..<3 { try writer.append(Document(reference: DocumentReference(path: "probes/p\(number)"), from: Probe(number: number))) }
        try writer.close()
        #expect(viaDocument.bytes == sink.bytes)
    }

    @Test func snakeCaseStaysGeneratedACustomKeyStrategyOrTheSwitchSendsTypesThroughCodable() throws {
        let encoder = FirePackEncoder(), decoder = FirePackDecoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let holder = ProbeHolder(probe: Probe(number: 1), probes: [Probe(number: 2), Probe(number: 3)],
                                 byName: ["a": Probe(number: 4)], maybe: Probe(number: 5))
        let snake = try counting { () throws in
            #expect(try decoder.decode(ProbeHolder.self, from: encoder.encode(holder)) == holder)
            #expect(try decoder.decode(Probe.self, from: encoder.encode(Probe(number: 3))) == Probe(number: 3))
        }
        #expect(snake.codableEncodes == 0 && snake.codableDecodes == 0 && snake.generatedEncodes == 6 && snake.generatedDecodes == 6)

        encoder.keyEncodingStrategy = .custom { $0.last! }
        decoder.keyDecodingStrategy = .custom { $0.last! }
        let converted = try counting { () throws in
            #expect(try decoder.decode(Probe.self, from: encoder.encode(Probe(number: 3))) == Probe(number: 3))
        }
        #expect(converted.codableEncodes == 1 && converted.codableDecodes == 1 && converted.generatedEncodes == 0 && converted.generatedDecodes == 0)

        let off = try counting { () throws in
            #expect(try Paths.decoder(generated: false).decode([Probe].self, from: Paths.encoder(generated: false).encode([Probe(number: 3)])) == [Probe(number: 3)])
        }
        #expect(off.codableEncodes == 1 && off.codableDecodes == 1 && off.generatedEncodes == 0 && off.generatedDecodes == 0)
    }

    @Test func errorsCarryTheCodingPathOffsetAndDocument() throws {
        // A tag whose title is an integer, in a generated type inside an array inside a generated type.
        var tagged = BookWithTags(title: "T", numberOfPages: 1, author: "A", cover: nil, genres: [],
                                  tags: [Tag(title: "a", color: Color(rgba: 1)), Tag(title: "b", color: Color(rgba: 2))])
        var value = try FirePackEncoder().encodeToValue(tagged)
        guard case .map(var map) = value, case .array(var tags)? = map["tags"], case .map(var second) = tags[1] else {
            Issue.record("unexpected shape")
            return
        }
        second["title"] = .integer(5)
        tags[1] = .map(second)
        map["tags"] = .array(tags)
        value = .map(map)
        let bytes = value.firePackBytes()
        let reference = try DocumentReference(path: "books/b1")
        let outcome = expectSameDecoding(BookWithTags.self, bytes, in: reference)
        #expect(outcome.description.contains("typeMismatch(String) path .tags[1].title"), "\(outcome)")
        #expect(outcome.description.contains("in document books/b1"), "\(outcome)")
        #expect(outcome.description.contains("at byte "), "\(outcome)")

        // A missing key.
        tagged.genres = ["x"]
        guard case .map(var withoutAuthor) = try FirePackEncoder().encodeToValue(tagged) else { return }
        withoutAuthor["author"] = nil
        let missing = expectSameDecoding(BookWithTags.self, Value.map(withoutAuthor).firePackBytes())
        #expect(missing.description.contains("keyNotFound(author) path  —"), "\(missing)")
    }

    /// A damaged map is an error, not a missing optional: the Codable path once read `String?` through
    /// `contains(_:)`, which cannot throw, and returned nil for damaged bytes (found by the equivalence tests).
    @Test func damagedBytesAreAnErrorForOptionalScalars() throws {
        struct Sparse: Codable { var first: String?; var count: Int?; var last: Double? }
        var bytes = try FirePackEncoder().encodeToBytes(Sparse(first: "a", count: nil, last: nil))
        // Point the only entry's key at a key-table entry that does not exist (a key reference is an odd varint).
        let keyOffset = bytes.firstIndex(of: 0x0A)!   // the literal key "first": varint 5 << 1
        bytes[keyOffset] = 0x7F
        for generated in [true, false] {
            #expect(throws: DecodingError.self) { try Paths.decoder(generated: generated).decode(Sparse.self, from: bytes) }
        }
    }

    @Test func documentIDsAndServerTimestampsFollowTheSDKRules() throws {
        let reference = try DocumentReference(path: "articles/a7")
        var article = Article(title: "News", author: nil)
        article.deletedAt = nil
        let document = try Document(reference: reference, from: article)
        let decoder = FirePackDecoder()
        let decoded = try document.data(as: Article.self, decoder: decoder)
        #expect(decoded.id == "a7")
        #expect(decoded.createdAt == nil && decoded.updatedAt == nil && decoded.deletedAt == nil)
        #expect(document.fields["createdAt"] == .serverTimestamp)
        #expect(document.fields["deletedAt"] == .null)
        #expect(document.fields["id"] == nil)
        decoder.serverTimestampEstimate = Timestamp(seconds: 100, nanoseconds: 0)
        let estimated = try decoder.decode(Article.self, from: Value.map(document.fields).firePackBytes())
        #expect(estimated.createdAt == Timestamp(seconds: 100, nanoseconds: 0))
    }

    /// Both stored forms of a time, a whole second (`C9`) and one with nanoseconds (`CA`), are read in place into
    /// `@ServerTimestamp` `Timestamp?` and `Date?` properties, as the Codable path reads them; under a date strategy
    /// that does not read timestamps, the `Date` fails on both paths alike.
    @Test(arguments: [0, 123_456_789])
    func serverTimestampsReadBothTimeForms(nanoseconds: Int32) throws {
        let time = Timestamp(seconds: 1_700_000_000, nanoseconds: nanoseconds)
        let fields: Value = .map(["title": "News", "createdAt": .timestamp(time), "updatedAt": .timestamp(time)])
        let bytes = fields.firePackBytes()
        #expect(bytes.contains(nanoseconds == 0 ? 0xC9 : 0xCA) && !bytes.contains(nanoseconds == 0 ? 0xCA : 0xC9))
        for generated in [true, false] {
            let article = try Paths.decoder(generated: generated).decode(Article.self, from: bytes)
            #expect(article.createdAt == time)
            #expect(article.updatedAt == time.dateValue())
        }
        #expect(!expectSameDecoding(Article.self, bytes).isFailure)
        let secondsDecoders = [true, false].map { generated in
            let decoder = Paths.decoder(generated: generated)
            decoder.dateDecodingStrategy = .secondsSince1970
            return decoder
        }
        let outcomes = secondsDecoders.map { decoder in
            Outcome { try fingerprint(decoder.decode(Article.self, from: bytes)) }
        }
        #expect(outcomes[0].isFailure && outcomes[0] == outcomes[1], "\(outcomes)")
    }
}

@Suite struct EncoderLimitTests {
    /// What an encoder writes, its decoder reads: a value nested past the readers' depth limit is refused with
    /// `EncodingError.invalidValue` naming the limit, on both paths, and a writer it was appended to is left as it was
    /// (its completed bytes once still ended past the refused value).
    @Test func valuesPastTheReadersLimitsAreRefusedOnBothPaths() throws {
        let limit = ReaderLimits.default.maxDepth
        // Each Chain is a map holding an array: two containers a level.
        let fits = Chain.nested(limit / 2), tooDeep = Chain.nested(limit / 2 + 1)
        for generated in [true, false] {
            let encoder = Paths.encoder(generated: generated)
            let bytes = try encoder.encodeToBytes(fits)
            #expect(try FirePackDecoder().decode(Chain.self, from: bytes) == fits)
            let writer = FirePackWriter()
            try encoder.encode(fits, into: writer)
            let before = writer.writtenBytes
            #expect {
                try encoder.encode(tooDeep, into: writer)
            } throws: { error in
                guard case EncodingError.invalidValue(_, let context) = error,
                    let violation = context.underlyingError as? FirePackError
                else { return false }
                return violation.code == .depthLimitExceeded
            }
            // The refused value is gone: not in the bytes taken, not under the next value written.
            #expect(writer.writtenBytes == before && writer.limitViolation == nil)
            try encoder.encode(Chain(name: "after", next: []), into: writer)
            let taken = writer.takeBytes()
            #expect(taken.starts(with: before))
            #expect(try FirePackDecoder().decode(Chain.self, from: taken[before.count...]) == Chain(name: "after", next: []))
            #expect(throws: EncodingError.self) { try encoder.encodeToBytes(tooDeep) }
        }
    }

    /// A writer streaming to a sink sends only what was accepted: the refused value never reaches `flush()`, and the
    /// writer goes on at the right place (its completed bytes once ended past the refused value, so a flush sent it and
    /// left the write index negative).
    @Test func aRefusedValueNeverReachesTheSink() throws {
        let limit = ReaderLimits.default.maxDepth
        let fits = Chain.nested(limit / 2), tooDeep = Chain.nested(limit / 2 + 1), after = Chain(name: "after", next: [])
        for generated in [true, false] {
            let encoder = Paths.encoder(generated: generated)
            final class Collected: @unchecked Sendable { var bytes: [UInt8] = [] }
            let collected = Collected()
            let writer = FirePackWriter(sink: .init { collected.bytes.append(contentsOf: $0) })
            try encoder.encode(fits, into: writer)
            #expect(throws: EncodingError.self) { try encoder.encode(tooDeep, into: writer) }
            try writer.flush()
            try encoder.encode(after, into: writer)
            try writer.flush()
            let expected = try encoder.encodeToBytes(fits) + encoder.encodeToBytes(after)
            #expect(collected.bytes == expected)
            #expect(writer.writerIndex == 0)
        }
    }

    /// A writer that holds a value past the limits, written to it directly, takes no more values from an encoder: the
    /// new value would be refused for the earlier one's fault, and the earlier one kept. Nothing is written, and the
    /// violation stays for its writer to deal with.
    @Test func anEarlierViolationIsNotBlamedOnTheNextValue() throws {
        let deep = (0...ReaderLimits.default.maxDepth).reduce(Value.integer(1)) { inner, _ in .array([inner]) }
        for generated in [true, false] {
            let encoder = Paths.encoder(generated: generated)
            let writer = FirePackWriter()
            writer.write(deep)
            let violation = try #require(writer.limitViolation)
            let before = (writer.writerIndex, writer.writtenBytes)
            let small = Chain(name: "small", next: [])
            #expect {
                try encoder.encode(small, into: writer)
            } throws: { error in
                guard case EncodingError.invalidValue(_, let context) = error else { return false }
                return (context.underlyingError as? FirePackError) == violation
                    && context.debugDescription.hasPrefix("not written")
            }
            #expect(writer.writerIndex == before.0 && writer.writtenBytes == before.1)
            #expect(writer.limitViolation == violation)
            writer.clear()
            try encoder.encode(small, into: writer)
            #expect(try FirePackDecoder().decode(Chain.self, from: writer.takeBytes()) == small)
        }
    }
}
