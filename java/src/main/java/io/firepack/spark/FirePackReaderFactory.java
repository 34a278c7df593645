package io.firepack.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Columnar readers of file ranges (sent to the executors: the schema travels as its JSON text). */
final class FirePackReaderFactory implements PartitionReaderFactory {
    private static final long serialVersionUID = 1L;

    private final String schemaJSON;
    private final ReadOptions options;
    private final boolean sampled;
    private final boolean pruned;

    FirePackReaderFactory(String schemaJSON, ReadOptions options, boolean sampled, boolean pruned) {
        this.schemaJSON = schemaJSON;
        this.options = options;
        this.sampled = sampled;
        this.pruned = pruned;
    }

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return true;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        return new FirePackPartitionReader((FileRange) partition, schemaJSON, options, sampled, pruned);
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        throw new UnsupportedOperationException("FirePack ranges are read as columnar batches");
    }
}
