import CFirePackCRC32
import FirePackStreams
import FirePackTestSupport
import Testing

/// The records' CRC-32 (carry-less multiplication where the CPU has it) against zlib's table-driven one.
@Suite struct CRC32Tests {
    @Test func theCheckValue() {
        #expect([UInt8]("123456789".utf8).withUnsafeBytes { crc32($0) } == 0xCBF4_3926)
        let long = [UInt8](repeating: 0x61, count: 1_000)
        #expect(long.withUnsafeBytes { crc32($0) } == long.withUnsafeBytes { zlibCRC32(0, $0) })
    }

    @Test func everyLengthAndAlignmentAgreesWithZlib() {
        var rng = SeededGenerator(seed: 0xC3C3_2020)
        let bytes = (0..<5_000).map { _ in UInt8.random(in: 0 ... .max, using: &rng) }
        bytes.withUnsafeBytes { all in
            // Every length up to 300 (the fold starts at 64 and goes in steps of 16) at four alignments, then long ones.
            for start in 0..<4 {
                for length in 0...300 {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start..<start + length])
                    #expect(crc32(slice) == zlibCRC32(0, slice), "length \(length) at \(start)")
                }
            }
            for length in [1_024, 1_023, 4_096 + 15, 4_999] {
                let slice = UnsafeRawBufferPointer(rebasing: all[1..<1 + length])
                #expect(crc32(slice) == zlibCRC32(0, slice), "length \(length)")
            }
        }
    }

    @Test func theFoldContinuesACRC() throws {
        // Continuing a CRC over two pieces equals the CRC of the whole (what the fold and zlib's tail rely on).
        try #require(firepack_crc32_fold_available() == 1 || firepack_crc32_fold_available() == 0)
        guard firepack_crc32_fold_available() == 1 else { return }
        var rng = SeededGenerator(seed: 0xC3C3_2021)
        let bytes = (0..<1_024).map { _ in UInt8.random(in: 0 ... .max, using: &rng) }
        bytes.withUnsafeBytes { all in
            let head = UnsafeRawBufferPointer(rebasing: all[..<512])
            let tail = UnsafeRawBufferPointer(rebasing: all[512...])
            let partial = firepack_crc32_fold(0, head.baseAddress!.assumingMemoryBound(to: UInt8.self), 512)
            #expect(partial == zlibCRC32(0, head))
            #expect(firepack_crc32_fold(partial, tail.baseAddress!.assumingMemoryBound(to: UInt8.self), 512) == zlibCRC32(0, all))
        }
    }
}
