// The encoder's sink: where `EncoderImpl` puts what a value's `encode(to:)` writes — bytes written in order into a
// `FirePackWriter`, or a `Value` tree (`EncodingTree`).
//
// The encoder owns everything Codable means (coding paths, the key strategy, the native types and the strategies
// for them, generated coding, `@DocumentID`, unknown fields); the sink owns only where values go. Every write names
// its place: a `Position` (where one value goes) or a `Container` (an open map or array, for its next entry).
//
// Codable lets a type keep a container and write to it after its siblings, write a key twice (the last value wins,
// at the first one's place, as with JSONEncoder), or hand out a super encoder that writes later. A tree does all of
// that. Bytes written in order cannot: the sink throws `OutOfOrder` at the first such write, and `FirePackEncoder`
// encodes the value again into a tree (the same encoder, the other sink) and writes the tree. Why not mend the bytes
// in place: a repeated key's earlier entry may hold key literals that later keys already reference through the key
// table (Docs/FORMAT.md §3), so its bytes cannot be cut out; and switching sinks midway would have to map every
// `Position` and `Container` handed out to a tree node. Only values that write a key twice or use containers out of
// order pay for the second encode.
//
// A branch per write inside the encoder, not a sink protocol with two conformers: the encoder's methods and its
// containers are called through Codable's protocols with the value's type unknown, where a sink known only as a
// generic parameter would be called through its witness table on every value; and the writer is a `let` of the
// encoder, which a call borrows, where a `var` would be retained and released around every write (guarded by the
// `FirePackEncoder Codable` benchmarks). `ScalarSink` is no exception: `NativeScalar.write` is always inlined into a
// caller that names its sink's type (`ValueSlot` here, `FirePackWriter` in generated coding), so it is specialized.
extension EncoderImpl {
    /// Thrown at the first write that bytes in order cannot honour; the value is encoded again into a tree.
    struct OutOfOrder: Error {}

    /// A value's place. Bytes: where the writer stood and how deep when the value began. Tree: the index of its
    /// node (`depth` unused). Twelve bytes, so that a single-value container holding one (and a coding-path depth)
    /// stays within an existential's three inline words.
    struct Position {
        let start: Int
        let depth: Int32
    }

    /// An open container. Bytes: its identity and the writer depth at which it is the innermost (−1: unusable).
    /// Tree: the index of its box (`depth` unused).
    struct Container {
        let id: Int
        let depth: Int
    }

    /// What an encoder that builds a tree holds in place of a writer: never written to, never read.
    nonisolated(unsafe) static let noWriter = FirePackWriter(options: .init(initialCapacity: 0))

    /// Whether values are written strictly in order (bytes). Then one encoder object serves a whole value (nested
    /// values share its coding-path stack) and `@FirePackCodable` types write through their generated code;
    /// otherwise each nested value gets an encoder of its own, since its containers may be used after its siblings'.
    @inline(__always)
    var writesInOrder: Bool { tree == nil }

    /// The place where the writer stands (bytes), or the root (tree).
    var currentPosition: Position {
        if tree != nil { return Position(start: 0, depth: 0) }
        return Position(start: writer.writerIndex, depth: Int32(truncatingIfNeeded: writer.depth))
    }

    /// The container handed out where the sink cannot follow: any write through it throws (bytes only).
    static let unusableContainer = Container(id: -1, depth: -1)

    /// Whether anything was written at `position` since it was made (a single-value container writes once).
    @inline(__always)
    func hasValue(at position: Position) -> Bool {
        if let tree { return tree.nodes[position.start] != nil }
        return writer.writerIndex != position.start || writer.depth != Int(position.depth)
    }

    /// Writes null at `position`.
    @inline(__always)
    func setNull(at position: Position) {
        if let tree { tree.nodes[position.start] = .value(.null) } else { writer.writeNull() }
    }

    /// Writes a boolean at `position`.
    @inline(__always)
    func setBoolean(_ value: Bool, at position: Position) {
        if let tree { tree.nodes[position.start] = .value(.boolean(value)) } else { writer.writeBoolean(value) }
    }

    /// Writes an integer at `position`.
    @inline(__always)
    func setInteger(_ value: Int64, at position: Position) {
        if let tree { tree.nodes[position.start] = .value(.integer(value)) } else { writer.writeInteger(value) }
    }

    /// Writes a double at `position`.
    @inline(__always)
    func setDouble(_ value: Double, at position: Position) {
        if let tree { tree.nodes[position.start] = .value(.double(value)) } else { writer.writeDouble(value) }
    }

    /// Writes an array of doubles at `position`.
    func setDoubles(_ value: [Double], at position: Position) {
        if let tree {
            tree.nodes[position.start] = .value(.array(value.map { .double($0) }))
        } else {
            value.withUnsafeBufferPointer { writer.writeDoubles($0) }
        }
    }

    /// Writes a string at `position`.
    @inline(__always)
    func setString(_ value: String, at position: Position) {
        if let tree { tree.nodes[position.start] = .value(.string(value)) } else { writer.writeString(value) }
    }

    /// One value's place, as a `ScalarSink`.
    struct ValueSlot: ScalarSink {
        let encoder: EncoderImpl
        let position: Position
        func writeString(_ value: String) { encoder.setString(value, at: position) }
        func writeInteger(_ value: Int64) { encoder.setInteger(value, at: position) }
        func writeBoolean(_ value: Bool) { encoder.setBoolean(value, at: position) }
        func writeDouble(_ value: Double) { encoder.setDouble(value, at: position) }
    }

    /// Writes a whole `Value` at `position`.
    func setValue(_ value: Value, at position: Position) {
        if let tree { tree.nodes[position.start] = .value(value) } else { writer.write(value) }
    }

    /// The container of the value at `position`: a new one when nothing is there yet, the same one when a container
    /// of the same kind was asked for before (Codable allows asking twice).
    func container(at position: Position, isMap: Bool) -> Container {
        if let tree { return Container(id: tree.box(at: position.start, isMap: isMap), depth: 0) }
        if writer.writerIndex == position.start {
            isMap ? writer.beginMap() : writer.beginArray()
            nextContainerID += 1
            openContainers.append(nextContainerID)
            return Container(id: nextContainerID, depth: writer.depth)
        }
        // Asking twice for the same kind of container of one value is allowed: it is the same container.
        guard writer.depth >= 1, writer.top.isMap == isMap, writer.top.headerStart == position.start,
            let id = openContainers.last
        else { return Self.unusableContainer }
        return Container(id: id, depth: writer.depth)
    }

    /// The place of a new entry `key` of `map`.
    @inline(__always)
    func entry(_ key: String, of map: Container) throws -> Position {
        if let tree { return Position(start: tree.entry(key, of: map.id), depth: 0) }
        try activate(map)
        guard writer.writeKey(key) else { throw OutOfOrder() }
        return Position(start: writer.writerIndex, depth: Int32(truncatingIfNeeded: writer.depth))
    }

    /// The place of entry `key` of `map` for a nested container: the same container when one was asked for under
    /// the key before (a key written twice needs the tree, as in `entry`).
    @inline(__always)
    func containerEntry(_ key: String, of map: Container) throws -> Position {
        if let tree { return Position(start: tree.containerEntry(key, of: map.id), depth: 0) }
        return try entry(key, of: map)
    }

    /// The place `make` gives, or nil where bytes in order cannot give one: then `needsTree` is set (a tree always
    /// gives one).
    func place(_ make: () throws -> Position) -> Position? {
        do { return try make() } catch {
            needsTree = true
            return nil
        }
    }

    /// The place of the next element of `array`.
    @inline(__always)
    func element(of array: Container) throws -> Position {
        if let tree { return Position(start: tree.element(of: array.id), depth: 0) }
        try activate(array)
        return Position(start: writer.writerIndex, depth: Int32(truncatingIfNeeded: writer.depth))
    }

    /// Adds the entries of a `FirePackUnknownFields` to `map`; the model's own fields win over them.
    func addUnknownFields(_ bag: FirePackUnknownFields, to map: Container) throws {
        if let tree { return tree.addUnknownFields(bag, to: map.id) }
        try activate(map)
        // A key the map holds already: the model's field must win wherever it stands, which only a tree can do.
        guard writer.writeUnknownFields(bag, sortingKeys: false) else { throw OutOfOrder() }
    }

    /// Ends the value at `position`, whose `encode(to:)` returned: closes what it left open, and makes a value that
    /// wrote nothing an empty map, as JSONEncoder does.
    func finishValue(at position: Position) throws {
        if let tree {
            if tree.nodes[position.start] == nil { tree.nodes[position.start] = .value(.map(MapValue())) }
            return
        }
        try close(downTo: Int(position.depth))
        if writer.writerIndex == position.start {
            writer.beginMap()
            writer.endMap()
        }
    }

    /// Makes `container` the innermost open one, closing the finished containers opened inside it; throws
    /// `OutOfOrder` if it was closed already (bytes).
    @inline(__always)
    func activate(_ container: Container) throws {
        guard container.id >= 0 else { throw OutOfOrder() }
        if writer.depth != container.depth { try close(downTo: container.depth) }
        guard writer.depth == container.depth, openContainers.last == container.id else { throw OutOfOrder() }
    }

    /// Closes open containers until the writer is back at `depth`; a map left waiting for a value cannot close.
    func close(downTo depth: Int) throws {
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
}
