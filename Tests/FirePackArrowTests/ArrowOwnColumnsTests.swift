import CArrowABI
import FirePack
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

@testable import FirePackArrow

/// What a reader is given from outside — a schema, an output path, a stream that may be cut — is taken for what it is:
/// a document's own columns hold its path and times, an output that is not a file is written in place or refused,
/// and a stream without a close record can be refused.
@Suite("Arrow: given schemas, outputs and unclosed streams")
struct ArrowOwnColumnsTests {
    private let folder = TemporaryFolder("arrow-own-columns")

    func stream(_ name: String, count: Int = 10, blockSize: Int = DocumentStreamFormat.defaultBlockSize) throws -> String {
        let documents = try (0..<count).map { index in
            Document(
                reference: try DocumentReference(path: "c/d\(index)"), fields: ["n": .integer(Int64(index))],
                createTime: Timestamp(seconds: 1_700_000_000 + Int64(index), nanoseconds: 0))
        }
        return try writeStream(documents, name: name, in: folder, blockSize: blockSize)
    }

    /// A path read into an integer column was its bytes' address; a time read into a string column crashed.
    @Test func theDocumentsOwnColumnsMustHaveTheirTypes() throws {
        let path = try stream("own.fpks")
        let wrong: [(String, ArrowColumnType)] = [
            ("__name__", .int64), ("__name__", .list(ArrowColumn(name: "item", type: .string))),
            ("__name__", .exact), ("__create_time__", .string), ("__update_time__", .int64), ("__create_time__", .null),
        ]
        for (name, type) in wrong {
            var options = ArrowBatchReader.Options()
            options.schema = ArrowDocumentSchema(columns: [ArrowColumn(name: name, type: type)])
            let error = #expect(throws: FirePackError.self, "\(name): \(type)") {
                try ArrowBatchReader(path: path, options: options)
            }
            #expect(error?.code == .typeMismatch && error?.path == [.key(name)], "\(String(describing: error))")
            #expect(error?.message.hasPrefix("\(name) must be a") == true, "\(String(describing: error))")
        }
        for type in [ArrowColumnType.string, .reference] {
            var options = ArrowBatchReader.Options()
            options.schema = ArrowDocumentSchema(columns: [
                ArrowColumn(name: "__name__", type: type), ArrowColumn(name: "__create_time__", type: .timestamp),
            ])
            _ = try ArrowBatchReader(path: path, options: options)
        }
    }

    @Test func aStreamWithoutACloseRecordCanBeRefused() throws {
        let path = try stream("closed.fpks", count: 50, blockSize: 200)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let cut = folder.path("unclosed.fpks")
        try bytes.prefix(bytes.count - 24).write(to: URL(fileURLWithPath: cut))
        func rows(_ path: String, refusing: Bool) throws -> Int {
            var options = ArrowBatchReader.Options()
            options.refusesUnclosedStream = refusing
            return try rowCount(ArrowBatchReader(path: path, options: options))
        }
        #expect(try rows(cut, refusing: false) == 50)
        #expect(try rows(path, refusing: true) == 50)
        // A range that stops at the next range's first record has not seen the stream's end, however often it is
        // asked again: it was said to be not closed at the second asking.
        let range = try DocumentStreamReader.reading(path: path, offset: 0, length: bytes.count / 2)
        var read = 0
        while try range.nextRecord() != nil { read += 1 }
        #expect(try range.nextRecord() == nil && range.nextRecord() == nil)
        #expect(read > 0 && read < 50 && range.completion == nil, "\(read) \(String(describing: range.completion))")
        let error = #expect(throws: FirePackError.self) { try rows(cut, refusing: true) }
        #expect(error?.message.contains("unclosed.fpks: the stream ends without a close record after record 50") == true,
                "\(String(describing: error))")
        // Read by byte ranges, the one that reads the last records says it, by the number a whole read gives (a
        // version-3 block carries its first record's); one past the last record has seen neither records nor a
        // close record, and says nothing.
        func unclosed(offset: Int, length: Int?) throws -> (rows: Int, said: String?) {
            var options = ArrowBatchReader.Options()
            (options.offset, options.length) = (offset, length)
            let reader = try ArrowBatchReader(path: cut, options: options)
            return (try rowCount(reader), reader.unclosedAfter)
        }
        let size = bytes.count - 24
        let tail = try unclosed(offset: size / 2, length: nil)
        #expect(tail.rows > 0 && tail.rows < 50 && tail.said == "after record 50", "\(tail)")
        let head = try unclosed(offset: 0, length: size / 2)
        #expect(head.rows == 50 - tail.rows && head.said == nil, "\(head)")
        let past = try unclosed(offset: size - 1, length: 1)
        #expect(past.rows == 0 && past.said == nil, "\(past)")
        #expect(try unclosed(offset: 0, length: nil).said == "after record 50")
    }

    /// `/dev/null` stays a device, a folder is refused before anything is read.
    @Test func outputsThatAreNotFilesAreWrittenInPlaceOrRefused() throws {
        let writer = try ArrowStreamWriter(path: "/dev/null")
        try writer.close()
        var status = stat()
        #expect(stat("/dev/null", &status) == 0 && status.st_mode & S_IFMT == S_IFCHR)
        let error = #expect(throws: FirePackError.self) { try ArrowStreamWriter(path: folder.url.path) }
        #expect(error?.message.contains("is a directory") == true, "\(String(describing: error))")
    }
}
