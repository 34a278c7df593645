import Foundation
import FirePackTestSupport
@testable import FirePack

/// Rebuilds a `Value` through the cursor API alone (enter/exit, readKey, typed reads), to check it against `readValue()`.
func readThroughCursor(_ reader: inout FirePackReader) throws -> Value {
    switch try reader.peekType() {
    case .null: _ = try reader.readNull(); return .null
    case .boolean: return .boolean(try reader.readBoolean())
    case .integer: return .integer(try reader.readInteger())
    case .double: return .double(try reader.readDouble())
    case .timestamp: return .timestamp(try reader.readTimestamp())
    case .string: return .string(try reader.readString().string)
    case .bytes: return .bytes(try reader.readBytes().data)
    case .reference: return .reference(try reader.readReference())
    case .geoPoint: return .geoPoint(try reader.readGeoPoint())
    case .vector: return .vector(try reader.readVector().vectorValue)
    case .serverTimestamp: _ = try reader.readServerTimestamp(); return .serverTimestamp
    case .array:
        let container = try reader.enterArray()
        var elements: [Value] = []
        for _ in 0..<container.count { elements.append(try readThroughCursor(&reader)) }
        try reader.exitArray(container)
        return .array(elements)
    case .map:
        let container = try reader.enterMap()
        var map = MapValue()
        for _ in 0..<container.count {
            let key = try reader.readKey().string
            map[key] = try readThroughCursor(&reader)
        }
        try reader.exitMap(container)
        return .map(map)
    }
}
