package io.firepack.spark;

import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one file range as columnar batches. Each batch is an Arrow struct array the native core filled; it is
 * released when Spark asks for the next one or closes the reader. A damaged record ends the read with an error that
 * names the file, record and byte offset, or (option {@code onDamage=skip}) is skipped and reported in the log.
 */
final class FirePackPartitionReader implements PartitionReader<ColumnarBatch> {
    private static final Logger LOG = LoggerFactory.getLogger(FirePackPartitionReader.class);

    private final FileRange range;
    private final StructType schema;
    private final FirePackNative.Memory array = new FirePackNative.Memory(NativeColumnVector.SIZE);
    private final FirePackNative.Memory slot = new FirePackNative.Memory(8);
    private long handle;
    private boolean holding;
    private ColumnarBatch batch;

    FirePackPartitionReader(FileRange range, String schemaJSON, ReadOptions options, boolean sampled, boolean pruned) {
        this.range = range;
        this.schema = (StructType) DataType.fromJson(schemaJSON);
        // 16: the schema is the columns a query reads; the other top-level fields are skipped, not errors.
        int flags = (options.nullsForMismatches ? 1 : 0) | (options.skipDamaged ? 2 : 0) | (sampled ? 4 : 0)
                | (options.truncateTimestamps ? 8 : 0) | (pruned ? 16 : 0) | (options.allowUnclosed ? 0 : 32);
        try (FirePackNative.Memory path = FirePackNative.Memory.string(range.path());
             FirePackNative.Memory json = FirePackNative.Memory.string(schemaJSON)) {
            handle = FirePackNative.open(path.address, range.offset(), range.length(), options.batchSize, json.address,
                    flags, options.maxBlockExpansion, options.maxKeyExpansion, slot.address);
        }
        if (handle == 0) {
            RuntimeException failure = failure();
            close();
            throw failure;
        }
    }

    /** The library's failure, naming the file when its message does not. */
    private RuntimeException failure() {
        FirePackNative.Failure failure = FirePackNative.failure(slot.address);
        String message = failure.getMessage();
        if (message.contains(range.path())) {
            return failure;
        }
        // A range's reader counts records from the range's start; the byte offsets are the file's.
        String where = range.offset() == 0 ? range.path()
                : range.path() + ", partition of bytes [" + range.offset() + ", " + (range.offset() + range.length())
                        + "), records counted from its start";
        return new FirePackNative.Failure(where + ": " + message);
    }

    private void releaseBatch() {
        if (holding) {
            FirePackNative.releaseArray(array.address);
            holding = false;
            batch = null;
        }
    }

    @Override
    public boolean next() {
        releaseBatch();
        long rows = FirePackNative.next(handle, array.address, slot.address);
        if (rows < 0) {
            throw failure();
        }
        if (rows == 0) {
            return false;
        }
        holding = true;
        long children = Platform.getLong(null, array.address + NativeColumnVector.CHILDREN);
        ColumnVector[] columns = new ColumnVector[schema.fields().length];
        for (int index = 0; index < columns.length; index++) {
            columns[index] = new NativeColumnVector(schema.fields()[index].dataType(), Platform.getLong(null, children + 8L * index));
        }
        batch = new ColumnarBatch(columns, Math.toIntExact(rows));
        return true;
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    @Override
    public void close() {
        releaseBatch();
        if (handle != 0) {
            String report = FirePackNative.take(FirePackNative.report(handle));
            if (!report.contains("\"problem_count\":0") || report.contains("\"warnings\":{\"")) {
                LOG.warn("FirePack {} bytes [{}, {}): {}", range.path(), range.offset(), range.offset() + range.length(), report);
            }
            FirePackNative.close(handle);
            handle = 0;
        }
        array.close();
        slot.close();
    }
}
