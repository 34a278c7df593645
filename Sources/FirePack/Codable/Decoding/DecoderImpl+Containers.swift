#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DecoderImpl {
    /// An array read in place, element by element.
    struct UnkeyedContainer: UnkeyedDecodingContainer {
        let decoder: DecoderImpl
        let header: ContainerHeader
        let pathDepth: Int
        let depth: Int
        var position: Int
        var currentIndex = 0
        /// For a packed array: the decoder its scalar elements are read with, made at the first one.
        var elementDecoder: DecoderImpl?

        init(decoder: DecoderImpl, header: ContainerHeader, pathDepth: Int) {
            self.decoder = decoder
            self.header = header
            self.pathDepth = pathDepth
            depth = decoder.depth
            position = header.bodyStart
        }

        var codingPath: [any CodingKey] { decoder.path.prefix(pathDepth).map(\.codingKey) }
        var count: Int? { header.count }
        var isAtEnd: Bool { currentIndex >= header.count }

        /// Where the next element ends; throws valueNotFound at the end of the array.
        func nextElementEnd(for type: Any.Type) throws -> Int {
            guard !isAtEnd else {
                throw DecodingError.valueNotFound(
                    type,
                    decoder.contextAtPath(
                        codingPath + [AnyCodingKey(index: currentIndex)],
                        "Unkeyed container is at end", at: position))
            }
            if let form = header.packed { return position + form.width }
            if let (form, columns) = header.packedRows { return position + columns * form.width }
            let input = decoder.input
            return try decoder.wrap { () throws(FirePackError) in try input.valueEnd(at: position, limit: header.end) }
        }

        mutating func decodeNil() throws -> Bool {
            let end = try nextElementEnd(for: Never.self)
            guard !header.isPacked, (try? decoder.input.tag(at: position, limit: end)) == Tag.null else {
                return false
            }
            position = end
            currentIndex += 1
            return true
        }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            let end = try nextElementEnd(for: type)
            if decoder.path.count != pathDepth { decoder.path.removeSubrange(min(pathDepth, decoder.path.count)...) }
            if header.isPacked { return try decodePacked(type, end: end) }
            decoder.path.append(.index(currentIndex))
            defer { decoder.path.removeLast() }
            let value = try decoder.decode(type, at: position, end: end, depth: depth + 1)
            position = end
            currentIndex += 1
            return value
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try nextDecoder().container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            try nextDecoder().unkeyedContainer()
        }

        mutating func superDecoder() throws -> any Decoder {
            try nextDecoder()
        }

        /// Decodes the next element of a packed array: a scalar or a row with the container's element decoder
        /// (reloaded for each element), anything else with one of its own (which may outlive this call, as a nested
        /// decoder may).
        private mutating func decodePacked<T: Decodable>(_ type: T.Type, end: Int) throws -> T {
            if let form = header.packed, case .scalar(let scalar)? = NativeType(T.self),
                let value: T = decoder.packedScalar(
                    scalar, form.element(at: 0, in: decoder.input.bytes(from: position, count: form.width)))
            {
                position = end
                currentIndex += 1
                return value
            }
            let child: DecoderImpl
            if header.packedRows != nil
                || NativeType(T.self).map({ if case .scalar = $0 { true } else { false } })
                    == true
            {
                if elementDecoder == nil { elementDecoder = packedDecoder() }
                child = elementDecoder!
            } else {
                child = packedDecoder()
            }
            loadElement(into: child)
            let value = try child.decode(type, at: 0, end: child.input.count, depth: depth + 1)
            position = end
            currentIndex += 1
            return value
        }

        private func packedDecoder() -> DecoderImpl {
            let path = Array(decoder.path.prefix(pathDepth)) + [.index(currentIndex)]
            if let (form, columns) = header.packedRows {
                return decoder.packedRowDecoder(form: form, columns: columns, depth: depth + 1, path: path)
            }
            return decoder.packedElementDecoder(depth: depth + 1, path: path)
        }

        /// Loads the element at `position` into `child` (from `packedDecoder()`), reported at its offset in the
        /// document.
        private func loadElement(into child: DecoderImpl) {
            let reported = decoder.reportedOffset(position)
            if let (form, columns) = header.packedRows {
                let row = ContainerHeader(
                    count: columns, isMap: false, bodyStart: position, end: position + columns * form.width,
                    packedFormByte: form.byte)
                child.loadRow(row, of: decoder, index: currentIndex, reportedAt: reported)
                return
            }
            let form = header.packed!
            let value = form.element(at: 0, in: decoder.input.bytes(from: position, count: form.width))
            child.load(value, index: currentIndex, reportedAt: reported)
        }

        private mutating func nextDecoder() throws -> DecoderImpl {
            let end = try nextElementEnd(for: Any.self)
            if header.isPacked {
                let child = packedDecoder()
                loadElement(into: child)
                position = end
                currentIndex += 1
                return child
            }
            let child = decoder.child(
                at: position, end: end, depth: depth + 1,
                path: Array(decoder.path.prefix(pathDepth)) + [.index(currentIndex)])
            position = end
            currentIndex += 1
            return child
        }
    }

    /// The current value, read as one value.
    ///
    /// Three words, so that the `any SingleValueDecodingContainer` holding it needs no heap box (a fourth word cost
    /// one allocation per value); its coding path is the decoder's, which is the value's while its `init(from:)` runs.
    struct SingleValueContainer: SingleValueDecodingContainer {
        let decoder: DecoderImpl
        let offset: Int
        let end: Int

        var codingPath: [any CodingKey] { decoder.codingPath }

        func decodeNil() -> Bool { (try? decoder.input.tag(at: offset, limit: end)) == Tag.null }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try decoder.decode(type, at: offset, end: end, depth: decoder.depth)
        }
    }

    /// A separate decoder for a nested value (nested containers and super decoders), with its own path.
    func child(at offset: Int, end: Int, depth: Int, path: [PathEntry]) -> DecoderImpl {
        let child = DecoderImpl(input: input, options: options, offset: offset, end: end, depth: depth)
        child.path = path
        child.state.keyReferences.share(longKeysOf: &state.keyReferences)
        return child
    }

    /// A decoder positioned at a `null` (what `superDecoder(forKey:)` gives for a missing key, as in Foundation).
    static func null(options: DecoderOptions, path: [PathEntry]) -> DecoderImpl {
        let input = try! ReaderInput(
            UnsafeRawBufferPointer(start: nullEncoding, count: 1), rootStart: 0, limits: .default)
        let decoder = DecoderImpl(input: input, options: options, offset: 0, end: 1, depth: 0)
        decoder.path = path
        return decoder
    }

    /// One `C0` byte that lives as long as the process.
    nonisolated(unsafe) static let nullEncoding: UnsafeMutableRawPointer = {
        let pointer = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        pointer.storeBytes(of: Tag.null, as: UInt8.self)
        return pointer
    }()

    func contextAtPath(_ path: [any CodingKey], _ message: String, at offset: Int) -> DecodingError.Context {
        var description = "\(message) (at byte \(reportedOffset(offset))"
        if let reference = options.reference { description += " in document \(reference.path)" }
        description += ")."
        return DecodingError.Context(codingPath: path, debugDescription: description)
    }
}
