#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import FirePack

/// Writes JSON text straight into a byte array.
struct JSONTextWriter {
    let options: JSONOptions
    var output: [UInt8] = []
    var depth = 0

    init(options: JSONOptions) {
        self.options = options
        output.reserveCapacity(256)
    }

    /// A writer that appends to `output`.
    init(options: JSONOptions, output: [UInt8]) {
        self.options = options
        self.output = output
    }

    mutating func append(_ text: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { output.append(contentsOf: $0) }
    }

    mutating func write(_ value: Value) {
        let reversible = options.form == .reversible
        switch value {
        case .null: append("null")
        case .boolean(let flag): flag ? append("true") : append("false")
        case .integer(let integer): append(String(integer))
        case .double(let double): writeDouble(double)
        case .string(let string): writeString(string)
        case .timestamp(let timestamp):
            reversible ? writeMarker(JSONMarker.timestamp) { $0.writeString(timestamp.rfc3339String) } : writeString(timestamp.rfc3339String)
        case .geoPoint(let point):
            if reversible {
                writeMarker(JSONMarker.geoPoint) { $0.write(.array([.double(point.latitude), .double(point.longitude)])) }
            } else {
                write(.map(["latitude": .double(point.latitude), "longitude": .double(point.longitude)]))
            }
        case .reference(let reference):
            reversible ? writeMarker(JSONMarker.reference) { $0.writeString(reference.path) } : writeString(reference.path)
        case .bytes(let data):
            reversible ? writeMarker(JSONMarker.bytes) { $0.writeString(data.base64EncodedString()) } : writeString(data.base64EncodedString())
        case .vector(let vector):
            let elements = Value.array(vector.array.map(Value.double))
            reversible ? writeMarker(JSONMarker.vector) { $0.write(elements) } : write(elements)
        case .serverTimestamp:
            reversible ? writeMarker(JSONMarker.serverTimestamp) { $0.append("true") } : append("null")
        case .array(let elements):
            guard !elements.isEmpty else { append("[]"); return }
            output.append(UInt8(ascii: "["))
            depth += 1
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline()
                write(element)
            }
            depth -= 1
            newline()
            output.append(UInt8(ascii: "]"))
        case .map(let map):
            if reversible, map.count == 1, JSONMarker.all.contains(map.keys[0]) {
                writeMarker(JSONMarker.map) { $0.writeEntries(of: map) }
            } else {
                writeEntries(of: map)
            }
        }
    }

    mutating func writeEntries(of map: MapValue) {
        guard !map.isEmpty else { append("{}"); return }
        output.append(UInt8(ascii: "{"))
        depth += 1
        let positions = options.sortedKeys
            ? map.indices.sorted { map.keys[$0].utf8.lexicographicallyPrecedes(map.keys[$1].utf8) }
            : Array(map.indices)
        for (count, position) in positions.enumerated() {
            if count > 0 { output.append(UInt8(ascii: ",")) }
            newline()
            writeString(map.keys[position])
            options.pretty ? append(": ") : output.append(UInt8(ascii: ":"))
            write(map.values[position])
        }
        depth -= 1
        newline()
        output.append(UInt8(ascii: "}"))
    }

    mutating func writeMarker(_ marker: String, _ payload: (inout JSONTextWriter) throws -> Void) rethrows {
        output.append(UInt8(ascii: "{"))
        writeString(marker)
        options.pretty ? append(": ") : output.append(UInt8(ascii: ":"))
        try payload(&self)
        output.append(UInt8(ascii: "}"))
    }

    mutating func newline() {
        guard options.pretty else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    /// Finite doubles in the shortest form that reads back to the same bits (always with `.` or an exponent, so they
    /// read back as doubles); NaN and ±∞ as markers (reversible) or null (plain).
    mutating func writeDouble(_ double: Double) {
        guard let text = ReversibleMarker.text(forNonFinite: double) else { append(double.description); return }
        guard options.form == .reversible else { append("null"); return }
        writeMarker(JSONMarker.double) { $0.writeString(text) }
    }

    mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { writeString(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// Writes UTF-8 bytes as a JSON string, escaping quotes, backslashes and control characters.
    mutating func writeString(utf8 bytes: UnsafeRawBufferPointer) {
        output.append(UInt8(ascii: "\""))
        var segmentStart = 0
        for (offset, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[segmentStart..<offset]))
            segmentStart = offset + 1
            switch byte {
            case 0x22: append("\\\"")
            case 0x5C: append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            default:
                append("\\u00")
                output.append(Self.hexDigits[Int(byte >> 4)])
                output.append(Self.hexDigits[Int(byte & 0xF)])
            }
        }
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[segmentStart...]))
        output.append(UInt8(ascii: "\""))
    }

    static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
