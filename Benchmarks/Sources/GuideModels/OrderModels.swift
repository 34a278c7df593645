import FirePack
import FirePackMacros
import Foundation

// A Firestore-shaped order, as services store them: dates, a geopoint, a string map and an array of nested structs;
// and the same order as a model that has lived through a few versions (defaults, renamed keys, a bag for fields it
// does not know), to measure what those cost.

/// One line of an order.
@FirePackCodable
public struct OrderLine: Codable, Equatable {
    public var sku: String
    public var name: String
    public var quantity: Int
    public var unitPrice: Double

    /// A line.
    public init(sku: String, name: String, quantity: Int, unitPrice: Double) {
        (self.sku, self.name, self.quantity, self.unitPrice) = (sku, name, quantity, unitPrice)
    }
}

/// An order.
@FirePackCodable
public struct Order: Codable, Equatable {
    public var id: String
    public var status: String
    public var placed: Date
    public var shipped: Date?
    public var store: GeoPoint
    public var attributes: [String: String]
    public var lines: [OrderLine]
    public var total: Double
    public var currency: String
    public var note: String?

    /// An order.
    public init(id: String, status: String, placed: Date, shipped: Date?, store: GeoPoint, attributes: [String: String],
                lines: [OrderLine], total: Double, currency: String, note: String?) {
        (self.id, self.status, self.placed, self.shipped, self.store) = (id, status, placed, shipped, store)
        (self.attributes, self.lines, self.total, self.currency, self.note) = (attributes, lines, total, currency, note)
    }
}

/// The same order as a model that evolved: a renamed key read through its old name, fields with defaults, and a bag
/// for fields it does not know. Decoded from `Order`'s bytes, it reads `placed` by its alias and keeps nothing in
/// the bag (it declares every field).
@FirePackCodable
public struct EvolvingOrder: Codable, Equatable {
    public var id: String
    public var status: String = "placed"
    @FirePackKey("placed_at", aliases: ["placed"]) public var placed: Date
    public var shipped: Date?
    public var store: GeoPoint
    @FirePackDefault([String: String]()) public var attributes: [String: String]
    public var lines: [OrderLine]
    public var total: Double
    public var currency = "EUR"
    public var note: String?
    public var unknownFields = FirePackUnknownFields()
}

/// The `index`th order of a benchmark collection: 1 to 4 lines, 2 or 3 attributes, every third one shipped.
public func makeOrder(_ index: Int) -> Order {
    let lines = (0...(index % 4)).map { line in
        OrderLine(sku: "SKU-\(10_000 + (index * 7 + line) % 5_000)", name: ["Espresso beans 1 kg", "Oat milk", "Ceramic cup", "Filter papers"][line],
                  quantity: 1 + (index + line) % 3, unitPrice: [18.90, 2.45, 12.00, 3.99][line])
    }
    var attributes = ["channel": index % 2 == 0 ? "app" : "web", "locale": "fr-FR"]
    if index % 5 == 0 { attributes["coupon"] = "SPRING\(index % 100)" }
    return Order(id: "order-\(index)", status: index % 3 == 0 ? "shipped" : "placed",
                 placed: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 37.125),
                 shipped: index % 3 == 0 ? Date(timeIntervalSince1970: 1_700_086_400 + Double(index) * 37.125) : nil,
                 store: GeoPoint(latitude: 48.8566 + Double(index % 100) / 1_000, longitude: 2.3522 - Double(index % 50) / 1_000),
                 attributes: attributes, lines: lines, total: lines.reduce(0) { $0 + Double($1.quantity) * $1.unitPrice },
                 currency: "EUR", note: index % 4 == 0 ? "Leave at the door" : nil)
}
