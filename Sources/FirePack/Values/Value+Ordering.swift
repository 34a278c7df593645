extension Value: Comparable {
    /// Firestore's ordering: null < boolean < number < timestamp < serverTimestamp < string < bytes < reference <
    /// geopoint < array < vector < map.
    ///
    /// Integers and doubles compare by exact numeric value, NaN below every other number. Strings and bytes compare
    /// by unsigned bytes, references segment by segment, vectors by length and then elements, maps by their entries
    /// in sorted key order. Values Firestore considers equal but `==` does not (`1` and `1.0`, `0.0` and `-0.0`, maps
    /// in different insertion orders) are ordered by a fixed tie-break, so `<` is a strict total order consistent
    /// with `==`.
    public static func < (lhs: Value, rhs: Value) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Firestore's comparison only, without the tie-break: 0 for values Firestore treats as equal.
    public static func firestoreCompare(_ lhs: Value, _ rhs: Value) -> Int {
        compare(lhs, rhs, tieBreak: false)
    }

    private var typeRank: Int {
        switch self {
        case .null: 0
        case .boolean: 1
        case .integer, .double: 2
        case .timestamp: 3
        case .serverTimestamp: 4
        case .string: 5
        case .bytes: 6
        case .reference: 7
        case .geoPoint: 8
        case .array: 9
        case .vector: 10
        case .map: 11
        }
    }

    static func compare(_ lhs: Value, _ rhs: Value, tieBreak: Bool = true) -> Int {
        let rank = sign(lhs.typeRank, rhs.typeRank)
        if rank != 0 { return rank }
        switch (lhs, rhs) {
        case (.null, .null), (.serverTimestamp, .serverTimestamp): return 0
        case let (.boolean(a), .boolean(b)): return sign(a ? 1 : 0, b ? 1 : 0)
        case let (.integer(a), .integer(b)): return sign(a, b)
        case let (.double(a), .double(b)):
            let numeric = compareDoubles(a, b)
            return numeric != 0 || !tieBreak ? numeric : sign(a.bitPattern, b.bitPattern)
        case let (.integer(a), .double(b)):
            let numeric = compareIntegerToDouble(a, b)
            return numeric != 0 || !tieBreak ? numeric : -1
        case let (.double(a), .integer(b)):
            let numeric = -compareIntegerToDouble(b, a)
            return numeric != 0 || !tieBreak ? numeric : 1
        case let (.timestamp(a), .timestamp(b)): return a < b ? -1 : (a == b ? 0 : 1)
        case let (.string(a), .string(b)): return a.utf8Compare(b)
        case let (.bytes(a), .bytes(b)):
            return a.withUnsafeBytes { a in b.withUnsafeBytes { b in ByteComparison.compare(a, b) } }
        case let (.reference(a), .reference(b)): return a < b ? -1 : (b < a ? 1 : 0)
        case let (.geoPoint(a), .geoPoint(b)):
            let latitude = compareDoubles(a.latitude, b.latitude)
            return latitude != 0 ? latitude : compareDoubles(a.longitude, b.longitude)
        case let (.array(a), .array(b)): return compareSequences(a, b, tieBreak: tieBreak)
        case let (.vector(a), .vector(b)):
            let length = sign(a.array.count, b.array.count)
            if length != 0 { return length }
            return compareSequences(a.array.map(Value.double), b.array.map(Value.double), tieBreak: tieBreak)
        case let (.map(a), .map(b)): return compareMaps(a, b, tieBreak: tieBreak)
        default: return 0
        }
    }

    private static func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }

    /// NaN sorts below every number and equal to itself; otherwise numeric order (−0.0 equals 0.0).
    private static func compareDoubles(_ a: Double, _ b: Double) -> Int {
        if a.isNaN { return b.isNaN ? 0 : -1 }
        if b.isNaN { return 1 }
        return sign(a, b)
    }

    /// Exact comparison of an Int64 with a Double (no rounding of the integer).
    private static func compareIntegerToDouble(_ integer: Int64, _ double: Double) -> Int {
        if double.isNaN { return 1 }
        if double >= 9_223_372_036_854_775_808.0 { return -1 }
        if double < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = double.rounded(.down)
        let whole = Int64(floor)
        if integer != whole { return sign(integer, whole) }
        return floor == double ? 0 : -1
    }

    private static func compareSequences(_ a: [Value], _ b: [Value], tieBreak: Bool) -> Int {
        for (x, y) in zip(a, b) {
            let order = compare(x, y, tieBreak: tieBreak)
            if order != 0 { return order }
        }
        return sign(a.count, b.count)
    }

    private static func compareMaps(_ a: MapValue, _ b: MapValue, tieBreak: Bool) -> Int {
        let sortedA = a.indices.sorted { a.keys[$0].utf8Precedes(a.keys[$1]) }
        let sortedB = b.indices.sorted { b.keys[$0].utf8Precedes(b.keys[$1]) }
        for (i, j) in zip(sortedA, sortedB) {
            let key = a.keys[i].utf8Compare(b.keys[j])
            if key != 0 { return key }
            let value = compare(a.values[i], b.values[j], tieBreak: tieBreak)
            if value != 0 { return value }
        }
        let count = sign(a.count, b.count)
        if count != 0 || !tieBreak { return count }
        // Same entries in another insertion order: order by the insertion-order key sequences.
        for (x, y) in zip(a.keys, b.keys) {
            let key = x.utf8Compare(y)
            if key != 0 { return key }
        }
        return 0
    }
}
