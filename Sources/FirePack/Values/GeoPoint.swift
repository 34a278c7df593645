/// A geographical point: latitude in −90 … 90 and longitude in −180 … 180 degrees.
public struct GeoPoint: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// Degrees north of the equator, −90 … 90.
    public let latitude: Double
    /// Degrees east of the prime meridian, −180 … 180.
    public let longitude: Double

    /// Creates a point, as the Firestore SDK does.
    ///
    /// - Precondition: latitude in −90 … 90 and longitude in −180 … 180 (NaN is neither), exactly what the SDK
    ///   rejects as a programmer error. For coordinates from outside the program use
    ///   `init(validatingLatitude:longitude:)`, which throws instead.
    public init(latitude: Double, longitude: Double) {
        precondition(latitude >= -90 && latitude <= 90, "GeoPoint latitude \(latitude) outside -90 ... 90")
        precondition(longitude >= -180 && longitude <= 180, "GeoPoint longitude \(longitude) outside -180 ... 180")
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Creates a point from untrusted coordinates; throws `invalidGeoPoint` for one out of range or NaN. What the
    /// decoders use.
    public init(validatingLatitude latitude: Double, longitude: Double) throws(FirePackError) {
        guard latitude >= -90 && latitude <= 90 else {
            throw FirePackError(.invalidGeoPoint, "latitude \(latitude) outside -90 ... 90")
        }
        guard longitude >= -180 && longitude <= 180 else {
            throw FirePackError(.invalidGeoPoint, "longitude \(longitude) outside -180 ... 180")
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Orders by latitude, then longitude, as Firestore does.
    public static func < (lhs: GeoPoint, rhs: GeoPoint) -> Bool {
        (lhs.latitude, lhs.longitude) < (rhs.latitude, rhs.longitude)
    }

    /// `(latitude, longitude)`.
    public var description: String { "(\(latitude), \(longitude))" }

    private enum CodingKeys: String, CodingKey { case latitude, longitude }

    /// Decodes `{latitude, longitude}`, as the Firestore SDK does, rejecting out-of-range coordinates.
    public init(from decoder: any Decoder) throws {
        self = try FieldPair.decode(from: decoder, CodingKeys.latitude, .longitude, refusedAt: .latitude) {
            (latitude: Double, longitude: Double) throws(FirePackError) in
            try GeoPoint(validatingLatitude: latitude, longitude: longitude)
        }
    }

    /// Encodes `{latitude, longitude}`.
    public func encode(to encoder: any Encoder) throws {
        try FieldPair.encode(latitude, CodingKeys.latitude, longitude, .longitude, to: encoder)
    }
}
