/// The ways the mutation tests damage an input: truncate, flip a bit, insert, delete, overwrite with a byte that
/// means something to a parser, duplicate a range.
public enum ByteMutation: Int, CaseIterable, Sendable {
    case truncate, flipBit, insert, delete, overwrite, duplicateRange

    /// Bytes that start or end structures in FirePack, JSON, protobuf and stream framing.
    static let interestingBytes: [UInt8] = [
        0x00, 0x7F, 0x80, 0xFF, 0xC6, 0xD0, 0xD1, 0xD3, 0x01,               // FirePack tags, varint edges
        0x22, 0x5C, 0x7B, 0x7D, 0x5B, 0x5D, 0x3A, 0x2C, 0x2D, 0x30, 0x65,   // " \ { } [ ] : , - 0 e
        0x0A, 0x12, 0x1A, 0xF3, 0x1E,                                        // protobuf keys, sync-marker bytes
    ]

    /// A mutation drawn from `rng`.
    public static func random(using rng: inout some RandomNumberGenerator) -> ByteMutation {
        allCases[Int.random(in: 0..<allCases.count, using: &rng)]
    }

    /// Applies the mutation to `bytes` at a position drawn from `rng`.
    public func apply(to bytes: inout [UInt8], using rng: inout some RandomNumberGenerator) {
        guard !bytes.isEmpty else { bytes = [UInt8.random(in: 0...255, using: &rng)]; return }
        let position = Int.random(in: 0..<bytes.count, using: &rng)
        switch self {
        case .truncate: bytes.removeSubrange(position...)
        case .flipBit: bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &rng)
        case .insert: bytes.insert(UInt8.random(in: 0...255, using: &rng), at: position)
        case .delete: bytes.remove(at: position)
        case .overwrite: bytes[position] = Self.interestingBytes[Int.random(in: 0..<Self.interestingBytes.count, using: &rng)]
        case .duplicateRange:
            let end = min(bytes.count, position + Int.random(in: 1..<8, using: &rng))
            bytes.insert(contentsOf: bytes[position..<end], at: end)
        }
    }

    /// `input` damaged by one to three mutations of one kind.
    public static func mutated(_ input: [UInt8], using rng: inout some RandomNumberGenerator) -> [UInt8] {
        var bytes = input
        let mutation = random(using: &rng)
        for _ in 0...Int.random(in: 0..<3, using: &rng) { mutation.apply(to: &bytes, using: &rng) }
        return bytes
    }
}

/// The varint (LEB128) encoding of `value`, for building FirePack bytes by hand in tests (Docs/FORMAT.md §1).
public func varintBytes(_ value: Int) -> [UInt8] {
    var value = value, bytes: [UInt8] = []
    repeat {
        bytes.append(UInt8(value & 0x7F) | (value >= 0x80 ? 0x80 : 0))
        value >>= 7
    } while value > 0
    return bytes
}
