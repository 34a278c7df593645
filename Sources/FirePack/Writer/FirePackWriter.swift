#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Appends FirePack values to a growable buffer that is reused from value to value.
///
/// Write a value with the `write…` methods, or build a container with `beginArray()` / `beginMap()`, its elements
/// (for maps, `writeKey(_:)` before each value) and `endArray()` / `endMap()`. A value written at the top level is a
/// *root value*: when it is complete the writer appends its key table (Docs/FORMAT.md §3) and the bytes up to there
/// are final. Root values follow one another in the buffer; `takeBytes()`, `clear()` or `flush()` hand them out.
///
/// Once the buffer has grown to the size of the largest value, writing allocates nothing. With a `Sink`, `flush()`
/// passes every complete value to it and empties the buffer, so output is never held in memory whole (a single value
/// is, because container lengths are patched in when the container ends).
///
/// Misuse (a key outside a map, `endMap()` without `beginMap()`, two keys in a row) is a programming error and traps.
public final class FirePackWriter {
    /// How a writer encodes.
    public struct Options: Sendable, Hashable {
        /// Sort map keys so that equal values give identical bytes (Docs/FORMAT.md §4).
        ///
        /// `write(_: Value)` sorts for you; when you write maps entry by entry, write the keys in ascending UTF-8
        /// byte order yourself.
        public var deterministic: Bool
        /// Replace repeated keys by references to a key table (Docs/FORMAT.md §3). On by default.
        public var keyReferences: Bool
        /// The buffer's initial capacity in bytes.
        public var initialCapacity: Int
        /// `flushIfNeeded()` flushes once this many bytes of complete values are buffered.
        public var flushThreshold: Int
        /// The format version the values follow (Docs/FORMAT.md §5): 3 (the default) or 1, for readers that
        /// predate version 3. Version 3 adds the decimal form of doubles; `writeFileHeader()` writes this version.
        public var formatVersion: Int
        /// The readers' limits the output must stay within (Docs/FORMAT.md §6): a value that nests deeper or holds a
        /// container with more elements is a `limitViolation`, which `flush()`, the coders and the stream writer
        /// throw before any of its bytes leave the writer. What FirePack writes, FirePack reads back.
        public var limits: ReaderLimits

        /// Creates options; every parameter has the default a fast, compact writer wants.
        public init(
            deterministic: Bool = false, keyReferences: Bool = true, initialCapacity: Int = 4096,
            flushThreshold: Int = 1 << 20, limits: ReaderLimits = .default, formatVersion: Int = 3
        ) {
            self.formatVersion = formatVersion
            self.deterministic = deterministic
            self.keyReferences = keyReferences
            self.initialCapacity = initialCapacity
            self.flushThreshold = flushThreshold
            self.limits = limits
        }
    }

    /// Where `flush()` sends complete values.
    public struct Sink {
        let write: (UnsafeRawBufferPointer) throws -> Void

        /// A sink that passes each chunk of complete values to `write`; the bytes are valid only during the call.
        public init(_ write: @escaping (UnsafeRawBufferPointer) throws -> Void) { self.write = write }
    }

    /// The options this writer encodes with.
    public let options: Options
    /// Whether doubles, vectors and geopoints may take the forms format version 3 adds.
    var decimalDoubles: Bool { options.formatVersion >= 3 }
    var sink: Sink?

    /// The mutable state, accessed without exclusivity checks (see `DecoderState`).
    @exclusivity(unchecked) var state: WriterState

    /// Where the buffer's bytes are (`GrowableBytes`); valid until the next `reserve` that grows.
    var storage: UnsafeMutablePointer<UInt8> { state.bytes.base }
    var capacity: Int { state.bytes.capacity }
    /// The number of bytes in the buffer: where the next byte goes.
    public internal(set) var writerIndex: Int {
        get { state.bytes.count }
        set { state.bytes.count = newValue }
    }
    /// Start of the root value being written.
    var rootStart: Int {
        get { state.rootStart }
        set { state.rootStart = newValue }
    }
    /// End of the last complete root value (with its key table).
    var completedEnd: Int {
        get { state.completedEnd }
        set { state.completedEnd = newValue }
    }
    /// Number of open containers.
    public internal(set) var depth: Int {
        get { state.depth }
        set { state.depth = newValue }
    }
    /// The innermost open container, kept out of `outerFrames` so the hot path touches no array.
    var top: ContainerFrame {
        get { state.top }
        _modify { yield &state.top }
    }
    var outerFrames: GrowableArray<ContainerFrame> {
        get { state.outerFrames }
        _modify { yield &state.outerFrames }
    }
    /// Serial number of the last map begun, so the key table can tell a key repeated within one map.
    var mapSerial: Int {
        get { state.mapSerial }
        set { state.mapSerial = newValue }
    }
    /// The key-table entries written in each open map, innermost last (each frame knows where its own start).
    var openMapKeys: GrowableArray<OpenMapKey> {
        get { state.openMapKeys }
        _modify { yield &state.openMapKeys }
    }
    var keys: WriterKeyTable {
        get { state.keys }
        _modify { yield &state.keys }
    }

    /// Creates a writer; with a sink, `flush()` sends complete values there.
    public convenience init(options: Options = Options(), sink: Sink? = nil) {
        self.init(options: options, sink: sink, borrowedStorage: nil)
    }

    /// Starts in `borrowedStorage` when it is given and holds at least 64 bytes, else in a buffer of its own.
    private init(options: Options, sink: Sink?, borrowedStorage: UnsafeMutableRawBufferPointer?) {
        precondition(options.formatVersion == 1 || options.formatVersion == 3, "FirePack writes format version 1 or 3")
        self.options = options
        self.sink = sink
        if let borrowedStorage, let base = borrowedStorage.baseAddress, borrowedStorage.count >= 64 {
            state = WriterState(
                bytes: GrowableBytes(
                    borrowing: base.bindMemory(to: UInt8.self, capacity: borrowedStorage.count),
                    capacity: borrowedStorage.count))
        } else {
            state = WriterState(bytes: GrowableBytes(capacity: options.initialCapacity))
        }
        state.keysInPlace = !options.keyReferences
    }

    /// Creates a writer that writes into `buffer`, memory the caller owns, until a value needs more room than it has.
    ///
    /// Then the writer moves what it has written into memory of its own and goes on there: check
    /// `isWritingInBorrowedMemory` when done. The caller keeps `buffer` valid and unused for as long as that is true;
    /// the writer never frees it. Used to encode straight into another library's buffer (FirePackNIO's
    /// `ByteBuffer.writeFirePack`).
    package convenience init(options: Options = Options(), borrowing buffer: UnsafeMutableRawBufferPointer) {
        self.init(options: options, sink: nil, borrowedStorage: buffer)
    }

    /// Whether the writer is still writing into the memory it was created `borrowing`.
    package var isWritingInBorrowedMemory: Bool { !state.bytes.ownsMemory }

    deinit {
        state.deallocate()
    }

    /// Whether a value has been started and not yet completed.
    public var isInsideValue: Bool { depth > 0 }

    /// The complete values written so far, valid only during `body`.
    public func withUnsafeWrittenBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage, count: completedEnd))
    }

    /// A copy of the complete values written so far.
    public var writtenBytes: [UInt8] { withUnsafeWrittenBytes { Array($0) } }

    /// Returns the complete values written so far and removes them from the buffer, keeping its capacity.
    public func takeBytes() -> [UInt8] {
        let bytes = writtenBytes
        discardCompleted()
        return bytes
    }

    /// Returns the complete values written so far as `Data` and removes them from the buffer.
    public func takeData() -> Data {
        let data = withUnsafeWrittenBytes { Data($0) }
        discardCompleted()
        return data
    }

    /// Empties the buffer and abandons any value in progress, keeping the buffer's capacity.
    public func clear() {
        state.limitViolation = nil
        writerIndex = 0
        rootStart = 0
        completedEnd = 0
        depth = 0
        outerFrames.removeAll()
        resetKeys()
    }

    /// Writes the `.fpk` file header (`89 46 50 4B`, then the options' format version: `03` unless told otherwise);
    /// call it before the file's root value.
    public func writeFileHeader() {
        precondition(depth == 0, "the file header goes before a value, not inside one")
        reserve(Tag.fileHeaderLength)
        for (offset, byte) in (Tag.fileMagic + [UInt8(options.formatVersion)]).enumerated() {
            storage[writerIndex + offset] = byte
        }
        writerIndex += Tag.fileHeaderLength
        completedEnd = writerIndex
    }

    /// Sends every complete value to the sink and removes it from the buffer; a value in progress stays.
    ///
    /// Without a sink this does nothing. If the sink throws, the buffer is left as it was.
    public func flush() throws {
        guard let sink, completedEnd > 0 else { return }
        try checkLimits()
        try sink.write(UnsafeRawBufferPointer(start: storage, count: completedEnd))
        discardCompleted()
    }

    /// Flushes when at least `options.flushThreshold` bytes of complete values are buffered.
    public func flushIfNeeded() throws {
        if completedEnd >= options.flushThreshold { try flush() }
    }

    /// Removes the complete values at the front of the buffer, moving a value in progress to the front.
    func discardCompleted() {
        let shift = completedEnd
        guard shift > 0 else { return }
        let remaining = writerIndex - shift
        if remaining > 0 { (storage).update(from: storage + shift, count: remaining) }
        writerIndex = remaining
        completedEnd = 0
        guard depth > 0 else {
            rootStart = 0
            return
        }
        rootStart -= shift
        top.headerStart -= shift
        for index in 0..<outerFrames.count { outerFrames[index].headerStart -= shift }
        keys.shift(from: 0, by: -shift)
        shiftOpenKeyLiterals(from: 0, by: -shift)
    }

    /// Makes room for `count` more bytes.
    @inline(__always)
    func reserve(_ count: Int) { state.bytes.reserve(count) }

    /// The first readers' limit (`options.limits`) that the values written so far exceed, with the offset of the
    /// offending container or vector counted from the start of its root value; nil while everything written reads
    /// back. Cleared by `clear()` and by discarding the value (the stream writer does both for you).
    public var limitViolation: FirePackError? { state.limitViolation }

    /// Whether there is a `limitViolation`, told without copying it.
    @usableFromInline
    var hasLimitViolation: Bool { state.limitViolation != nil }

    /// Throws `limitViolation`, if there is one.
    public func checkLimits() throws(FirePackError) {
        if let violation = state.limitViolation { throw violation }
    }

    /// Forgets the limit violation (its value has been dropped).
    package func resetLimitViolation() { state.limitViolation = nil }

    /// Notes a value past the readers' limits, keeping the first.
    @inline(never)
    func noteLimitViolation(_ code: FirePackError.Code, at position: Int, _ message: String) {
        guard state.limitViolation == nil else { return }
        state.limitViolation = FirePackError(
            code, offset: position - rootStart, message + " (readers refuse it; Docs/FORMAT.md §6)")
    }

    /// Called before every value: a value at depth 0 starts a new root value.
    @inline(__always)
    func willWriteValue() {
        if depth == 0 {
            rootStart = writerIndex
            resetKeys()
        } else if top.isMap {
            precondition(!top.expectingKey, "write a key with writeKey(_:) before each map value")
        }
    }

    /// Called after every value: counts it in its container, or completes the root value.
    @inline(__always)
    func didWriteValue() {
        if depth == 0 {
            finishRootValue()
        } else {
            top.count &+= 1
            top.expectingKey = top.isMap
        }
    }

    /// Appends the key table when the root value used key references, and marks the bytes complete. A value larger
    /// than the readers' input limit (2 GiB by default: JSON of doubles grows as it is encoded) is a violation too.
    func finishRootValue() {
        if keys.referenceCount > 0 { writeKeyTable() }
        // With a `.fpk` file's header (5 bytes), which readers count in the input.
        if writerIndex &- rootStart &+ Tag.fileHeaderLength > options.limits.maxInputSize {
            noteLimitViolation(
                .limitExceeded, at: rootStart,
                "a value of \(writerIndex - rootStart) bytes, past the input limit of \(options.limits.maxInputSize)")
        }
        completedEnd = writerIndex
    }
}

/// The writer's mutable state (see `FirePackWriter.state`).
struct WriterState {
    /// The buffer: its bytes, `writerIndex` (its count) and whether it is borrowed memory (never freed by the writer).
    var bytes: GrowableBytes
    var rootStart = 0
    var completedEnd = 0
    var depth = 0
    var top = ContainerFrame(
        headerStart: 0, count: 0, isMap: false, expectingKey: false, serial: 0, hasEmptyKey: false, keysStart: 0,
        keyFilter: 0)
    var outerFrames = GrowableArray<ContainerFrame>()
    var mapSerial = 0
    var openMapKeys = GrowableArray<OpenMapKey>()
    var keys = WriterKeyTable()
    /// Whether the root value's keys are checked in place (`FirePackWriter+OpenKeys.swift`): without key
    /// references, until a map reaches `keysCheckedInPlace` keys; and the literals of its open maps meanwhile,
    /// innermost map's last.
    var keysInPlace = false
    var openKeyLiterals = GrowableArray<OpenKeyLiteral>()
    /// The key-table entries of long keys that a tree's maps wrote in this root value, by the address of their
    /// String's bytes (`FirePackWriter.writeTreeKey`); each String is held, so its address names its bytes alone.
    var longTreeKeys: [UnsafeRawPointer: (key: String, entry: Int)] = [:]
    /// The first value written past `options.limits` (see `FirePackWriter.limitViolation`).
    var limitViolation: FirePackError?
    /// The mantissas of the vector being written in the decimal form, kept from vector to vector.
    var mantissas: [Int64] = []
    /// The scale of the last decimal form found, the first one tried for the next double
    /// (`DecimalDouble.decompose(_:below:near:)`).
    var decimalScale = 0
    /// The elements of an array being packed (`FirePackWriter+Packing.swift`), kept for their capacity.
    var packedDoubles: [Double] = []
    var packedIntegers: [Int64] = []
    /// The elements of an array of integers and doubles being packed in the `.mixed` form, as their 8 bytes each.
    var packedBits: [UInt64] = []
    /// The Codable encoder's answers about the types it met, kept for the next root value (`EncoderConformances`).
    var conformances = EncoderConformances()

    /// Frees the memory the state manages itself (`GrowableBytes`, `GrowableArray`); it is not used again.
    func deallocate() {
        bytes.deallocate()
        outerFrames.deallocate()
        openMapKeys.deallocate()
        keys.deallocate()
        openKeyLiterals.deallocate()
    }
}

/// A key written in an open map: its key-table entry, and the map it was last written in before (restored when
/// this map closes; `FirePackWriter.closeMapKeys()`).
struct OpenMapKey {
    var entry: Int32
    var previousMap: Int
}

/// An open container: where its reserved header is and how many elements it has so far.
struct ContainerFrame {
    var headerStart: Int
    var count: Int
    var isMap: Bool
    var expectingKey: Bool
    /// For maps: the serial number that marks keys written in this map.
    var serial: Int
    /// For maps: whether the empty key (never in the key table) has been written.
    var hasEmptyKey: Bool
    /// For maps: where this map's keys start in `openMapKeys`, or in `openKeyLiterals` while they are checked in
    /// place.
    var keysStart: Int
    /// For maps whose keys are checked in place: a bit for each key written (`FirePackWriter.keyFilterBit`).
    var keyFilter: UInt64
}

extension FirePackWriter.Sink {
    /// A sink that writes to an open file descriptor, retrying short writes and interruptions.
    public static func fileDescriptor(_ descriptor: Int32) -> Self {
        Self { bytes in try FileDescriptorIO.writeAll(bytes, to: descriptor) }
    }
}
