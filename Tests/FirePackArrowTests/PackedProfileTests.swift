import FirePack
@testable import FirePackArrow
import FirePackStreams
import FirePackTestSupport
import Foundation
import Testing

/// Schema inference counts a packed array's numbers at once (`FieldProfile.add`): the profile it makes must be the
/// one it makes of the same documents with a tag per element.
@Suite("Schema inference over packed arrays")
struct PackedProfileTests {
    let folder = TemporaryFolder("arrow")
    /// Everything a profile holds, fields and elements included, as text to compare.
    static func describe(_ profile: FieldProfile, _ indent: String = "") -> String {
        let counts = profile.typeCounts.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")
        var text = "\(indent)present \(profile.present) absent \(profile.absent) [\(counts)]\n"
        for (name, field) in profile.fields { text += "\(indent).\(name)\n" + describe(field, indent + "  ") }
        if let element = profile.element { text += "\(indent)[]\n" + describe(element, indent + "  ") }
        return text
    }

    @Test("the profile of packed arrays is the profile of the same arrays tagged, and so is the schema")
    func packedAndTaggedAgree() throws {
        let documents = try (0..<40).map { index in
            let base = Double(index)
            let mixed: [Value] = (0..<30).map { .double(base + Double($0) + 1.0 / 3) } + [.integer(-70)]
            let fields: MapValue = [
                "doubles": .array((0..<8).map { .double(base + Double($0) / 4) }),
                "integers": .array((0..<6).map { .integer(Int64(index * 1_000 + $0)) }),
                "mixed": .array(index % 2 == 0 ? mixed : (0..<10).map { .double(base + Double($0) + 1.0 / 3) }),
                "ring": .array((0..<9).map { [.double(base - 65 - 1.0 / 3), index % 3 == 0 && $0 == 2 ? -70 : .double(Double($0) + 43 + 1.0 / 7)] }),
                "short": [1.5], "empty": [],
                "nested": ["series": .array((0..<4).map { .double(Double($0) + 0.5) }), "tags": ["a", "b"]],
            ]
            return Document(reference: try DocumentReference(path: "shapes/s\(index)"), fields: fields)
        }
        let packedBytes = Value.map(documents[0].fields).firePackBytes()
        #expect(zip(packedBytes, packedBytes.dropFirst()).contains { $0 == 0xD9 && $1 == 0x81 })
        let packed = try writeStream(documents, name: "packed.fpks", in: folder)
        let tagged = try writeStream(documents, name: "tagged.fpks", in: folder, version: 2)   // format-1 values: no packing
        let packedProfile = try DocumentProfile.of(paths: [packed], sample: nil)
        let taggedProfile = try DocumentProfile.of(paths: [tagged], sample: nil)
        #expect(Self.describe(packedProfile.fields) == Self.describe(taggedProfile.fields))
        #expect(try packedProfile.schema().schema == taggedProfile.schema().schema)
    }
}
