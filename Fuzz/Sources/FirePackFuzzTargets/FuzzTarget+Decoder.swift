#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack

extension FuzzTarget {
    /// `FirePackDecoder` into a model with every field type FirePack maps, the property wrappers, optionals, nested
    /// models, arrays and dictionaries; a decoded model must encode again, and those bytes must decode.
    public static let decoder = FuzzTarget(
        name: "decoder",
        summary: "FirePackDecoder into a model with every field type and the property wrappers"
    ) { input in
        var check = FuzzCheck(input)
        let reference = try! DocumentReference(path: "fuzz/document")
        let decoder = FirePackDecoder()
        let model: FuzzModel? = check.attempt("decode") { try decoder.decode(FuzzModel.self, from: input, in: reference) }
        _ = check.attempt("decode as [String: Value]") { try decoder.decode([String: Value].self, from: input) }
        _ = check.attempt("decode as [FuzzModel.Part]") { try decoder.decode([FuzzModel.Part].self, from: input) }
        guard let model else { return check.outcome }
        let encoded: [UInt8]? = check.attempt("encode") { try FirePackEncoder().encodeToBytes(model) }
        check.expect(encoded != nil, "a decoded model does not encode")
        if let encoded {
            let again: FuzzModel? = check.attempt("decode again") { try decoder.decode(FuzzModel.self, from: encoded, in: reference) }
            check.expect(again != nil, "a decoded model's encoding does not decode")
        }
        return check.outcome
    }
}

/// Every type the coders map natively, plus the Codable shapes that take other paths.
struct FuzzModel: Codable {
    enum Shade: String, Codable { case red, green }
    enum Level: Int, Codable { case low = 1, high = 2 }

    struct Part: Codable {
        var name: String
        var weight: Double?
        var tags: [String]?
    }

    @DocumentID var id: String?
    @ServerTimestamp var updated: Timestamp?
    @ExplicitNull var note: String?
    var text: String
    var integer: Int
    var small: Int8?
    var unsigned: UInt64?
    var ratio: Double
    var single: Float?
    var flag: Bool?
    var date: Date?
    var data: Data?
    var url: URL?
    var uuid: UUID?
    var timestamp: Timestamp?
    var point: GeoPoint?
    var reference: DocumentReference?
    var vector: VectorValue?
    var any: Value?
    var shade: Shade?
    var level: Level?
    var parts: [Part]?
    var counts: [String: Int]?
    var matrix: [[Int16]]?
    var nested: Part?
    /// Packed arrays (D8) and arrays of packed rows (D9).
    var series: [Double]? = nil
    var ring: [[Double]]? = nil
    var floats: [Float?]? = nil
}
