#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension DecoderImpl {
    /// Decodes a Swift scalar (`NativeScalar`) into `result`, reinterpreted with `unsafeBitCast` (the types are
    /// identical): in unspecialized generic code an `as? T` cast and an `Optional<T>` result each cost a runtime
    /// metadata lookup per value (guarded by `Decode 1000 Book/FirePackDecoder Codable`).
    @inline(__always)
    func decodeScalar<T>(_ scalar: NativeScalar, at offset: Int, end: Int, into result: UnsafeMutablePointer<T>) throws
    {
        switch scalar {
        case .string: result.initialize(to: unsafeBitCast(try decodeString(at: offset, end: end), to: T.self))
        case .int: result.initialize(to: unsafeBitCast(try decodeInteger(Int.self, at: offset, end: end), to: T.self))
        case .bool: result.initialize(to: unsafeBitCast(try decodeBool(at: offset, end: end), to: T.self))
        case .double: result.initialize(to: unsafeBitCast(try decodeDouble(at: offset, end: end), to: T.self))
        case .int64:
            result.initialize(to: unsafeBitCast(try decodeInteger(Int64.self, at: offset, end: end), to: T.self))
        case .float: result.initialize(to: unsafeBitCast(try decodeFloat(at: offset, end: end), to: T.self))
        case .int32:
            result.initialize(to: unsafeBitCast(try decodeInteger(Int32.self, at: offset, end: end), to: T.self))
        case .int16:
            result.initialize(to: unsafeBitCast(try decodeInteger(Int16.self, at: offset, end: end), to: T.self))
        case .int8: result.initialize(to: unsafeBitCast(try decodeInteger(Int8.self, at: offset, end: end), to: T.self))
        case .uint: result.initialize(to: unsafeBitCast(try decodeInteger(UInt.self, at: offset, end: end), to: T.self))
        case .uint64:
            result.initialize(to: unsafeBitCast(try decodeInteger(UInt64.self, at: offset, end: end), to: T.self))
        case .uint32:
            result.initialize(to: unsafeBitCast(try decodeInteger(UInt32.self, at: offset, end: end), to: T.self))
        case .uint16:
            result.initialize(to: unsafeBitCast(try decodeInteger(UInt16.self, at: offset, end: end), to: T.self))
        case .uint8:
            result.initialize(to: unsafeBitCast(try decodeInteger(UInt8.self, at: offset, end: end), to: T.self))
        }
    }

    /// Decodes a string. An ASCII string (most are) is read here (`ReaderInput.getASCIIString`), with no call but
    /// the one that makes the String; any other string, and every error, is left to `decodeStringOfAnyForm`, which
    /// is out of line: its messages gave this function a stack frame and register saves that every string paid
    /// (guarded by `Decode 1000 Book/FirePackDecoder @FirePackCodable`).
    func decodeString(at offset: Int, end: Int) throws -> String {
        if let (start, count) = input.getASCIIString(at: offset, limit: end) {
            return UTF8Validation.makeString(validated: input.bytes(from: start, count: count))
        }
        return try decodeStringOfAnyForm(at: offset, end: end)
    }

    /// `decodeString(at:end:)` for every string, and its errors.
    @inline(never)
    func decodeStringOfAnyForm(at offset: Int, end: Int) throws -> String {
        let tag = try wrap { () throws(FirePackError) in try input.tag(at: offset, limit: end) }
        guard tag & 0xE0 == Tag.fixStringBase || tag == Tag.string else { throw typeMismatch(String.self, at: offset) }
        let (start, count, _) = try wrap { () throws(FirePackError) in
            try input.getStringOfAnyForm(at: offset, limit: end)
        }
        return UTF8Validation.makeString(validated: input.bytes(from: start, count: count))
    }

    func decodeBool(at offset: Int, end: Int) throws -> Bool {
        let tag = try wrap { () throws(FirePackError) in try input.tag(at: offset, limit: end) }
        switch tag {
        case Tag.true: return true
        case Tag.false: return false
        default: throw typeMismatch(Bool.self, at: offset)
        }
    }

    /// Integers from integer values, or from doubles with no fractional part; out of range is dataCorrupted. An
    /// integer that fits `I` is read here (`ReaderInput.getFittingInteger`); anything else, and every error, is left
    /// to `decodeIntegerOfAnyForm`, out of line for the reason `decodeString` gives.
    func decodeInteger<I: FixedWidthInteger>(_ type: I.Type, at offset: Int, end: Int) throws -> I {
        if let (value, _) = input.getFittingInteger(at: offset, limit: end), let result = I(exactly: value) {
            return result
        }
        return try decodeIntegerOfAnyForm(type, at: offset, end: end)
    }

    /// `decodeInteger(_:at:end:)` for every value, and its errors.
    @inline(never)
    func decodeIntegerOfAnyForm<I: FixedWidthInteger>(_ type: I.Type, at offset: Int, end: Int) throws -> I {
        let tag = try wrap { () throws(FirePackError) in try input.tag(at: offset, limit: end) }
        if tag <= 0x7F { if let small = I(exactly: tag) { return small } }
        switch ValueType(tag: tag) {
        case .integer:
            let value = try wrap { () throws(FirePackError) in try input.getIntegerOfAnyForm(at: offset, limit: end).0 }
            guard let result = I(exactly: value) else {
                throw DecodingError.dataCorrupted(context("Number \(value) does not fit in \(I.self)", at: offset))
            }
            return result
        case .double:
            let value = try wrap { () throws(FirePackError) in try input.getDoubleOfAnyForm(at: offset, limit: end).0 }
            guard let result = I(exactly: value) else {
                let why =
                    value.rounded(.towardZero) == value
                    ? "does not fit in \(I.self)" : "is not a whole number, as \(I.self) needs"
                throw DecodingError.dataCorrupted(context("Number \(value) \(why)", at: offset))
            }
            return result
        default:
            throw typeMismatch(I.self, at: offset)
        }
    }

    /// Doubles from doubles or integers, under the non-conforming float strategy (stored NaN and ±∞ are refused by
    /// `.throw`; `.convertFromString` also reads its strings).
    func decodeDouble(at offset: Int, end: Int, as type: Any.Type = Double.self) throws -> Double {
        if let (double, _) = input.getFittingDouble(at: offset, limit: end), double.isFinite { return double }
        return try decodeDoubleOfAnyForm(at: offset, end: end, as: type)
    }

    /// `decodeDouble(at:end:as:)` for every value (integers, non-finite doubles and the float strategy's strings
    /// included), and its errors; out of line for the reason `decodeString` gives.
    @inline(never)
    func decodeDoubleOfAnyForm(at offset: Int, end: Int, as type: Any.Type = Double.self) throws -> Double {
        let tag = try wrap { () throws(FirePackError) in try input.tag(at: offset, limit: end) }
        switch ValueType(tag: tag) {
        case .double:
            let double = try wrap { () throws(FirePackError) in try input.getDoubleOfAnyForm(at: offset, limit: end).0 }
            if !double.isFinite, case .throw = options.floatStrategy {
                throw DecodingError.dataCorrupted(
                    context(
                        "Found \(double), and the decoder's nonConformingFloatDecodingStrategy is .throw", at: offset))
            }
            return double
        case .integer:
            return Double(
                try wrap { () throws(FirePackError) in try input.getIntegerOfAnyForm(at: offset, limit: end).0 })
        case .string:
            if case .convertFromString(let positiveInfinity, let negativeInfinity, let nan) = options.floatStrategy {
                let string = try decodeString(at: offset, end: end)
                if string == positiveInfinity { return .infinity }
                if string == negativeInfinity { return -.infinity }
                if string == nan { return .nan }
            }
            throw typeMismatch(type, at: offset)
        default: throw typeMismatch(type, at: offset)
        }
    }

    /// Floats from doubles within Float's range (NaN and ±∞ included) or integers, as `decodeDouble` reads them.
    func decodeFloat(at offset: Int, end: Int) throws -> Float {
        let double = try decodeDouble(at: offset, end: end, as: Float.self)
        guard !double.isFinite || abs(double) <= Double(Float.greatestFiniteMagnitude) else {
            throw DecodingError.dataCorrupted(context("Number \(double) does not fit in Float", at: offset))
        }
        return Float(double)
    }

    /// A non-scalar native type (`NativeSpecial`) at the current value, into `result` (same technique as
    /// `decodeScalar`).
    func decodeSpecial<T>(_ kind: NativeSpecial, into result: UnsafeMutablePointer<T>) throws {
        switch kind {
        case .date: result.initialize(to: unsafeBitCast(try decodeDate(), to: T.self))
        case .timestamp:
            result.initialize(
                to: unsafeBitCast(try decodeTimestamp(as: Timestamp.self, at: offset, end: end), to: T.self))
        case .data: result.initialize(to: unsafeBitCast(try decodeData(), to: T.self))
        case .url: result.initialize(to: unsafeBitCast(try decodeURL(), to: T.self))
        case .geoPoint: result.initialize(to: unsafeBitCast(try decodeGeoPoint(at: offset, end: end), to: T.self))
        case .reference: result.initialize(to: unsafeBitCast(try decodeReference(at: offset, end: end), to: T.self))
        case .vector:
            try expect(.vector, for: VectorValue.self, at: offset, end: end)
            let (view, _) = try wrap { () throws(FirePackError) in try input.getVector(at: offset, limit: end) }
            result.initialize(to: unsafeBitCast(view.vectorValue, to: T.self))
        case .value:
            var materializer = Materializer(input: input, sharing: state.keyReferences.sharedKeys())
            let value = try wrap { () throws(FirePackError) in
                try materializer.value(at: offset, limit: end, depth: depth).0
            }
            result.initialize(to: unsafeBitCast(value, to: T.self))
        case .documentID:
            result.initialize(to: unsafeBitCast(DocumentIDMarker(reference: options.reference), to: T.self))
        case .serverTimestampProbe:
            let pending = (try? input.tag(at: offset, limit: end)) == Tag.serverTimestamp
            result.initialize(
                to: unsafeBitCast(
                    ServerTimestampProbe(isPending: pending, estimate: pending ? options.serverTimestampEstimate : nil),
                    to: T.self))
        case .uuid:
            let string = try decodeString(at: offset, end: end)
            guard let uuid = UUID(uuidString: string) else {
                throw DecodingError.dataCorrupted(context("Invalid UUID string \(string.debugDescription)", at: offset))
            }
            result.initialize(to: unsafeBitCast(uuid, to: T.self))
        case .decimal:
            let tag = try wrap { () throws(FirePackError) in try input.tag(at: offset, limit: end) }
            let decimal: Decimal
            if ValueType(tag: tag) == .integer {
                decimal = Decimal(
                    try wrap { () throws(FirePackError) in try input.getInteger(at: offset, limit: end).0 })
            } else {
                // From the double's shortest text, so 65.66 is the Decimal 65.66; NaN is `Decimal.nan`. Decimal has no
                // infinity, and its exponent stops near ±10^128 (Foundation's `Decimal(Double)` traps on an infinity
                // and Decimal(string:) gives NaN or 0 past the range): those are errors, never a different number.
                let double = try decodeDouble(at: offset, end: end)
                if double.isNaN {
                    decimal = .nan
                } else if let parsed = Decimal(string: double.description), !parsed.isNaN,
                    Double(parsed.description) == double
                {
                    decimal = parsed
                } else {
                    throw DecodingError.dataCorrupted(
                        context("\(double) is not a number a Decimal holds", at: offset))
                }
            }
            result.initialize(to: unsafeBitCast(decimal, to: T.self))
        case .serverTimestamp:
            throw DecodingError.typeMismatch(T.self, context("The server-timestamp marker is encode-only", at: offset))
        }
    }

    func decodeURL() throws -> URL {
        let string = try decodeString(at: offset, end: end)
        guard let url = URL(string: string) else {
            throw DecodingError.dataCorrupted(context("Invalid URL string \(string.debugDescription)", at: offset))
        }
        return url
    }

    /// Throws `typeMismatch` (or `valueNotFound` for null) unless the value at `offset` is of the `expected` type.
    func expect(_ expected: ValueType, for type: Any.Type, at offset: Int, end: Int) throws {
        let tag = try wrap { () throws(FirePackError) in try input.tag(at: offset, limit: end) }
        guard ValueType(tag: tag) == expected else { throw typeMismatch(type, at: offset, end: end) }
    }

    /// The timestamp at `offset` (decoded as `type`, which errors name).
    func decodeTimestamp(as type: Any.Type, at offset: Int, end: Int) throws -> Timestamp {
        try expect(.timestamp, for: type, at: offset, end: end)
        return try wrap { () throws(FirePackError) in try input.getTimestamp(at: offset, limit: end).0 }
    }

    /// The geopoint at `offset`.
    func decodeGeoPoint(at offset: Int, end: Int) throws -> GeoPoint {
        try expect(.geoPoint, for: GeoPoint.self, at: offset, end: end)
        return try wrap { () throws(FirePackError) in try input.getGeoPoint(at: offset, limit: end).0 }
    }

    /// The document reference at `offset`.
    func decodeReference(at offset: Int, end: Int) throws -> DocumentReference {
        try expect(.reference, for: DocumentReference.self, at: offset, end: end)
        return try wrap { () throws(FirePackError) in try input.getReference(at: offset, limit: end).0 }
    }

    func decodeDate() throws -> Date {
        switch options.dateStrategy {
        case .timestamp: return try decodeTimestamp(as: Date.self, at: offset, end: end).dateValue()
        case .deferredToDate: return try Date(from: self)
        case .secondsSince1970: return Date(timeIntervalSince1970: try decodeDouble(at: offset, end: end))
        case .millisecondsSince1970: return Date(timeIntervalSince1970: try decodeDouble(at: offset, end: end) / 1000)
        case .iso8601:
            let string = try decodeString(at: offset, end: end)
            guard let timestamp = try? Timestamp(rfc3339: string) else {
                throw DecodingError.dataCorrupted(
                    context("Expected an ISO 8601 date, found \(string.debugDescription)", at: offset))
            }
            return timestamp.dateValue()
        case .formatted(let format):
            let string = try decodeString(at: offset, end: end)
            guard let date = format.date(string) else {
                throw DecodingError.dataCorrupted(
                    context("Date string \(string.debugDescription) does not match the format", at: offset))
            }
            return date
        case .custom(let decode): return try decode(self)
        }
    }

    func decodeData() throws -> Data {
        switch options.dataStrategy {
        case .bytes:
            try expect(.bytes, for: Data.self, at: offset, end: end)
            let (start, count, _) = try wrap { () throws(FirePackError) in
                try input.getLengthPrefixed(at: offset, limit: end, tag: Tag.bytes, expecting: "bytes")
            }
            return Data(input.bytes(from: start, count: count))
        case .deferredToData: return try Data(from: self)
        case .base64:
            let string = try decodeString(at: offset, end: end)
            guard let data = Data(base64Encoded: string) else {
                throw DecodingError.dataCorrupted(context("String is not valid Base64", at: offset))
            }
            return data
        case .custom(let decode): return try decode(self)
        }
    }
}
