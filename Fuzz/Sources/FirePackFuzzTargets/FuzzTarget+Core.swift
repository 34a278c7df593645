import FirePack
import FirePackInterop

extension FuzzTarget {
    /// `Value(firePackBytes:)` (or a `.fpk` file when the input starts with its magic): whatever decodes re-encodes,
    /// in normal and deterministic mode, to bytes that decode to the same value, and converts to reversible JSON,
    /// REST JSON and protobuf (where the format has a form for every element) and back unchanged.
    public static let value = FuzzTarget(
        name: "value",
        summary: "Value(firePackBytes:) and .fpk files; decoded values survive re-encoding and conversion to JSON, REST JSON, protobuf"
    ) { input in
        var check = FuzzCheck(input)
        let decoded: Value? = check.attempt("decode") {
            try input.withUnsafeBytes { raw throws(FirePackError) in
                if input.starts(with: [0x89, 0x46, 0x50, 0x4B]) {
                    var reader = try FirePackReader(fileBytes: raw)
                    return try reader.readValue()
                }
                return try Value(firePackBytes: raw)
            }
        }
        guard let decoded else { return check.outcome }
        _ = decoded.description
        // Every other format the tool converts to: what converts must read back as the same value.
        let json = check.attempt("JSON back") { try Value(json: decoded.jsonBytes()) }
        check.expect(json == decoded, "the reversible JSON round trip changed the value")
        if let rest = check.attempt("REST JSON", { try decoded.firestoreJSONBytes() }) {
            // REST JSON has one NaN ("NaN"), as Firestore has: payloads are the one thing it may not keep.
            let back = check.attempt("REST JSON back") { try Value(firestoreJSON: rest) }
            check.expect(back.map { $0.equalsIgnoringNaNPayloads(decoded) } ?? false, "the REST JSON round trip changed the value")
        }
        if let proto = check.attempt("protobuf", { try decoded.firestoreProtoBytes() }) {
            let back = check.attempt("protobuf back") { try Value(firestoreProto: proto) }
            check.expect(back == decoded, "the protobuf round trip changed the value")
        }
        for deterministic in [false, true] {
            let bytes = decoded.firePackBytes(deterministic: deterministic)
            let again: Value? = check.attempt("re-decode") { try Value(firePackBytes: bytes) }
            // Deterministic mode sorts every map's keys; nothing else may change.
            check.expect(again == decoded.sortingKeys(deterministic), "re-encoding (deterministic: \(deterministic)) changed the value")
        }
        return check.outcome
    }

    /// The zero-copy reader: a full cursor walk (enter, read, skip, exit), lazy path lookups and element iteration.
    /// Where the whole value decodes, the walk must succeed too, and every lookup must find the decoded element.
    public static let reader = FuzzTarget(
        name: "reader",
        summary: "FirePackReader cursor walk, ValueView lookups and iteration; agreement with Value decoding"
    ) { input in
        var check = FuzzCheck(input)
        let decoded: Value? = check.attempt("decode") { try Value(firePackBytes: input) }
        input.withUnsafeBytes { raw in
            let walked: Void? = check.attempt("cursor walk") {
                var reader = try FirePackReader(bytes: raw)
                try walk(&reader)
                guard reader.isAtEnd else { throw FirePackError(.trailingBytes, offset: reader.readerIndex, "walk ended early") }
            }
            if decoded != nil { check.expect(walked != nil, "the value decodes but the cursor walk fails") }
            _ = check.attempt("skip") {
                var reader = try FirePackReader(bytes: raw)
                try reader.skipValue()
            }
            let root: ValueView? = check.attempt("open") { try FirePackReader(bytes: raw).root }
            guard let root else { return }
            // Lookups by paths the decoded value has (so they must be found), or by a few fixed paths.
            let paths = decoded.map { samplePaths(in: $0) } ?? [[.key("a")], [.index(0)], [.key("a"), .index(1)], [.key("")]]
            for path in paths {
                let found = check.attempt("lookup") { try root.lookup(path) } ?? nil
                guard let decoded, let expected = decoded.element(at: path) else { continue }
                var value: Value?
                if let found { value = check.attempt("lookup value") { try found.value() } }
                check.expect(value == expected, "lookup of \(path) found \(String(describing: value)), expected \(expected)")
            }
            // A packed array's numbers read in place (`numbers()`): its elements' numbers, rows flattened, bit for bit.
            if root.type == .array, let numbers = check.attempt("numbers", { try root.numbers() }) ?? nil {
                var elements: [Value] = []
                let iterated: Void? = check.attempt("numbers' elements") {
                    try root.forEachElement { element in
                        let value = try element.value()
                        if case .array(let row) = value { elements += row } else { elements.append(value) }
                    }
                }
                let read = numbers.indices.map { numbers.value(at: $0) }
                var sum = 0.0
                for index in numbers.indices { sum += numbers[index] }
                check.expect(
                    iterated == nil || Value.array(read).firePackBytes() == Value.array(elements).firePackBytes(),
                    "numbers() read \(read.prefix(8)), the elements \(elements.prefix(8)) (sum \(sum))")
            }
            _ = check.attempt("iterate") {
                switch root.type {
                case .map: try root.forEachEntry { key, view in _ = key.string; _ = try view.value() }
                case .array: try root.forEachElement { view in _ = try view.value() }
                default: _ = try root.value()
                }
            }
        }
        return check.outcome
    }

    /// Visits every value under the cursor with the typed reads, entering every container.
    static func walk(_ reader: inout FirePackReader) throws {
        switch try reader.peekType() {
        case .null: _ = try reader.readNull()
        case .boolean: _ = try reader.readBoolean()
        case .integer: _ = try reader.readInteger()
        case .double: _ = try reader.readDouble()
        case .timestamp: _ = try reader.readTimestamp()
        case .string: _ = try reader.readString().string
        case .bytes: _ = try reader.readBytes().array
        case .reference: _ = try reader.readReference()
        case .geoPoint: _ = try reader.readGeoPoint()
        case .vector: _ = Array(try reader.readVector())
        case .serverTimestamp: _ = try reader.readServerTimestamp()
        case .array:
            let container = try reader.enterArray()
            for _ in 0..<container.count { try walk(&reader) }
            try reader.exitArray(container)
        case .map:
            let container = try reader.enterMap()
            for _ in 0..<container.count {
                _ = try reader.readKey().string
                try walk(&reader)
            }
            try reader.exitMap(container)
        }
    }

    /// Up to 16 paths to elements of `value`, breadth first.
    static func samplePaths(in value: Value) -> [[PathComponent]] {
        var paths: [[PathComponent]] = []
        var queue: [([PathComponent], Value)] = [([], value)]
        while !queue.isEmpty && paths.count < 16 {
            let (path, value) = queue.removeFirst()
            switch value {
            case .map(let map): for (key, element) in map.prefix(4) { paths.append(path + [.key(key)]); queue.append((path + [.key(key)], element)) }
            case .array(let elements): for (index, element) in elements.prefix(4).enumerated() { paths.append(path + [.index(index)]); queue.append((path + [.index(index)], element)) }
            default: break
            }
        }
        return paths
    }
}

extension Value {
    /// Equality by `==`, except that any two NaNs are equal whatever their payloads.
    func equalsIgnoringNaNPayloads(_ other: Value) -> Bool {
        switch (self, other) {
        case (.double(let a), .double(let b)): return a.isNaN && b.isNaN || a.bitPattern == b.bitPattern
        case (.array(let a), .array(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.equalsIgnoringNaNPayloads($1) }
        case (.map(let a), .map(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value.equalsIgnoringNaNPayloads($1.value) }
        case (.vector(let a), .vector(let b)):
            return a.array.count == b.array.count && zip(a.array, b.array).allSatisfy { $0.isNaN && $1.isNaN || $0.bitPattern == $1.bitPattern }
        default: return self == other
        }
    }

    /// The element at `path`, or nil where the path leaves the value.
    func element(at path: [PathComponent]) -> Value? {
        var current = self
        for component in path {
            switch (component, current) {
            case (.key(let key), .map(let map)):
                guard let next = map[key] else { return nil }
                current = next
            case (.index(let index), .array(let elements)):
                guard elements.indices.contains(index) else { return nil }
                current = elements[index]
            default: return nil
            }
        }
        return current
    }
}
