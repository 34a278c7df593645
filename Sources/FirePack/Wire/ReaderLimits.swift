/// Bounds a reader enforces on untrusted input, on top of checking every length against the bytes present.
public struct ReaderLimits: Hashable, Sendable {
    /// The deepest the reader goes: the largest value accepted for `maxDepth`, so recursion stays within a thread's stack.
    public static let maximumDepth = 1_000

    /// Maximum container nesting depth (a scalar root has depth 0, its array's elements depth 1, …); at most 1,000.
    public var maxDepth: Int {
        didSet { maxDepth = min(max(maxDepth, 0), Self.maximumDepth) }
    }
    /// Maximum number of elements (or map entries) in one container.
    public var maxElementCount: Int
    /// Maximum size of the whole input in bytes.
    public var maxInputSize: Int

    /// Creates limits; `maxDepth` is clamped to 0 … 1,000.
    public init(maxDepth: Int = 100, maxElementCount: Int = 1 << 24, maxInputSize: Int = 1 << 31) {
        self.maxDepth = min(max(maxDepth, 0), Self.maximumDepth)
        self.maxElementCount = maxElementCount
        self.maxInputSize = maxInputSize
    }

    /// Depth 100, 16,777,216 elements per container, 2 GiB of input.
    public static let `default` = ReaderLimits()
}
