package io.firepack.spark;

import java.util.Map;

import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * FirePack streams as a Spark DataSource V2 read in the JVM: {@code spark.read.format("io.firepack.spark")
 * .load("exports/*.fpks")} (Spark finds this class by the package name). Batches come from the native core as Arrow
 * arrays and reach Spark as columnar batches read in place, with no Python worker in between; the Python data
 * source ({@code firepack.spark.FirePackDataSource}) reads and writes the same files with the same options and
 * schemas.
 *
 * <p>The schema is inferred over every record of every file (option {@code sample}: that many records), or taken
 * from {@code .schema(...)}: Spark JSON schemas with FirePack's marks in the field metadata, as both readers give.
 */
public final class DefaultSource implements TableProvider {
    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        ReadOptions read = new ReadOptions(options);
        try (FirePackNative.Memory paths = FirePackNative.Memory.strings(read.files);
             FirePackNative.Memory slot = new FirePackNative.Memory(8)) {
            // 1: damaged records are skipped; else records inference finds not to be documents fail here, before
            // readers that take the schema as given read them as rows of what it names.
            long json = FirePackNative.inferSparkSchema(paths.address, read.files.size(), read.sample,
                    read.skipDamaged ? 1 : 0, read.maxBlockExpansion, read.maxKeyExpansion, slot.address);
            if (json == 0) {
                throw FirePackNative.failure(slot.address);
            }
            return (StructType) DataType.fromJson(FirePackNative.take(json));
        }
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new FirePackTable(schema, new ReadOptions(new CaseInsensitiveStringMap(properties)));
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true;
    }
}
