/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of LevelDB log files: the Firestore managed
/// export's framing (`LevelDBLogReader`). Slice-by-8 tables, computed once.
package enum CRC32C {
    /// Eight 256-entry tables: `tables[k][b]` is the CRC of byte `b` followed by `k` zero bytes.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            tables[byte] = crc
        }
        for byte in 0..<256 {
            for slice in 1..<8 {
                let previous = tables[(slice - 1) * 256 + byte]
                tables[slice * 256 + byte] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The CRC-32C of `bytes`, continuing from `crc` (0 to start).
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        var crc = ~crc
        var index = 0
        tables.withUnsafeBufferPointer { table in
            while bytes.count - index >= 8 {
                let word =
                    UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) ^ UInt64(crc)
                crc =
                    table[7 * 256 + Int(word & 0xFF)] ^ table[6 * 256 + Int((word >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((word >> 16) & 0xFF)] ^ table[4 * 256 + Int((word >> 24) & 0xFF)]
                    ^ table[3 * 256 + Int((word >> 32) & 0xFF)] ^ table[2 * 256 + Int((word >> 40) & 0xFF)]
                    ^ table[1 * 256 + Int((word >> 48) & 0xFF)] ^ table[Int(word >> 56)]
                index += 8
            }
            while index < bytes.count {
                crc = (crc >> 8) ^ table[Int((crc ^ UInt32(bytes[index])) & 0xFF)]
                index += 1
            }
        }
        return ~crc
    }

    /// LevelDB's stored form of a CRC (rotated right by 15 bits plus a constant), so that a CRC computed over data
    /// that holds CRCs stays meaningful (leveldb/util/crc32c.h, `Mask`).
    package static func masked(_ crc: UInt32) -> UInt32 { ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8 }
}
