import CArrowABI
import CFirePackSystem
import FirePack

// Exporting through the Arrow C Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html): the
// producer (FirePack) allocates the structs' contents, the consumer calls `release` once on the base struct, and the
// release callback frees everything the struct owns, its children included (unless the consumer moved them out,
// which leaves their `release` null).

/// What one exported `ArrowArray` owns: its buffers, the pointer arrays and its children's structs.
final class ExportedArray {
    let buffers: UnsafeMutablePointer<UnsafeRawPointer?>
    let bufferCount: Int
    let owned: [UnsafeMutableRawPointer]
    let children: UnsafeMutablePointer<UnsafeMutablePointer<ArrowArray>?>
    let childCount: Int

    init(
        buffers: [UnsafeMutableRawPointer?], owned: [UnsafeMutableRawPointer],
        children: [UnsafeMutablePointer<ArrowArray>]
    ) {
        bufferCount = buffers.count
        self.buffers = .allocate(capacity: max(buffers.count, 1))
        for (index, buffer) in buffers.enumerated() { self.buffers[index] = UnsafeRawPointer(buffer) }
        self.owned = owned
        childCount = children.count
        self.children = .allocate(capacity: max(children.count, 1))
        for (index, child) in children.enumerated() { self.children[index] = child }
    }

    deinit {
        for buffer in owned { buffer.deallocate() }
        for index in 0..<childCount {
            let child = children[index]!
            child.pointee.release?(child)
            child.deallocate()
        }
        buffers.deallocate()
        children.deallocate()
    }
}

let releaseExportedArray: @convention(c) (UnsafeMutablePointer<ArrowArray>?) -> Void = { array in
    guard let array, array.pointee.release != nil, let owner = array.pointee.private_data else { return }
    Unmanaged<ExportedArray>.fromOpaque(owner).release()
    array.pointee.release = nil
}

extension ColumnBuilder {
    /// Moves what was built into `out` (which the consumer releases) and starts the next batch empty.
    func export(into out: UnsafeMutablePointer<ArrowArray>) {
        var owned: [UnsafeMutableRawPointer] = []
        func take(_ buffer: inout ArrowBuffer) -> UnsafeMutableRawPointer {
            let pointer = buffer.take()
            owned.append(pointer)
            return pointer
        }
        var validityPointer: UnsafeMutableRawPointer?
        if var bitmap = validity {
            if nullCount > 0 {
                validityPointer = bitmap.take()
                owned.append(validityPointer!)
            }
            bitmap.free()
            validity = nil
        }
        var buffers: [UnsafeMutableRawPointer?] = [validityPointer]
        switch kind {
        case .null:
            buffers = []
        case .boolean:
            let pointer = bits.take()
            owned.append(pointer)
            buffers.append(pointer)
        case .int64, .float64, .timestamp:
            buffers.append(take(&values))
        case .string, .binary, .reference, .exact:
            buffers.append(take(&values))
            buffers.append(take(&data))
            values.append(Int32(0))
        case .list, .doubleList:
            buffers.append(take(&values))
            values.append(Int32(0))
        case .vector:
            if dimension == nil {
                buffers.append(take(&values))
                values.append(Int32(0))
            }
        case .map, .geoPoint, .pointStruct:
            break
        }
        let childArrays = children.map { child in
            let pointer = UnsafeMutablePointer<ArrowArray>.allocate(capacity: 1)
            child.export(into: pointer)
            return pointer
        }
        let owner = ExportedArray(buffers: buffers, owned: owned, children: childArrays)
        out.pointee = ArrowArray(
            length: Int64(length), null_count: Int64(nullCount), offset: 0,
            n_buffers: Int64(buffers.count), n_children: Int64(childArrays.count),
            buffers: owner.buffers, children: childArrays.isEmpty ? nil : owner.children, dictionary: nil,
            release: releaseExportedArray, private_data: Unmanaged.passRetained(owner).toOpaque())
        length = 0
        nullCount = 0
    }
}

/// What one exported `ArrowSchema` owns: its strings, metadata and children's structs.
final class ExportedSchema {
    let format: UnsafeMutablePointer<CChar>
    let name: UnsafeMutablePointer<CChar>
    let metadata: UnsafeMutableRawPointer?
    let children: UnsafeMutablePointer<UnsafeMutablePointer<ArrowSchema>?>
    let childCount: Int

    init(format: String, name: String, metadata: [(String, String)], children: [UnsafeMutablePointer<ArrowSchema>]) {
        self.format = strdup(format)
        self.name = strdup(name)
        self.metadata = ExportedSchema.encode(metadata)
        childCount = children.count
        self.children = .allocate(capacity: max(children.count, 1))
        for (index, child) in children.enumerated() { self.children[index] = child }
    }

    deinit {
        free(format)
        free(name)
        metadata?.deallocate()
        for index in 0..<childCount {
            let child = children[index]!
            child.pointee.release?(child)
            child.deallocate()
        }
        children.deallocate()
    }

    /// The C Data Interface's metadata encoding: an int32 count, then each key and value as an int32 length and bytes.
    static func encode(_ pairs: [(String, String)]) -> UnsafeMutableRawPointer? {
        guard !pairs.isEmpty else { return nil }
        var buffer = ArrowBuffer()
        buffer.append(Int32(pairs.count))
        for (key, value) in pairs {
            for text in [key, value] {
                text.withUTF8Bytes { utf8 in
                    buffer.append(Int32(utf8.count))
                    buffer.append(bytes: utf8)
                }
            }
        }
        let encoded = buffer.take()
        buffer.free()  // the empty buffer `take` started
        return encoded
    }
}

let releaseExportedSchema: @convention(c) (UnsafeMutablePointer<ArrowSchema>?) -> Void = { schema in
    guard let schema, schema.pointee.release != nil, let owner = schema.pointee.private_data else { return }
    Unmanaged<ExportedSchema>.fromOpaque(owner).release()
    schema.pointee.release = nil
}

extension ArrowColumn {
    /// The Arrow format string, metadata and children of this column (Docs/ARROW.md, "Type mapping").
    func arrowLayout(timestampUnit: ArrowTimestampUnit = .nanoseconds) -> (
        format: String, metadata: [(String, String)], children: [ArrowColumn]
    ) {
        var metadata: [(String, String)] = []
        if nullMeaning == .value { metadata.append((ArrowDocumentSchema.nullKey, "value")) }
        func mark(_ type: String) { metadata.insert((ArrowDocumentSchema.typeKey, type), at: 0) }
        let float = ArrowColumn(name: "item", type: .float64, nullMeaning: .value)
        switch type {
        case .null: return ("n", metadata, [])
        case .boolean: return ("b", metadata, [])
        case .int64: return ("l", metadata, [])
        case .float64: return ("g", metadata, [])
        case .timestamp: return (timestampUnit.format, metadata, [])
        case .string: return ("u", metadata, [])
        case .binary: return ("z", metadata, [])
        case .reference:
            mark("reference")
            return ("u", metadata, [])
        case .exact:
            mark("value")
            return ("u", metadata, [])
        case .geoPoint:
            mark("geopoint")
            return (
                "+s", metadata,
                [ArrowColumn(name: "latitude", type: .float64), ArrowColumn(name: "longitude", type: .float64)]
            )
        case .vector(let dimension):
            mark("vector")
            return (dimension.map { "+w:\($0)" } ?? "+l", metadata, [float])
        case .map(let fields): return ("+s", metadata, fields)
        case .list(let element): return ("+l", metadata, [element])
        }
    }

    /// Fills `out` with this column's schema (which the consumer releases).
    func exportSchema(into out: UnsafeMutablePointer<ArrowSchema>, timestampUnit: ArrowTimestampUnit) {
        let layout = arrowLayout(timestampUnit: timestampUnit)
        export(
            format: layout.format, name: name, metadata: layout.metadata, children: layout.children,
            timestampUnit: timestampUnit, into: out)
    }
}

func export(
    format: String, name: String, metadata: [(String, String)], children: [ArrowColumn],
    timestampUnit: ArrowTimestampUnit, into out: UnsafeMutablePointer<ArrowSchema>
) {
    let childSchemas = children.map { child in
        let pointer = UnsafeMutablePointer<ArrowSchema>.allocate(capacity: 1)
        child.exportSchema(into: pointer, timestampUnit: timestampUnit)
        return pointer
    }
    let owner = ExportedSchema(format: format, name: name, metadata: metadata, children: childSchemas)
    out.pointee = ArrowSchema(
        format: UnsafePointer(owner.format), name: UnsafePointer(owner.name),
        metadata: owner.metadata.map { UnsafePointer($0.assumingMemoryBound(to: CChar.self)) },
        flags: Int64(ARROW_FLAG_NULLABLE), n_children: Int64(childSchemas.count),
        children: childSchemas.isEmpty ? nil : owner.children, dictionary: nil,
        release: releaseExportedSchema, private_data: Unmanaged.passRetained(owner).toOpaque())
}

extension ArrowDocumentSchema {
    /// Fills `out` with the schema of a record batch: a struct of the columns, with the schema-level metadata.
    public func exportSchema(
        into out: UnsafeMutablePointer<ArrowSchema>, metadata: [(String, String)] = [],
        timestampUnit: ArrowTimestampUnit = .nanoseconds
    ) {
        export(format: "+s", name: "", metadata: metadata, children: columns, timestampUnit: timestampUnit, into: out)
    }
}
