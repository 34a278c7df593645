@testable import FirePack

/// Runs `body` with a reader and a decoder over each input, wrapped in a bytes value (`CE`) so that the input opens
/// whatever its bytes, at every offset and at every limit that cuts a value there (up to `cuts` bytes past the
/// offset) or ends the input (its last three limits): the inputs of the tests that check a fast path against its
/// full function.
func forEveryCut(
    of inputs: [[UInt8]], upTo cuts: Int,
    _ body: (_ input: ReaderInput, _ decoder: DecoderImpl, _ offset: Int, _ limit: Int, _ wrapped: [UInt8]) -> Void
) {
    for bytes in inputs {
        var wrapped: [UInt8] = [0xCE]
        var length = bytes.count
        while length >= 0x80 {
            wrapped.append(UInt8(length & 0x7F) | 0x80)
            length >>= 7
        }
        wrapped += [UInt8(length)] + bytes
        wrapped.withUnsafeBytes { raw in
            guard let input = try? ReaderInput(raw, rootStart: 0, limits: .default) else { return }
            let decoder = DecoderImpl(input: input, options: DecoderOptions(), offset: 0, end: input.count, depth: 0)
            for offset in 0..<input.count {
                let ends = [input.count - 2, input.count - 1, input.count].filter { $0 >= offset }
                for limit in Set(Array(offset...min(offset + cuts, input.count)) + ends) {
                    body(input, decoder, offset, limit, wrapped)
                }
            }
        }
    }
}
