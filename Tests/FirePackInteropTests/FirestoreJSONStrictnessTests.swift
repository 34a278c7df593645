import Foundation
import Testing
import FirePack
import FirePackInterop

/// Firestore REST JSON drops nothing in silence: a member given twice, or one the format does not define, is an error
/// with its offset and path instead of being kept or lost by position.
@Suite("Firestore REST JSON: nothing dropped")
struct FirestoreJSONStrictnessTests {
    static let name = #""name":"projects/p/databases/(default)/documents/c/a""#

    @Test("Each ambiguous or unknown member is refused", arguments: [
        (#"{\#(name),\#(name)}"#, FirePackError.Code.duplicateKey, "appears twice"),
        (#"{\#(name),"fields":{"a":{"integerValue":"1"}},"fields":{}}"#, .duplicateKey, "appears twice"),
        (#"{\#(name),"fields":{"g":{"geoPointValue":{"latitude":1,"longitude":2,"altitude":3}}}}"#, .invalidJSON, "\"altitude\""),
        (#"{\#(name),"fields":{"a":{"arrayValue":{"values":[],"x":1}}}}"#, .invalidJSON, "unknown member \"x\" in arrayValue"),
        (#"{\#(name),"fields":{"a":{"arrayValue":{"values":[],"values":[]}}}}"#, .duplicateKey, "arrayValue has values twice"),
        (#"{\#(name),"fields":{"m":{"mapValue":{"fields":{},"extra":1}}}}"#, .invalidJSON, "unknown member \"extra\" in mapValue"),
        (#"{\#(name),"fields":{"m":{"mapValue":{"fields":{"k":{"integerValue":"1"},"k":{"integerValue":"2"}}}}}}"#, .duplicateKey, "\"k\" appears twice"),
    ])
    func refused(text: String, code: FirePackError.Code, message: String) throws {
        let error = #expect(throws: FirePackError.self) { try Document(firestoreJSON: Array(text.utf8)) }
        #expect(error?.code == code && error?.message.contains(message) == true, "\(String(describing: error))")
        #expect(error?.offset != nil)
    }

    @Test func theSameDocumentsWithoutTheExtrasRead() throws {
        let text = #"{\#(Self.name),"fields":{"g":{"geoPointValue":{"latitude":1,"longitude":2}},"a":{"arrayValue":{"values":[{"integerValue":"1"}]}},"m":{"mapValue":{"fields":{"k":{"integerValue":"1"}}}}}}"#
        let document = try Document(firestoreJSON: Array(text.utf8))
        #expect(document.fields["a"] == [1] && document.fields["m"] == ["k": 1])
        #expect(document.fields["g"] == .geoPoint(GeoPoint(latitude: 1, longitude: 2)))
    }
}
