#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Codable encoder: the one implementation of `Encoder` behind `FirePackEncoder`, over a sink that decides where
/// values go (`EncoderImpl+Sink.swift`: bytes in order, or a tree).
///
/// The rules of Codable live here once: the coding path, the key strategy, the native types (`NativeType`) and the
/// strategies for them, generated coding, `@DocumentID`, unknown fields. The containers are in
/// `EncoderImpl+Containers.swift`.
final class EncoderImpl: Encoder {
    /// The writer, when writing bytes (`EncoderImpl+Sink.swift`); `EncoderImpl.noWriter` when building a tree.
    /// Not optional: a call borrows a `let` of a non-optional class type, where an unwrapped optional is retained and
    /// released around every write.
    let writer: FirePackWriter
    /// The tree, when building one; shared by the encoders of a value's parts.
    let tree: EncodingTree?
    let options: EncoderOptions
    // The mutable state, accessed without exclusivity checks, as the decoder's is (see `DecoderState`): an encoder is
    // used by one call on one thread, and no access overlaps another.
    /// The coding path. Writing bytes, one stack serves the whole value: a container keeps its depth and cuts the
    /// stack back to it before each entry.
    @exclusivity(unchecked) var path: [PathEntry]
    /// Where the value whose `encode(to:)` is running goes: what `container(keyedBy:)` and its siblings write at.
    @exclusivity(unchecked) var valueStart: Position
    /// The last answers to the questions `encodeValue` asks of a type: writing bytes, those the writer kept from its
    /// last root value (`keepConformances()`).
    @exclusivity(unchecked) var conformances: EncoderConformances
    /// The identity of the Codable container behind each open writer container, outermost first (bytes).
    @exclusivity(unchecked) var openContainers: [Int] = []
    @exclusivity(unchecked) var nextContainerID = 0
    /// Set when bytes in order could not give a container or a super encoder its place (a key written before, a
    /// container closed already): what was handed out instead cannot be written to, and even unused it must leave
    /// what the tree leaves, so the value is encoded again into a tree once it returns (`place`).
    @exclusivity(unchecked) var needsTree = false

    /// An encoder writing at `writer`'s position.
    init(writer: FirePackWriter, options: EncoderOptions) {
        self.writer = writer
        tree = nil
        self.options = options
        path = []
        valueStart = Position(start: writer.writerIndex, depth: Int32(truncatingIfNeeded: writer.depth))
        conformances = writer.state.conformances
    }

    /// An encoder building `tree`, at its node `position`, with the coding path `path`.
    init(tree: EncodingTree, options: EncoderOptions, path: [PathEntry], at position: Position) {
        writer = Self.noWriter
        self.tree = tree
        self.options = options
        self.path = path
        valueStart = position
        conformances = EncoderConformances()
    }

    /// Leaves this call's answers with the writer for its next root value (writing bytes; a tree has no writer).
    func keepConformances() {
        if tree == nil { writer.state.conformances = conformances }
    }

    var codingPath: [any CodingKey] { path.map(\.codingKey) }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    /// Writes one value at `position` (a root value, an array element, or a map value).
    func encodeValue<T: Encodable>(_ value: T, at position: Position) throws {
        switch NativeType(T.self) {
        case .scalar(let scalar)?: try writeScalar(scalar, value, at: position)
        case .special(let kind)?: try writeSpecial(kind, value, at: position)
        case nil: try encodeNonNative(value, at: position)
        }
    }

    /// Writes one value of a type that `NativeType` does not name at `position`: its generated coding, a dictionary's
    /// entries, or its `encode(to:)`.
    func encodeNonNative<T: Encodable>(_ value: T, at position: Position) throws {
        // `[Double]`, finite: the writer chooses packed or tagged in one pass (`FirePackWriter.writeDoubles`),
        // as generated coding does; a non-finite element goes element by element, under the float strategy
        // (guarded by `Encode canada model/FirePackEncoder Codable`).
        if T.self == [Double].self, Self.allFinite(unsafeBitCast(value, to: [Double].self)) {
            return setDoubles(unsafeBitCast(value, to: [Double].self), at: position)
        }
        if let dictionary = conformances.stringKeyed.conformance(
            of: T.self, { $0 as? any StringKeyedEncodableDictionary.Type })
        {
            return try dictionary.encodeEntries(of: value, to: self, at: position)
        }
        // `[String: V]` took the direct path above, so its keys never meet the key strategy; generated coding
        // converts its keys to snake case itself, and is not used under a custom strategy.
        if options.takesGeneratedPath,
            let generated = conformances.generated.conformance(of: T.self, { $0 as? any FirePackEncodable.Type })
        {
            // Generated coding (`@FirePackCodable`), at this same position: into the bytes, or as a tree of its own.
            if writesInOrder { return try generated.encodeGenerated(value, encoder: self) }
            if !(T.self is any ElementWiseGeneratedCoding.Type) {
                return try setGeneratedTree(generated, value, at: position)
            }
        }
        if conformances.rawKeyed.conformance(of: T.self, { $0 as? any RawKeyedEncodableDictionary.Type }) != nil {
            try encodeNested(at: position) { try (value as! any RawKeyedEncodableDictionary).encodeAsMap(to: self) }
            return
        }
        try encodeNested(at: position) { try value.encode(to: self) }
    }

    /// Sets the tree of a value with generated coding (`FirePackEncodable.generatedTree`) at `position`; errors get
    /// the encoder's coding path as a prefix.
    private func setGeneratedTree<T>(_ generated: any FirePackEncodable.Type, _ value: T, at position: Position) throws
    {
        let tree: Value
        do { tree = try generated.generatedTree(of: value, options: options) } catch let error as EncodingError {
            throw path.isEmpty ? error : error.prefixingPath(codingPath)
        }
        setValue(tree, at: position)
    }

    static func allFinite(_ doubles: [Double]) -> Bool {
        for double in doubles where !double.isFinite { return false }
        return true
    }

    /// Writes a value of a type `NativeSpecial` names, by this encoder's strategies.
    func writeSpecial<T>(_ kind: NativeSpecial, _ value: T, at position: Position) throws {
        switch try options.special(kind, value) {
        case .value(let native): setValue(native, at: position)
        case .skip:
            throw EncodingError.invalidValue(
                value,
                .init(
                    codingPath: codingPath,
                    debugDescription: "@DocumentID can only be a property of a keyed type"))
        case .custom(let encode): try encodeNested(at: position) { try encode(self) }
        }
    }

    /// Runs an `encode(to:)` for the value at `position`, then lets the sink close what it left open.
    func encodeNested(at position: Position, _ body: () throws -> Void) throws {
        let saved = valueStart
        valueStart = position
        defer { valueStart = saved }
        try body()
        try finishValue(at: position)
    }

    /// Writes the value of a container's entry (a map's value, an array's element) at `position`, with `entry` on
    /// the coding path above the container's `pathDepth`.
    ///
    /// `entry` is an autoclosure and this function always inlined, so that each caller builds its entry in place on
    /// the path rather than building, copying and destroying one per value (guarded by `Encode canada
    /// model/FirePackEncoder Codable`).
    @inline(__always)
    func encodeChild<T: Encodable>(
        _ value: T, at position: Position, pathDepth: Int, entry: @autoclosure () -> PathEntry
    ) throws {
        guard writesInOrder else {
            return try encodeInTree(value, at: position, pathDepth: pathDepth, entry: entry())
        }
        cutPath(to: pathDepth)
        path.append(entry())
        defer { cutPath(to: pathDepth) }
        try encodeValue(value, at: position)
    }

    /// Writes a value into the tree: a scalar with this encoder (it writes nothing later, so it may borrow the path),
    /// anything else with an encoder of its own.
    func encodeInTree<T: Encodable>(_ value: T, at position: Position, pathDepth: Int, entry: PathEntry) throws {
        if case .scalar(let scalar)? = NativeType(T.self) {
            cutPath(to: pathDepth)
            path.append(entry)
            defer { cutPath(to: pathDepth) }
            try writeScalar(scalar, value, at: position)
        } else {
            try descendant(at: position, pathDepth: pathDepth, entry: entry).encodeValue(value, at: position)
        }
    }

    /// The encoder for a container nested at `position` under `entry`: this one, its path cut back and extended, when
    /// the sink writes in order; otherwise one of its own, since the container may be used after its siblings.
    func descendant(at position: Position, pathDepth: Int, entry: PathEntry) -> EncoderImpl {
        if writesInOrder {
            cutPath(to: pathDepth)
            path.append(entry)
            return self
        }
        return EncoderImpl(
            tree: tree.unsafelyUnwrapped, options: options, path: Array(path.prefix(pathDepth)) + [entry], at: position)
    }

    /// Cuts the coding path back to `depth` entries (those of a container being written again); usually one entry.
    @inline(__always)
    func cutPath(to depth: Int) {
        while path.count > depth { path.removeLast() }
    }

    /// The map key for a coding key of a container at `pathDepth`: converted by the key strategy.
    @inline(__always)
    func mapKey(_ key: some CodingKey, pathDepth: Int) -> String {
        if options.usesDefaultKeys { return key.stringValue }
        return options.mapKey(key, codingPath: path.prefix(pathDepth).map(\.codingKey))
    }

    /// Writes a scalar without a detour (`NativeScalar.write`, the one place the coders turn Swift's scalars into
    /// FirePack's).
    @inline(__always)
    func writeScalar<T>(_ scalar: NativeScalar, _ value: T, at position: Position) throws {
        try scalar.write(
            value, to: ValueSlot(encoder: self, position: position), options: options, codingPath: codingPath)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let map = container(at: valueStart, isMap: true)
        return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, map: map, pathDepth: path.count))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        UnkeyedContainer(encoder: self, array: container(at: valueStart, isMap: false), pathDepth: path.count)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(encoder: self, position: valueStart, pathDepth: path.count)
    }
}

extension EncoderImpl {
    /// `value` as a `Value` tree, by `options`.
    static func tree<T: Encodable>(of value: T, options: EncoderOptions) throws -> Value {
        let tree = EncodingTree()
        let root = Position(start: 0, depth: 0)
        try EncoderImpl(tree: tree, options: options, path: [], at: root).encodeValue(value, at: root)
        return tree.value
    }
}
