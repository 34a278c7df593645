/// The sink that builds a `Value` tree, honouring every order of writes Codable allows: containers written after
/// their siblings, a key written twice (the last value at the first one's place, as JSONEncoder keeps it), super
/// encoders that write later. `FirePackEncoder` uses it for deterministic output (the tree is written with sorted
/// keys), for `encodeToValue`, and for values `ByteSink` cannot write in order.
struct TreeSink: EncodingSink {
    /// One value's place in the tree: empty until written.
    final class Cell {
        var node: Node?
    }

    /// What a cell holds: a finished value, or a container still open for writing.
    enum Node {
        case value(Value)
        case container(Box)
    }

    /// A map or an array under construction.
    final class Box {
        let isMap: Bool
        var keys: [String] = []
        var cells: [Cell] = []
        /// Each key's position, for a key written twice.
        var positions: [ByteKey: Int] = [:]

        init(isMap: Bool) {
            self.isMap = isMap
        }
    }

    /// The root value's place.
    let root = Cell()

    static var writesInOrder: Bool { false }
    static var allowsLaterWrites: Bool { true }
    static var unusableContainer: Box { Box(isMap: true) }

    /// The tree written so far; a place never written (a super encoder left unused) is an empty map.
    var value: Value { Self.resolve(root) }

    static func resolve(_ cell: Cell) -> Value {
        switch cell.node {
        case .value(let value)?: return value
        case .container(let box)?:
            if box.isMap { return .map(MapValue(zip(box.keys, box.cells.map(resolve)))) }
            return .array(box.cells.map(resolve))
        case nil: return .map(MapValue())
        }
    }

    func hasValue(at position: Cell) -> Bool { position.node != nil }
    func writeNull(at position: Cell) { position.node = .value(.null) }
    func writeBoolean(_ value: Bool, at position: Cell) { position.node = .value(.boolean(value)) }
    func writeInteger(_ value: Int64, at position: Cell) { position.node = .value(.integer(value)) }
    func writeDouble(_ value: Double, at position: Cell) { position.node = .value(.double(value)) }
    func writeString(_ value: String, at position: Cell) { position.node = .value(.string(value)) }
    func write(_ value: Value, at position: Cell) { position.node = .value(value) }

    func container(at position: Cell, isMap: Bool) -> Box {
        if case .container(let box)? = position.node, box.isMap == isMap { return box }
        let box = Box(isMap: isMap)
        position.node = .container(box)
        return box
    }

    func entry(_ key: String, of map: Box) -> Cell {
        let cell = Cell()
        if let position = map.positions[ByteKey(key)] {
            map.cells[position] = cell
        } else {
            map.positions[ByteKey(key)] = map.keys.count
            map.keys.append(key)
            map.cells.append(cell)
        }
        return cell
    }

    func element(of array: Box) -> Cell {
        let cell = Cell()
        array.cells.append(cell)
        return cell
    }

    func addUnknownFields(_ bag: FirePackUnknownFields, to map: Box) {
        // Each entry unless the model writes the same key, before the bag or after it (`entry` replaces the value).
        for (key, value) in bag.fields where map.positions[ByteKey(key)] == nil {
            let cell = Cell()
            cell.node = .value(value)
            map.positions[ByteKey(key)] = map.keys.count
            map.keys.append(key)
            map.cells.append(cell)
        }
    }

    func finishValue(at position: Cell) {
        if position.node == nil { position.node = .value(.map(MapValue())) }
    }

    static func encodeGenerated<T: Encodable>(_ value: T, encoder: EncoderImpl<TreeSink>) -> Bool { false }
}
