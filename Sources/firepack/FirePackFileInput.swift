import FirePack
import FirePackInterop

/// The documents of a `.fpk` file: every byte checked first, as `validate` checks it, then the elements of its array
/// made into documents one at a time from the file's bytes (one object is one document). Memory for the bytes and
/// one element's tree, not for the whole value's: a tree takes many times its bytes (300 documents of citm_catalog.json,
/// a 48 MB file, made a tree of 900 MB), and a packed array's rows over 100 bytes each.
final class FirePackFileInput: DocumentInput, NamingDocumentSource {
    let naming: DocumentNaming
    /// Whether the value is one object (one document) rather than an array of them.
    let isSingleObject: Bool
    private let file: String
    /// The file's bytes, which `reader` reads in place: its own copy, alive as long as the input.
    private let bytes: UnsafeMutableRawBufferPointer
    private var reader: FirePackReader
    /// The values left to read: the array's elements, or the one value that is not an array.
    private var remaining: Int

    /// Checks `contents`, a `.fpk` file's bytes, under `limits` (a `CommandFailure` naming `file` and the byte).
    init(_ contents: [UInt8], file: String, limits: ReaderLimits, naming: DocumentNaming) throws {
        self.file = file
        self.naming = naming
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(contents.count, 1), alignment: 16)
        contents.withUnsafeBytes { bytes.copyMemory(from: $0) }
        let raw = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[..<contents.count])
        self.bytes = bytes
        do throws(FirePackError) {
            try FirePackReader.verify(fileBytes: raw, limits: limits)
            var reader = try FirePackReader(fileBytes: raw, limits: limits)
            let type = try reader.peekType()
            isSingleObject = type == .map
            remaining = type == .array ? try reader.enterArray().count : 1
            self.reader = reader
        } catch {
            bytes.deallocate()
            throw CommandFailure.data(file, error)
        }
    }

    deinit { bytes.deallocate() }

    func next() throws -> Document? {
        guard remaining > 0 else { return nil }
        let value: Value
        do throws(FirePackError) { value = try reader.readValue() } catch { throw CommandFailure.data(file, error) }
        remaining -= 1
        return try naming.document(from: value, line: nil)
    }
}
