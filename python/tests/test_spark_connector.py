"""The Spark connector (`io.firepack.spark`, java/): Spark's JVM reads FirePack through the native core, with no
Python worker, in a real local Spark session. It must read exactly what the Python data source and
`firepack.read_table` read: the same schema (marks included), the same rows, every record once across partitions
that cut records, and the same errors."""
import math
import os

import pyarrow as pa
import subprocess

import pytest

import firepack
from firepack.spark import jar_path
from stream_surgery import block_frames, without_blocks

pytest.importorskip("pyspark")

if not jar_path():
    if os.environ.get("FIREPACK_REQUIRE_SPARK_CONNECTOR"):
        raise RuntimeError("the wheel was built without the Spark connector (firepack/lib/firepack-spark.jar)")
    pytest.skip("this installation has no Spark connector (built without javac or PySpark)", allow_module_level=True)

FORMAT = "io.firepack.spark"


def connector(spark, **options):
    reader = spark.read.format(FORMAT).option("timestampPrecision", "truncate")
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader


def test_the_connector_reads_every_record_once_as_the_python_source_does(spark, events, orders):
    frame = connector(spark, maxPartitionBytes=40_000).load(str(events))
    size = os.path.getsize(events)
    # Equal ranges of at most the split size, as many as a multiple of the cores, every one cutting records.
    cores = spark.sparkContext.defaultParallelism
    assert frame.rdd.getNumPartitions() == math.ceil(math.ceil(size / 40_000) / cores) * cores
    python = spark.read.format("firepack").option("timestampPrecision", "truncate").load(str(events))
    # One schema (FirePack's marks in the field metadata included), either reader planning from either's.
    assert frame.schema == python.schema
    assert frame.schema["__name__"].metadata == {"firepack": {"": {"firepack.type": "reference"}}}
    ours, theirs = frame.collect(), python.collect()
    names = [row["__name__"] for row in ours]
    assert len(names) == len(set(names)) == firepack.read_table(events).num_rows
    assert sorted(map(repr, ours)) == sorted(map(repr, theirs))
    # Two files by glob; the union of their fields.
    both = connector(spark).load(str(events.parent / "*-3000.fpks"))
    assert set(both.columns) >= {"__name__", "type", "side", "price"}
    assert both.count() == firepack.read_table(events).num_rows + firepack.read_table(orders).num_rows


def test_both_readers_drop_nanoseconds_towards_the_past(spark, tmp_path):
    # One nanosecond before 1970 is 1969-12-31T23:59:59.999999 in microseconds, not 1970 (a cast would round it
    # towards zero): the Python data source and the connector read the same moments.
    path = tmp_path / "before-1970.fpks"
    nanoseconds = [-1, -1_000, -1_001, 1_999, -86_400_000_000_001]
    firepack.write_table(pa.table({"__name__": [f"c/{i}" for i in range(len(nanoseconds))],
                                   "t": pa.array(nanoseconds, pa.timestamp("ns", tz="UTC")),
                                   "m": pa.array([{"t": n} for n in nanoseconds],
                                                 pa.struct([("t", pa.timestamp("ns", tz="UTC"))]))}), path)
    expected = [n // 1_000 for n in nanoseconds]
    for format_ in ["firepack", FORMAT]:
        frame = spark.read.format(format_).option("timestampPrecision", "truncate").load(str(path))
        rows = frame.selectExpr("__name__", "unix_micros(t) AS t", "unix_micros(m.t) AS mt").collect()
        got = {row["__name__"]: (row["t"], row["mt"]) for row in rows}
        assert [got[f"c/{i}"] for i in range(len(nanoseconds))] == list(zip(expected, expected)), format_
    table = firepack.open_stream(path, timestamp_unit="us-truncate").read_all()
    assert table.column("t").cast(pa.int64()).to_pylist() == expected


def test_both_readers_treat_nanoseconds_alike_without_truncate(spark, tmp_path):
    # Microseconds by default in both: a timestamp with nanoseconds is an error naming its record, or with
    # onMismatch=null a null (the same rows from either reader, not a failed task from one of them).
    path = tmp_path / "nanoseconds.fpks"
    nanoseconds = [1_000, 1_001, 2_000_000]
    firepack.write_table(pa.table({"__name__": [f"c/{i}" for i in range(3)],
                                   "t": pa.array(nanoseconds, pa.timestamp("ns", tz="UTC"))}), path)
    rows = {}
    for format_ in ["firepack", FORMAT]:
        with pytest.raises(Exception, match="record 1 at byte"):
            spark.read.format(format_).load(str(path)).collect()
        frame = spark.read.format(format_).option("onMismatch", "null").load(str(path))
        rows[format_] = sorted((row["__name__"], row["t"]) for row in frame.selectExpr("__name__", "unix_micros(t) AS t").collect())
    assert rows["firepack"] == rows[FORMAT] == [("c/0", 1), ("c/1", None), ("c/2", 2_000)]
    table = firepack.open_stream(path, timestamp_unit="us", on_mismatch="null").read_all()
    assert table.column("t").cast(pa.int64()).to_pylist() == [1, None, 2_000]


def test_a_sampled_schema_holds_in_a_query_of_some_columns(spark, tmp_path):
    # The sample (20 records) never saw m.y; the record after it has one. Reading m, whole or by a query that selects
    # it, is an error in both readers, never m without its y; a query that reads only n skips m in the connector.
    path = tmp_path / "late-nested.fpks"
    rows = [{"__name__": f"c/{i}", "m": {"x": i}, "n": i} for i in range(20)]
    rows.append({"__name__": "c/late", "m": {"x": 1, "y": "new"}, "n": 20})
    firepack.write_table(pa.Table.from_pylist(rows), path)
    for format_ in ["firepack", FORMAT]:
        frame = spark.read.format(format_).option("sample", 20).load(str(path))
        assert "y" not in frame.schema["m"].dataType.fieldNames()
        for query in (frame, frame.select("m"), frame.select("m.x")):
            with pytest.raises(Exception, match="not in the schema"):
                query.collect()
    only_n = connector(spark, sample=20).load(str(path)).select("n").collect()
    assert sorted(row["n"] for row in only_n) == list(range(21))


def test_the_connector_reads_only_the_columns_asked_for(spark, events):
    expected = firepack.read_table(events, columns=["__name__", "repo", "embedding", "location"])
    frame = connector(spark, maxPartitionBytes=100_000).load(str(events))
    plan = frame.select("__name__", "repo.name", "embedding", "location")._jdf.queryExecution().executedPlan().toString()
    assert "FirePack" in plan and "signature" not in plan.split("columns", 1)[-1]
    rows = {row["__name__"]: row for row in frame.select("__name__", "repo.name", "embedding", "location").collect()}
    assert len(rows) == expected.num_rows
    for source in expected.to_pylist()[::37]:
        row = rows[source["__name__"]]
        assert row["name"] == source["repo"]["name"]
        assert row["embedding"] == (list(source["embedding"]) if source["embedding"] is not None else None)
        assert (row["location"].asDict() if row["location"] else None) == source["location"]
    assert frame.count() == expected.num_rows
    assert frame.where("type = 'PushEvent'").count() == sum(1 for t in firepack.read_table(events, columns=["type"])
                                                           .column("type").to_pylist() if t == "PushEvent")


def test_a_query_of_a_field_inside_a_marked_column_reads_it_whole(spark, tmp_path, firepack_tool):
    # Spark narrows `g` to struct<latitude> for `g.latitude`, and the narrowed field has no marks: the connector
    # reads a marked column whole (a geopoint, the `value` elements of `m.z`), as the Python data source does.
    lines = tmp_path / "nested.jsonl"
    lines.write_text('{"__name__":"c/a","g":{"__geopoint__":[1.5,2.5]},"m":{"z":[1,"a"],"k":1}}\n'
                     '{"__name__":"c/b","g":{"__geopoint__":[0.5,3.5]},"m":{"z":[true],"k":2},"r":{"s":"x"}}\n')
    path = tmp_path / "nested.fpks"
    subprocess.run([firepack_tool, "convert", str(lines), str(path), "--quiet"], check=True)
    queries = [lambda frame: frame.select("__name__", "g.latitude"),
               lambda frame: frame.where("g.latitude > 1").select("__name__"),
               lambda frame: frame.select("__name__", "m.z"),
               lambda frame: frame.select("__name__", "m.k", "r.s")]
    for query in queries:
        ours = sorted(map(repr, query(connector(spark).load(str(path))).collect()))
        theirs = sorted(map(repr, query(spark.read.format("firepack").load(str(path))).collect()))
        assert ours == theirs and ours, (ours, theirs)
    assert [row["latitude"] for row in queries[0](connector(spark).load(str(path))).orderBy("__name__").collect()] == [
        1.5, 0.5]


def test_timestamps_are_microseconds_and_nanoseconds_are_never_dropped_unasked(spark, events):
    with pytest.raises(Exception, match=r"record \d+ at byte \d+.*createdAt.*nanoseconds.*timestampPrecision"):
        spark.read.format(FORMAT).load(str(events)).select("createdAt").collect()
    frame = connector(spark).load(str(events)).select("__name__", "createdAt")
    got = {row["__name__"]: row["createdAt"] for row in frame.collect()}
    source = firepack.read_table(events, columns=["__name__", "createdAt"])
    nanoseconds = source.column("createdAt").cast(pa.int64()).to_pylist()
    micro = pa.array([None if v is None else v // 1000 for v in nanoseconds], pa.int64()).cast(pa.timestamp("us", tz="UTC"))
    expected = dict(zip(source.column("__name__").to_pylist(), micro.to_pylist()))
    assert {name: value.astimezone(expected[name].tzinfo) if value else None for name, value in got.items()} == expected


def test_damaged_records_fail_the_read_or_are_skipped_and_counted(spark, events, folder, firepack_tool):
    # Blocks of 16 KiB (a few dozen records each): a flipped byte costs its block's records, which the connector
    # and the Python reader must count alike.
    stream = folder / "small-blocks.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(stream), "--block-size", "16384"],
                   check=True, capture_output=True)
    data = bytearray(stream.read_bytes())
    size = len(data)
    for position in (size // 3, 2 * size // 3):
        data[position] ^= 0xFF
    damaged = folder / "damaged.fpks"
    damaged.write_bytes(bytes(data))
    schema = connector(spark).load(str(events)).schema
    with pytest.raises(Exception, match=r"damaged\.fpks.*record \d+.*byte \d+"):
        connector(spark, maxPartitionBytes=300_000).schema(schema).load(str(damaged)).count()
    skipped = connector(spark, maxPartitionBytes=300_000, onDamage="skip").schema(schema).load(str(damaged))
    problems = []
    expected = firepack.read_table(damaged, on_damage="skip", problems=problems)
    assert len(problems) == 2
    total = firepack.read_table(events).num_rows
    assert skipped.count() == expected.num_rows
    assert total - 2 * 200 < expected.num_rows < total - 2


def test_blocks_cut_out_cleanly_fail_the_read_or_are_skipped_and_counted(spark, events, folder, firepack_tool):
    # No block is damaged; two gaps in the blocks' numbering say records are gone. Spark reads only by splits, so
    # the split that read the block before each gap must say so.
    stream = folder / "small-blocks.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(stream), "--block-size", "16384"],
                   check=True, capture_output=True)
    data = stream.read_bytes()
    blocks = len(block_frames(data))
    cut = folder / "cut.fpks"
    cut.write_bytes(without_blocks(data, {blocks // 3, 2 * blocks // 3}))
    schema = connector(spark).load(str(events)).schema
    with pytest.raises(Exception, match=r"cut\.fpks.*record \d+.*byte \d+.*missing"):
        connector(spark, maxPartitionBytes=300_000).schema(schema).load(str(cut)).count()
    problems = []
    expected = firepack.read_table(cut, on_damage="skip", problems=problems)
    assert [p["code"] for p in problems] == ["missingRecords"] * 2
    skipped = connector(spark, maxPartitionBytes=300_000, onDamage="skip").schema(schema).load(str(cut))
    assert skipped.count() == expected.num_rows < firepack.read_table(events).num_rows


def test_schemas_the_connector_cannot_read_are_clear_errors(spark, events, folder):
    from pyspark.sql.types import IntegerType, StructField, StructType
    with pytest.raises(Exception, match=r"field \"repo\".*Spark type integer has no FirePack type"):
        spark.read.format(FORMAT).schema(StructType([StructField("repo", IntegerType())])).load(str(events)).collect()
    with pytest.raises(Exception, match="no file matches"):
        spark.read.format(FORMAT).load(str(folder / "absent-*.fpks")).collect()
    not_a_stream = folder / "text.fpks"
    not_a_stream.write_text("not FirePack\n")
    with pytest.raises(Exception, match="text.fpks"):
        spark.read.format(FORMAT).load(str(not_a_stream)).collect()


PROBE = """
public class Probe {
    public static void main(String[] arguments) {
        try {
            Class.forName("io.firepack.spark.FirePackNative");
            System.out.println("loaded");
        } catch (Throwable error) {
            System.out.println(error);
        }
    }
}
"""

# A library as another build of the connector's native side would be: the entry points `version` and `freeString`.
OTHER_INTERFACE = """
#include <stdlib.h>
#include <string.h>
long Java_io_firepack_spark_FirePackNative_version(void *env, void *cls) { return (long) strdup("FirePackArrow 1 (x)"); }
void Java_io_firepack_spark_FirePackNative_freeString(void *env, void *cls, long text) { free((void *) text); }
"""


def test_the_connector_refuses_a_library_of_another_interface_when_it_loads(folder):
    """A stale `firepack.native.library` would be called with arguments it reads otherwise (one more since
    FirePackArrow 3): the class refuses it on load, naming it, whether it says another version or none."""
    import shutil
    import pyspark
    from firepack import _native
    javac, java, cc = shutil.which("javac"), shutil.which("java"), shutil.which("cc") or shutil.which("clang")
    if not (javac and java and cc):
        if os.environ.get("FIREPACK_REQUIRE_SPARK_CONNECTOR"):
            raise RuntimeError("checking the connector's library needs javac, java and a C compiler")
        pytest.skip("javac, java or a C compiler is missing")
    (folder / "Probe.java").write_text(PROBE)
    subprocess.run([javac, "-d", str(folder), str(folder / "Probe.java")], check=True)
    (folder / "other.c").write_text(OTHER_INTERFACE)
    other = folder / "libother.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(other), str(folder / "other.c")], check=True)
    spark_jars = os.path.join(os.path.dirname(pyspark.__file__), "jars", "*")

    def load(library):
        environment = {key: value for key, value in os.environ.items() if key != "FIREPACK_NATIVE_LIB"}
        result = subprocess.run(
            [java, f"-Dfirepack.native.library={library}", "-cp",
             os.pathsep.join([str(folder), jar_path(), spark_jars]), "Probe"],
            capture_output=True, text=True, env=environment, timeout=120)
        assert result.returncode == 0, result.stderr
        return result.stdout.strip()

    assert load(_native._library_path()) == "loaded"
    refused = load(other)
    assert refused.startswith("java.lang.UnsatisfiedLinkError: ") and str(other) in refused
    assert "'FirePackArrow 1 (x)', not the FirePackArrow 3 interface" in refused
    # A library from before the check: no `version` entry point.
    (folder / "older.c").write_text(OTHER_INTERFACE.split("long Java_")[0]
                                    + "void Java_io_firepack_spark_FirePackNative_close(void *env, void *cls, long h) {}\n")
    older = folder / "libolder.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(older), str(folder / "older.c")], check=True)
    refused = load(older)
    assert refused.startswith("java.lang.UnsatisfiedLinkError: ") and str(older) in refused
    assert "has no version entry point" in refused


def test_a_stream_without_a_close_record_fails_both_readers_unless_allowed(spark, events, folder, firepack_tool):
    # Cut at a block boundary (a crashed writer, an interrupted copy): every block checks out, and only the missing
    # close record tells that records may be gone. A warning in a task's log would go unseen while the count came
    # out short, so both readers fail the read, naming the file, unless told to read what the stream holds.
    stream = folder / "unclosed-blocks.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(stream), "--block-size", "16384"],
                   check=True, capture_output=True)
    data = stream.read_bytes()
    cut = folder / "unclosed.fpks"
    cut.write_bytes(data[:block_frames(data)[3][0]])
    held = firepack.read_table(cut).num_rows
    assert 0 < held < firepack.read_table(events).num_rows
    schema = connector(spark).load(str(events)).schema
    python = spark.read.format("firepack").option("timestampPrecision", "truncate")
    for reader in [connector(spark, maxPartitionBytes=20_000), python.option("maxPartitionBytes", 20_000)]:
        with pytest.raises(Exception, match=r"unclosed\.fpks.*without a close record"):
            reader.schema(schema).load(str(cut)).count()
        assert reader.option("allowUnclosed", "true").schema(schema).load(str(cut)).count() == held
    # A closed stream, cut into ranges that start inside its close record too, reads as it did.
    assert connector(spark, maxPartitionBytes=20_000).schema(schema).load(str(stream)).count() \
        == firepack.read_table(events).num_rows
