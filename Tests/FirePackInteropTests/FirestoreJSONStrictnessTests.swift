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
        (#"{\#(name),"fields":{"d":{"doubleValue":9007199254740993}}}"#, .invalidJSON, "doubleValue 9007199254740993 is an integer"),
        // A coordinate that is not a number was read as 0.
        (#"{\#(name),"fields":{"g":{"geoPointValue":{"latitude":"north","longitude":2}}}}"#, .invalidJSON, "latitude is \"north\""),
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

    @Test("an integer a double cannot hold exactly is never rounded into a vector or a coordinate")
    func integersBeyondADoubleAreNotRounded() throws {
        // Reversible JSON: 2⁶³ − 1 and 2⁵³ + 1 in a vector are refused, naming the element; 2⁵³ is exact and reads.
        for (text, element) in [(#"{"v":{"__vector__":[1,9223372036854775807]}}"#, "element 1, 9223372036854775807"),
                                (#"{"v":{"__vector__":[9007199254740993]}}"#, "element 0, 9007199254740993")] {
            let error = #expect(throws: FirePackError.self) { try Value(json: text) }
            #expect(error?.message.contains(element) == true && error?.offset != nil, "\(String(describing: error))")
        }
        #expect(try Value(json: #"{"v":{"__vector__":[9007199254740992]}}"#) == ["v": .vector(VectorValue([9_007_199_254_740_992]))])
        // REST JSON: the vector form with such an integer is not a vector; kept as the map it is, the integer exact.
        let rest = #"{\#(Self.name),"fields":{"v":{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"value":{"arrayValue":{"values":[{"integerValue":"9007199254740993"}]}}}}}}}"#
        let document = try Document(firestoreJSON: Array(rest.utf8))
        #expect(document.fields["v"] == ["__type__": "__vector__", "value": [.integer(9_007_199_254_740_993)]])
    }

    @Test func theSameDocumentsWithoutTheExtrasRead() throws {
        let text = #"{\#(Self.name),"fields":{"g":{"geoPointValue":{"latitude":1,"longitude":2}},"a":{"arrayValue":{"values":[{"integerValue":"1"}]}},"m":{"mapValue":{"fields":{"k":{"integerValue":"1"}}}}}}"#
        let document = try Document(firestoreJSON: Array(text.utf8))
        #expect(document.fields["a"] == [1] && document.fields["m"] == ["k": 1])
        #expect(document.fields["g"] == .geoPoint(GeoPoint(latitude: 1, longitude: 2)))
    }
}
