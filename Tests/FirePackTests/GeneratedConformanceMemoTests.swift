import Testing
@testable import FirePack

/// The coders' memo of which types have generated coding answers as the runtime cast does, asking it only for types it
/// has not just seen.
@Suite struct GeneratedConformanceMemoTests {
    private struct Generated: FirePackDecodable {
        init(firePack reader: inout FirePackValueReader) throws {}
        init(from decoder: any Decoder) throws {}
    }
    private struct OtherGenerated: FirePackDecodable {
        init(firePack reader: inout FirePackValueReader) throws {}
        init(from decoder: any Decoder) throws {}
    }
    private struct Plain: Decodable {}
    private struct OtherPlain: Decodable {}

    @Test func answersAsTheCastAndRemembersTheLastOfEachKind() {
        var memo = GeneratedConformanceMemo<any FirePackDecodable.Type>()
        var casts = 0
        func ask<T>(_ type: T.Type) -> (any FirePackDecodable.Type)? {
            memo.conformance(of: type) { casts += 1; return $0 as? any FirePackDecodable.Type }
        }
        let sequence: [(Any.Type, asks: Bool)] = [
            (Plain.self, true), (Plain.self, false), (Generated.self, true), (Plain.self, false), (Generated.self, false),
            (OtherGenerated.self, true), (Generated.self, true),
            // String has generated coding (FirePack's natives do): it takes the generated slot, not the plain one.
            (String.self, true), (Plain.self, false), (OtherPlain.self, true), (Plain.self, true),
        ]
        for (index, (type, asks)) in sequence.enumerated() {
            let before = casts
            func check<T>(_ type: T.Type) {
                let answer = ask(type)
                #expect(answer.map(ObjectIdentifier.init) == (type as? any FirePackDecodable.Type).map(ObjectIdentifier.init), "step \(index)")
            }
            _openExistential(type, do: check)
            #expect((casts > before) == asks, "step \(index): \(type)")
        }
    }
}
