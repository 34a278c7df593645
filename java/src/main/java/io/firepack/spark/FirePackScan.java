package io.firepack.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;

import org.apache.spark.SparkContext;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

import scala.Option;

/**
 * One scan: the columns Spark asks for (the others are skipped by their lengths, not read), and byte ranges of each
 * file as partitions. A range reads exactly the records whose sync marker starts in it (Docs/ARROW.md, "Splits"), so
 * the partitions together read every record once.
 *
 * <p>Ranges are at most the split size Spark's own file sources use ({@code FilePartition.maxSplitBytes}:
 * {@code maxPartitionBytes}, made smaller when the files would not give each core a share). Within that bound the
 * files are cut into equal ranges, as many as a multiple of the cores, rather than full ranges and a short
 * remainder: 396 MB on two cores are four ranges of 99 MB, not three of 128 MiB and one of 12 MB, which would leave
 * one core reading 256 MiB while the other waits.
 */
final class FirePackScan implements ScanBuilder, SupportsPushDownRequiredColumns, Scan, Batch {
    private final StructType fullSchema;
    private final ReadOptions options;
    private StructType readSchema;

    FirePackScan(StructType schema, ReadOptions options) {
        this.fullSchema = schema;
        this.readSchema = schema;
        this.options = options;
    }

    /**
     * The columns a query reads. Spark narrows a struct to the nested fields the query needs and the narrowed field
     * carries no metadata, so FirePack's marks (a geopoint, a vector, a reference or a {@code value} inside it) would
     * no longer match its shape: a column with marks is read whole, with them, and Spark takes from it what the query
     * needs. A column without marks is read as narrowed, unless the schema was sampled: then every column is read
     * whole, so that the sample's checks see every field of it.
     */
    @Override
    public void pruneColumns(StructType requiredSchema) {
        StructField[] required = requiredSchema.fields();
        StructField[] kept = new StructField[required.length];
        for (int index = 0; index < required.length; index++) {
            StructField field = required[index];
            StructField full = null;
            for (StructField candidate : fullSchema.fields()) {
                if (candidate.name().equals(field.name())) {
                    full = candidate;
                    break;
                }
            }
            boolean marked = full != null && full.metadata().contains("firepack");
            // With a sampled schema every column is read whole too: the sample's checks (a nested field it did not
            // see is an error, not dropped) need the column's every field.
            boolean whole = marked || options.sample >= 0;
            kept[index] = full != null && (whole || full.dataType().equals(field.dataType())) ? full : field;
        }
        readSchema = new StructType(kept);
    }

    @Override
    public Scan build() {
        return this;
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public String description() {
        return "FirePack " + options.files.size() + " file(s), columns " + readSchema.simpleString();
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    /** The size to cut the files at: at most Spark's split size (FilePartition.maxSplitBytes in Spark's sql/core),
     *  and as many ranges in all as a multiple of the cores. */
    private long splitBytes(long[] sizes) {
        SQLConf conf = SQLConf.get();
        long openCost = conf.filesOpenCostInBytes();
        long total = 0, bytes = 0;
        for (long size : sizes) {
            total += size + openCost;
            bytes += size;
        }
        int cores = Math.max(1, SparkContext.getOrCreate().defaultParallelism());
        Option<Object> minimum = conf.filesMinPartitionNum();
        long partitions = minimum.isDefined() ? ((Number) minimum.get()).longValue() : cores;
        long bytesPerCore = total / Math.max(1, partitions);
        long sparkSplit = Math.max(1, Math.min(options.partitionBytes, Math.max(openCost, bytesPerCore)));
        long ranges = (bytes + sparkSplit - 1) / sparkSplit;
        if (ranges > 1) {
            ranges = (ranges + cores - 1) / cores * cores;
        }
        return Math.max(1, (bytes + ranges - 1) / Math.max(1, ranges));
    }

    @Override
    public InputPartition[] planInputPartitions() {
        List<InputPartition> partitions = new ArrayList<>();
        long[] sizes = new long[options.files.size()];
        for (int index = 0; index < sizes.length; index++) {
            try {
                sizes[index] = Files.size(Paths.get(options.files.get(index)));
            } catch (IOException error) {
                throw new UncheckedIOException(error);
            }
        }
        long split = splitBytes(sizes);
        for (int index = 0; index < sizes.length; index++) {
            String file = options.files.get(index);
            long pieces = Math.max(1, (sizes[index] + split - 1) / split);
            long target = Math.max(1, (sizes[index] + pieces - 1) / pieces);
            try (FirePackNative.Memory path = FirePackNative.Memory.string(file);
                 FirePackNative.Memory slot = new FirePackNative.Memory(8)) {
                long json = FirePackNative.splits(path.address, target, slot.address);
                if (json == 0) {
                    throw FirePackNative.failure(slot.address);
                }
                // [[offset,length],…]
                String ranges = FirePackNative.take(json).replaceAll("[\\[\\]]", " ").trim();
                if (ranges.isEmpty()) continue;
                String[] numbers = ranges.split("[ ,]+");
                for (int number = 0; number + 1 < numbers.length; number += 2) {
                    partitions.add(new FileRange(file, Long.parseLong(numbers[number]), Long.parseLong(numbers[number + 1])));
                }
            }
        }
        return partitions.toArray(new InputPartition[0]);
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        // A sampled schema makes an unknown field an error. A pruned one skips the top-level fields the query does not
        // read, on purpose, and keeps the checks inside the columns it reads (read whole: pruneColumns).
        boolean sampled = options.sample >= 0;
        boolean pruned = !readSchema.equals(fullSchema);
        return new FirePackReaderFactory(readSchema.json(), options, sampled, pruned);
    }
}
