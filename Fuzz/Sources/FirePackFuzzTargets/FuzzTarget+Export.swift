#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack
import FirePackInterop
import FirePackStreams

extension FuzzTarget {
    /// A Firestore managed export file: the LevelDB log reader and every record as a Datastore entity. Damage is
    /// reported at offsets inside the input, and what decodes re-encodes and reads back equal.
    public static let export = FuzzTarget(name: "export", summary: "LevelDBLogReader + Document(datastoreEntity:)") { input in
        var check = FuzzCheck(input)
        // The input as one entity as well: mutations inside a log's records rarely keep its CRC-32C, so without this
        // the entity decoder would see few of them.
        if let document = check.attempt("the input as an entity", { try Document(datastoreEntity: input) }) {
            let again = check.attempt("read back") { try Document(firePackBytes: document.firePackBytes()) }
            check.expect(again == nil || again == document, "\(document) reads back as \(String(describing: again))")
        }
        if check.outcome.isViolation { return check.outcome }
        let reader = LevelDBLogReader(source: MemorySource(input), maxRecordLength: 1 << 16)
        while let record = check.attempt("log", { try reader.next() }) ?? nil {
            check.expect(record.offset >= 0 && record.offset + record.payload.count <= input.count,
                         "record \(record.number) at byte \(record.offset) of \(record.payload.count) bytes lies outside \(input.count)")
            var entity = FuzzCheck(record.payload)
            if let document = entity.attempt("entity", { try Document(datastoreEntity: record.payload) }) {
                let again = entity.attempt("read back") { try Document(firePackBytes: document.firePackBytes()) }
                entity.expect(again == nil || again == document, "\(document) reads back as \(String(describing: again))")
            }
            switch entity.outcome {
            case .violated: return entity.outcome
            case .rejected(let why): check.attempt("record \(record.number)") { throw FirePackError(.invalidValue, why) }
            case .accepted: break
            }
        }
        for problem in reader.problems {
            check.expect(problem.offset >= 0 && problem.offset <= input.count, "problem names byte \(problem.offset) of \(input.count): \(problem)")
        }
        check.expect(reader.problemCount >= reader.problems.count, "problems kept beyond those counted")
        if let first = reader.problems.first { check.attempt("log") { throw first } }
        return check.outcome
    }
}

extension FuzzSeeds {
    /// A LevelDB log of three entities of every Firestore type, as App Engine's `Entity.ToPb` and records writer
    /// make them (python/tests/test_firestore_export.py: `make_entities(3, seed=1)`, `write_log`).
    static let exportSeed: [UInt8] = Array(Data(base64Encoded: [
        "zNSoHdgCAWorag5zfmRlbW8tcHJvamVjdHIZCxIHYXV0aG9ycyIMZG9jLTAwMDAwLcOpDHIuGgZhdXRob3IgACoiY2oOc35kZW1vLXByb2pl",
        "Y3RzegdhdXRob3JzigECYTB0ZHIRGglhdmFpbGFibGUgACoCEAByLxoJZWxzZXdoZXJlIAAqIGNqD3N+b3RoZXItcHJvamVjdHN6BWJvb2tz",
        "igEBeHRkchMIEBoEaXNibiAAKgcaBTk3OC0wcg0aB21pc3NpbmcgACoAchIIGBoKbm90aGluZ1lldCAAKgByFhoFcGFnZXMgACoLCMT3mpyc",
        "mvGTkAFyFBoFcHJpY2UgACoJIQAAAAAAAACAchkIBxoJcHVibGlzaGVkIAAqCAiI17/xsep+cg4aBnNjb3JlcyABKgIIAHIVGgZzY29yZXMg",
        "ASoJIQhoKvoUyeQ/cgwaBnNjb3JlcyABKgByDhoGc2NvcmVzIAEqAhABcg4aBHRhZ3MgASoEGgJzZnIUGgV0aXRsZSAAKgkaB8OJbWlsZTBy",
        "IQgJGgV3aGVyZSAAKhQrMcSIjiGTfEdAOUBMW7fB+yPALHonCA4aBWNvdmVyIAAqGhoYyTUYfAfk1WNum8PEALJyRLjNOpfxGuZReuABCBMa",
        "B2RldGFpbHMgACrQARrNAXoSGghsYW5ndWFnZSAAKgQaAmVueg8aB2VkaXRpb24gACoCCAB6MwgTGglwcmludGluZ3MgASoiGiB6DRoEeWVh",
        "ciAAKgMIrQ96DxoGY29waWVzIAAqAwjoB3pxCBMaCWVtYmVkZGluZyAAKmAaXnoaGghfX3R5cGVfXyAAKgwaCl9fdmVjdG9yX196FBoFdmFs",
        "dWUgASoJIQAAAAAAANA/ehQaBXZhbHVlIAEqCSEAAAAAAAD4v3oUGgV2YWx1ZSABKgkhAAAAAAAACECCARkLEgdhdXRob3JzIgxkb2MtMDAw",
        "MDAtw6kM4GIAQggDAWopag5zfmRlbW8tcHJvamVjdHIXCxIFYm9va3MiDGRvYy0wMDAwMS3DqQxyLhoGYXV0aG9yIAAqImNqDnN+ZGVtby1w",
        "cm9qZWN0c3oHYXV0aG9yc4oBAmExdGRyERoJYXZhaWxhYmxlIAAqAhABci8aCWVsc2V3aGVyZSAAKiBjag9zfm90aGVyLXByb2plY3RzegVi",
        "b29rc4oBAXh0ZHITCBAaBGlzYm4gACoHGgU5NzgtMXINGgdtaXNzaW5nIAAqAHISCBgaCm5vdGhpbmdZZXQgACoAcg4aBXBhZ2VzIAAqAwiD",
        "D3IUGgVwcmljZSAAKgkhSOF6FK4HVkByGQgHGglwdWJsaXNoZWQgACoICPjP9f3KuTdyDhoGc2NvcmVzIAEqAggEchUaBnNjb3JlcyABKgkh",
        "cdDk13XN4j9yDBoGc2NvcmVzIAEqAHIOGgZzY29yZXMgASoCEAFyDhoEdGFncyABKgQaAsO8cg4aBHRhZ3MgASoEGgLDvHIOGgR0YWdzIAEq",
        "BBoCc2ZyExoEdGFncyABKgkaB2NsYXNzaWNyEhoFdGl0bGUgACoHGgVEdW5lMXIhCAkaBXdoZXJlIAAqFCsxDNmfKVkbVUA5MKMT2aRTVEAs",
        "ejAIDhoFY292ZXIgACojGiE4w3Dwfo07WDutOMJ180rtBWrW6o7spBkvof653EsevlV64AEIExoHZGV0YWlscyAAKtABGs0BehIaCGxhbmd1",
        "YWdlIAAqBBoCZW56DxoHZWRpdGlvbiAAKgIIAXozCBMaCXByaW50aW5ncyABKiIaIHoNGgR5ZWFyIAAqAwiuD3oPGgZjb3BpZXMgACoDCOgH",
        "enEIExoJZW1iZWRkaW5nIAAqYBpeehoaCF9fdHlwZV9fIAAqDBoKX192ZWN0b3JfX3oUGgV2YWx1ZSABKgkhAAAAAAAA0D96FBoFdmFsdWUg",
        "ASoJIQAAAAAAAPi/ehQaBXZhbHVlIAEqCSEAAAAAAAAIQIIBFwsSBWJvb2tzIgxkb2MtMDAwMDEtw6kMaU8tVhEDAWorag5zfmRlbW8tcHJv",
        "amVjdHIZCxIHYXV0aG9ycyIMZG9jLTAwMDAyLcOpDHIuGgZhdXRob3IgACoiY2oOc35kZW1vLXByb2plY3RzegdhdXRob3JzigECYTJ0ZHIR",
        "GglhdmFpbGFibGUgACoCEAByLxoJZWxzZXdoZXJlIAAqIGNqD3N+b3RoZXItcHJvamVjdHN6BWJvb2tzigEBeHRkchMIEBoEaXNibiAAKgca",
        "BTk3OC0ycg0aB21pc3NpbmcgACoAchIIGBoKbm90aGluZ1lldCAAKgByDhoFcGFnZXMgACoDCMUNchQaBXByaWNlIAAqCSH2KFyPwoVXQHIa",
        "CAcaCXB1Ymxpc2hlZCAAKgkIu6XLpbbklgFyDhoGc2NvcmVzIAEqAggJchUaBnNjb3JlcyABKgkhywuTwWqA4j9yDBoGc2NvcmVzIAEqAHIO",
        "GgZzY29yZXMgASoCEAFyDhoEdGFncyABKgQaAnNmchMaBHRhZ3MgASoJGgdjbGFzc2ljcg4aBHRhZ3MgASoEGgLDvHIOGgR0YWdzIAEqBBoC",
        "w7xyHhoFdGl0bGUgACoTGhFhICJxdW90ZWQiIGxpbmUKMnIhCAkaBXdoZXJlIAAqFCsxNG/jHsHLT0A54IpO8CB5HMAseigIDhoFY292ZXIg",
        "ACobGhlqqixdjOGzxqy8XxZwqYIbxymF12RefbsHeuABCBMaB2RldGFpbHMgACrQARrNAXoSGghsYW5ndWFnZSAAKgQaAmVueg8aB2VkaXRp",
        "b24gACoCCAJ6MwgTGglwcmludGluZ3MgASoiGiB6DRoEeWVhciAAKgMIrw96DxoGY29waWVzIAAqAwjoB3pxCBMaCWVtYmVkZGluZyAAKmAa",
        "XnoaGghfX3R5cGVfXyAAKgwaCl9fdmVjdG9yX196FBoFdmFsdWUgASoJIQAAAAAAANA/ehQaBXZhbHVlIAEqCSEAAAAAAAD4v3oUGgV2YWx1",
        "ZSABKgkhAAAAAAAACECCARkLEgdhdXRob3JzIgxkb2MtMDAwMDItw6kM",
    ].joined())!)
}
