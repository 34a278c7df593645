#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A validated UTF-8 string inside the reader's input: no bytes are copied until you ask for a `String`.
///
/// Valid only while the input it was read from is alive (inside the `withReader` call that produced it).
public struct StringView: CustomStringConvertible {
    /// The UTF-8 bytes, pointing into the input.
    public let utf8: UnsafeRawBufferPointer

    init(_ utf8: UnsafeRawBufferPointer) { self.utf8 = utf8 }

    /// The number of UTF-8 bytes.
    public var count: Int { utf8.count }

    /// A copy as a `String` (no second UTF-8 validation).
    public var string: String { UTF8Validation.makeString(validated: utf8) }

    /// The string.
    public var description: String { string }

    /// Whether the bytes equal `other`'s UTF-8 bytes.
    public static func == (view: StringView, other: String) -> Bool {
        other.withUTF8Bytes { bytes in
            bytes.count == view.utf8.count
                && (bytes.count == 0
                    || ByteComparison.equal(bytes.baseAddress!, view.utf8.baseAddress!, count: bytes.count))
        }
    }
}

/// Bytes inside the reader's input, copied only on request. Valid only while the input is alive.
public struct BytesView {
    /// The bytes, pointing into the input.
    public let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The number of bytes.
    public var count: Int { bytes.count }
    /// A copy as `Data`.
    public var data: Data { Data(bytes) }
    /// A copy as `[UInt8]`.
    public var array: [UInt8] { Array(bytes) }
}
