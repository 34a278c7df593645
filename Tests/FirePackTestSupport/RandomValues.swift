#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack

/// Seeded random `Value` trees rich in edge cases: extreme integers, NaN payloads, −0.0, empty containers, shared keys.
public struct RandomValues {
    public var rng: SeededGenerator
    public var maxDepth = 4
    public var maxWidth = 8

    /// A generator whose trees depend only on `seed`.
    public init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    public static let edgeIntegers: [Int64] = [0, 1, -1, 31, 32, 127, 128, -32, -33, -128, -129, 255, 256, 32_767, 32_768,
                                        -32_768, -32_769, Int64(Int32.max), Int64(Int32.max) + 1, Int64(Int32.min),
                                        Int64(Int32.min) - 1, .max, .min]
    public static let edgeDoubles: [Double] = [0.0, -0.0, 1.5, -2.25, .infinity, -.infinity, .nan, -.nan,
                                        Double(bitPattern: 0x7FF8_0000_0000_0001), Double(bitPattern: 0x7FF0_0000_0000_0001),
                                        Double(bitPattern: 0xFFF4_0000_dead_beef), .leastNonzeroMagnitude,
                                        .greatestFiniteMagnitude, .ulpOfOne, 0.1, 1e300, Double(Float.greatestFiniteMagnitude),
                                        Double(Float.leastNonzeroMagnitude), 3.4028235677973366e38]
    public static let sharedKeys = ["id", "name", "title", "created_at", "a", "", "ключ", "🔥", "tags", "nested.key", "x y"]
    public static let strings = ["", "a", "hello", "héllo wörld", "日本語のテキスト", "emoji 👩‍👩‍👧‍👦", String(repeating: "z", count: 31),
                          String(repeating: "y", count: 32), "\u{0}nul", "line\nbreak"]

    public mutating func int(_ range: Range<Int>) -> Int { Int.random(in: range, using: &rng) }
    public mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }

    public mutating func value(depth: Int = 0) -> Value {
        let containerChance = depth < maxDepth ? 30 : 0
        if chance(containerChance) {
            return chance(50) ? .array(array(depth: depth)) : .map(map(depth: depth))
        }
        switch int(0..<12) {
        case 0: return .null
        case 1: return .boolean(chance(50))
        case 2: return .integer(chance(50) ? Self.edgeIntegers[int(0..<Self.edgeIntegers.count)] : Int64.random(in: .min ... .max, using: &rng))
        case 3:
            if chance(50) { return .double(Self.edgeDoubles[int(0..<Self.edgeDoubles.count)]) }
            return .double(Double(bitPattern: rng.next()))
        case 4: return .timestamp(timestamp())
        case 5: return .string(string())
        case 6: return .bytes(Data((0..<int(0..<40)).map { _ in UInt8.random(in: 0...255, using: &rng) }))
        case 7: return .reference(try! DocumentReference(path: chance(50) ? "books/b\(int(0..<100))" : "projects/p/databases/(default)/documents/c/d\(int(0..<9))/sub/e"))
        case 8: return .geoPoint(GeoPoint(latitude: chance(20) ? [-90, 90, 0][int(0..<3)] : Double.random(in: -90...90, using: &rng),
                                              longitude: chance(20) ? [-180, 180, -0.0][int(0..<3)] : Double.random(in: -180...180, using: &rng)))
        case 9: return .vector(VectorValue((0..<int(0..<6)).map { _ in chance(20) ? Self.edgeDoubles[int(0..<Self.edgeDoubles.count)] : Double.random(in: -1...1, using: &rng) }))
        case 10: return .serverTimestamp
        default: return .array([])
        }
    }

    public mutating func timestamp() -> Timestamp {
        let seconds: Int64 = chance(30) ? [Int64.min, .max, -62_135_596_800, 253_402_300_799, 0, -1][int(0..<6)] : Int64.random(in: -62_135_596_800...253_402_300_799, using: &rng)
        let nanos: Int32 = chance(40) ? [0, 999_999_999, 1][int(0..<3)] : Int32.random(in: 0..<1_000_000_000, using: &rng)
        return try! Timestamp(validatingSeconds: seconds, nanoseconds: nanos)   // nanos are in range
    }

    public mutating func string() -> String {
        if chance(60) { return Self.strings[int(0..<Self.strings.count)] }
        let scalars = (0..<int(0..<50)).map { _ -> Character in
            let code = chance(70) ? UInt32(int(0x20..<0x7F)) : UInt32(int(0xA0..<0xD7FF))
            return Character(Unicode.Scalar(code)!)
        }
        return String(scalars)
    }

    public mutating func array(depth: Int) -> [Value] {
        let count = chance(10) ? int(16..<40) : int(0..<maxWidth)
        return (0..<count).map { _ in value(depth: depth + 1) }
    }

    public mutating func map(depth: Int) -> MapValue {
        var map = MapValue()
        let count = chance(10) ? int(16..<30) : int(0..<maxWidth)
        for _ in 0..<count {
            let key = chance(70) ? Self.sharedKeys[int(0..<Self.sharedKeys.count)] : string()
            map[key] = value(depth: depth + 1)
        }
        return map
    }
}

