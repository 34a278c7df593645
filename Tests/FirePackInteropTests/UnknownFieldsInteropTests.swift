import FirePack
import FirePackInterop
import Foundation
import Testing

/// Last month's model of a document that this month's writer extends: it keeps what it does not know.
private struct Profile: Codable, Equatable {
    var name: String
    var visits: Int
    var unknownFields = FirePackUnknownFields()
}

@Suite("Unknown fields survive the REST JSON and protobuf converters")
struct UnknownFieldsInteropTests {
    /// A REST JSON document with fields of every kind the old model does not declare.
    let document = """
        {"name": "projects/p/databases/(default)/documents/profiles/ada", "fields": {
          "name": {"stringValue": "Ada"},
          "joined": {"timestampValue": "2024-02-29T12:00:00.123456789Z"},
          "visits": {"integerValue": "41"},
          "home": {"geoPointValue": {"latitude": 51.5, "longitude": -0.12}},
          "avatar": {"bytesValue": "AAEC/w=="},
          "manager": {"referenceValue": "projects/p/databases/(default)/documents/profiles/grace"},
          "prefs": {"mapValue": {"fields": {"theme": {"stringValue": "dark"}, "ratio": {"doubleValue": 0.1}}}},
          "embedding": {"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"},
            "value": {"arrayValue": {"values": [{"doubleValue": 0.5}, {"doubleValue": -1.25}]}}}}},
          "pending": {"nullValue": null}
        }}
        """

    @Test("REST JSON → document → old model → one field changed → document → REST JSON: every other field as it was")
    func restJSON() throws {
        let document = try Document(firestoreJSON: Array(self.document.utf8))
        var profile = try document.data(as: Profile.self)
        #expect(profile.unknownFields.keys == ["joined", "home", "avatar", "manager", "prefs", "embedding", "pending"])
        profile.visits += 1
        let written = try Document(reference: document.reference, from: profile)
        var expected = document.fields
        expected["visits"] = .integer(42)
        // The model's fields come first, then the bag's, in the order they were read.
        #expect(written.fields.keys == ["name", "visits"] + profile.unknownFields.keys)
        #expect(entries(written.fields) == entries(expected))
        let back = try Document(firestoreJSON: try written.firestoreJSONBytes())
        #expect(back.fields == written.fields)
    }

    @Test("protobuf → document → old model → document → protobuf: the same bytes when nothing changed")
    func protobuf() throws {
        // Known fields first, as the model writes them, so that unchanged means byte for byte.
        var fields = MapValue()
        let original = try Document(firestoreJSON: Array(self.document.utf8))
        for key in ["name", "visits"] + original.fields.keys where fields[key] == nil { fields[key] = original.fields[key] }
        let document = Document(reference: original.reference, fields: fields)
        let proto = try document.firestoreProtoBytes()
        let read = try Document(firestoreProto: proto)
        let profile = try read.data(as: Profile.self)
        let written = try Document(reference: read.reference, from: profile)
        #expect(try written.firestoreProtoBytes() == proto)
    }
}

private func entries(_ map: MapValue) -> [String: Value] {
    Dictionary(uniqueKeysWithValues: zip(map.keys, map.values))
}
