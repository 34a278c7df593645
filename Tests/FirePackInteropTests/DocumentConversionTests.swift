import Foundation
import Testing
import FirePack
import FirePackInterop
import FirePackStreams

/// The library's document readers and writers of each format (`DocumentSource`, `DocumentSink`): what a writer
/// writes its reader reads back, the JSON array writer writes what a whole-value write would, byte for byte, and
/// errors name the record, the line and column, and the input's byte.
@Suite("Document conversion")
struct DocumentConversionTests {
    func documents() throws -> [Document] {
        [
            Document(
                reference: try DocumentReference(path: "books/dune"),
                fields: ["title": "Dune", "pages": 412, "price": 9.99, "tags": ["a", "b"]]),
            Document(
                reference: try DocumentReference(path: "books/emma"),
                fields: [
                    "title": "Emma", "at": .timestamp(Timestamp(seconds: 1_714_557_600, nanoseconds: 5)),
                    "where": .geoPoint(GeoPoint(latitude: 1.5, longitude: -2.5)), "meta": ["n": nil, "ok": true],
                ]),
            Document(reference: try DocumentReference(path: "books/empty"), fields: [:]),
        ]
    }

    let naming = DocumentNaming(collection: "books", idField: nil)

    /// Writes `documents` with the sink `make` returns and gives the bytes.
    func written(_ documents: [Document], _ make: (MemorySink) -> any DocumentSink) throws -> [UInt8] {
        let sink = MemorySink()
        let writer = make(sink)
        for document in documents { try writer.write(document) }
        try writer.finish()
        return sink.bytes
    }

    @Test("A JSON array written element by element is the whole-value write's text, byte for byte, and reads back")
    func jsonArrays() throws {
        let documents = try documents()
        for pretty in [false, true] {
            for sortedKeys in [false, true] {
                let options = JSONOptions(pretty: pretty, sortedKeys: sortedKeys)
                let bytes = try written(documents) { JSONArrayWriter($0, naming: naming, options: options) }
                let whole = Value.array(try documents.map(naming.value(of:))).jsonBytes(options: options) + [0x0A]
                #expect(bytes == whole, "pretty: \(pretty), sorted: \(sortedKeys)")
                let reader = try JSONArrayReader(MemorySource(bytes), naming: naming)
                #expect(!reader.isSingleObject)
                let read = try reader.readAll()
                // Sorted keys reorder each document's fields: compared as sorted text, and exactly when unsorted.
                let sorted = JSONOptions(sortedKeys: true)
                #expect(try read.map { try naming.value(of: $0).jsonBytes(options: sorted) }
                        == documents.map { try naming.value(of: $0).jsonBytes(options: sorted) })
                if !sortedKeys { #expect(read == documents) }
                #expect(reader.count == 3)
            }
        }
        let empty = try written([]) { JSONArrayWriter($0, naming: naming) }
        #expect(empty == Array("[]\n".utf8))
        #expect(try JSONArrayReader(MemorySource(empty), naming: naming).readAll().isEmpty)
    }

    @Test("A JSON file of one object is one document; of a scalar, an error")
    func jsonSingleObject() throws {
        let byID = DocumentNaming(collection: "books", idField: "id")
        let reader = try JSONArrayReader(MemorySource(Array(#" {"id":"x","n":1}"#.utf8)), naming: byID)
        #expect(reader.isSingleObject)
        let all = try reader.readAll()
        #expect(all.map(\.reference.path) == ["books/x"])
        #expect(all.first?.fields == ["n": 1])
        let scalar = try JSONArrayReader(MemorySource(Array("42".utf8)), naming: naming)
        #expect(!scalar.isSingleObject)
        #expect(throws: FirePackError.self) { try scalar.next() }
        // Not an array, and longer than the limit: refused before it is all read.
        let long = Array(#"{"s":""#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 5000) + Array(#""}"#.utf8)
        let error = #expect(throws: FirePackError.self) {
            try JSONArrayReader(MemorySource(long), naming: naming, maxElementLength: 1000)
        }
        #expect(error?.code == .limitExceeded)
    }

    @Test("A bad element of a JSON array: the file's line, column and byte, and the element's index")
    func jsonArrayErrors() throws {
        let text = "[\n  {\"a\": 1},\n  {\"b\": 2},\n  {\"c\": tru}\n]\n"
        let reader = try JSONArrayReader(MemorySource(Array(text.utf8)), naming: naming)
        #expect(try reader.next() != nil)
        #expect(try reader.next() != nil)
        let error = #expect(throws: FirePackError.self) { try reader.next() }
        let offset = Array(text.utf8).firstIndex(of: UInt8(ascii: "t"))!
        #expect(error?.offset == offset)
        #expect(error?.message.hasPrefix("line 4, column 9") == true, "\(error?.message ?? "")")
        #expect(error?.path.first == .index(2))
    }

    @Test("Firestore REST JSON: what the writer writes reads back; list responses and runQuery arrays too")
    func firestoreJSON() throws {
        let documents = try documents()
        let lines = try written(documents) { FirestoreJSONWriter($0) }
        #expect(lines.filter { $0 == 0x0A }.count == 3)
        #expect(try FirestoreJSONReader(MemorySource(lines)).readAll() == documents)

        let bodies = try documents.map { String(decoding: try $0.firestoreJSONBytes(), as: UTF8.self) }
        let list = #"{"documents": [\#(bodies[0]), \#(bodies[1])], "nextPageToken": "t"}"# + "\n" + bodies[2]
        #expect(try FirestoreJSONReader(MemorySource(Array(list.utf8))).readAll() == documents)
        // Empty pages leave `documents` out, as proto3 JSON omits an empty repeated field.
        let empty = "{}\n" + #"{"nextPageToken": "t"}"# + "\n" + bodies[0]
        let emptyReader = FirestoreJSONReader(MemorySource(Array(empty.utf8)))
        #expect(try emptyReader.readAll() == [documents[0]])
        let onlyToken = FirestoreJSONReader(MemorySource(Array(#"{"nextPageToken": "t"}"#.utf8)))
        #expect(try onlyToken.readAll().isEmpty && onlyToken.lastPageHasNextPageToken)
        let query =
            "[" + bodies.map { #"{"document": \#($0), "readTime": "2024-01-01T00:00:00Z"}"# }.joined(separator: ",\n")
            + #", {"readTime": "2024-01-01T00:00:00Z", "done": true}]"#
        #expect(try FirestoreJSONReader(MemorySource(Array(query.utf8))).readAll() == documents)
    }

    @Test("Firestore REST JSON: a member no shape defines is an error at its line, column and byte, never dropped")
    func firestoreJSONUnknownMember() throws {
        let body = String(decoding: try documents()[0].firestoreJSONBytes(), as: UTF8.self)
        let text = "\(body)\n{\"documents\": [], \"extra\": 1}\n"
        let reader = FirestoreJSONReader(MemorySource(Array(text.utf8)))
        #expect(try reader.next() != nil)
        let error = #expect(throws: FirePackError.self) { try reader.next() }
        #expect(error?.offset == Array(text.utf8).count - 12)
        #expect(error?.message.hasPrefix("line 2, column 19") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("\"extra\"") == true)
    }

    @Test("Firestore protobuf: delimited messages and one undelimited message read back")
    func firestoreProto() throws {
        let documents = try documents()
        let delimited = try written(documents) { FirestoreProtoWriter($0) }
        let reader = FirestoreProtoReader(MemorySource(delimited))
        #expect(try reader.readAll() == documents)
        #expect(reader.count == 3)

        let single = try written([documents[1]]) { FirestoreProtoWriter($0, delimited: false) }
        #expect(single == (try documents[1].firestoreProtoBytes()))
        #expect(try FirestoreProtoReader(MemorySource(single)).readAll() == [documents[1]])

        let writer = FirestoreProtoWriter(MemorySink(), delimited: false)
        try writer.write(documents[0])
        #expect(throws: FirePackError.self) { try writer.write(documents[1]) }

        // A name whose bytes a length prefix frames as other Documents (control characters in its ID): written as
        // one message, it would read back as two documents, so it is refused; delimited, it reads back as itself.
        let framed = Document(reference: try DocumentReference(path: "\u{3}\n\u{1}/\n\u{3}c/x\u{8}\n\u{6}c/qrst"), fields: [:])
        let ambiguous = #expect(throws: FirePackError.self) {
            try FirestoreProtoWriter(MemorySink(), delimited: false).write(framed)
        }
        #expect(ambiguous?.message.contains("would read back as length-delimited messages") == true)
        #expect(try FirestoreProtoReader(MemorySource(try written([framed]) { FirestoreProtoWriter($0) })).readAll() == [framed])
    }

    @Test("Firestore protobuf: a cut, damaged or oversized message after the first names its record and byte")
    func firestoreProtoDamage() throws {
        let documents = try documents()
        let delimited = try written(documents) { FirestoreProtoWriter($0) }
        var first: [UInt8] = []
        try documents[0].appendFirestoreProtoDelimited(to: &first)

        let cut = FirestoreProtoReader(MemorySource(Array(delimited.dropLast(3))))
        #expect(try cut.next() == documents[0])
        #expect(try cut.next() == documents[1])
        let cutError = #expect(throws: FirePackError.self) { try cut.next() }
        #expect(cutError?.code == .truncated)
        #expect(cutError?.message.hasPrefix("record 2 ") == true, "\(cutError?.message ?? "")")

        // The second message's first field tag made invalid (field 0): an error inside it, at the file's offset.
        var damaged = delimited
        damaged[first.count + 1] = 0x00
        let reader = FirestoreProtoReader(MemorySource(damaged))
        #expect(try reader.next() == documents[0])
        let error = #expect(throws: FirePackError.self) { try reader.next() }
        #expect(error?.message.hasPrefix("record 1 (the message at byte \(first.count))") == true)
        #expect((error?.offset ?? 0) >= first.count + 1)

        // A length prefix claiming more than the limit: refused at the prefix, nothing more read.
        let claim = first + [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]
        let claimed = FirestoreProtoReader(MemorySource(claim), maxMessageLength: 1 << 20)
        #expect(try claimed.next() == documents[0])
        let limitError = #expect(throws: FirePackError.self) { try claimed.next() }
        #expect(limitError?.code == .limitExceeded)
        #expect(limitError?.offset == first.count)
    }

    @Test("Firestore protobuf: damage in the first message is reported as in any other, not as another reading's error")
    func firestoreProtoDamageInTheFirstMessage() throws {
        let documents = try documents()
        let delimited = try written(documents) { FirestoreProtoWriter($0) }
        var first: [UInt8] = []
        try documents[0].appendFirestoreProtoDelimited(to: &first)
        // The first message's first field tag made invalid (field 0), whole stream or the message alone: the error
        // inside it, at the file's offset, as for the second message above (it was "field … is not a Document field",
        // the error of reading the whole input as one message without a prefix).
        for input in [delimited, first] {
            var damaged = input
            damaged[1] = 0x00
            let error = #expect(throws: FirePackError.self) { try FirestoreProtoReader(MemorySource(damaged)).next() }
            #expect(error?.message.hasPrefix("record 0 (the message at byte 0)") == true, "\(error?.message ?? "")")
            #expect((error?.offset ?? 0) >= 1)
        }
        // A first prefix claiming more than the limit, in an input that is no single message either: both readings.
        let claimed = [0x80, 0x80, 0x80, 0x80, 0x80, 0x20] + first
        let both = #expect(throws: FirePackError.self) {
            try FirestoreProtoReader(MemorySource(claimed), maxMessageLength: 1 << 20).next()
        }
        #expect(both?.message.hasPrefix("record 0 (the message at byte 0): its length prefix claims") == true,
                "\(both?.message ?? "")")
        #expect(both?.message.contains("read as one message without a length prefix instead") == true)
        // One undelimited message still reads, and one damaged inside is its own reading's error: it starts with
        // 0x0A (its name's tag), which also reads as a prefix of 10, and that reading stops far sooner.
        let single = try documents[1].firestoreProtoBytes()
        #expect(single.first == 0x0A)
        #expect(try FirestoreProtoReader(MemorySource(single)).readAll() == [documents[1]])
        let trailing = #expect(throws: FirePackError.self) {
            try FirestoreProtoReader(MemorySource(single + [0x00])).next()
        }
        #expect(trailing?.offset == single.count, "\(trailing?.message ?? "")")
        #expect(trailing?.message.hasPrefix("record 0") == false, "\(trailing?.message ?? "")")
    }

    @Test("Streams are sources and sinks too: JSON lines in and out by their fast paths, the same bytes as one by one")
    func streams() throws {
        let documents = try documents()
        let lines = try written(documents) { JSONLinesWriter($0, naming: naming) }

        // JSON lines into a stream: write(from:) takes appendNext(to:) and writes what appending documents writes.
        let fast = MemorySink()
        #expect(try DocumentStreamWriter(sink: fast).write(from: JSONLinesReader(MemorySource(lines), naming: naming)) == 3)
        let oneByOne = MemorySink()
        let writer = try DocumentStreamWriter(sink: oneByOne)
        for document in documents { try writer.write(document) }
        try writer.finish()
        #expect(fast.bytes == oneByOne.bytes)
        // Sorted keys: one by one (the direct path writes keys as they come), still every document.
        let sorted = MemorySink()
        try DocumentStreamWriter(sink: sorted, deterministic: true).write(
            from: JSONLinesReader(MemorySource(lines), naming: naming))
        let sortedReader = try DocumentStreamReader(source: MemorySource(sorted.bytes))
        #expect(try StreamDocuments(sortedReader).readAll().map(\.reference.path) == documents.map(\.reference.path))

        // A stream into JSON lines: write(from:) takes appendNext(from:), the text a document at a time gives.
        let back = MemorySink()
        let reader = try DocumentStreamReader(source: MemorySource(fast.bytes))
        #expect(try JSONLinesWriter(back, naming: naming).write(from: StreamDocuments(reader)) == 3)
        #expect(back.bytes == lines)
        #expect(reader.problems.isEmpty)
        #expect(try StreamDocuments(DocumentStreamReader(source: MemorySource(fast.bytes))).readAll() == documents)
    }

    /// Writes the documents of the stream `input` into a sink `make` makes, through `write(from:)` and one by one, and
    /// expects the same bytes, and every document.
    func expectTheSameAsOneByOne(
        _ input: [UInt8], _ what: String, _ make: (MemorySink) throws -> any DocumentSink
    ) throws {
        let direct = MemorySink()
        let reader = try DocumentStreamReader(source: MemorySource(input))
        let count = try make(direct).write(from: StreamDocuments(reader))
        let oneByOne = MemorySink()
        let writer = try make(oneByOne)
        let documents = try StreamDocuments(DocumentStreamReader(source: MemorySource(input))).readAll()
        for document in documents { try writer.write(document) }
        try writer.finish()
        #expect(count == documents.count && count > 0 && reader.problems.isEmpty, "\(what)")
        #expect(direct.bytes == oneByOne.bytes, "\(what)")
    }

    /// Writes a damaged copy of the stream `input` through `write(from:)` into a sink `make` makes, and expects the
    /// damaged record skipped and reported as the documents' reader reports it.
    func expectDamageReportedAlike(_ input: [UInt8], _ make: (MemorySink) throws -> any DocumentSink) throws {
        var damaged = input
        damaged[damaged.count / 2] ^= 0x20
        let reader = try DocumentStreamReader(source: MemorySource(damaged))
        let written = try make(MemorySink()).write(from: StreamDocuments(reader))
        let treeReader = try DocumentStreamReader(source: MemorySource(damaged))
        #expect(try written == StreamDocuments(treeReader).readAll().count && !reader.problems.isEmpty)
        #expect(reader.problems.map(\.description) == treeReader.problems.map(\.description))
    }

    @Test("A stream into a stream copies each record from its bytes: the bytes appending its documents writes")
    func streamIntoStream() throws {
        let books = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "Fixtures/generated-books.fpks")))
        let small = MemorySink()
        let smallWriter = try DocumentStreamWriter(sink: small, version: 2)
        for document in try documents() { try smallWriter.write(document) }
        try smallWriter.finish()
        // Version 3 in blocks of columns (the fixture) and version 2 with key references in, each version out.
        for input in [books, small.bytes] {
            for version: UInt8 in [3, 2] {
                for deterministic in [false, true] {
                    try expectTheSameAsOneByOne(input, "version \(version) from \(input.count) bytes, \(deterministic)") {
                        try DocumentStreamWriter(sink: $0, deterministic: deterministic, version: version, codec: .deflate)
                    }
                }
            }
        }
        try expectDamageReportedAlike(books) { try DocumentStreamWriter(sink: $0) }
    }

    @Test("A stream into a JSON array writes each record from its bytes: the text writing its documents gives")
    func streamIntoArray() throws {
        let books = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "Fixtures/generated-books.fpks")))
        let timed = MemorySink()
        let timedWriter = try DocumentStreamWriter(sink: timed, version: 2)
        // Times written as members beside the fields, after them or among them when sorted; a field named like a
        // time member (kept by the naming when the document has no such time) takes the tree.
        let kept = Document(reference: try DocumentReference(path: "books/kept"), fields: ["__create_time__": "not a time", "a": 1])
        for (index, document) in (try documents() + [kept]).enumerated() {
            var document = document
            if index == 0 {
                document.createTime = Timestamp(seconds: 1_600_000_000, nanoseconds: 0)
                document.updateTime = Timestamp(seconds: 1_714_557_600, nanoseconds: 7)
            }
            if index == 1 { document.updateTime = Timestamp(seconds: 1_714_557_600, nanoseconds: 7) }
            if index == 2 { document.createTime = Timestamp(seconds: -62_135_596_800, nanoseconds: 999_999_999) }
            try timedWriter.write(document)
        }
        try timedWriter.finish()
        // A naming keeps state (the collection met first): each writer gets its own.
        let namings: [() -> DocumentNaming] = [
            { DocumentNaming(collection: "books", idField: nil) },
            { DocumentNaming(collection: "other", idField: "id", collectionIsGiven: false) },
        ]
        for input in [books, timed.bytes] {
            for naming in namings {
                for options in [JSONOptions(), JSONOptions(form: .plain), JSONOptions(pretty: true), JSONOptions(sortedKeys: true)] {
                    try expectTheSameAsOneByOne(input, "\(input.count) bytes, \(options)") {
                        JSONArrayWriter($0, naming: naming(), options: options)
                    }
                }
            }
        }
        try expectDamageReportedAlike(books) { JSONArrayWriter($0, naming: naming) }
        // An empty stream is `[]`.
        let empty = MemorySink()
        let emptyStream = MemorySink()
        try DocumentStreamWriter(sink: emptyStream).finish()
        #expect(try JSONArrayWriter(empty, naming: naming).write(from: StreamDocuments(
            DocumentStreamReader(source: MemorySource(emptyStream.bytes)))) == 0)
        #expect(empty.bytes == Array("[]\n".utf8))
    }

    @Test("A stream into Firestore's formats writes each record from its bytes: what writing its documents gives")
    func streamIntoFirestoreFormats() throws {
        let books = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "Fixtures/generated-books.fpks")))
        let varied = MemorySink()
        let variedWriter = try DocumentStreamWriter(sink: varied, version: 2)
        var documents = try documents()
        documents[1].createTime = Timestamp(seconds: 1_714_557_600, nanoseconds: 7)
        documents[1].updateTime = Timestamp(seconds: -5, nanoseconds: 0)
        documents.append(Document(reference: try DocumentReference(path: "books/kinds"), fields: [
            "v": .vector(VectorValue([1.5, -0.0, .infinity])), "b": .bytes(Data([0, 1, 0xFF])), "": "empty key",
            "r": .reference(try DocumentReference(path: "a/b")), "n": .double(.nan), "e": [:], "a": [],
            "deep": [[["x": [1, [2.25]]]]], "big": .integer(.min), "g": .geoPoint(GeoPoint(latitude: -0.0, longitude: 0)),
        ]))
        for document in documents { try variedWriter.write(document) }
        try variedWriter.finish()
        for input in [books, varied.bytes] {
            try expectTheSameAsOneByOne(input, "REST JSON from \(input.count) bytes") { FirestoreJSONWriter($0) }
            try expectTheSameAsOneByOne(input, "protobuf from \(input.count) bytes") { FirestoreProtoWriter($0) }
        }
        try expectDamageReportedAlike(books) { FirestoreJSONWriter($0) }
        try expectDamageReportedAlike(books) { FirestoreProtoWriter($0) }

        // What a format cannot hold is refused from the bytes as from the tree: the record, the document and the path.
        let vectorShaped: Value = ["__type__": "__vector__", "value": [1.5, 2.5]]
        let refused: [(Value, String, [PathComponent], Bool)] = [
            ([1, .serverTimestamp], "the server-timestamp", [.index(1)], true),
            (vectorShaped, "this map has Firestore's vector form", [], true),
            ([.double(Double(bitPattern: 0x7FF8_0000_0000_0001))], "a NaN of bits", [.index(0)], false),  // kept in protobuf
        ]
        let sinks: [(MemorySink) -> any DocumentSink] = [{ FirestoreJSONWriter($0) }, { FirestoreProtoWriter($0) }]
        for (value, message, at, refusedByBoth) in refused {
            let pending = MemorySink()
            let pendingWriter = try DocumentStreamWriter(sink: pending)
            try pendingWriter.write(documents[0])
            try pendingWriter.write(Document(reference: try DocumentReference(path: "books/p"), fields: ["m": ["list": value]]))
            try pendingWriter.finish()
            for make in sinks {
                let isJSON = make(MemorySink()) is FirestoreJSONWriter
                let reader = try DocumentStreamReader(source: MemorySource(pending.bytes))
                guard isJSON || refusedByBoth else {
                    #expect(try make(MemorySink()).write(from: StreamDocuments(reader)) == 2)
                    continue
                }
                let error = #expect(throws: FirePackError.self) { try make(MemorySink()).write(from: StreamDocuments(reader)) }
                #expect(error?.code == .invalidValue && error?.message.hasPrefix("record 1 (books/p): \(message)") == true,
                        "\(String(describing: error))")
                let path: [PathComponent] = isJSON ? [.key("fields")] : []
                #expect(error?.path == path + [.key("m"), .key("list")] + at, "\(String(describing: error))")
            }
        }
        // A single undelimited message takes one document, refused before the second is encoded.
        let single = FirestoreProtoWriter(MemorySink(), delimited: false)
        let twoRecords = try DocumentStreamReader(source: MemorySource(varied.bytes))
        let second = #expect(throws: FirePackError.self) { try single.write(from: StreamDocuments(twoRecords)) }
        #expect(second?.message.contains("a second document for a single undelimited message") == true, "\(String(describing: second))")
    }

    @Test("Into Firestore's formats, Firestore's limits are checked on each record's bytes as on its document")
    func firestoreLimitsOnRecords() throws {
        let stream = MemorySink()
        let streamWriter = try DocumentStreamWriter(sink: stream)
        try streamWriter.write(try documents()[0])
        try streamWriter.write(Document(reference: try DocumentReference(path: "books/bad"),
                                        fields: ["rows": [[1], [2]], "__x__": 1, "m": ["": true]]))
        try streamWriter.finish()
        func problems(throughTree: Bool, _ make: (MemorySink) -> any DocumentSink) throws -> [String] {
            let reader = StreamDocuments(try DocumentStreamReader(source: MemorySource(stream.bytes)))
            let source: any DocumentSource = throughTree ? DocumentsOneByOne(try reader.readAll()) : reader
            let conversion = DocumentConversion(from: source, to: make(MemorySink()))
            #expect(try conversion.run() == 2)
            return conversion.limitProblems.lines(prefix: "")
        }
        for make in [{ FirestoreJSONWriter($0) }, { FirestoreProtoWriter($0) }] as [(MemorySink) -> any DocumentSink] {
            // From the bytes (the record route), and through the tree (documents that are not a stream's).
            let fromBytes = try problems(throughTree: false, make)
            #expect(fromBytes == (try problems(throughTree: true, make)))
            #expect(fromBytes.first == "record 1 (books/bad): rows[0]: Firestore does not allow an array directly inside an array",
                    "\(fromBytes)")
            #expect(fromBytes.contains("record 1 (books/bad): __x__: field names like __x__ are reserved")
                    && fromBytes.contains("record 1 (books/bad): m: empty field name"), "\(fromBytes)")
        }
    }

    /// The test documents and one with pending server timestamps at every depth, and a stream of them.
    func pendingStream() throws -> (documents: [Document], stream: MemorySink) {
        let pending = try documents() + [
            Document(reference: try DocumentReference(path: "books/p"), fields: [
                "at": .serverTimestamp, "m": ["list": [1, .serverTimestamp, ["deep": .serverTimestamp]]], "n": 2,
            ]),
        ]
        let stream = MemorySink()
        let streamWriter = try DocumentStreamWriter(sink: stream)
        for document in pending { try streamWriter.write(document) }
        try streamWriter.finish()
        return (pending, stream)
    }

    @Test("Pending server timestamps given a time go into Firestore's formats from the records' bytes as resolved trees do")
    func resolvedServerTimestampsFromRecords() throws {
        let (pending, stream) = try pendingStream()
        let sinks: [(MemorySink) -> any DocumentSink] = [{ FirestoreJSONWriter($0) }, { FirestoreProtoWriter($0) }]
        // A time in Firestore's range (taken from the bytes), and one outside it (the tree, which reports its range).
        for time in [Timestamp(seconds: 1_764_900_000, nanoseconds: 123_456_789), try Timestamp(validatingSeconds: -62_135_596_801, nanoseconds: 0)] {
            for make in sinks {
                let fromRecords = MemorySink()
                let reader = try DocumentStreamReader(source: MemorySource(stream.bytes))
                let conversion = DocumentConversion(from: StreamDocuments(reader), to: make(fromRecords),
                                                    resolvingServerTimestamps: time)
                #expect(try conversion.run() == pending.count)
                let oneByOne = MemorySink()
                let writer = make(oneByOne)
                for document in pending { try writer.write(document.resolvingServerTimestamps(at: time)) }
                try writer.finish()
                #expect(fromRecords.bytes == oneByOne.bytes && !oneByOne.bytes.isEmpty, "\(time)")
                let rangeProblems = conversion.limitProblems.lines(prefix: "").filter { $0.contains("outside") }
                #expect(rangeProblems.count == (Timestamp.firestoreRange.contains(time) ? 0 : 3), "\(rangeProblems)")
            }
        }
        // Each pending timestamp became the time: read back, the documents are the resolved ones.
        let time = Timestamp(seconds: 1_764_900_000, nanoseconds: 1)
        let resolved = MemorySink()
        let conversion = DocumentConversion(
            from: StreamDocuments(try DocumentStreamReader(source: MemorySource(stream.bytes))),
            to: FirestoreJSONWriter(resolved), resolvingServerTimestamps: time)
        #expect(try conversion.run() == pending.count)
        let back = try FirestoreJSONReader(MemorySource(resolved.bytes)).readAll()
        #expect(back == pending.map { $0.resolvingServerTimestamps(at: time) })
        #expect(back.last?.fields["m"] == ["list": [1, .timestamp(time), ["deep": .timestamp(time)]]])
    }

    @Test("Pending server timestamps given a time go into JSON lines, arrays and streams from the records' bytes as resolved trees do")
    func resolvedServerTimestampsIntoJSON() throws {
        let (pending, stream) = try pendingStream()
        let time = Timestamp(seconds: 1_764_900_000, nanoseconds: 123_456_789)
        let sinks: [(String, (MemorySink) throws -> any DocumentSink)] = [
            ("lines", { JSONLinesWriter($0, naming: self.naming) }),
            ("sorted lines", { JSONLinesWriter($0, naming: self.naming, options: JSONOptions(sortedKeys: true)) }),
            ("array", { JSONArrayWriter($0, naming: self.naming) }),
            ("pretty array", { JSONArrayWriter($0, naming: self.naming, options: JSONOptions(pretty: true)) }),
            ("stream", { try DocumentStreamWriter(sink: $0) }),
            ("deterministic stream", { try DocumentStreamWriter(sink: $0, deterministic: true) }),
        ]
        for (name, make) in sinks {
            let oneByOne = MemorySink()
            let writer = try make(oneByOne)
            for document in pending { try writer.write(document.resolvingServerTimestamps(at: time)) }
            try writer.finish()
            for workers in [1, 2] {
                let fromRecords = MemorySink()
                let reader = try DocumentStreamReader(source: MemorySource(stream.bytes))
                let conversion = DocumentConversion(
                    from: StreamDocuments(reader), to: try make(fromRecords), resolvingServerTimestamps: time,
                    workers: workers)
                #expect(try conversion.run() == pending.count)
                #expect(fromRecords.bytes == oneByOne.bytes, "\(name), \(workers) worker(s)")
            }
            guard !name.contains("stream") else {
                // Read back, the resolved documents (a deterministic stream's keys sorted, which equality sees).
                guard name == "stream" else { continue }
                let back = try StreamDocuments(DocumentStreamReader(source: MemorySource(oneByOne.bytes))).readAll()
                #expect(back == pending.map { $0.resolvingServerTimestamps(at: time) }, "\(name)")
                continue
            }
            let text = String(decoding: oneByOne.bytes, as: UTF8.self)
            #expect(text.components(separatedBy: "2025-12-05T02:00:00.123456789Z").count == 4, "\(name): \(text)")
        }
    }

    @Test("Every format's writer into every reader, through DocumentSink.write(from:): nothing lost")
    func chained() throws {
        let documents = try documents()
        let lines = try written(documents) { JSONLinesWriter($0, naming: naming) }
        let proto = MemorySink()
        #expect(try FirestoreProtoWriter(proto).write(from: JSONLinesReader(MemorySource(lines), naming: naming)) == 3)
        let rest = MemorySink()
        try FirestoreJSONWriter(rest).write(from: FirestoreProtoReader(MemorySource(proto.bytes)))
        let array = MemorySink()
        try JSONArrayWriter(array, naming: naming).write(from: FirestoreJSONReader(MemorySource(rest.bytes)))
        let back = MemorySink()
        try JSONLinesWriter(back, naming: naming).write(from: JSONArrayReader(MemorySource(array.bytes), naming: naming))
        #expect(back.bytes == lines)
        #expect(try JSONLinesReader(MemorySource(back.bytes), naming: naming).readAll() == documents)
    }
}

/// Documents given one by one, as a source that is not a stream's: a conversion takes each through its tree.
final class DocumentsOneByOne: DocumentSource {
    private var documents: IndexingIterator<[Document]>
    init(_ documents: [Document]) { self.documents = documents.makeIterator() }
    func next() throws -> Document? { documents.next() }
}
