package io.firepack.spark;

import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarArray;
import org.apache.spark.sql.vectorized.ColumnarMap;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * A Spark column read in place from an Arrow array that the native core exported through the C Data Interface
 * (https://arrow.apache.org/docs/format/CDataInterface.html): no copy but for binary values, which Spark takes as
 * {@code byte[]}. Strings are {@link UTF8String}s over the array's own bytes.
 *
 * <p>The layouts read are the ones the core exports for a Spark schema (Docs/ARROW.md, "Spark"): {@code l} and
 * {@code tsu:UTC} (8-byte values), {@code g}, {@code b} (bits), {@code u} and {@code z} (int32 offsets and data),
 * {@code n}, {@code +s} (children) and the lists {@code +l} (int32 offsets, two buffers) and {@code +w:N}
 * (fixed-size, one buffer). The vector is valid while its batch is: until the reader's next {@code next()} or
 * {@code close()}.
 */
final class NativeColumnVector extends ColumnVector {
    // struct ArrowArray: int64 length, null_count, offset, n_buffers, n_children; const void** buffers;
    // ArrowArray** children; ArrowArray* dictionary; release; private_data.
    static final int LENGTH = 0, NULL_COUNT = 8, OFFSET = 16, N_BUFFERS = 24, N_CHILDREN = 32, BUFFERS = 40,
            CHILDREN = 48, SIZE = 80;

    private final int length;
    private final int nullCount;
    private final long validity;
    private final long values;
    private final long data;
    private final NativeColumnVector[] children;
    /** Elements per row of a fixed-size list; 0 otherwise. */
    private final int fixedSize;
    private final boolean allNull;

    NativeColumnVector(DataType type, long array) {
        super(type);
        length = Math.toIntExact(Platform.getLong(null, array + LENGTH));
        long nulls = Platform.getLong(null, array + NULL_COUNT);
        if (Platform.getLong(null, array + OFFSET) != 0) {
            throw new IllegalStateException("FirePack: an exported array with an offset (the core exports none)");
        }
        int bufferCount = (int) Platform.getLong(null, array + N_BUFFERS);
        long buffers = Platform.getLong(null, array + BUFFERS);
        allNull = type instanceof NullType;
        validity = bufferCount > 0 ? Platform.getLong(null, buffers) : 0;
        values = bufferCount > 1 ? Platform.getLong(null, buffers + 8) : 0;
        data = bufferCount > 2 ? Platform.getLong(null, buffers + 16) : 0;
        long childArrays = Platform.getLong(null, array + CHILDREN);
        int childCount = (int) Platform.getLong(null, array + N_CHILDREN);
        if (type instanceof StructType struct) {
            children = new NativeColumnVector[childCount];
            for (int index = 0; index < childCount; index++) {
                children[index] = new NativeColumnVector(struct.fields()[index].dataType(),
                        Platform.getLong(null, childArrays + 8L * index));
            }
            fixedSize = 0;
        } else if (type instanceof ArrayType list) {
            NativeColumnVector element = new NativeColumnVector(list.elementType(), Platform.getLong(null, childArrays));
            children = new NativeColumnVector[] {element};
            // A fixed-size list has one buffer (validity) and no offsets: each row holds child length / length.
            fixedSize = bufferCount == 1 ? (length == 0 ? 0 : element.length / length) : 0;
        } else {
            children = new NativeColumnVector[0];
            fixedSize = 0;
        }
        if (nulls < 0) {
            int counted = 0;
            for (int row = 0; row < length; row++) {
                if (isNullAt(row)) counted++;
            }
            nulls = counted;
        }
        nullCount = allNull ? length : (int) nulls;
    }

    private static boolean bit(long bitmap, int index) {
        return ((Platform.getByte(null, bitmap + (index >>> 3)) >>> (index & 7)) & 1) != 0;
    }

    @Override
    public void close() {
        // The batch owns the memory: FirePackPartitionReader releases it.
    }

    @Override
    public boolean hasNull() {
        return nullCount > 0;
    }

    @Override
    public int numNulls() {
        return nullCount;
    }

    @Override
    public boolean isNullAt(int rowId) {
        return allNull || (validity != 0 && !bit(validity, rowId));
    }

    @Override
    public boolean getBoolean(int rowId) {
        return bit(values, rowId);
    }

    @Override
    public long getLong(int rowId) {
        return Platform.getLong(null, values + 8L * rowId);
    }

    @Override
    public double getDouble(int rowId) {
        return Platform.getDouble(null, values + 8L * rowId);
    }

    private int start(int rowId) {
        return Platform.getInt(null, values + 4L * rowId);
    }

    private int end(int rowId) {
        return Platform.getInt(null, values + 4L * rowId + 4);
    }

    @Override
    public UTF8String getUTF8String(int rowId) {
        int start = start(rowId);
        return UTF8String.fromAddress(null, data + start, end(rowId) - start);
    }

    @Override
    public byte[] getBinary(int rowId) {
        int start = start(rowId);
        byte[] bytes = new byte[end(rowId) - start];
        Platform.copyMemory(null, data + start, bytes, Platform.BYTE_ARRAY_OFFSET, bytes.length);
        return bytes;
    }

    @Override
    public ColumnarArray getArray(int rowId) {
        if (fixedSize > 0 || values == 0) {
            return new ColumnarArray(children[0], rowId * fixedSize, fixedSize);
        }
        int start = start(rowId);
        return new ColumnarArray(children[0], start, end(rowId) - start);
    }

    @Override
    public ColumnVector getChild(int ordinal) {
        return children[ordinal];
    }

    private UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException("FirePack columns have no " + what + " values (" + dataType() + ")");
    }

    @Override
    public byte getByte(int rowId) {
        throw unsupported("byte");
    }

    @Override
    public short getShort(int rowId) {
        throw unsupported("short");
    }

    @Override
    public int getInt(int rowId) {
        throw unsupported("int");
    }

    @Override
    public float getFloat(int rowId) {
        throw unsupported("float");
    }

    @Override
    public ColumnarMap getMap(int ordinal) {
        throw unsupported("map");
    }

    @Override
    public Decimal getDecimal(int rowId, int precision, int scale) {
        throw unsupported("decimal");
    }
}
