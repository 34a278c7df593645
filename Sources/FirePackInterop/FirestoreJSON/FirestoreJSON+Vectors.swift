import FirePack

extension FirestoreJSON {
    /// Firestore stores a vector as `{__type__: "__vector__", value: [doubles]}`.
    static func vector(in map: MapValue) -> VectorValue? {
        guard map.count == 2, map["__type__"] == "__vector__", case .array(let elements)? = map["value"] else { return nil }
        var doubles: [Double] = []
        doubles.reserveCapacity(elements.count)
        for element in elements {
            guard let double = number(element) else { return nil }
            doubles.append(double)
        }
        return VectorValue(doubles)
    }

    static func number(_ value: Value?) -> Double? {
        switch value {
        case .double(let double)?: double
        case .integer(let integer)?: Double(integer)
        default: nil
        }
    }
}
