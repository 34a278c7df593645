import CArrowABI
import CFirePackSystem
import FirePack
import FirePackArrow
import FirePackStreams

// The Java Native Interface entry points of the Spark connector's `io.firepack.spark.FirePackNative`
// (java/src/main/java/io/firepack/spark/FirePackNative.java): Spark's JVM reads FirePack through this library, as
// the Python package does, without a Python worker in between.
//
// Every argument and result is a Java `long` or `int` — addresses of memory the Java side allocated with Spark's
// `Platform.allocateMemory` (NUL-terminated UTF-8 strings, an 8-byte slot for an error message, an `ArrowArray` to
// fill) or strings and handles this library returns — so no function touches the `JNIEnv` and no JNI header is
// needed (JNI specification, "Design Overview": a native method's first two arguments are the environment and the
// class; `jlong` is a signed 64-bit integer, `jint` 32-bit). A failure returns 0 (or -1) and stores a message,
// which the caller frees with `freeString`, in the error slot; no Swift error or trap reaches the JVM for bad input.

/// A JNI `JNIEnv *` (unused).
public typealias JNIEnvironment = UnsafeMutableRawPointer?
/// A JNI `jclass` (unused).
public typealias JNIClass = UnsafeMutableRawPointer?

private func text(_ address: Int64) -> String {
    String(cString: UnsafePointer<CChar>(bitPattern: Int(address))!)
}

private func errorSlot(_ address: Int64) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? {
    UnsafeMutablePointer(bitPattern: Int(address))
}

private func address(_ pointer: UnsafeMutableRawPointer?) -> Int64 { Int64(Int(bitPattern: pointer)) }

/// The Spark JSON schema (`ArrowDocumentSchema.sparkJSON`) inferred from `count` files, their paths NUL-separated
/// at `paths`, reading up to `sample` records (< 0: every record) with `maxBlockExpansion` and `maxKeyExpansion` (≤ 0:
/// the defaults). `flags` 1: damaged records are skipped (`onDamage=skip`); else records that inference found not
/// to be documents are an error here (`DocumentProfile.checkNothingRejected`).
@_cdecl("Java_io_firepack_spark_FirePackNative_inferSparkSchema")
public func jni_inferSparkSchema(
    _ env: JNIEnvironment, _ cls: JNIClass, _ paths: Int64, _ count: Int32, _ sample: Int64,
    _ flags: Int32, _ maxBlockExpansion: Int64, _ maxKeyExpansion: Int64, _ errorAddress: Int64
) -> Int64 {
    do {
        var files: [String] = []
        var cursor = UnsafePointer<CChar>(bitPattern: Int(paths))!
        for _ in 0..<Int(count) {
            let file = String(cString: cursor)
            files.append(file)
            cursor += file.utf8.count + 1
        }
        let profile = try DocumentProfile.of(
            paths: files, sample: sample < 0 ? nil : Int(sample),
            maxBlockExpansion: maxBlockExpansion > 0 ? Int(maxBlockExpansion) : DocumentStreamFormat.maxBlockExpansion,
            maxKeyExpansion: maxKeyExpansion > 0 ? Int(maxKeyExpansion) : ReaderLimits.default.maxKeyExpansion)
        if flags & 1 == 0 {
            try profile.checkNothingRejected(skipOption: "onDamage=skip", keyOption: "maxKeyExpansion")
        }
        let (schema, _) = try profile.schema()
        try schema.checkInferredWidth()
        return address(UnsafeMutableRawPointer(cString(schema.sparkJSON)))
    } catch {
        report(error, errorSlot(errorAddress))
        return 0
    }
}

/// Opens a reader of the file at `path` over `[offset, offset + length)` (`length` < 0: to the end) into the
/// columns of the Spark JSON schema at `schema`, timestamps in microseconds. `flags` are `firepack_reader_open`'s,
/// and 8: drop nanoseconds (else a timestamp with nanoseconds is a mismatch), 16: the schema is the columns a query
/// reads of a sampled one (`skipsFieldsOutsideSchema`: other top-level fields are skipped, the sampled checks hold
/// inside the columns read), 32: a stream read to its end without a close record is an error
/// (`refusesUnclosedStream`); `maxBlockExpansion` and `maxKeyExpansion` too (≤ 0: the defaults). Returns a handle,
/// or 0.
@_cdecl("Java_io_firepack_spark_FirePackNative_open")
public func jni_open(
    _ env: JNIEnvironment, _ cls: JNIClass, _ path: Int64, _ offset: Int64, _ length: Int64,
    _ batchSize: Int64, _ schema: Int64, _ flags: Int32, _ maxBlockExpansion: Int64, _ maxKeyExpansion: Int64,
    _ errorAddress: Int64
) -> Int64 {
    do {
        var options = ArrowBatchReader.Options()
        options.offset = Int(offset)
        options.length = length < 0 ? nil : Int(length)
        if batchSize > 0 { options.batchSize = Int(batchSize) }
        options.schema = try ArrowDocumentSchema(sparkJSON: text(schema))
        options.nullsForMismatches = flags & 1 != 0
        options.skipDamaged = flags & 2 != 0
        options.schemaIsSampled = flags & 4 != 0
        options.timestampUnit = flags & 8 != 0 ? .truncatingToMicroseconds : .microseconds
        options.skipsFieldsOutsideSchema = flags & 16 != 0
        options.refusesUnclosedStream = flags & 32 != 0
        if maxBlockExpansion > 0 { options.maxBlockExpansion = Int(maxBlockExpansion) }
        if maxKeyExpansion > 0 { options.maxKeyExpansion = Int(maxKeyExpansion) }
        let reader = try ArrowBatchReader(path: text(path), options: options)
        return address(Unmanaged.passRetained(reader).toOpaque())
    } catch {
        report(error, errorSlot(errorAddress))
        return 0
    }
}

/// Fills the `ArrowArray` at `array` with the next batch (a struct array of the columns, released with
/// `releaseArray`); returns its rows, 0 at the end, or -1 with the error slot set (every later call fails too).
@_cdecl("Java_io_firepack_spark_FirePackNative_next")
public func jni_next(_ env: JNIEnvironment, _ cls: JNIClass, _ handle: Int64, _ array: Int64, _ errorAddress: Int64)
    -> Int64
{
    let reader = Unmanaged<ArrowBatchReader>.fromOpaque(UnsafeRawPointer(bitPattern: Int(handle))!)
        .takeUnretainedValue()
    let out = UnsafeMutablePointer<ArrowArray>(bitPattern: Int(array))!
    do {
        return try reader.nextBatch(into: out) ? out.pointee.length : 0
    } catch {
        report(error, errorSlot(errorAddress))
        return -1
    }
}

/// Releases the `ArrowArray` at `array` (its producer's release callback), if it is not released yet.
@_cdecl("Java_io_firepack_spark_FirePackNative_releaseArray")
public func jni_releaseArray(_ env: JNIEnvironment, _ cls: JNIClass, _ array: Int64) {
    guard let array = UnsafeMutablePointer<ArrowArray>(bitPattern: Int(array)), let release = array.pointee.release
    else { return }
    release(array)
}

/// The reader's report, as `firepack_reader_report` gives it (JSON).
@_cdecl("Java_io_firepack_spark_FirePackNative_report")
public func jni_report(_ env: JNIEnvironment, _ cls: JNIClass, _ handle: Int64) -> Int64 {
    address(UnsafeMutableRawPointer(firepack_reader_report(UnsafeMutableRawPointer(bitPattern: Int(handle))!)))
}

/// Closes a reader.
@_cdecl("Java_io_firepack_spark_FirePackNative_close")
public func jni_close(_ env: JNIEnvironment, _ cls: JNIClass, _ handle: Int64) {
    guard let handle = UnsafeMutableRawPointer(bitPattern: Int(handle)) else { return }
    firepack_reader_free(handle)
}

/// The byte ranges of about `target` bytes the file at `path` splits into, as JSON `[[offset, length], …]`.
@_cdecl("Java_io_firepack_spark_FirePackNative_splits")
public func jni_splits(_ env: JNIEnvironment, _ cls: JNIClass, _ path: Int64, _ target: Int64, _ errorAddress: Int64)
    -> Int64
{
    var out: UnsafeMutablePointer<CChar>?
    guard firepack_splits(UnsafePointer(bitPattern: Int(path))!, target, &out, errorSlot(errorAddress)) == 0 else {
        return 0
    }
    return address(UnsafeMutableRawPointer(out))
}

/// `firepack_arrow_version()`: the connector refuses a library of another interface on load, before it passes
/// arguments that library would read otherwise (a stale `firepack.native.library` or `FIREPACK_NATIVE_LIB`).
@_cdecl("Java_io_firepack_spark_FirePackNative_version")
public func jni_version(_ env: JNIEnvironment, _ cls: JNIClass) -> Int64 {
    address(UnsafeMutableRawPointer(firepack_arrow_version()))
}

/// Frees a string this library returned.
@_cdecl("Java_io_firepack_spark_FirePackNative_freeString")
public func jni_freeString(_ env: JNIEnvironment, _ cls: JNIClass, _ string: Int64) {
    free(UnsafeMutableRawPointer(bitPattern: Int(string)))
}
