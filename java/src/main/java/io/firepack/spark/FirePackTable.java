package io.firepack.spark;

import java.util.EnumSet;
import java.util.Set;

import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/** The documents of a set of FirePack files, read in batches. */
final class FirePackTable implements SupportsRead {
    private final StructType schema;
    private final ReadOptions options;

    FirePackTable(StructType schema, ReadOptions options) {
        this.schema = schema;
        this.options = options;
    }

    @Override
    public String name() {
        return "firepack " + options.files;
    }

    @Override
    @SuppressWarnings("deprecation") // Table.columns() is derived from it
    public StructType schema() {
        return schema;
    }

    @Override
    public Set<TableCapability> capabilities() {
        return EnumSet.of(TableCapability.BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap scanOptions) {
        return new FirePackScan(schema, options);
    }
}
