package io.firepack.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/** The bytes {@code [offset, offset + length)} of one file. */
record FileRange(String path, long offset, long length) implements InputPartition {
}
