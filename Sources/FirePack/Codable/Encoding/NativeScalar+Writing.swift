/// Where a Swift scalar is written: the byte writer itself (generated coding), or the place of one value in the
/// Codable path's encoder (bytes or a tree node, `EncoderImpl.ValueSlot`).
///
/// Both conformers are concrete where `NativeScalar.write` is called, so the generic call is specialized away: no
/// witness-table call per value.
protocol ScalarSink {
    func writeString(_ value: String)
    func writeInteger(_ value: Int64)
    func writeBoolean(_ value: Bool)
    func writeDouble(_ value: Double)
}

extension FirePackWriter: ScalarSink {}

extension NativeScalar {
    /// Writes `value`, a `T` this scalar names, to `sink`: the one place the coders turn Swift's scalars into
    /// FirePack's. The value is reinterpreted with `unsafeBitCast` (the types are identical, see `NativeType`);
    /// unsigned integers above `Int64.max` and, by the float strategy, NaN and ±∞ may throw.
    @inline(__always)
    func write<T>(
        _ value: T, to sink: some ScalarSink, options: EncoderOptions, codingPath: @autoclosure () -> [any CodingKey]
    ) throws {
        switch self {
        case .string: sink.writeString(unsafeBitCast(value, to: String.self))
        case .int: sink.writeInteger(Int64(unsafeBitCast(value, to: Int.self)))
        case .bool: sink.writeBoolean(unsafeBitCast(value, to: Bool.self))
        case .double: try Self.writeDouble(unsafeBitCast(value, to: Double.self), to: sink, options, codingPath())
        case .int64: sink.writeInteger(unsafeBitCast(value, to: Int64.self))
        case .float:
            try Self.writeDouble(Double(unsafeBitCast(value, to: Float.self)), to: sink, options, codingPath())
        case .int32: sink.writeInteger(Int64(unsafeBitCast(value, to: Int32.self)))
        case .int16: sink.writeInteger(Int64(unsafeBitCast(value, to: Int16.self)))
        case .int8: sink.writeInteger(Int64(unsafeBitCast(value, to: Int8.self)))
        case .uint: sink.writeInteger(try options.int64(unsafeBitCast(value, to: UInt.self), codingPath: codingPath()))
        case .uint64:
            sink.writeInteger(try options.int64(unsafeBitCast(value, to: UInt64.self), codingPath: codingPath()))
        case .uint32: sink.writeInteger(Int64(unsafeBitCast(value, to: UInt32.self)))
        case .uint16: sink.writeInteger(Int64(unsafeBitCast(value, to: UInt16.self)))
        case .uint8: sink.writeInteger(Int64(unsafeBitCast(value, to: UInt8.self)))
        }
    }

    /// Writes a double, or what the non-conforming float strategy makes of NaN and ±∞.
    @inline(__always)
    static func writeDouble(
        _ double: Double, to sink: some ScalarSink, _ options: EncoderOptions,
        _ codingPath: @autoclosure () -> [any CodingKey]
    ) throws {
        if !double.isFinite, let string = try options.nonConforming(double, codingPath: codingPath()) {
            sink.writeString(string)
        } else {
            sink.writeDouble(double)
        }
    }
}
