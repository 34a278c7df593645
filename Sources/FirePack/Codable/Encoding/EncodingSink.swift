/// Where the Codable encoder (`EncoderImpl`) puts what a value's `encode(to:)` writes: bytes in order (`ByteSink`)
/// or a `Value` tree (`TreeSink`).
///
/// The encoder owns everything Codable means (coding paths, the key strategy, the native types and the strategies
/// for them, generated coding, `@DocumentID` and unknown fields); a sink owns only where values go. Every write names
/// its place: a `Position` (where one value goes) or a `Container` (an open map or array, for its next entry).
///
/// Codable lets a type keep a container and write to it after its siblings, write a key twice (the last value wins,
/// at the first one's place, as with JSONEncoder), or hand out a super encoder that writes later. A tree does all of
/// that. Bytes written in order cannot: `ByteSink` throws `ByteSink.OutOfOrder` at the first such write, and
/// `FirePackEncoder` encodes the value again into a tree (the same encoder, the other sink) and writes the tree.
protocol EncodingSink {
    /// Where one value goes.
    associatedtype Position
    /// An open map or array.
    associatedtype Container

    /// Whether values are written strictly in order. Then one encoder object serves a whole value (nested values
    /// share its coding-path stack) and `@FirePackCodable` types write through their generated code; otherwise each
    /// nested value gets an encoder of its own, since its containers may be used after its siblings'.
    static var writesInOrder: Bool { get }

    /// Whether anything was written at `position` since it was made (a single-value container writes once).
    func hasValue(at position: Position) -> Bool
    /// Writes null at `position`.
    mutating func writeNull(at position: Position)
    /// Writes a boolean at `position`.
    mutating func writeBoolean(_ value: Bool, at position: Position)
    /// Writes an integer at `position`.
    mutating func writeInteger(_ value: Int64, at position: Position)
    /// Writes a double at `position`.
    mutating func writeDouble(_ value: Double, at position: Position)
    /// Writes a string at `position`.
    mutating func writeString(_ value: String, at position: Position)
    /// Writes a whole `Value` at `position`.
    mutating func write(_ value: Value, at position: Position)

    /// The container of the value at `position`: a new one when nothing is there yet, the same one when a container
    /// of the same kind was asked for before (Codable allows asking twice).
    mutating func container(at position: Position, isMap: Bool) -> Container
    /// The place of a new entry `key` of `map`.
    mutating func entry(_ key: String, of map: Container) throws -> Position
    /// The place of the next element of `array`.
    mutating func element(of array: Container) throws -> Position
    /// Adds the entries of a `FirePackUnknownFields` to `map`; the model's own fields win over them.
    mutating func addUnknownFields(_ bag: FirePackUnknownFields, to map: Container) throws
    /// Ends the value at `position`, whose `encode(to:)` returned: closes what it left open, and makes a value that
    /// wrote nothing an empty map, as JSONEncoder does.
    mutating func finishValue(at position: Position) throws
    /// Whether a super encoder may write at an entry later, after its siblings (a tree: yes; bytes: no).
    static var allowsLaterWrites: Bool { get }
    /// The container handed out where the sink cannot follow: any write through it throws (bytes only).
    static var unusableContainer: Container { get }
    /// Writes `value` through its generated coding (`@FirePackCodable`) at `position` when the sink can (bytes);
    /// false when it cannot or the type has none.
    static func encodeGenerated<T: Encodable>(_ value: T, encoder: EncoderImpl<Self>) throws -> Bool
}
