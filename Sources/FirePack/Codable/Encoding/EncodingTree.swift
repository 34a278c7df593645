/// The `Value` tree the encoder builds (`EncoderImpl+Sink.swift`), honouring every order of writes Codable allows:
/// containers written after their siblings, a key written twice (the last value at the first one's place, as
/// JSONEncoder keeps it), super encoders that write later. `FirePackEncoder` uses it for deterministic output (the
/// tree is written with sorted keys), for `encodeToValue`, and for values that bytes written in order cannot hold.
///
/// Nodes and boxes live in two arrays and refer to each other by index, so a value costs an array slot, not an object.
final class EncodingTree {
    /// What a node holds: a finished value, or a container (the index of its box) still open for writing.
    enum Node {
        case value(Value)
        case box(Int)
    }

    /// A map or an array under construction: its entries' nodes, and for a map their keys.
    struct Box {
        let isMap: Bool
        var keys: [String] = []
        var nodes: [Int] = []
        /// Each key's entry, once the map is too wide for a scan to find a key written twice.
        var positions: [ByteKey: Int]?

        init(isMap: Bool) {
            self.isMap = isMap
        }

        /// The entry holding `key` (the same UTF-8 bytes, as map keys are compared), if any.
        func position(of key: String) -> Int? {
            if let positions { return positions[ByteKey(key)] }
            return keys.firstIndex { ByteKey($0) == ByteKey(key) }
        }

        /// Appends an entry; past `Box.scanLimit` keys they are indexed.
        mutating func append(_ key: String, node: Int) {
            if positions != nil {
                positions![ByteKey(key)] = keys.count
            } else if keys.count == Box.scanLimit {
                var index = [ByteKey: Int](minimumCapacity: keys.count * 2)
                for (position, existing) in keys.enumerated() { index[ByteKey(existing)] = position }
                index[ByteKey(key)] = keys.count
                positions = index
            }
            keys.append(key)
            nodes.append(node)
        }

        /// Up to this many keys a map is scanned for a key written twice: cheaper than a dictionary per map.
        static let scanLimit = 16
    }

    /// Every node; the root is node 0, empty until written. A node never written (a super encoder left unused) is an
    /// empty map.
    @exclusivity(unchecked) var nodes: [Node?] = [nil]
    @exclusivity(unchecked) var boxes: [Box] = []

    /// The tree written so far.
    var value: Value { resolve(0) }

    func resolve(_ node: Int) -> Value {
        switch nodes[node] {
        case .value(let value)?: return value
        case .box(let index)?:
            let box = boxes[index]
            if box.isMap { return .map(MapValue(zip(box.keys, box.nodes.map(resolve)))) }
            return .array(box.nodes.map(resolve))
        case nil: return .map(MapValue())
        }
    }

    /// A new node holding `value`.
    func valueNode(_ value: Value) -> Int {
        nodes.append(.value(value))
        return nodes.count - 1
    }

    /// A new empty node.
    @inline(__always)
    func newNode() -> Int {
        nodes.append(nil)
        return nodes.count - 1
    }

    /// The box of the container at `node`: the one there when it is of the same kind, else a new one. A whole map
    /// (or array) written there before, such as a dictionary, becomes the new box's first entries (elements), as
    /// Foundation's JSONEncoder converts an encoded object into the container asked for under its key.
    func box(at node: Int, isMap: Bool) -> Int {
        var box = Box(isMap: isMap)
        switch nodes[node] {
        case .box(let index)? where boxes[index].isMap == isMap: return index
        case .value(.map(let map))? where isMap:
            for (key, value) in map { box.append(key, node: valueNode(value)) }
        case .value(.array(let elements))? where !isMap:
            box.nodes = elements.map(valueNode)
        default: break
        }
        boxes.append(box)
        nodes[node] = .box(boxes.count - 1)
        return boxes.count - 1
    }

    /// The node of a new entry `key` of the map `box`; a key written before keeps its place and gets a new node.
    func entry(_ key: String, of box: Int) -> Int {
        let node = newNode()
        if let position = boxes[box].position(of: key) {
            boxes[box].nodes[position] = node
        } else {
            boxes[box].append(key, node: node)
        }
        return node
    }

    /// The node of entry `key` of the map `box` for a nested container: the node there when the key was written
    /// before — asking twice for a key's container gives the same container, as Foundation's JSONEncoder does, so
    /// what the first one holds is kept — else a new entry.
    func containerEntry(_ key: String, of box: Int) -> Int {
        if let position = boxes[box].position(of: key) { return boxes[box].nodes[position] }
        return entry(key, of: box)
    }

    /// The node of the next element of the array `box`.
    func element(of box: Int) -> Int {
        let node = newNode()
        boxes[box].nodes.append(node)
        return node
    }

    /// Adds the bag's entries to the map `box`, each unless the model writes the same key, before the bag or after
    /// it (`entry` replaces the value).
    func addUnknownFields(_ bag: FirePackUnknownFields, to box: Int) {
        for (key, value) in bag.fields where boxes[box].position(of: key) == nil {
            let node = newNode()
            nodes[node] = .value(value)
            boxes[box].append(key, node: node)
        }
    }
}
