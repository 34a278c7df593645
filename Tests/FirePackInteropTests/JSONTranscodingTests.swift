import Foundation
import Testing
import FirePack
@testable import FirePackInterop
import FirePackTestSupport

/// The direct JSON → FirePack path (`JSONTranscoding`, used by `firepack convert` for JSON lines) against the tree
/// path it replaces: whatever it writes, `Value(json:)` reads and `FirePackWriter.write(_:)` writes byte for byte;
/// whatever it rejects, the tree path rejects with the same error (code, offset, message, JSON path).
@Suite struct JSONTranscodingTests {
    /// The map the text holds, through the tree path, or nil when the tree path rejects it or it is not a map.
    func treeMap(_ text: [UInt8]) -> MapValue? {
        guard case .map(let map)? = try? Value(json: text) else { return nil }
        return map
    }

    func treeBytes(_ map: MapValue) -> [UInt8] {
        let writer = FirePackWriter()
        writer.write(.map(map))
        return writer.writtenBytes
    }

    static let noNaming = DocumentMembers(idField: nil, keepsIDField: false)

    /// The one pass over `text`: the bytes and the naming members it read, nil when it does not take the text.
    func direct(_ text: [UInt8], naming: DocumentMembers = noNaming) throws(FirePackError) -> ([UInt8], DocumentMembers)? {
        let writer = FirePackWriter()
        let read = try Result { () throws(FirePackError) in
            try text.withUnsafeBytes { raw in
                Result { () throws(FirePackError) in
                    try JSONTranscoding.writeDocumentFields(raw, naming: naming, options: JSONOptions(), into: writer)
                }
            }.get()
        }.get()
        return read.map { (writer.writtenBytes, $0) }
    }

    func directBytes(_ text: [UInt8]) -> [UInt8]? { (try? direct(text))??.0 }

    /// Strings are scanned eight bytes at a time up to the word that may end the plain form: a byte that ends it or
    /// must be checked — a quote, an escape, a control character, non-ASCII, invalid UTF-8 — at every position of
    /// strings of 0 to 40 bytes, in a value and as a key, gives what it gives byte by byte: the same string, or the same
    /// error at the same offset, on the tree path and the one pass (which leaves keys with escapes to the tree path).
    @Test func everyStringEndingByteAtEveryPosition() throws {
        let specials: [(bytes: [UInt8], text: String?, code: FirePackError.Code?)] = [
            (Array(#"\""#.utf8), "\"", nil), (Array(#"\n"#.utf8), "\n", nil), (Array(#"\u00e9"#.utf8), "é", nil),
            ([0x01], nil, .invalidJSON), ([0x1F], nil, .invalidJSON), (Array("é".utf8), "é", nil),
            (Array("😀".utf8), "😀", nil), ([0x7F], "\u{7F}", nil), ([0xFF], nil, .invalidUTF8), ([0xC3, 0x28], nil, .invalidUTF8),
        ]
        for length in 0...40 {
            for position in 0...length {
                for special in specials {
                    let before = [UInt8](repeating: UInt8(ascii: "a"), count: position)
                    let after = [UInt8](repeating: UInt8(ascii: "b"), count: length - position)
                    let content = before + special.bytes + after
                    for asKey in [false, true] {
                        let prefix = Array((asKey ? #"{""# : #"{"k": ""#).utf8)
                        let text = prefix + content + Array((asKey ? #"": 1}"# : #""}"#).utf8)
                        let expected = special.text.map { String(repeating: "a", count: position) + $0 + String(repeating: "b", count: length - position) }
                        let label = "length \(length), \(special.bytes) at \(position)\(asKey ? " in a key" : "")"
                        do {
                            let value = try Value(json: text)
                            let map: MapValue = asKey ? [expected ?? "": .integer(1)] : ["k": .string(expected ?? "")]
                            #expect(special.code == nil && value == .map(map), "\(label)")
                            // The one pass leaves a key with an escape to the tree path (nil); it takes every value.
                            let direct = directBytes(text)
                            #expect(direct == treeBytes(map) || (asKey && direct == nil), "\(label)")
                        } catch {
                            #expect(error.code == special.code && error.offset == prefix.count + position, "\(label): \(error)")
                            do {
                                _ = try direct(text)
                                Issue.record("\(label): the one pass took it")
                            } catch let direct {
                                #expect(direct.code == error.code && direct.offset == error.offset, "\(label): \(direct)")
                            }
                        }
                    }
                }
            }
        }
    }

    @Test func randomObjectsWriteTheTreePathsBytes() throws {
        var random = RandomValues(seed: 10)
        var direct = 0
        for _ in 0..<3_000 {
            var map = random.map(depth: 0)
            map["__name__"] = nil
            for pretty in [false, true] {
                let text = Value.map(map).jsonBytes(options: JSONOptions(pretty: pretty))
                let tree = try #require(treeMap(text))
                guard let bytes = directBytes(text) else {
                    // Only an object that may read as something else than a map of its entries (a marker first, or a
                    // first key JSON writes with escapes) is left to the tree path.
                    let first = try #require(map.keys.first)
                    let escaped = first.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
                    #expect(ReversibleMarker(rawValue: first) != nil || escaped, "the direct path refused \(String(decoding: text, as: UTF8.self))")
                    continue
                }
                #expect(bytes == treeBytes(tree))
                direct += 1
            }
        }
        #expect(direct > 5_000)
    }

    @Test func namingMembersAreReadNotWritten() throws {
        var random = RandomValues(seed: 11)
        var taken = 0
        for index in 0..<1_000 {
            var fields = random.map(depth: 0)
            fields["__name__"] = nil
            // `__name__` first, in the middle or last: read wherever it is, never a field.
            var map = MapValue()
            let position = index % 3 == 0 ? 0 : index % 3 == 1 ? fields.count / 2 : fields.count
            for (offset, (key, value)) in fields.enumerated() {
                if offset == position { map["__name__"] = .string("books/b\(index)") }
                map[key] = value
            }
            if position == fields.count { map["__name__"] = .string("books/b\(index)") }
            let text = Value.map(map).jsonBytes()
            guard let (bytes, read) = try direct(text) else { continue }
            #expect(bytes == treeBytes(fields))
            #expect(read.name == .string("books/b\(index)"))
            taken += 1
        }
        #expect(taken > 900)
        // A name twice is the tree path's duplicate key.
        let twice = Array(#"{"__name__":"a/b","x":1,"__name__":"a/c"}"#.utf8)
        do {
            _ = try direct(twice)
            Issue.record("read a name twice")
        } catch {
            #expect(error.code == .duplicateKey && error.offset == 24)
            #expect(error.message == #"key "__name__" appears twice in one object"#)
        }
        #expect(treeMap(twice) == nil)
        // The ID field: left out when it names the document, a field when `__name__` came first or it is kept; an ID
        // before `__name__` is the tree path's (the ID should have stayed a field).
        let id = DocumentMembers(idField: "id", keepsIDField: false)
        let kept = DocumentMembers(idField: "id", keepsIDField: true)
        let withID = Array(#"{"a":1,"id":"x"}"#.utf8)
        #expect(try direct(withID, naming: id)?.0 == treeBytes(["a": 1]))
        #expect(try direct(withID, naming: id)?.1.id == .string("x"))
        #expect(try direct(withID, naming: kept)?.0 == treeBytes(["a": 1, "id": "x"]))
        #expect(try direct(withID, naming: kept)?.1.id == .string("x"))
        let nameThenID = Array(#"{"__name__":"c/d","id":"x"}"#.utf8)
        #expect(try direct(nameThenID, naming: id)?.0 == treeBytes(["id": "x"]))
        #expect(try direct(Array(#"{"id":"x","__name__":"c/d"}"#.utf8), naming: id) == nil)
        #expect(try direct(Array(#"{"id":"x","__name__":"c/d"}"#.utf8), naming: kept)?.0 == treeBytes(["id": "x"]))
        #expect(throws: FirePackError.self) { try direct(Array(#"{"id":"x","id":"y"}"#.utf8), naming: id) }
        #expect(throws: FirePackError.self) { try direct(Array(#"{"id":"x","id":"y"}"#.utf8), naming: kept) }
    }

    /// Damaged text: the direct path never writes what the tree path rejects, writes the same bytes otherwise, and
    /// throws the tree path's very error.
    @Test func damagedTextTakesNoOtherWay() throws {
        var random = RandomValues(seed: 12)
        var rng = SeededGenerator(seed: 13)
        var agreedValid = 0, agreedErrors = 0
        for index in 0..<10_000 {
            var map = random.map(depth: 0)
            if index % 2 == 0 { map["__name__"] = .string("c/d\(index)") }
            var text = Value.map(map).jsonBytes()
            for _ in 0..<Int.random(in: 1...3, using: &rng) { ByteMutation.random(using: &rng).apply(to: &text, using: &rng) }
            let tree = Result { () throws(FirePackError) in try Value(json: text) }
            let shown = String(decoding: text, as: UTF8.self).debugDescription
            switch Result(catching: { () throws(FirePackError) in try direct(text) }) {
            case .success(let taken?):
                guard case .success(.map(var fields)) = tree else {
                    Issue.record("the direct path wrote text the tree path rejects: \(shown)")
                    continue
                }
                #expect(taken.1.name == fields["__name__"])
                fields["__name__"] = nil
                #expect(taken.0 == treeBytes(fields))
                agreedValid += 1
            case .success(nil): continue
            case .failure(let error):
                guard case .failure(let treeError) = tree else {
                    Issue.record("the direct path rejected text the tree path reads: \(shown): \(error)")
                    continue
                }
                #expect(error.code == treeError.code && error.offset == treeError.offset, "\(shown): \(error) / \(treeError)")
                #expect(error.message == treeError.message && error.pathDescription == treeError.pathDescription, "\(shown)")
                agreedErrors += 1
            }
        }
        #expect(agreedValid > 400)
        #expect(agreedErrors > 5_000)
    }

    /// Markers in their plain form are written from their parts (`transcodeMarker`); every other shape, and every
    /// payload a marker refuses, is left to the tree, which gives the value or the error. Either way: the tree's bytes,
    /// or the tree's very error.
    @Test func plainMarkersWriteTheTreesBytesAndEveryOtherShapeItsError() throws {
        let fields = [
            #"{"__reference__":"a/b"}"#, #"{"__reference__":"a"}"#, #"{"__reference__":"a//b"}"#,
            #"{"__reference__":"a\/b"}"#, #"{"__reference__":5}"#,
            #"{"__bytes__":"AAE="}"#, #"{"__bytes__":""}"#, #"{"__bytes__":"AAE"}"#, #"{"__bytes__":"A A E ="}"#,
            #"{"__geopoint__":[1.5,-2]}"#, #"{ "__geopoint__" : [ 90 , -180.0 ] }"#, #"{"__geopoint__":[91,0]}"#,
            #"{"__geopoint__":[1,2,3]}"#, #"{"__geopoint__":[1]}"#, #"{"__geopoint__":[]}"#,
            #"{"__geopoint__":[1,"2"]}"#, #"{"__geopoint__":[1,2],"x":1}"#, #"{"__geopoint__":[01,2]}"#,
            #"{"__geopoint__":[1,2,]}"#, #"{"__geopoint__":[1e400,2]}"#, #"{"__geopoint__":[-0.0,0]}"#,
            #"{"__vector__":[]}"#, #"{"__vector__":[1,2.5,-0.0,9007199254740993]}"#, #"{"__vector__":[1,null]}"#,
            #"{"__vector__":[1 2]}"#, #"{"__vector__":[[1]]}"#, #"{"__vector__":1}"#,
            #"{"__timestamp__":"2020-01-01T00:00:00Z"}"#, #"{"__timestamp__":"2020-01-01T00:00:00Z" , "y":2}"#,
            #"{"__serverTimestamp__":true}"#, #"{"__double__":"NaN"}"#, #"{"__unknown__":1}"#,
        ]
        var written = 0
        for field in fields {
            let text = Array(#"{"f":\#(field),"after":[1,{"__geopoint__":[3,4]}]}"#.utf8)
            if expectTheTreesOutcome(text) == true { written += 1 }
        }
        #expect(written > 10)
        // A marker is a scalar: in the deepest array (the object at depth 1, 99 arrays to depth 100, the limit) it
        // reads, on both paths alike; one array more is the depth error, on both paths alike.
        func deep(_ arrays: Int) -> [UInt8] {
            Array((#"{"a":"# + String(repeating: "[", count: arrays) + #"{"__geopoint__":[1,2]}"#
                   + String(repeating: "]", count: arrays) + "}").utf8)
        }
        #expect(expectTheTreesOutcome(deep(99)) == true)
        let tree = Result { () throws(FirePackError) in try Value(json: deep(100)) }
        guard case .failure(let depthError) = tree else { Issue.record("the tree read it"); return }
        #expect(depthError.code == .depthLimitExceeded)
        #expect(sameError(deep(100), depthError))
    }

    /// Objects under marker keys other than `__map__` count their level (no marker holds an object), so that they cannot
    /// nest without limit: 20,000 levels of each are the depth error at once, on both paths, not a stack overflow.
    @Test func objectsUnderMarkerKeysCannotNestWithoutLimit() throws {
        for marker in ["__geopoint__", "__vector__", "__timestamp__", "__double__", "__bytes__", "__serverTimestamp__"] {
            let levels = 20_000
            let text = Array((#"{"f":"# + String(repeating: #"{"\#(marker)":"#, count: levels) + "1"
                              + String(repeating: "}", count: levels) + "}").utf8)
            let tree = Result { () throws(FirePackError) in try Value(json: text) }
            guard case .failure(let error) = tree else {
                Issue.record("\(marker): read")
                continue
            }
            #expect(error.code == .depthLimitExceeded, "\(marker): \(error)")
            #expect(sameError(text, error), "\(marker)")
            // Within the limit, such an object is the marker's error (its payload is no object), on both paths.
            let shallow = Array(#"{"f":{"\#(marker)":{"\#(marker)":1}}}"#.utf8)
            #expect(expectTheTreesOutcome(shallow) == false, "\(marker)")
        }
    }

    /// What FirePack writes, its JSON reads back: a marker's object and payload array open no level (the marker
    /// stands for a scalar), and an escaped map opens one, so each sits in the deepest container FirePack allows,
    /// on the tree path and the one pass alike; one level deeper, FirePack's writer and both JSON paths refuse it.
    @Test func markersInTheDeepestContainerReadBack() throws {
        let leaves: [Value] = [
            .geoPoint(GeoPoint(latitude: 1, longitude: 2)), .vector(VectorValue([1, 2.5])),
            .timestamp(Timestamp(seconds: 1, nanoseconds: 2)), .bytes(Data([1, 2])), .double(.infinity),
            .reference(try DocumentReference(path: "a/b")), .serverTimestamp,
            ["__geopoint__": 1],  // a map whose one key is a marker's: written escaped, `{"__map__": {…}}`
            ["__map__": ["__vector__": [1]]],  // escaped within an escape
        ]
        for leaf in leaves {
            func nested(_ levels: Int) -> Value {
                var value: Value = ["leaf": leaf]
                for level in 1..<levels { value = level.isMultiple(of: 2) ? [value] : ["k": value] }
                return value
            }
            var levels = 95
            while (try? FirePackEncoder().encode(nested(levels + 1))) != nil { levels += 1 }
            #expect((97...100).contains(levels), "\(leaf)")
            let deepest = nested(levels), deeper = nested(levels + 1)
            #expect(try Value(json: deepest.jsonBytes()) == deepest, "\(leaf)")
            let error = #expect(throws: FirePackError.self, "\(leaf)") { try Value(json: deeper.jsonBytes()) }
            #expect(error?.code == .depthLimitExceeded, "\(leaf)")
            // The one pass takes documents (maps): whichever of the two is one gives the tree's bytes or error.
            for (value, reads) in [(deepest, true), (deeper, false)] {
                guard case .map = value else { continue }
                #expect(expectTheTreesOutcome(value.jsonBytes()) == reads, "\(leaf)")
            }
        }
    }

    /// A bytes marker's canonical base64 is decoded from its text (`Base64Text`); every other text — unpadded, with
    /// unused bits set, spaces, another alphabet, `=` inside — is left to the tree, which decodes or refuses it as
    /// Foundation does. Either way: the tree's bytes, or the tree's very error.
    @Test func bytesMarkersOfEveryLengthAndEveryDefect() throws {
        var generator = SeededGenerator(seed: 0xB64)
        var written = 0, refused = 0
        for length in 0...40 {
            let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let canonical = Array(data.base64EncodedString().utf8)
            var texts = [canonical, canonical.filter { $0 != UInt8(ascii: "=") }, canonical + Array("=".utf8)]
            if let firstPad = canonical.firstIndex(of: UInt8(ascii: "=")) {
                // Set the lowest of the bits the padding leaves unused ("AA==" → "AB==").
                var unusedBits = canonical
                unusedBits[firstPad - 1] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)[
                    Int(Base64Text.sextet(canonical[firstPad - 1]) | 1)]
                texts.append(unusedBits)
            }
            for position in canonical.indices {
                for replacement in ["-", "_", "=", "*", " ", "é"] {
                    var text = canonical
                    text.replaceSubrange(position...position, with: Array(replacement.utf8))
                    texts.append(text)
                }
                texts.append(Array(canonical[..<position]) + Array(" ".utf8) + Array(canonical[position...]))
            }
            for text in texts {
                switch expectTheTreesOutcome(Array(#"{"f":{"__bytes__":""#.utf8) + text + Array(#""},"g":[1]}"#.utf8)) {
                case true?: written += 1
                case false?: refused += 1
                case nil: break
                }
            }
        }
        // Both ways are taken: every canonical text is written, most damaged ones are refused.
        #expect(written > 41 && refused > 5_000)
    }

    /// Expects the one pass over `text` to write the tree path's bytes, or to throw the tree path's error; returns
    /// whether the tree wrote it (true) or refused it (false), nil when it is not a map.
    func expectTheTreesOutcome(_ text: [UInt8]) -> Bool? {
        let shown = String(decoding: text, as: UTF8.self)
        switch (Result { () throws(FirePackError) in try Value(json: text) }) {
        case .success(.map(let tree)):
            #expect(directBytes(text) == treeBytes(tree), "\(shown)")
            return true
        case .success:
            Issue.record("not a map: \(shown)")
            return nil
        case .failure(let treeError):
            #expect(sameError(text, treeError), "\(shown)")
            return false
        }
    }

    /// Whether the one pass over `text` throws `expected` (code, offset, message and JSON path).
    func sameError(_ text: [UInt8], _ expected: FirePackError) -> Bool {
        do throws(FirePackError) {
            _ = try direct(text)
            return false
        } catch {
            return error.code == expected.code && error.offset == expected.offset && error.message == expected.message
                && error.pathDescription == expected.pathDescription
        }
    }

    @Test func markerKeysAreTheReversibleMarkersAndNothingElse() {
        func isMarker(_ key: [UInt8]) -> Bool { key.withUnsafeBytes { ReversibleMarker.isKey($0) } }
        let markers = ReversibleMarker.allCases.map { Array($0.rawValue.utf8) }
        for marker in markers {
            #expect(isMarker(marker), "\(String(decoding: marker, as: UTF8.self))")
            // Each byte changed, one shorter, one longer: not a marker.
            for index in marker.indices {
                var changed = marker
                changed[index] ^= 0x20
                #expect(!isMarker(changed) || markers.contains(changed))
            }
            #expect(!isMarker(Array(marker.dropLast())) && !isMarker(marker + [UInt8(ascii: "_")]))
        }
        #expect(!isMarker([]) && !isMarker(Array("__".utf8)) && !isMarker(Array("__name__".utf8)))
    }

    @Test func markersAndEscapesGoThroughTheTree() throws {
        let cases = [
            #"{"t":{"__timestamp__":"2020-01-01T00:00:00.5Z"},"n":{"__timestamp__":"2020-01-01T00:00:00Z","x":1}}"#,
            #"{"t":{ "__timestamp__" : "1969-12-31T23:59:59+01:00" }}"#,
            #"{"t":{"__timestamp__":"not a time"}}"#,
            #"{"m":{"__map__":{"__bytes__":"AAE="}},"e":{"\u005f_bytes__":"AAE="}}"#,
            // An escape at either of a marker key's first two bytes, or both: a marker all the same.
            #"{"e":{"_\u005fbytes__":"AAE="},"f":{"\u005F\u005Ftimestamp__":"2020-01-01T00:00:00Z"}}"#,
            #"{"g":{"_\u005fmap__":{"a":1}},"h":{"_a":1},"i":{"a_":{"__bytes__":"AAE="}}}"#,
            #"{"r":{"__reference__":"a/b"},"g":{"__geopoint__":[1.5,-2]},"d":{"__double__":"NaN"}}"#,
            #"{"k\n":"\u00e9","a":[1,2.5,-0.0,1e400]}"#,
            // A first key "__map__" among others: not an escape.
            #"{"f":{"__map__":{"__map__":{"__map__":{"a":1}}},"x":1}}"#,
            #"{"f":{"__map__":{"__map__":{"__bytes__":"AA=="}},"x":1},"g":{"__map__":{"__bytes__":"AQ=="},"y":2}}"#,
        ]
        for text in cases.map({ Array($0.utf8) }) {
            let direct = directBytes(text)
            if let tree = treeMap(text) {
                #expect(direct == treeBytes(tree), "\(String(decoding: text, as: UTF8.self))")
            } else {
                #expect(direct == nil, "\(String(decoding: text, as: UTF8.self))")
            }
        }
        // A whole object that is a marker is not a map: the direct path leaves it to the tree.
        #expect(directBytes(Array(#"{"__timestamp__":"2020-01-01T00:00:00Z"}"#.utf8)) == nil)
        #expect(directBytes(Array(#"{"__map__":{"a":1}}"#.utf8)) == nil)
    }
}

/// The direct FirePack → JSON path (`JSONTranscoding.appendObject`, used by `firepack convert` for streams to JSON
/// lines) against the tree path: the same text, or nothing where the tree rejects the bytes.
@Suite struct JSONFromBytesTests {
    static let extra = (key: "__name__", value: "books/b")
    /// A document's create and update times, added before the name (`DocumentNaming.value(of:)`).
    static let times = (Timestamp(seconds: 1_714_557_600, nanoseconds: 7), Timestamp(seconds: -5, nanoseconds: 0))

    /// The members added: the name, after the times when `timed`.
    static func added(timed: Bool) -> AddedMembers {
        timed ? AddedMembers(createTime: times.0, updateTime: times.1, name: extra) : AddedMembers(name: extra)
    }

    /// The tree path's line for the map `bytes` hold, or nil when they do not hold a map.
    func treeText(_ bytes: [UInt8], options: JSONOptions, timed: Bool = false) -> [UInt8]? {
        guard case .map(var map)? = try? Value(firePackBytes: bytes), map[Self.extra.key] == nil else { return nil }
        if timed {
            map[DocumentNaming.createTimeMember] = .timestamp(Self.times.0)
            map[DocumentNaming.updateTimeMember] = .timestamp(Self.times.1)
        }
        map[Self.extra.key] = .string(Self.extra.value)
        return Value.map(map).jsonBytes(options: options)
    }

    func directText(_ bytes: [UInt8], options: JSONOptions, timed: Bool = false) -> [UInt8]? {
        let buffer = ByteOutput(capacity: 16)   // small: appends must grow it
        buffer.append(contentsOf: Array("previous line\n".utf8))
        let written = bytes.withUnsafeBytes { raw -> Bool in
            guard let reader = try? FirePackReader(bytes: raw) else { return false }
            return JSONTranscoding.appendObject(reader, appending: Self.added(timed: timed), options: options, to: buffer)
        }
        let output = buffer.bytes
        #expect(output.starts(with: Array("previous line\n".utf8)))
        if !written { #expect(output.count == 14, "a refused object leaves the output as it was") }
        return written ? Array(output.dropFirst(14)) : nil
    }

    @Test func randomMapsWriteTheTreePathsText() throws {
        var random = RandomValues(seed: 20)
        var direct = 0, attempted = 0
        for round in 0..<3_000 {
            let map = random.map(depth: 0)
            guard map[Self.extra.key] == nil else { continue }
            let bytes = Value.map(map).firePackBytes()
            let everyLayout = [JSONOptions(), JSONOptions(form: .plain), JSONOptions(sortedKeys: true), JSONOptions(pretty: true),
                               JSONOptions(form: .plain, pretty: true, sortedKeys: true)]
            attempted += everyLayout.count
            for options in everyLayout {
                // With a document's times too, on every fifth map.
                let timed = round % 5 == 0
                let tree = try #require(treeText(bytes, options: options, timed: timed))
                let text = directText(bytes, options: options, timed: timed)
                #expect(text == nil || text == tree)
                if text != nil { direct += 1 }
            }
        }
        #expect(direct == attempted, "the direct path took every well-formed map")
        // Sorted keys place the extra member among the others; pretty output indents. A field named like the extra
        // member is the tree's, sorted or not, and so is a repeated key.
        let bytes = Value.map(["b": 1, "a": 2, "__z": [3, ["y": 4, "x": 5]]]).firePackBytes()
        #expect(directText(bytes, options: JSONOptions(sortedKeys: true)).map { String(decoding: $0, as: UTF8.self) }
                == #"{"__name__":"books/b","__z":[3,{"x":5,"y":4}],"a":2,"b":1}"#)
        #expect(directText(bytes, options: JSONOptions(pretty: true)).map { String(decoding: $0, as: UTF8.self) }
                == "{\n  \"b\": 1,\n  \"a\": 2,\n  \"__z\": [\n    3,\n    {\n      \"y\": 4,\n      \"x\": 5\n    }\n  ],\n  \"__name__\": \"books/b\"\n}")
        // The times go before the name, or among the keys when sorted; a field named like a time member is the tree's.
        #expect(directText(bytes, options: JSONOptions(form: .plain), timed: true).map { String(decoding: $0, as: UTF8.self) }
                == #"{"b":1,"a":2,"__z":[3,{"y":4,"x":5}],"__create_time__":"2024-05-01T10:00:00.000000007Z","__update_time__":"1969-12-31T23:59:55Z","__name__":"books/b"}"#)
        #expect(directText(bytes, options: JSONOptions(form: .plain, sortedKeys: true), timed: true).map { String(decoding: $0, as: UTF8.self) }
                == #"{"__create_time__":"2024-05-01T10:00:00.000000007Z","__name__":"books/b","__update_time__":"1969-12-31T23:59:55Z","__z":[3,{"x":5,"y":4}],"a":2,"b":1}"#)
        for options in [JSONOptions(), JSONOptions(sortedKeys: true)] {
            #expect(directText(Value.map(["__create_time__": "x"]).firePackBytes(), options: options, timed: true) == nil)
            #expect(directText(Value.map(["__name__": "x"]).firePackBytes(), options: options) == nil)
            #expect(directText([0xB2, 0x06, 0x02, 0x61, 0x01, 0x02, 0x61, 0x02], options: options) == nil)  // {a: 1, a: 2}
        }
        // An empty document: only the extra member.
        let output = ByteOutput()
        #expect(JSONTranscoding.appendObject(nil, appending: Self.added(timed: false), options: JSONOptions(), to: output))
        #expect(String(decoding: output.bytes, as: UTF8.self) == #"{"__name__":"books/b"}"#)
        let timedOutput = ByteOutput()
        #expect(JSONTranscoding.appendObject(nil, appending: Self.added(timed: true), options: JSONOptions(), to: timedOutput))
        #expect(timedOutput.bytes == treeText(Value.map([:]).firePackBytes(), options: JSONOptions(), timed: true))
    }

    /// `jsonLength(reading:…)` counts the tree's text, dropping it as it goes (64 KiB at a time): the same length for
    /// random values and for values whose text is many times the buffer, the tree's error past the limit, and the
    /// cursor moved past the value either way it succeeds.
    @Test func textLengthsAreCountedWithoutTheText() throws {
        func length(_ value: Value, limit: Int = .max) throws -> Int {
            let bytes = value.firePackBytes()
            return try bytes.withUnsafeBytes { raw in
                var reader = try FirePackReader(bytes: raw)
                let length = try JSONTranscoding.jsonLength(
                    reading: &reader, options: JSONOptions(), maxLength: limit, what: "the value")
                var skipped = try FirePackReader(bytes: raw)
                try skipped.skipValue()
                #expect(reader.readerIndex == skipped.readerIndex)
                return length
            }
        }
        var random = RandomValues(seed: 21)
        for _ in 0..<500 {
            let value = Value.map(random.map(depth: 0))
            #expect(try length(value) == value.jsonBytes().count)
        }
        let long = String(repeating: "k", count: 10_000)
        let large = Value.array((0..<300).map { .map([long: .integer(Int64($0)), "n": .array([1, 2.5, "x"])]) })
        let text = large.jsonBytes()
        let counted = try length(large)
        #expect(text.count > 3_000_000 && counted == text.count)
        #expect(try length(large, limit: text.count) == text.count)
        let error = #expect(throws: FirePackError.self) { try length(large, limit: text.count - 1) }
        #expect(error?.code == .limitExceeded && error?.message.hasPrefix("the value would be more than") == true,
                "\(String(describing: error))")
    }

    /// Doubles stored in the decimal form are printed from their digits: the text `Double.description` gives, for
    /// every magnitude, scale and sign, and for parts a writer may store that are not the shortest (trailing zeros, 16
    /// digits), which go through the double.
    @Test func decimalDoublesPrintDescriptionsText() throws {
        var rng = SeededGenerator(seed: 23)
        var checked = 0
        for _ in 0..<20_000 {
            var doubles: [Double] = []
            for _ in 0..<10 {
                let digits = Int.random(in: 1...17, using: &rng)
                let mantissa = UInt64.random(in: 0..<UInt64(pow(10, Double(digits))), using: &rng)
                let scale = Int.random(in: 0...17, using: &rng)
                let double = Double(mantissa) / pow(10, Double(scale))
                doubles.append(Bool.random(using: &rng) ? -double : double)
            }
            var fields = MapValue(doubles.enumerated().map { ("d\($0.offset)", Value.double($0.element)) })
            // Packed: one array of them (D8), and rows of two (D9), each form's shared scale adding trailing zeros.
            fields["packed"] = .array(doubles.map { .double($0) })
            fields["rows"] = .array((0..<5).map { .array([.double(doubles[2 * $0]), .double(doubles[2 * $0 + 1])]) })
            let short = doubles.map { ($0 * 100).rounded() / 100 }
            fields["short"] = .array((0..<5).map { .array([.double(short[2 * $0]), .double(short[2 * $0 + 1])]) })
            let bytes = Value.map(fields).firePackBytes()
            let text = try #require(directText(bytes, options: JSONOptions()))
            #expect(text == treeText(bytes, options: JSONOptions()))
            checked += 1
        }
        #expect(checked == 20_000)
        // Decimal forms FirePack's writer does not choose, written by hand: D5, header (sign, bytes − 1, scale),
        // big-endian mantissa. 1.50 (trailing zero), 0 at scale 3, −0, 16 digits, 0.00001 (printed with an exponent).
        let handMade: [[UInt8]] = [
            [0xD5, 0x02, 0x96], [0xD5, 0x03, 0x00], [0xD5, 0x80, 0x00],
            [0xD5, 0x6F, 0x04, 0x62, 0xD5, 0x3C, 0x8A, 0xBA, 0xC0], [0xD5, 0x05, 0x01], [0xD5, 0x84, 0x01],
        ]
        for value in handMade {
            let bytes: [UInt8] = [0xB1, UInt8(2 + value.count), 0x02, UInt8(ascii: "x")] + value
            let text = try #require(directText(bytes, options: JSONOptions()))
            #expect(text == treeText(bytes, options: JSONOptions()), "\(value)")
        }
    }

    /// Coordinates as JavaScript prints them (`-70` for −70.0) are packed with their integers boxed (form `81`), by
    /// both paths alike, and come back as the same text: each number of the kind it was written as.
    @Test func integersAmongDoublesComeBackAsWritten() throws {
        var rng = SeededGenerator(seed: 81)
        let points = (0..<60).map { index -> String in
            let x = index % 17 == 3 ? "-70" : "\(-70 + Double.random(in: 0..<1, using: &rng))"
            return "[\(x),\(44 + Double.random(in: 0..<1, using: &rng))]"
        }
        let text = Array(#"{"ring":[\#(points.joined(separator: ","))],"mixed":[1.5,2,3.25,4,5.125,6.5,7.75,8.5,9.25,10.5,11.5,12.75,13.25,14.5,15.125,16.5,3]}"#.utf8)
        let transcoding = JSONTranscodingTests()
        let bytes = try #require(transcoding.directBytes(text))
        #expect(bytes == transcoding.treeBytes(try #require(transcoding.treeMap(text))))
        let pairs = zip(bytes, bytes.dropFirst()).map { [$0, $1] }
        #expect(pairs.contains([0xD9, 0x81]))
        let back = try #require(directText(bytes, options: JSONOptions()))
        #expect(back == treeText(bytes, options: JSONOptions()))
        // The text as written, with the document name the helper gives it.
        #expect(String(decoding: back, as: UTF8.self) == String(decoding: text.dropLast(), as: UTF8.self) + #","__name__":"books/b"}"#)
    }

    /// Damaged bytes: the direct path writes nothing the tree rejects, and the tree's text otherwise.
    @Test func damagedBytesTakeNoOtherWay() throws {
        var random = RandomValues(seed: 21)
        var rng = SeededGenerator(seed: 22)
        var agreed = 0
        for _ in 0..<10_000 {
            let map = random.map(depth: 0)
            var bytes = Value.map(map).firePackBytes()
            for _ in 0..<Int.random(in: 1...3, using: &rng) { ByteMutation.random(using: &rng).apply(to: &bytes, using: &rng) }
            guard let text = directText(bytes, options: JSONOptions()) else { continue }
            let tree = try #require(treeText(bytes, options: JSONOptions()), "the direct path wrote bytes the tree rejects: \(bytes)")
            #expect(text == tree)
            agreed += 1
        }
        #expect(agreed > 300)
    }

    /// Duplicate keys, in small maps and in maps past the pairwise check, are refused as the tree refuses them.
    @Test func duplicateKeysAreRefused() throws {
        for size in [2, 40] {
            let writer = FirePackWriter()
            writer.beginMap()
            for index in 0..<size {
                writer.writeKey("k\(index)")
                writer.writeInteger(Int64(index))
            }
            writer.endMap()
            var bytes = writer.writtenBytes
            // Make the last key equal to the first: "k<n-1>" → "k0" needs the same length, so rename k1 → k0 in place.
            let k1 = try #require(bytes.firstRange(of: Array("k1".utf8)))
            bytes[k1.upperBound - 1] = UInt8(ascii: "0")
            #expect((try? Value(firePackBytes: bytes)) == nil)
            #expect(directText(bytes, options: JSONOptions()) == nil)
        }
    }
}
