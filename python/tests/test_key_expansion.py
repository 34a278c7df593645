"""A stream whose record's key references stand for more than the readers' limit (Docs/FORMAT.md §3, a FirePack writer
before 2026-12-05 could write it): the Python reader, inference and reading alike, refuses that record as past a
limit (`limitExceeded`: an error, or with on_damage="skip" a record skipped and reported), never reads it as a row
without the field inference left out, and reads it when allowed that much; the planners (both Spark readers, the Ray
source) refuse it when they infer their schema unless told to skip damage, and `python -m firepack` and all of them
take the same option."""
import os
import subprocess
import sys
import warnings

import pytest

import firepack
from firepack.spark import jar_path
from stream_surgery import long_key_references


@pytest.fixture
def old_stream(folder):
    data, long_key, needed = long_key_references()
    path = folder / "long-keys.fpks"
    path.write_bytes(data)
    return path, long_key, needed


def test_refused_by_inference_and_reading_alike(old_stream):
    path, _, _ = old_stream
    with pytest.raises(firepack.FirePackError, match=r"record 1 .*maxKeyExpansion.*read it with a larger max_key_expansion"):
        firepack.read_table(path)
    problems = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = firepack.read_table(path, on_damage="skip", problems=problems)
    # The record inference left out is left out of the rows too, and said: not a row without its field `m`.
    assert table.column_names == ["__name__", "a"]
    assert table.column("__name__").to_pylist() == ["c/0", "c/2"]
    assert [(problem["record"], problem["code"]) for problem in problems] == [(1, "limitExceeded")]
    assert any("damaged record(s) skipped" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert firepack.schema_report(path)["problems"] == 1
    with pytest.raises(ValueError):
        firepack.read_table(path, max_key_expansion=0)


def test_read_and_inferred_when_allowed(old_stream):
    path, long_key, needed = old_stream
    table = firepack.read_table(path, max_key_expansion=needed)
    assert table.column("__name__").to_pylist() == ["c/0", "c/1", "c/2"]
    maps = table.column("m").to_pylist()[1]
    assert len(maps) == 400 and maps[5] == {long_key: 5}
    assert "m" in firepack.infer_schema(path, max_key_expansion=needed).names
    assert firepack.schema_report(path, max_key_expansion=needed)["problems"] == 0
    # Half as much is not enough.
    with pytest.raises(firepack.FirePackError, match="maxKeyExpansion"):
        firepack.read_table(path, max_key_expansion=needed // 2)


def test_the_command_line_takes_the_option(old_stream, folder):
    path, _, needed = old_stream
    refused = subprocess.run([sys.executable, "-m", "firepack", "schema", str(path)], capture_output=True, text=True)
    assert refused.returncode != 0 and "1 problem(s)" in refused.stderr, refused.stderr
    allowed = subprocess.run([sys.executable, "-m", "firepack", "schema", str(path), "--max-key-expansion",
                              str(needed)], capture_output=True, text=True)
    assert allowed.returncode == 0 and "3 documents" in allowed.stdout, allowed.stderr
    target = folder / "long-keys.parquet"
    subprocess.run([sys.executable, "-m", "firepack", "convert", str(path), str(target), "--max-key-expansion",
                    str(needed)], check=True, capture_output=True)
    import pyarrow.parquet as pq
    assert pq.read_table(target).num_rows == 3


def test_both_spark_readers_take_the_option(spark, old_stream):
    path, _, needed = old_stream
    if not jar_path() and os.environ.get("FIREPACK_REQUIRE_SPARK_CONNECTOR"):
        pytest.fail("the wheel was built without the Spark connector")
    readers = ["firepack"] + (["io.firepack.spark"] if jar_path() else [])
    for source in readers:
        # The planner infers the schema and hands it to readers that read of a record what it names: the record that
        # inference left out (its `m` unread, no column for it) fails the read there, saying how to read it, rather
        # than become a row without `m`.
        with pytest.raises(Exception, match=r"1 record\(s\) are not documents .*record 1 .*onDamage=skip.*"
                                            r"raise the key-expansion limit with maxKeyExpansion \(1 are past it\)"):
            spark.read.format(source).load(str(path))
        frame = spark.read.format(source).option("maxKeyExpansion", str(needed)).load(str(path))
        assert "m" in frame.columns, source
        assert sorted(row["__name__"] for row in frame.select("__name__").collect()) == ["c/0", "c/1", "c/2"], source

