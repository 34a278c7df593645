/// A FirePack map: UTF-8 string keys to values, in insertion order, keys unique byte for byte.
///
/// Lookups by key are O(1) for maps of more than 8 entries (an index is kept beside the arrays) and a short linear
/// scan below that. Equality is exact and order-sensitive: two maps are equal when they hold equal entries in the same
/// order (`Value`'s Firestore ordering, `<`, compares maps by sorted keys instead).
public struct MapValue: Sendable {
    /// The keys, in insertion order.
    public private(set) var keys: [String]
    /// The values, in the order of `keys`.
    public private(set) var values: [Value]
    private var index: [ByteKey: Int]?

    static let indexThreshold = 8

    /// An empty map.
    public init() {
        keys = []
        values = []
    }

    /// A map of the given entries; a later entry with an existing key replaces that key's value in place.
    public init<S: Sequence>(_ entries: S) where S.Element == (String, Value) {
        self.init()
        for (key, value) in entries { self[key] = value }
    }

    init(reservingCapacity capacity: Int) {
        self.init()
        keys.reserveCapacity(capacity)
        values.reserveCapacity(capacity)
    }

    /// The value for `key` (compared byte for byte), or nil; setting nil removes the entry.
    public subscript(key: String) -> Value? {
        get { position(ofKey: key).map { values[$0] } }
        set {
            if let position = position(ofKey: key) {
                if let newValue {
                    values[position] = newValue
                } else {
                    removeEntry(at: position)
                }
            } else if let newValue {
                _ = appendIfAbsent(key: key, value: newValue)
            }
        }
    }

    /// The position of `key` in `keys`, or nil.
    public func position(ofKey key: String) -> Int? {
        if let index { return index[ByteKey(key)] }
        return keys.firstIndex { $0.hasSameUTF8(as: key) }
    }

    /// Appends an entry unless the key is already present; returns whether it appended.
    mutating func appendIfAbsent(key: String, value: Value) -> Bool {
        if index != nil {
            guard index!.updateValue(keys.count, forKey: ByteKey(key)) == nil else { return false }
        } else {
            if keys.contains(where: { $0.hasSameUTF8(as: key) }) { return false }
            if keys.count >= Self.indexThreshold {
                buildIndex()
                index![ByteKey(key)] = keys.count
            }
        }
        keys.append(key)
        values.append(value)
        return true
    }

    private mutating func removeEntry(at position: Int) {
        keys.remove(at: position)
        values.remove(at: position)
        if index != nil { buildIndex() }
    }

    private mutating func buildIndex() {
        var built = [ByteKey: Int](minimumCapacity: keys.count * 2)
        for (position, key) in keys.enumerated() { built[ByteKey(key)] = position }
        index = built
    }
}

/// A String compared and hashed by its UTF-8 bytes (Firestore's notion of key equality) rather than by canonical
/// equivalence.
struct ByteKey: Hashable, Sendable {
    let string: String
    init(_ string: String) { self.string = string }

    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool { lhs.string.hasSameUTF8(as: rhs.string) }

    func hash(into hasher: inout Hasher) {
        string.withUTF8Bytes { hasher.combine(bytes: $0) }
    }
}

extension MapValue: RandomAccessCollection {
    /// The position of the first entry.
    public var startIndex: Int { 0 }
    /// One past the last entry.
    public var endIndex: Int { keys.count }
    /// The entry at `position`.
    public subscript(position: Int) -> (key: String, value: Value) { (keys[position], values[position]) }
}

extension MapValue: Hashable {
    /// Equal when both hold the same keys (byte for byte) with equal values, in the same order.
    public static func == (lhs: MapValue, rhs: MapValue) -> Bool {
        lhs.keys.count == rhs.keys.count
            && lhs.keys.elementsEqual(rhs.keys) { $0.hasSameUTF8(as: $1) }
            && lhs.values == rhs.values
    }

    /// Hashes keys (by bytes) and values in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys.count)
        for key in keys { ByteKey(key).hash(into: &hasher) }
        for value in values { value.hash(into: &hasher) }
    }
}

extension MapValue: ExpressibleByDictionaryLiteral {
    /// A map of the literal's entries in their written order (a repeated key keeps its first position, last value).
    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init(elements)
    }
}
