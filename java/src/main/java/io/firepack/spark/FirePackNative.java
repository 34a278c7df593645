package io.firepack.spark;

import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

import org.apache.spark.unsafe.Platform;

/**
 * The native core (libFirePackArrowC.so, Sources/FirePackArrowC/FirePackArrowC+JNI.swift) as the connector calls it.
 *
 * <p>Every native method takes and returns plain {@code long}s and {@code int}s: addresses of off-heap memory this
 * class allocates (NUL-terminated UTF-8 strings, an 8-byte slot for an error message, a C Data Interface
 * {@code ArrowArray}), or strings and handles the library returns. The library is found at the system property
 * {@code firepack.native.library}, else at the environment variable {@code FIREPACK_NATIVE_LIB}, else beside this
 * jar (where the Python package installs both).
 */
final class FirePackNative {
    private FirePackNative() {}

    /**
     * The library interface these methods call ({@code firepack_arrow_version}, Docs/ARROW.md "The C ABI"): a library
     * of another would read their arguments otherwise.
     */
    static final String ABI = "FirePackArrow 3 ";

    static {
        String path = libraryPath();
        System.load(path);
        String version;
        try {
            version = take(version());
        } catch (UnsatisfiedLinkError error) {
            throw new UnsatisfiedLinkError(path + " has no version entry point: it is a library older than the "
                    + ABI.trim() + " interface this connector calls; reinstall the firepack package (or point "
                    + "firepack.native.library or FIREPACK_NATIVE_LIB at the library it installs)");
        }
        if (!version.startsWith(ABI)) {
            throw new UnsatisfiedLinkError(path + " is '" + version + "', not the " + ABI.trim() + " interface this "
                    + "connector calls; reinstall the firepack package (or point firepack.native.library or "
                    + "FIREPACK_NATIVE_LIB at the library it installs)");
        }
    }

    static native long version();

    static native long inferSparkSchema(long paths, int count, long sample, int flags, long maxBlockExpansion,
            long maxKeyExpansion, long errorSlot);

    static native long open(long path, long offset, long length, long batchSize, long schema, int flags,
            long maxBlockExpansion, long maxKeyExpansion, long errorSlot);

    static native long next(long handle, long array, long errorSlot);

    static native void releaseArray(long array);

    static native long report(long handle);

    static native void close(long handle);

    static native long splits(long path, long target, long errorSlot);

    static native void freeString(long string);

    /** A native failure: the library's message, which names the file, record, byte offset and field path. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    static String libraryPath() {
        String path = System.getProperty("firepack.native.library");
        if (path == null || path.isEmpty()) {
            path = System.getenv("FIREPACK_NATIVE_LIB");
        }
        if (path == null || path.isEmpty()) {
            try {
                Path jar = Paths.get(FirePackNative.class.getProtectionDomain().getCodeSource().getLocation().toURI());
                path = jar.resolveSibling("libFirePackArrowC.so").toString();
            } catch (URISyntaxException | RuntimeException error) {
                throw new IllegalStateException("cannot find libFirePackArrowC.so: set the system property "
                        + "firepack.native.library or FIREPACK_NATIVE_LIB", error);
            }
        }
        return path;
    }

    /** Off-heap memory the connector allocates and frees. */
    static final class Memory implements AutoCloseable {
        final long address;

        Memory(long bytes) {
            address = Platform.allocateMemory(bytes);
            Platform.setMemory(address, (byte) 0, bytes);
        }

        /** NUL-terminated UTF-8 strings, one after another. */
        static Memory strings(List<String> texts) {
            int size = 0;
            byte[][] encoded = new byte[texts.size()][];
            for (int index = 0; index < encoded.length; index++) {
                encoded[index] = texts.get(index).getBytes(StandardCharsets.UTF_8);
                size += encoded[index].length + 1;
            }
            Memory memory = new Memory(Math.max(size, 1));
            long cursor = memory.address;
            for (byte[] bytes : encoded) {
                Platform.copyMemory(bytes, Platform.BYTE_ARRAY_OFFSET, null, cursor, bytes.length);
                cursor += bytes.length + 1;
            }
            return memory;
        }

        static Memory string(String text) {
            return strings(List.of(text));
        }

        @Override
        public void close() {
            Platform.freeMemory(address);
        }
    }

    /** The string at {@code address} (which this library returned), freed. */
    static String take(long address) {
        int length = 0;
        while (Platform.getByte(null, address + length) != 0) {
            length++;
        }
        byte[] bytes = new byte[length];
        Platform.copyMemory(null, address, bytes, Platform.BYTE_ARRAY_OFFSET, length);
        freeString(address);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** The failure whose message the library stored in the slot at {@code slot}. */
    static Failure failure(long slot) {
        long message = Platform.getLong(null, slot);
        Platform.putLong(null, slot, 0);
        return new Failure(message == 0 ? "FirePack: unknown native failure" : take(message));
    }
}
