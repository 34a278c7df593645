import FirePack

// The practical limit for one corpus model: canada.json's feature collection read and written by hand with the
// cursor and the writer, the same bytes as FirePackEncoder writes for `Canada`.

public func handWrittenEncode(_ canada: Canada, into writer: FirePackWriter) {
    writer.beginMap()
    writer.writeKey("type"); writer.writeString(canada.type)
    writer.writeKey("features")
    writer.beginArray()
    for feature in canada.features {
        writer.beginMap()
        writer.writeKey("type"); writer.writeString(feature.type)
        writer.writeKey("properties")
        writer.beginMap()
        for (key, value) in feature.properties { writer.writeKey(key); writer.writeString(value) }
        writer.endMap()
        writer.writeKey("geometry")
        writer.beginMap()
        writer.writeKey("type"); writer.writeString(feature.geometry.type)
        writer.writeKey("coordinates")
        writer.beginArray()
        for ring in feature.geometry.coordinates {
            writer.beginArray()
            for point in ring {
                writer.beginArray()
                for coordinate in point { writer.writeDouble(coordinate) }
                writer.endArray()
            }
            writer.endArray()
        }
        writer.endArray()
        writer.endMap()
        writer.endMap()
    }
    writer.endArray()
    writer.endMap()
}

struct HandWrittenError: Error {}

public func handWrittenDecodeCanada(_ bytes: [UInt8]) throws -> Canada {
    try FirePackReader.withReader(bytes) { reader in
        let root = try reader.enterMap()
        var type = "", features: [Feature] = []
        for _ in 0..<root.count {
            let key = try reader.readKey()
            if key == "type" { type = try reader.readString().string }
            else if key == "features" {
                let list = try reader.enterArray()
                features.reserveCapacity(list.count)
                for _ in 0..<list.count { features.append(try readFeature(&reader)) }
                try reader.exitArray(list)
            } else { try reader.skipValue() }
        }
        try reader.exitMap(root)
        return Canada(type: type, features: features)
    }
}

private func readFeature(_ reader: inout FirePackReader) throws -> Feature {
    let map = try reader.enterMap()
    var type = "", properties: [String: String] = [:], geometry: Geometry?
    for _ in 0..<map.count {
        let key = try reader.readKey()
        if key == "type" { type = try reader.readString().string }
        else if key == "properties" {
            let entries = try reader.enterMap()
            for _ in 0..<entries.count {
                let name = try reader.readKey().string
                properties[name] = try reader.readString().string
            }
            try reader.exitMap(entries)
        } else if key == "geometry" {
            let fields = try reader.enterMap()
            var geometryType = "", coordinates: [[[Double]]] = []
            for _ in 0..<fields.count {
                let field = try reader.readKey()
                if field == "type" { geometryType = try reader.readString().string }
                else if field == "coordinates" {
                    let rings = try reader.enterArray()
                    coordinates.reserveCapacity(rings.count)
                    for _ in 0..<rings.count {
                        let points = try reader.enterArray()
                        var ring: [[Double]] = []
                        ring.reserveCapacity(points.count)
                        for _ in 0..<points.count {
                            let pair = try reader.enterArray()
                            var point: [Double] = []
                            point.reserveCapacity(pair.count)
                            for _ in 0..<pair.count { point.append(try reader.readDouble()) }
                            try reader.exitArray(pair)
                            ring.append(point)
                        }
                        try reader.exitArray(points)
                        coordinates.append(ring)
                    }
                    try reader.exitArray(rings)
                } else { try reader.skipValue() }
            }
            try reader.exitMap(fields)
            geometry = Geometry(type: geometryType, coordinates: coordinates)
        } else { try reader.skipValue() }
    }
    try reader.exitMap(map)
    guard let geometry else { throw HandWrittenError() }
    return Feature(type: type, properties: properties, geometry: geometry)
}
