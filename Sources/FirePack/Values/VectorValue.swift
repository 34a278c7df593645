/// A vector of doubles: Firestore's vector embedding type.
public struct VectorValue: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The vector's elements.
    public let array: [Double]

    /// Creates a vector from its elements.
    public init(_ array: [Double]) { self.array = array }

    /// Equal when the elements have the same bit patterns (so NaN equals itself and −0.0 differs from 0.0).
    public static func == (lhs: VectorValue, rhs: VectorValue) -> Bool {
        lhs.array.elementsEqual(rhs.array) { $0.bitPattern == $1.bitPattern }
    }

    /// Hashes the elements' bit patterns.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(array.count)
        for element in array { hasher.combine(element.bitPattern) }
    }

    /// `vector([…])`.
    public var description: String { "vector(\(array))" }

    /// Decodes a plain array of doubles.
    public init(from decoder: any Decoder) throws {
        self.array = try decoder.singleValueContainer().decode([Double].self)
    }

    /// Encodes a plain array of doubles.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(array)
    }
}
