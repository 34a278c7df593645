import FirePackMacros

// Codable models covering every field of citm_catalog.json and canada.json.

/// citm_catalog.json: an event catalogue, with maps keyed by numeric-string IDs.
@FirePackCodable
public struct CitmCatalog: Codable {
    public var areaNames: [String: String]
    public var audienceSubCategoryNames: [String: String]
    public var blockNames: [String: String]
    public var events: [String: Event]
    public var performances: [Performance]
    public var seatCategoryNames: [String: String]
    public var subTopicNames: [String: String]
    public var subjectNames: [String: String]
    public var topicNames: [String: String]
    public var topicSubTopics: [String: [Int]]
    public var venueNames: [String: String]
}

@FirePackCodable
public struct Event: Codable {
    public var description: String?
    public var id: Int
    public var logo: String?
    public var name: String
    public var subTopicIds: [Int]
    public var subjectCode: String?
    public var subtitle: String?
    public var topicIds: [Int]
}

@FirePackCodable
public struct Performance: Codable {
    public var eventId: Int
    public var id: Int
    public var logo: String?
    public var name: String?
    public var prices: [Price]
    public var seatCategories: [SeatCategory]
    public var seatMapImage: String?
    public var start: Int64
    public var venueCode: String
}

@FirePackCodable
public struct Price: Codable {
    public var amount: Int
    public var audienceSubCategoryId: Int
    public var seatCategoryId: Int
}

@FirePackCodable
public struct SeatCategory: Codable {
    public var areas: [Area]
    public var seatCategoryId: Int
}

@FirePackCodable
public struct Area: Codable {
    public var areaId: Int
    public var blockIds: [Int]
}

/// canada.json: a GeoJSON feature collection of polygons.
@FirePackCodable
public struct Canada: Codable {
    public var type: String
    public var features: [Feature]

    /// A feature collection.
    public init(type: String, features: [Feature]) { (self.type, self.features) = (type, features) }
}

@FirePackCodable
public struct Feature: Codable {
    public var type: String
    public var properties: [String: String]
    public var geometry: Geometry

    /// A feature.
    public init(type: String, properties: [String: String], geometry: Geometry) {
        (self.type, self.properties, self.geometry) = (type, properties, geometry)
    }
}

@FirePackCodable
public struct Geometry: Codable {
    public var type: String
    public var coordinates: [[[Double]]]

    /// A polygon geometry.
    public init(type: String, coordinates: [[[Double]]]) { (self.type, self.coordinates) = (type, coordinates) }
}
