import FirePack

/// Firestore's form of a vector in REST JSON and protobuf, which have no vector type: the map
/// `{__type__: "__vector__", value: [doubles]}`. Both formats read vectors through here, and refuse to write a map
/// that would read back as one.
enum FirestoreVectorForm {
    /// The vector a map stands for, or nil when the map is not in the vector form: its `value` all doubles, as
    /// Firestore writes a vector. One with an integer among them is a map (it keeps its integers: read as a vector,
    /// they would become doubles without a word), and is written back as one.
    static func vector(in map: MapValue) -> VectorValue? {
        guard map.count == 2, map["__type__"] == "__vector__", case .array(let elements)? = map["value"] else {
            return nil
        }
        var doubles: [Double] = []
        doubles.reserveCapacity(elements.count)
        for element in elements {
            guard case .double(let double) = element else { return nil }
            doubles.append(double)
        }
        return VectorValue(doubles)
    }

    /// The error for a map in the vector form, which would read back as a vector (as Firestore reads it): writing it
    /// would change its type without a word (`checkWritableAsMap(_:place:)`, from the map's bytes).
    static func vectorShapedMap(_ path: [PathComponent]) -> FirePackError {
        FirePackError(
            .invalidValue,
            "this map has Firestore's vector form ({__type__: \"__vector__\", value: [doubles]}) and would read back as a vector; store a VectorValue instead",
            path: path)
    }
}

extension Value {
    /// The value as a double when it is a number, as JSON and REST JSON read numbers: an integer only when a double
    /// holds it exactly (2⁵³ + 1 would come back as 2⁵³, a digit lost without a word).
    var numberAsDouble: Double? {
        switch self {
        case .double(let double): double
        case .integer(let integer): Double(exactly: integer)
        default: nil
        }
    }
}
