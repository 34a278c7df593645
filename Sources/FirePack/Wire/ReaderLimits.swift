/// Bounds a reader enforces on untrusted input, on top of checking every length against the bytes present.
public struct ReaderLimits: Hashable, Sendable {
    /// The deepest the reader goes: the largest value accepted for `maxDepth`, so recursion stays within a thread's stack.
    public static let maximumDepth = 1_000

    /// Maximum container nesting depth (a scalar root has depth 0, its array's elements depth 1, …); at most 1,000.
    public var maxDepth: Int {
        get { Int(depth) }
        set { depth = Int32(min(max(newValue, 0), Self.maximumDepth)) }
    }
    /// Maximum number of elements (or map entries) in one container.
    public var maxElementCount: Int
    /// Maximum size of the whole input in bytes.
    public var maxInputSize: Int
    /// Maximum bytes that key references to keys of more than 32 bytes stand for, per byte of the root value: each
    /// such reference counts its key's length (Docs/FORMAT.md §3, §6). A reference of one byte can stand for a key
    /// as long as the value, and everything that makes each key it reads a String or hashes it (a dictionary, a
    /// `Value`) pays that length again at every reference; without a bound, a value of 2 MB took 74 s to decode as
    /// `[[String: Int]]`. FirePack's writer never writes references past its limits, so under the default limits it
    /// writes none to keys of more than 32 bytes. Values from `Int32.max` up count as `Int32.max`, more than any root
    /// value of up to 4 GiB can stand for.
    public var maxKeyExpansion: Int {
        get { Int(keyExpansion) }
        set { keyExpansion = Int32(clamping: max(0, newValue)) }
    }

    // The depth and the expansion are held in 32 bits each, so that the limits stay three words: at four, a debug
    // build (Swift 6.3.1) passed garbage for the default `limits` of `FirePackReader.validate(_:limits:)`, while an
    // explicit argument and release builds were right (KeyReferenceCostTests calls it without one).
    private var depth: Int32
    private var keyExpansion: Int32

    /// Creates limits; `maxDepth` is clamped to 0 … 1,000.
    public init(
        maxDepth: Int = 100, maxElementCount: Int = 1 << 24, maxInputSize: Int = 1 << 31, maxKeyExpansion: Int = 16
    ) {
        depth = Int32(min(max(maxDepth, 0), Self.maximumDepth))
        keyExpansion = Int32(clamping: max(0, maxKeyExpansion))
        self.maxElementCount = maxElementCount
        self.maxInputSize = maxInputSize
    }

    /// Depth 100, 16,777,216 elements per container, 2 GiB of input, long keys that references stand for up to 16
    /// times the root value.
    public static let `default` = ReaderLimits()
}
