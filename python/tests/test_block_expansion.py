"""A stream written before the expansion rule (Docs/FORMAT.md §8, "Expansion"): every Python reader refuses its
block as past a limit, not as damage, says the value that reads it, and reads it when allowed that much; the
Spark readers (the Python data source and the JVM connector) and `python -m firepack` take the same option."""
import os
import subprocess
import sys
import warnings

import pyarrow.parquet as pq
import pytest

import firepack
from firepack.spark import jar_path
from stream_surgery import before_the_expansion_rule


@pytest.fixture
def old_stream(folder):
    data, needed = before_the_expansion_rule()
    path = folder / "old.fpks"
    path.write_bytes(data)
    return path, needed


def test_refused_as_a_limit_with_the_value_that_reads_it(old_stream):
    path, needed = old_stream
    assert needed > 1024
    with pytest.raises(firepack.FirePackError,
                       match=f"block-expansion limit.*at least {needed}\\).*max_block_expansion={needed} or more"):
        firepack.read_table(path)
    problems = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = firepack.read_table(path, on_damage="skip", problems=problems)
    assert table.column("__name__").to_pylist() == ["books/small"]
    assert [problem["code"] for problem in problems] == ["limitExceeded"]
    messages = [str(w.message) for w in caught]
    assert any(f"not as damage: read them with max_block_expansion={needed} or more" in m for m in messages), messages
    assert not any("damaged record(s) skipped" in m for m in messages), messages
    # One less than it says is not enough.
    with pytest.raises(firepack.FirePackError, match="block-expansion limit"):
        firepack.read_table(path, max_block_expansion=needed - 1)
    with pytest.raises(ValueError):
        firepack.read_table(path, max_block_expansion=0)


def test_read_and_inferred_when_allowed(old_stream):
    path, needed = old_stream
    table = firepack.read_table(path, max_block_expansion=needed)
    assert table.column("__name__").to_pylist() == ["books/small", "books/long"]
    assert table.column("text").to_pylist() == [None, "a" * 2_000_000]
    assert "text" in firepack.infer_schema(path, max_block_expansion=needed).names
    assert firepack.schema_report(path)["documents"] == 1
    assert firepack.schema_report(path, max_block_expansion=needed)["documents"] == 2
    # By record number (no index here: read up to it).
    numbered = firepack.read_table(path, records=range(1, 2), max_block_expansion=needed)
    assert numbered.column("__name__").to_pylist() == ["books/long"]


def test_the_command_line_takes_the_option(old_stream, folder):
    path, needed = old_stream
    target = folder / "old.parquet"
    refused = subprocess.run([sys.executable, "-m", "firepack", "convert", str(path), str(target)],
                             capture_output=True, text=True)
    assert refused.returncode != 0 and "block-expansion limit" in refused.stderr and not target.exists()
    subprocess.run([sys.executable, "-m", "firepack", "convert", str(path), str(target),
                    "--max-block-expansion", str(needed)], check=True, capture_output=True)
    assert pq.read_table(target).num_rows == 2


def test_both_spark_readers_take_the_option(spark, old_stream):
    path, needed = old_stream
    if not jar_path() and os.environ.get("FIREPACK_REQUIRE_SPARK_CONNECTOR"):
        pytest.fail("the wheel was built without the Spark connector")
    readers = ["firepack"] + (["io.firepack.spark"] if jar_path() else [])
    for source in readers:
        with pytest.raises(Exception, match="block-expansion limit"):
            spark.read.format(source).load(str(path)).count()
        frame = spark.read.format(source).option("maxBlockExpansion", str(needed)).load(str(path))
        names = sorted(row["__name__"] for row in frame.select("__name__").collect())
        assert names == ["books/long", "books/small"], source
