#if FirePackNIO
import FirePack
import FirePackMacros
import FirePackNIO
import FirePackTestSupport
import Foundation
import NIOCore
import Testing

@FirePackCodable
struct GeneratedShelf: Codable, Equatable {
    var name: String
    var books: [GeneratedBook]
}

@FirePackCodable
struct GeneratedBook: Codable, Equatable {
    var title: String
    var pages: Int
    var published: Timestamp?
}

/// The same shape without the macro: the Codable path.
struct CodableShelf: Codable, Equatable {
    var name: String
    var books: [CodableBook]
}

struct CodableBook: Codable, Equatable {
    var title: String
    var pages: Int
    var published: Timestamp?
}

func makeShelf(books count: Int) -> GeneratedShelf {
    GeneratedShelf(name: "shelf", books: (0 ..< count).map {
        GeneratedBook(title: "Book \($0)", pages: 100 + $0, published: $0.isMultiple(of: 2) ? Timestamp(seconds: Int64($0), nanoseconds: 7) : nil)
    })
}

func codable(_ shelf: GeneratedShelf) -> CodableShelf {
    CodableShelf(name: shelf.name, books: shelf.books.map { CodableBook(title: $0.title, pages: $0.pages, published: $0.published) })
}

@Suite("ByteBuffer reading and writing")
struct ByteBufferFirePackTests {
    @Test("writeFirePack writes the encoder's bytes after what the buffer holds, on both coding paths",
          arguments: [1, 10, 2_000])
    func writeMatchesEncoder(books: Int) throws {
        let shelf = makeShelf(books: books)
        for deterministic in [false, true] {
            let encoder = FirePackEncoder()
            if deterministic { encoder.outputFormatting = .sortedKeys }
            let expected = [UInt8](try encoder.encode(shelf))
            #expect(expected == [UInt8](try encoder.encode(codable(shelf))))
            for value in [shelf as any Encodable, codable(shelf)] {
                var buffer = ByteBuffer(bytes: [0xAA, 0xBB])
                buffer.moveReaderIndex(forwardBy: 1)
                let written = try buffer.writeFirePack(value, encoder: encoder)
                #expect(written == expected.count)
                #expect(buffer.readerIndex == 1)
                #expect(buffer.readBytes(length: 1) == [0xBB])
                #expect(buffer.readBytes(length: buffer.readableBytes) == expected)
            }
        }
    }

    @Test("A value that outgrows the reserved bytes is finished in the encoder's memory and copied in once")
    func spillsWhenTooLarge() throws {
        let shelf = makeShelf(books: 500)
        let expected = [UInt8](try FirePackEncoder().encode(shelf))
        var buffer = ByteBuffer()
        buffer.reserveCapacity(64)
        let written = try buffer.writeFirePack(shelf, minimumWritableBytes: 64)
        #expect(written == expected.count)
        #expect(Array(buffer.readableBytesView) == expected)
    }

    @Test("The encoder writes in the memory it is given while the value fits, and leaves it when it does not")
    func borrowedMemory() throws {
        let small = makeShelf(books: 3)
        let expected = [UInt8](try FirePackEncoder().encode(small))
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { memory.deallocate() }
        let inPlace = try FirePackEncoder().encode(small, borrowing: memory)
        #expect(inPlace.isWritingInBorrowedMemory)
        #expect(Array(memory.prefix(inPlace.writerIndex)) == expected)

        let large = makeShelf(books: 400)
        let moved = try FirePackEncoder().encode(large, borrowing: memory)
        #expect(!moved.isWritingInBorrowedMemory)
        #expect(moved.writtenBytes == [UInt8](try FirePackEncoder().encode(large)))
    }

    @Test("A failed write leaves the buffer as it was")
    func failedWriteLeavesBuffer() throws {
        struct Refuses: Encodable {
            struct Nope: Error {}
            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode("written before the failure")
                throw Nope()
            }
        }
        var buffer = ByteBuffer(bytes: [1, 2, 3])
        #expect(throws: Refuses.Nope.self) { try buffer.writeFirePack(Refuses()) }
        #expect(buffer.readerIndex == 0 && buffer.writerIndex == 3)
        #expect(Array(buffer.readableBytesView) == [1, 2, 3])
    }

    @Test("readFirePack decodes both paths, moves the reader index on success and keeps it on failure")
    func readMovesOnlyOnSuccess() throws {
        let shelf = makeShelf(books: 20)
        var buffer = ByteBuffer()
        let first = try buffer.writeFirePack(shelf)
        try buffer.writeFirePack(codable(shelf))
        #expect(try buffer.readFirePack(GeneratedShelf.self, length: first) == shelf)
        #expect(buffer.readerIndex == first)
        #expect(try buffer.readFirePack(CodableShelf.self) == codable(shelf))
        #expect(buffer.readableBytes == 0)

        var short = ByteBuffer(bytes: try FirePackEncoder().encode(shelf))
        #expect(try short.readFirePack(GeneratedShelf.self, length: short.readableBytes + 1) == nil)
        #expect(short.readerIndex == 0)

        let damagedBytes = [UInt8](try FirePackEncoder().encode(shelf).dropLast())
        var damaged = ByteBuffer(bytes: [9, 9])
        damaged.writeBytes(damagedBytes)
        damaged.moveReaderIndex(forwardBy: 2)
        for type in [GeneratedShelf.self, CodableShelf.self] as [any Decodable.Type] {
            let error = #expect(throws: DecodingError.self) { _ = try damaged.readFirePack(type) }
            #expect(damaged.readerIndex == 2)
            guard case .dataCorrupted(let context)? = error, let underlying = context.underlyingError as? FirePackError else {
                Issue.record("expected dataCorrupted with a FirePackError, got \(String(describing: error))")
                continue
            }
            // Offsets count from the reader index, not from the buffer's start: the same error as the bare bytes give.
            let bare = #expect(throws: DecodingError.self) { _ = try FirePackDecoder().decode(GeneratedShelf.self, from: damagedBytes) }
            guard case .dataCorrupted(let bareContext)? = bare else { Issue.record("expected dataCorrupted"); continue }
            #expect(bareContext.underlyingError as? FirePackError == underlying)
        }
    }

    @Test("getFirePack reads anywhere in the readable bytes without moving the reader index")
    func getDoesNotMove() throws {
        let shelf = makeShelf(books: 5)
        var buffer = ByteBuffer(bytes: [7, 7, 7])
        let length = try buffer.writeFirePack(shelf)
        buffer.writeBytes([8])
        #expect(try buffer.getFirePack(GeneratedShelf.self, at: 3, length: length) == shelf)
        #expect(try buffer.getFirePack(CodableShelf.self, at: 3, length: length) == codable(shelf))
        #expect(buffer.readerIndex == 0)
        #expect(try buffer.getFirePack(GeneratedShelf.self, at: 3, length: length + 2) == nil)
        buffer.moveReaderIndex(forwardBy: 4)
        #expect(try buffer.getFirePack(GeneratedShelf.self, at: 3, length: length) == nil)
        #expect(try buffer.getFirePack(GeneratedShelf.self, at: -1, length: 1) == nil)
        #expect(try buffer.getFirePack(GeneratedShelf.self, at: 4, length: -1) == nil)
    }

    @Test("Mutated bytes in a buffer decode or throw on both paths, and agree")
    func mutatedBytes() throws {
        var rng = SeededGenerator(seed: 0x6E69_6F21)
        let original = [UInt8](try FirePackEncoder().encode(makeShelf(books: 4)))
        for _ in 0 ..< 5_000 {
            let bytes = ByteMutation.mutated(original, using: &rng)
            var buffer = ByteBuffer(bytes: bytes)
            let generated = Result { try buffer.readFirePack(GeneratedShelf.self) }
            var again = ByteBuffer(bytes: bytes)
            let plain = Result { try again.readFirePack(CodableShelf.self) }
            switch (generated, plain) {
            case (.success(let a), .success(let b)): #expect(codable(a) == b)
            case (.failure, .failure): #expect(buffer.readerIndex == 0 && again.readerIndex == 0)
            default: Issue.record("the paths disagree on \(bytes)")
            }
        }
    }
}
#endif
