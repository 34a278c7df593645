/// The sink that writes straight into a `FirePackWriter`, in order.
///
/// Codable never says when a container is finished, so containers are closed lazily: a container that is written to
/// closes every container opened inside it since (those are finished: in-order code wrote them first), and a value's
/// `encode(to:)` returning closes whatever it left open. A write to a container already closed, a key the map holds
/// already, or a super encoder's write throw `OutOfOrder` (see `EncodingSink`).
struct ByteSink: EncodingSink {
    /// Thrown at the first write that bytes in order cannot honour; the value is encoded again into a tree.
    struct OutOfOrder: Error {}

    /// A value's place: where the writer stood and how deep when the value began. Twelve bytes, so that a
    /// single-value container holding one (and a coding-path depth) stays within an existential's three inline words.
    struct Position {
        let start: Int
        let depth: Int32
    }

    /// An open container: its identity and the writer depth at which it is the innermost (−1: none, unusable).
    struct Container {
        let id: Int
        let depth: Int
    }

    let writer: FirePackWriter
    /// The identity of the Codable container behind each open writer container, outermost first.
    var openContainers: [Int] = []
    var nextContainerID = 0
    /// Which types met so far have generated coding.
    var generatedTypes = GeneratedConformanceMemo<any FirePackEncodable.Type>()

    init(writer: FirePackWriter) {
        self.writer = writer
    }

    static var writesInOrder: Bool { true }
    static var allowsLaterWrites: Bool { false }
    static var unusableContainer: Container { Container(id: -1, depth: -1) }

    /// The place where the writer stands.
    @inline(__always)
    var currentPosition: Position { Position(start: writer.writerIndex, depth: Int32(truncatingIfNeeded: writer.depth)) }

    @inline(__always)
    func hasValue(at position: Position) -> Bool {
        writer.writerIndex != position.start || writer.depth != Int(position.depth)
    }

    @inline(__always) func writeNull(at position: Position) { writer.writeNull() }
    @inline(__always) func writeBoolean(_ value: Bool, at position: Position) { writer.writeBoolean(value) }
    @inline(__always) func writeInteger(_ value: Int64, at position: Position) { writer.writeInteger(value) }
    @inline(__always) func writeDouble(_ value: Double, at position: Position) { writer.writeDouble(value) }
    @inline(__always) func writeString(_ value: String, at position: Position) { writer.writeString(value) }
    func write(_ value: Value, at position: Position) { writer.write(value) }

    mutating func container(at position: Position, isMap: Bool) -> Container {
        if writer.writerIndex == position.start {
            isMap ? writer.beginMap() : writer.beginArray()
            nextContainerID += 1
            openContainers.append(nextContainerID)
            return Container(id: nextContainerID, depth: writer.depth)
        }
        // Asking twice for the same kind of container of one value is allowed: it is the same container.
        guard writer.depth >= 1, writer.top.isMap == isMap, writer.top.headerStart == position.start,
              let id = openContainers.last else { return Self.unusableContainer }
        return Container(id: id, depth: writer.depth)
    }

    @inline(__always)
    mutating func entry(_ key: String, of map: Container) throws -> Position {
        try activate(map)
        guard writer.writeKey(key) else { throw OutOfOrder() }
        return currentPosition
    }

    @inline(__always)
    mutating func element(of array: Container) throws -> Position {
        try activate(array)
        return currentPosition
    }

    mutating func addUnknownFields(_ bag: FirePackUnknownFields, to map: Container) throws {
        try activate(map)
        // A key the map holds already: the model's field must win wherever it stands, which only a tree can do.
        guard writer.writeUnknownFields(bag, sortingKeys: false) else { throw OutOfOrder() }
    }

    mutating func finishValue(at position: Position) throws {
        try close(downTo: Int(position.depth))
        if writer.writerIndex == position.start {
            writer.beginMap()
            writer.endMap()
        }
    }

    /// Makes `container` the innermost open one, closing the finished containers opened inside it; throws
    /// `OutOfOrder` if it was closed already.
    @inline(__always)
    mutating func activate(_ container: Container) throws {
        guard container.id >= 0 else { throw OutOfOrder() }
        if writer.depth != container.depth { try close(downTo: container.depth) }
        guard writer.depth == container.depth, openContainers.last == container.id else { throw OutOfOrder() }
    }

    /// Closes open containers until the writer is back at `depth`; a map left waiting for a value cannot close.
    mutating func close(downTo depth: Int) throws {
        while writer.depth > depth {
            if writer.top.isMap {
                guard writer.top.expectingKey else { throw OutOfOrder() }
                writer.endMap()
            } else {
                writer.endArray()
            }
            openContainers.removeLast()
        }
    }

    static func encodeGenerated<T: Encodable>(_ value: T, encoder: EncoderImpl<ByteSink>) throws -> Bool {
        guard let generated = encoder.sink.generatedTypes.conformance(of: T.self, { $0 as? any FirePackEncodable.Type })
        else { return false }
        try generated.encodeGenerated(value, encoder: encoder)
        return true
    }
}
