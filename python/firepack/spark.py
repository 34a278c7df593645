"""FirePack as an Apache Spark 4 data source (the Python Data Source API).

    from firepack.spark import FirePackDataSource
    spark.dataSource.register(FirePackDataSource)
    df = spark.read.format("firepack").load("exports/*.fpks")
    df.write.format("firepack").mode("overwrite").save("out/")

Reading: the schema is inferred once over every file (option `sample` limits it to that many records), or taken from
`.schema(...)`; each file is cut into byte ranges of `maxPartitionBytes` (the option; else the session's
`spark.sql.files.maxPartitionBytes` when registered with `firepack.spark.register(spark)`; else 128 MiB, Spark's
default), and each partition reads exactly the records whose sync marker starts in its
range, as Arrow record batches. Options `onDamage` (`error` | `skip`) and `onMismatch` (`error` | `null`) are
`open_stream`'s. A stream read to its end without a close record (its writer crashed or is still writing) fails the
read unless option `allowUnclosed` is `true`. Spark holds timestamps in microseconds (as Firestore does): a timestamp with nanoseconds fails the
read unless option `timestampPrecision` is `truncate`, so that no digit is dropped without being asked for. Option
`maxBlockExpansion` is `open_stream`'s `max_block_expansion`, and `maxKeyExpansion` its `max_key_expansion`.

Writing: each task writes one `part-NNNNN-<id>.fpks` file into the output folder, all or nothing; rows are named by
`__name__`, or `<collection>/<task>-<row>` with option `collection`.

In the JVM: the package also carries a Spark connector (`jar_path()`, built when the wheel is built where `javac`
and PySpark are found) that reads the same files with the same options and schemas without Python workers, the
native core filling Spark's columnar batches in place:

    spark = SparkSession.builder.config("spark.jars", firepack.spark.jar_path()).getOrCreate()
    df = spark.read.format("io.firepack.spark").load("exports/*.fpks")
"""
import json
import os
import shutil
import uuid
from dataclasses import dataclass

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceArrowWriter, DataSourceReader, InputPartition, \
    WriterCommitMessage
from pyspark.sql.pandas.types import from_arrow_schema, to_arrow_schema

import firepack
from firepack import _native
from firepack._paths import files as _named_files

DEFAULT_PARTITION_BYTES = 128 * 1024 * 1024


def jar_path():
    """The Spark connector's jar (`io.firepack.spark`, Docs/ARROW.md "Spark"), beside the native library it loads;
    None when this installation was built without one (no `javac` or PySpark at build time)."""
    override = os.environ.get("FIREPACK_SPARK_JAR")
    if override:
        return override
    path = os.path.join(os.path.dirname(os.path.abspath(firepack.__file__)), "lib", "firepack-spark.jar")
    return path if os.path.exists(path) else None


def register(spark):
    """Registers the `firepack` format with `spark`, cutting partitions at the session's
    `spark.sql.files.maxPartitionBytes` (Spark plans Python data sources in worker processes, which do not see the
    session's settings: the value is read here, on the driver, and travels with the registered class)."""
    value = spark.conf.get("spark.sql.files.maxPartitionBytes", None)
    partition_bytes = _bytes(value) if value else DEFAULT_PARTITION_BYTES
    source = type("FirePackDataSource", (FirePackDataSource,), {"partition_bytes": partition_bytes})
    spark.dataSource.register(source)
    return source


def _bytes(text):
    text = str(text).strip().lower()
    for suffix, factor in (("kb", 1 << 10), ("mb", 1 << 20), ("gb", 1 << 30), ("k", 1 << 10), ("m", 1 << 20),
                           ("g", 1 << 30), ("b", 1)):
        if text.endswith(suffix):
            return int(float(text[: -len(suffix)]) * factor)
    return int(text)


def _allows_unclosed(options):
    """The `allowUnclosed` option (`false` | `true`; any case, as Spark lower-cases the keys)."""
    value = next((value for key, value in dict(options).items() if key.lower() == "allowunclosed"), "false")
    value = str(value).lower()
    if value not in ("false", "true"):
        raise firepack.FirePackError(f"option allowUnclosed is 'false' or 'true', not {value!r}")
    return value == "true"


def _expansion(options, name="maxBlockExpansion"):
    """The option `name`, `maxBlockExpansion` or `maxKeyExpansion` (any case: Spark lower-cases the keys it hands a
    reader), or None."""
    value = next((value for key, value in dict(options).items() if key.lower() == name.lower()), None)
    return None if value is None else int(value)


def _files(path):
    """The files `path` names (`firepack._paths.files`)."""
    return _named_files(path)


def _spark_arrow_type(type_):
    """The Arrow type Spark reads for a FirePack column: timestamps in microseconds, fixed-size lists as lists."""
    t = pa.types
    if t.is_timestamp(type_):
        return pa.timestamp("us", tz="UTC")
    if t.is_struct(type_):
        return pa.struct([pa.field(f.name, _spark_arrow_type(f.type)) for f in type_])
    if t.is_fixed_size_list(type_) or t.is_list(type_):
        return pa.list_(pa.field("element", _spark_arrow_type(type_.value_type)))
    return type_


def _spark_arrow_schema(schema):
    return pa.schema([pa.field(f.name, _spark_arrow_type(f.type)) for f in schema])


MARKS_KEY = "firepack"


def _member(path, name):
    """The path of the struct field `name` below `path` in a field's marks, as the native side spells it
    (`FieldPathText`): a name that holds `.`, `[`, `]`, a backquote or a backslash in backquotes, so that the field
    `a.b` and the field `b` of `a` have different paths."""
    return f"{path}.{firepack._path_key(name)}"


def _resolved(marks, field):
    """`marks` of the top-level `field` by the paths `_member` spells; a key written before paths quoted names
    (`.a.b` for the field `a.b`) is read as the one field it names. A key that names no field, or more than one,
    raises: dropped, it would have a reference written back as a plain string."""
    if not marks:
        return marks
    nodes = []

    def visit(type_, path, unquoted):
        nodes.append((path, unquoted))
        if pa.types.is_struct(type_):
            for child in type_:
                visit(child.type, _member(path, child.name), f"{unquoted}.{child.name}")
        elif pa.types.is_list(type_) or pa.types.is_large_list(type_) or pa.types.is_fixed_size_list(type_):
            visit(type_.value_type, f"{path}[]", f"{unquoted}[]")

    visit(field.type, "", "")
    paths = {path for path, _ in nodes}
    resolved = {}
    for key in sorted(marks):
        if key in paths:
            resolved[key] = marks[key]
            continue
        named = [path for path, unquoted in nodes if unquoted == key and path not in marks]
        if len(named) != 1:
            raise firepack.FirePackError(
                f"field {field.name!r}: its Spark metadata marks {key!r}, which names "
                f"{'no field' if not named else 'more than one field'} of it")
        resolved[named[0]] = marks[key]
    return resolved


def _marks(field, path=""):
    """The FirePack marks of `field` and everything inside it, by path below it ("" for itself, ".a", "[]")."""
    found = {}
    if field.metadata:
        found[path] = {key.decode(): value.decode() for key, value in field.metadata.items()
                       if key.startswith(b"firepack.")}
    type_ = field.type
    if pa.types.is_struct(type_):
        for child in type_:
            found.update(_marks(child, _member(path, child.name)))
    elif pa.types.is_list(type_) or pa.types.is_fixed_size_list(type_):
        found.update(_marks(type_.value_field, f"{path}[]"))
    return found


def _with_marks(field, marks, path=""):
    """`field` with the marks `_marks` collected put back (Spark's types have no Arrow metadata)."""
    type_ = field.type
    if pa.types.is_struct(type_):
        type_ = pa.struct([_with_marks(child, marks, _member(path, child.name)) for child in type_])
    elif pa.types.is_list(type_):
        type_ = pa.list_(_with_marks(type_.value_field, marks, f"{path}[]"))
    return pa.field(field.name, type_, metadata=marks.get(path) or None)


def spark_schema(arrow_schema):
    """The Spark schema of a FirePack Arrow schema, each top-level field carrying its FirePack marks in its Spark
    metadata, so that a reader planned from it reads the same FirePack types without inferring again."""
    from pyspark.sql.types import StructField, StructType
    plain = from_arrow_schema(_spark_arrow_schema(arrow_schema))
    fields = []
    for arrow_field, field in zip(arrow_schema, plain.fields):
        marks = _marks(arrow_field)
        fields.append(StructField(field.name, field.dataType, True, {MARKS_KEY: marks} if marks else {}))
    return StructType(fields)


def arrow_schema(spark_schema):
    """The FirePack Arrow schema a Spark schema stands for: its types as FirePack reads them (timestamps in UTC),
    with the marks of `spark_schema(…)` put back."""
    plain = firepack.canonical_schema(to_arrow_schema(spark_schema, timezone="UTC"))
    return pa.schema([_with_marks(arrow_field, _resolved(field.metadata.get(MARKS_KEY, {}), arrow_field))
                      for arrow_field, field in zip(plain, spark_schema.fields)])


# The Spark types a read fills, as the JVM connector reads them (Docs/ARROW.md).
_READ_TYPES = {"LongType", "DoubleType", "BooleanType", "StringType", "BinaryType", "TimestampType", "NullType"}


def _check_readable(schema):
    """Raises, naming the field, when a schema given for reading has a Spark type FirePack has no type for (an int
    would come back a long, which Spark refuses with an error of its own that names neither)."""
    from pyspark.sql.types import ArrayType, StructType

    def visit(type_, path):
        if isinstance(type_, StructType):
            for field in type_.fields:
                visit(field.dataType, firepack._field_path(path, field.name))
        elif isinstance(type_, ArrayType):
            visit(type_.elementType, f"{path}[]")
        elif type(type_).__name__ not in _READ_TYPES:
            raise firepack.FirePackError(
                f"field {path!r}: Spark type {type_.simpleString()} has no FirePack type (long, double, boolean, "
                "string, binary, timestamp, struct, array and void are read: Docs/ARROW.md)")
    visit(schema, "")


class FirePackDataSource(DataSource):
    """`spark.read.format("firepack")` and `df.write.format("firepack")`."""

    #: Partition size when the `maxPartitionBytes` option is not given (`register` sets the session's).
    partition_bytes = DEFAULT_PARTITION_BYTES

    @classmethod
    def name(cls):
        return "firepack"

    def _paths(self):
        patterns = [self.options["path"]] if self.options.get("path") else []
        if self.options.get("paths"):
            # Spark's JSON array of load()'s arguments (load(["a.fpks", "b.fpks"])), as the JVM connector reads it.
            try:
                several = json.loads(self.options["paths"])
            except ValueError:
                several = [self.options["paths"]]
            patterns += several if isinstance(several, list) else [str(several)]
        if not patterns:
            raise firepack.FirePackError("give a path: spark.read.format('firepack').load('exports/*.fpks')")
        return [file for pattern in patterns for file in _files(pattern)]

    def schema(self):
        sample = self.options.get("sample")
        arrow, report = _native.infer_schema(self._paths(), int(sample) if sample else None,
                                             _expansion(self.options), _expansion(self.options, "maxKeyExpansion"))
        # The readers take this schema as given: records inference left out fail the read here unless skipped.
        skips = next((v for k, v in dict(self.options).items() if k.lower() == "ondamage"), "error").lower() == "skip"
        if not skips:
            firepack._check_nothing_rejected(report, "onDamage=skip", "maxKeyExpansion")
        return spark_schema(firepack._check_inferred_width(arrow))

    def reader(self, schema):
        return FirePackSparkReader(self._paths(), schema, self.options, self.partition_bytes)

    def writer(self, schema, overwrite):
        return FirePackSparkWriter(self.options, overwrite, schema)


@dataclass
class FileRange(InputPartition):
    path: str
    offset: int
    length: int


class FirePackSparkReader(DataSourceReader):
    def __init__(self, paths, schema, options, partition_bytes):
        self.paths = paths
        # Spark hands options over with lower-cased keys.
        self.options = {key.lower(): value for key, value in dict(options).items()}
        # The FirePack schema to read with: Spark's, with the marks it carries (no second inference pass).
        _check_readable(schema)
        self.arrow_schema = arrow_schema(schema)
        self.spark_schema = _spark_arrow_schema(self.arrow_schema)
        option = self.options.get("maxpartitionbytes")
        self.partition_bytes = _bytes(option) if option else partition_bytes

    def partitions(self):
        return [FileRange(path, offset, length)
                for path in self.paths for offset, length in firepack.splits(path, self.partition_bytes)]

    def read(self, partition):
        # With no files (an empty folder) Spark still runs one task, with a partition of its own making: no rows.
        if not isinstance(partition, FileRange):
            return
        truncate = self.options.get("timestampprecision", "error") == "truncate"
        reader = firepack.open_stream(partition.path, schema=self.arrow_schema, offset=partition.offset,
                                      length=partition.length,
                                      batch_size=int(self.options.get("batchsize", 65536)),
                                      on_damage=self.options.get("ondamage", "error"),
                                      on_mismatch=self.options.get("onmismatch", "error"),
                                      sampled_schema=bool(self.options.get("sample")),
                                      max_block_expansion=_expansion(self.options),
                                      max_key_expansion=_expansion(self.options, "maxKeyExpansion"),
                                      # Microseconds from the reader, as the JVM connector reads them: a
                                      # timestamp with nanoseconds is a mismatch naming its record (an error, or a
                                      # counted null with onMismatch=null), or with truncate they are dropped
                                      # towards the past (a cast drops them towards zero: before 1970 would become
                                      # 1970).
                                      timestamp_unit="us-truncate" if truncate else "us",
                                      # A stream without a close record fails the job unless allowed: a warning in a
                                      # task's log would go unseen while its rows went missing.
                                      on_unclosed="warn" if _allows_unclosed(self.options) else "error")
        for batch in reader:
            try:
                yield batch.cast(self.spark_schema)
            except pa.ArrowInvalid as error:
                # The advice only where it applies: a timestamp whose nanoseconds the cast would drop.
                advice = ("; Spark holds timestamps in microseconds: read with .option('timestampPrecision', "
                          "'truncate') to drop the nanoseconds") if "timestamp" in str(error).lower() else ""
                raise firepack.FirePackError(f"{partition.path}: {error}{advice}") from None


@dataclass
class WrittenFiles(WriterCommitMessage):
    paths: list


class FirePackSparkWriter(DataSourceArrowWriter):
    def __init__(self, options, overwrite, schema=None):
        self.folder = options.get("path")
        if not self.folder:
            raise firepack.FirePackError("give an output folder: df.write.format('firepack').save('out/')")
        self.collection = options.get("collection")
        self.overwrite = overwrite
        self.job = uuid.uuid4().hex[:12]
        # The FirePack types the DataFrame's columns stand for, their marks read back from Spark's field metadata
        # (`spark_schema`): Spark's own batches carry none, and would write a reference as a string, a geopoint as
        # a map, a vector as an array, JSON text as a string.
        self.target = arrow_schema(schema) if schema is not None else None
        # Made here, on the driver, once: a task never makes it. A task still running when a failed job is aborted
        # (Spark cancels the others, but a Python worker stops when it stops) would otherwise make it again after
        # `abort` removed it, and leave it behind with its part.
        os.makedirs(self.staging, exist_ok=True)

    @property
    def staging(self):
        """Where this job's tasks write their parts until `commit` moves them into the folder: readers of the folder
        never see a job's partial output, and a job that dies leaves nothing among its files."""
        return os.path.join(self.folder, "_temporary", self.job)

    def write(self, iterator):
        from pyspark import TaskContext
        context = TaskContext.get()
        task = context.partitionId() if context else 0
        if not os.path.isdir(self.staging):
            raise firepack.FirePackError(f"{self.folder}: the write was aborted (its staging folder is gone)")
        # One name per partition: a retried or speculative attempt replaces the file whole (write_table is atomic).
        path = os.path.join(self.staging, f"part-{task:05d}-{self.job}.fpks")
        batches = iter(iterator)
        first = next(batches, None)
        if first is None:
            return WrittenFiles([])

        def chained():
            yield first
            yield from batches

        schema, source = first.schema, chained()
        if self.target is not None and self.target.names == first.schema.names:
            schema, types = self.target, pa.schema([field.remove_metadata() for field in self.target])
            source = (pa.RecordBatch.from_arrays(batch.cast(types).columns, schema=schema) for batch in source)
        # Rows without a `__name__` are named in the collection, by job, task and row: unique across tasks.
        firepack.write_table(pa.RecordBatchReader.from_batches(schema, source), path, collection=self.collection,
                             id_prefix="" if self.collection is None else f"{self.job}-{task}-")
        return WrittenFiles([path])

    def commit(self, messages):
        # What an overwrite replaces, listed before the new parts arrive: every file a later load(folder) would read,
        # not only this writer's kind. A folder of such a name (another job's output saved there) is not a file, and
        # is left as it is.
        old = []
        if self.overwrite:
            old = [path for path in (os.path.join(self.folder, name) for name in os.listdir(self.folder)
                                     if name.endswith((".fpks", ".fpks.gz", ".fpk")))
                   if os.path.islink(path) or not os.path.isdir(path)]
        # The parts of the tasks that succeeded, each moved in by a rename (on the folder's file system: atomic), all
        # of them before anything old is removed: a failure on the way leaves the old files as they were, and the job
        # failed (its parts are removed with its staging folder).
        self._move_in([path for message in messages for path in (message.paths if message else [])])
        self._remove_staging()
        left = []
        for path in old:
            try:
                os.remove(path)
            except FileNotFoundError:
                pass
            except OSError as error:
                left.append(f"{path} ({error.strerror})")
        if left:
            raise firepack.FirePackError(
                f"the new parts are in {self.folder}, but the overwrite could not remove {len(left)} old file(s), "
                f"which load(folder) reads with them: {', '.join(left[:5])}")

    def abort(self, messages):
        self._remove_staging()

    def _move_in(self, parts):
        """Moves the staged parts into the folder, all or none: when one rename fails, the parts already moved go back
        to the staging folder, so that the folder holds what it held before the job (a later load(folder) reads
        neither half of a failed job beside the old files). Only a crash during the moves can leave some in."""
        moved = []
        for part in parts:
            target = os.path.join(self.folder, os.path.basename(part))
            try:
                os.replace(part, target)
            except OSError as error:
                stuck = []
                for staged, placed in reversed(moved):
                    try:
                        os.replace(placed, staged)
                    except OSError as undo:
                        stuck.append(f"{placed} ({undo.strerror})")
                self._remove_staging()
                cause = f"{self.folder}: the job was not committed: moving in {target} failed ({error.strerror})"
                if stuck:
                    raise firepack.FirePackError(
                        f"{cause}, and {len(stuck)} part(s) moved in before could not be taken out again, which "
                        f"load(folder) reads with the folder's other files: {', '.join(stuck[:5])}") from error
                raise firepack.FirePackError(f"{cause}; the folder is as it was") from error
            moved.append((part, target))

    def _remove_staging(self):
        shutil.rmtree(self.staging, ignore_errors=True)
        try:
            os.rmdir(os.path.dirname(self.staging))   # `_temporary`, when no other job writes there
        except OSError:
            pass
