package io.firepack.spark;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryIteratorException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitOption;
import java.nio.file.FileVisitResult;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.Paths;
import java.nio.file.LinkOption;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * The reader's options, as the Python data source takes them: {@code path} (a file, folder or glob; a comma is part of
 * the name, as in Spark's own file sources: several go to {@code load} as a list, which Spark passes as {@code paths}),
 * {@code sample}, {@code maxPartitionBytes} (else the
 * session's {@code spark.sql.files.maxPartitionBytes}), {@code batchSize} (rows, 4,096), {@code onDamage} ({@code error} |
 * {@code skip}), {@code onMismatch} ({@code error} | {@code null}), {@code timestampPrecision} ({@code error} |
 * {@code truncate}), {@code maxBlockExpansion} (the bytes a version-3 block may unpack into per byte of it,
 * 1,024: raise it to read blocks refused as past it), {@code maxKeyExpansion} (the bytes of keys longer than 32 bytes
 * that a record's key references may stand for per byte of it, 16: raise it to read records refused as past it) and {@code allowUnclosed} ({@code false} | {@code true}: a stream
 * that ends without a close record is an error unless allowed, as its writer crashed or is still writing).
 */
final class ReadOptions implements Serializable {
    private static final long serialVersionUID = 1L;

    final List<String> files;
    final long sample;
    final long partitionBytes;
    final long batchSize;
    final boolean skipDamaged;
    final boolean nullsForMismatches;
    final boolean truncateTimestamps;
    final long maxBlockExpansion;
    final long maxKeyExpansion;
    final boolean allowUnclosed;

    ReadOptions(CaseInsensitiveStringMap options) {
        List<String> patterns = new ArrayList<>();
        String path = options.get("path");
        if (path != null) {
            patterns.add(path);
        }
        String paths = options.get("paths");
        if (paths != null) {
            // Spark's JSON array of the load() arguments, read as JSON (a name may hold a quote or a comma).
            try {
                patterns.addAll(Arrays.asList(new ObjectMapper().readValue(paths, String[].class)));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("the paths option is not a JSON array of strings: " + paths, e);
            }
        }
        if (patterns.isEmpty()) {
            throw new IllegalArgumentException("give a path: spark.read.format(\"io.firepack.spark\").load(\"exports/*.fpks\")");
        }
        files = new ArrayList<>();
        for (String pattern : patterns) {
            files.addAll(expand(pattern));
        }
        sample = options.getLong("sample", -1);
        String size = options.get("maxPartitionBytes");
        partitionBytes = size != null ? bytes(size) : SQLConf.get().filesMaxPartitionBytes();
        // Rows per columnar batch: Spark's own columnar readers' default (spark.sql.parquet.columnarReaderBatchSize,
        // spark.sql.orc.columnarReaderBatchSize), small enough for a batch's columns to stay in cache while Spark
        // turns them into rows (python/benchmarks/engines.py: 0.89 s at 4,096 against 1.07 s at 65,536).
        batchSize = options.getLong("batchSize", 4096);
        skipDamaged = choice(options, "onDamage", "error", "skip");
        nullsForMismatches = choice(options, "onMismatch", "error", "null");
        truncateTimestamps = choice(options, "timestampPrecision", "error", "truncate");
        allowUnclosed = choice(options, "allowUnclosed", "false", "true");
        maxBlockExpansion = options.getLong("maxBlockExpansion", 0);
        if (options.containsKey("maxBlockExpansion") && maxBlockExpansion < 1) {
            throw new IllegalArgumentException("option maxBlockExpansion takes 1 or more, not " + maxBlockExpansion);
        }
        maxKeyExpansion = options.getLong("maxKeyExpansion", 0);
        if (options.containsKey("maxKeyExpansion") && maxKeyExpansion < 1) {
            throw new IllegalArgumentException("option maxKeyExpansion takes 1 or more, not " + maxKeyExpansion);
        }
    }

    private static boolean choice(CaseInsensitiveStringMap options, String name, String normal, String other) {
        String value = options.getOrDefault(name, normal).toLowerCase(Locale.ROOT);
        if (!value.equals(normal) && !value.equals(other)) {
            throw new IllegalArgumentException("option " + name + " is '" + normal + "' or '" + other + "', not '" + value + "'");
        }
        return value.equals(other);
    }

    static long bytes(String text) {
        String value = text.trim().toLowerCase(Locale.ROOT);
        String[][] suffixes = {{"kb", "1024"}, {"mb", "1048576"}, {"gb", "1073741824"}, {"k", "1024"}, {"m", "1048576"},
                {"g", "1073741824"}, {"b", "1"}};
        for (String[] suffix : suffixes) {
            if (value.endsWith(suffix[0])) {
                return (long) (Double.parseDouble(value.substring(0, value.length() - suffix[0].length())) * Long.parseLong(suffix[1]));
            }
        }
        return Long.parseLong(value);
    }

    /**
     * Whether Python's glob would show {@code entry} (below {@code base}, the pattern's part {@code fixed} on): a
     * name that starts with "." only where the pattern's part there does too.
     */
    private static boolean shownByGlob(Path base, Path entry, Path pattern, int fixed) {
        Path relative = base.relativize(entry);
        for (int index = 0; index < relative.getNameCount() && fixed + index < pattern.getNameCount(); index++) {
            if (relative.getName(index).toString().startsWith(".")
                    && !pattern.getName(fixed + index).toString().startsWith(".")) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasWildcard(String part) {
        return part.indexOf('*') >= 0 || part.indexOf('?') >= 0 || part.indexOf('[') >= 0 || part.indexOf('{') >= 0;
    }

    private static boolean isFirePack(String name) {
        return name.endsWith(".fpks") || name.endsWith(".fpks.gz") || name.endsWith(".fpk");
    }

    /**
     * The first FirePack file in a subfolder of {@code folder}, at any depth, passing over folders whose names start
     * with {@code _} or {@code .} (Spark's hidden names: a writer's {@code _temporary}), links to folders and folders
     * that cannot be read, or null: as the Python package's {@code firepack._paths} (os.walk) finds it.
     */
    private static Path nestedFile(Path folder) {
        List<Path> subfolders = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(folder)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS) && !name.startsWith("_") && !name.startsWith(".")) {
                    subfolders.add(entry);
                }
            }
        } catch (IOException | DirectoryIteratorException unreadable) {
            return null;
        }
        Collections.sort(subfolders);
        for (Path subfolder : subfolders) {
            List<Path> found = new ArrayList<>();
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(subfolder)) {
                for (Path entry : entries) {
                    if (!Files.isDirectory(entry) && isFirePack(entry.getFileName().toString())) found.add(entry);
                }
            } catch (IOException | DirectoryIteratorException unreadable) {
                continue;
            }
            if (!found.isEmpty()) {
                Collections.sort(found);
                return found.get(0);
            }
            Path deeper = nestedFile(subfolder);
            if (deeper != null) return deeper;
        }
        return null;
    }

    /**
     * The files a path names: itself, a folder's streams, or a glob's matches (wildcards in any part). A folder with
     * FirePack files in its subfolders is an error (they would not be read), as in the Python package.
     */
    static List<String> expand(String text) {
        String local = text.startsWith("file:") ? text.replaceFirst("^file:(//)?", "") : text;
        Path path = Paths.get(local);
        List<String> found = new ArrayList<>();
        try {
            if (Files.isDirectory(path)) {
                Path nested = nestedFile(path);
                if (nested != null) {
                    throw new IllegalArgumentException(path + " holds FirePack files in subfolders (" + nested
                            + "), which reading the folder would leave out: give them as paths or as globs (for "
                            + "example " + path.resolve("*").resolve("*.fpks") + ")");
                }
                try (DirectoryStream<Path> entries = Files.newDirectoryStream(path)) {
                    for (Path entry : entries) {
                        if (isFirePack(entry.getFileName().toString())) found.add(entry.toString());
                    }
                }
            } else if (Files.exists(path)) {
                found.add(path.toString());
            } else {
                // Wildcards in any part (folder/*/*.fpks), as Python's glob takes them: the files at the pattern's
                // depth below its longest part without one that match it whole, following links to folders, passing
                // over folders that cannot be read, and matching a name that starts with "." only by a part that does.
                Path absolute = path.toAbsolutePath().normalize();
                Path base = absolute.getRoot();
                int fixed = 0;
                while (fixed < absolute.getNameCount() && !hasWildcard(absolute.getName(fixed).toString())) {
                    base = base.resolve(absolute.getName(fixed));
                    fixed++;
                }
                PathMatcher matcher = FileSystems.getDefault().getPathMatcher("glob:" + absolute);
                if (fixed < absolute.getNameCount() && Files.isDirectory(base)) {
                    int depth = absolute.getNameCount() - fixed;
                    int fixedParts = fixed;
                    Path start = base;
                    Files.walkFileTree(start, EnumSet.of(FileVisitOption.FOLLOW_LINKS), depth, new SimpleFileVisitor<Path>() {
                        @Override
                        public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) {
                            return directory.equals(start) || shownByGlob(start, directory, absolute, fixedParts)
                                    ? FileVisitResult.CONTINUE : FileVisitResult.SKIP_SUBTREE;
                        }

                        @Override
                        public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                            if (!attributes.isDirectory() && matcher.matches(file)
                                    && shownByGlob(start, file, absolute, fixedParts)) {
                                found.add(file.toString());
                            }
                            return FileVisitResult.CONTINUE;
                        }

                        @Override
                        public FileVisitResult visitFileFailed(Path file, IOException error) {
                            return FileVisitResult.CONTINUE;
                        }
                    });
                }
                if (found.isEmpty()) {
                    throw new IllegalArgumentException("no file matches '" + text + "'");
                }
            }
        } catch (IOException error) {
            throw new UncheckedIOException(error);
        }
        Collections.sort(found);
        return found;
    }
}
