"""Apache Spark 4 in local mode, for real: the Python data source reads byte-range partitions small enough to cut
records, and writes part files that read back as the same documents."""
import os
import subprocess
import sys

import pytest

import firepack

pyspark = pytest.importorskip("pyspark")


def test_spark_reads_every_record_once_across_cut_partitions(spark, events, orders):
    # The generated timestamps have nanoseconds, which Spark cannot hold: refused unless asked for.
    with pytest.raises(Exception, match="timestampPrecision"):
        spark.read.format("firepack").load(str(events)).select("createdAt").collect()
    frame = (spark.read.format("firepack").option("maxPartitionBytes", 40_000)
             .option("timestampPrecision", "truncate").load(str(events)))
    assert frame.rdd.getNumPartitions() > 10   # partitions that cut records
    expected = firepack.read_table(events)
    assert frame.count() == expected.num_rows
    names = [row["__name__"] for row in frame.select("__name__").collect()]
    assert len(names) == len(set(names)) == expected.num_rows
    rows = {row["__name__"]: row for row in frame.select("__name__", "repo", "public", "labels", "signature").collect()}
    for source in expected.select(["__name__", "repo", "public", "labels", "signature"]).to_pylist()[::97]:
        row = rows[source["__name__"]]
        assert row["repo"].asDict() == source["repo"]
        assert row["public"] == source["public"] and row["labels"] == source["labels"]
        assert bytes(row["signature"]) == source["signature"]
    # Two files by glob, read together.
    both = spark.read.format("firepack").option("timestampPrecision", "truncate").load(str(events.parent / "*-3000.fpks"))
    assert set(both.columns) >= {"__name__", "type", "side", "price"}
    assert both.count() == expected.num_rows + firepack.read_table(orders).num_rows
    # Two files by name, as load() takes a list (Spark passes them as a JSON array).
    listed = spark.read.format("firepack").option("timestampPrecision", "truncate").load([str(events), str(orders)])
    assert listed.count() == both.count()


def test_a_comma_is_part_of_a_path_for_both_spark_readers(spark, events, tmp_path):
    # As in Spark's own file sources: a file named "a,b" is one file (it was split into "a" and "b"), and several
    # files go to load() as a list, names with quotes and commas included.
    import shutil
    from firepack.spark import jar_path
    named = tmp_path / 'events,"2026".fpks'
    shutil.copyfile(events, named)
    rows = firepack.read_table(events).num_rows
    formats = ["firepack"] + (["io.firepack.spark"] if jar_path() else [])
    for format_ in formats:
        reader = spark.read.format(format_).option("timestampPrecision", "truncate")
        assert reader.load(str(named)).count() == rows, format_
        assert reader.load([str(named), str(events)]).count() == 2 * rows, format_
        with pytest.raises(Exception, match="no file matches|does not exist|No such file"):
            reader.load(str(events) + "," + str(named)).count()


def test_an_empty_folder_is_no_rows_for_both_spark_readers(spark, tmp_path):
    from firepack.spark import jar_path
    empty = tmp_path / "empty"
    empty.mkdir()
    for format_ in ["firepack"] + (["io.firepack.spark"] if jar_path() else []):
        assert spark.read.format(format_).load(str(empty)).count() == 0, format_


def test_a_folder_with_files_in_subfolders_is_refused_not_read_in_part(spark, tmp_path, events):
    """A folder's subfolders are not read: one holding FirePack files (a partitioned layout, `date=…/`) makes reading
    the folder an error naming it, for both Spark readers and Ray's source, rather than leave those files out; hidden
    folders (a writer's `_temporary`) are passed over, and a glob reads the subfolders' files."""
    import shutil
    from firepack import _paths
    from firepack.spark import jar_path
    folder = tmp_path / "nested"
    (folder / "_temporary" / "0").mkdir(parents=True)
    shutil.copyfile(events, folder / "top.fpks")
    shutil.copyfile(events, folder / "_temporary" / "0" / "staged.fpks")
    rows = firepack.read_table(events).num_rows
    formats = ["firepack"] + (["io.firepack.spark"] if jar_path() else [])
    for format_ in formats:
        reader = spark.read.format(format_).option("timestampPrecision", "truncate")
        assert reader.load(str(folder)).count() == rows, format_
    (folder / "date=2026-12-01").mkdir()
    shutil.copyfile(events, folder / "date=2026-12-01" / "part.fpks")
    for format_ in formats:
        reader = spark.read.format(format_).option("timestampPrecision", "truncate")
        with pytest.raises(Exception, match="holds FirePack files in subfolders .*date=2026-12-01.*part.fpks"):
            reader.load(str(folder)).count()
        assert reader.load(str(folder / "*" / "*.fpks")).count() == rows, format_
        assert reader.load(str(folder / "*.fpks")).count() == rows, format_
    with pytest.raises(firepack.FirePackError, match="holds FirePack files in subfolders"):
        _paths.files(folder)


def test_spark_partition_size_follows_the_session_setting(spark, events):
    spark.conf.set("spark.sql.files.maxPartitionBytes", "100000")
    try:
        from firepack.spark import register
        register(spark)
        frame = spark.read.format("firepack").option("timestampPrecision", "truncate").load(str(events))
        size = os.path.getsize(events)
        assert frame.rdd.getNumPartitions() == -(-size // 100_000)
        assert frame.count() == firepack.read_table(events).num_rows
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
        from firepack.spark import FirePackDataSource
        spark.dataSource.register(FirePackDataSource)


def test_spark_writes_documents(spark, orders, tmp_path, firepack_tool):
    # Read in 16 KiB blocks, so that each 200,000-byte partition holds blocks: one part file per task that has rows.
    source = tmp_path / "orders-small-blocks.fpks"
    subprocess.run([firepack_tool, "convert", str(orders), str(source), "--block-size", "16384"],
                   check=True, capture_output=True)
    frame = (spark.read.format("firepack").option("maxPartitionBytes", 200_000)
             .option("timestampPrecision", "truncate").load(str(source)))
    output = tmp_path / "out"
    frame.select("__name__", "side", "price", "placedAt").write.format("firepack").mode("overwrite").save(str(output))
    parts = sorted(output.glob("part-*.fpks"))
    assert not (output / "_temporary").exists()   # the parts were staged there, then moved in at commit
    rows_per_task = frame.rdd.mapPartitions(lambda rows: [sum(1 for _ in rows)]).collect()
    assert len(parts) == sum(1 for rows in rows_per_task if rows) and len(parts) > 1
    import pyarrow as pa
    back = pa.concat_tables([firepack.read_table(part) for part in parts if os.path.getsize(part) > 0])
    expected = firepack.read_table(orders, columns=["__name__", "side", "price", "placedAt"])
    assert sorted(back.column("__name__").to_pylist()) == sorted(expected.column("__name__").to_pylist())
    by_name = {row["__name__"]: row for row in back.to_pylist()}
    for row in expected.to_pylist()[::50]:
        written = by_name[row["__name__"]]
        assert written["price"] == row["price"] and written["side"] == row["side"]
    # Spark keeps microseconds (asked for with timestampPrecision=truncate): the nanoseconds below are all that differ.
    def nanoseconds(table):
        return dict(zip(table.column("__name__").to_pylist(), table.column("placedAt").cast(pa.int64()).to_pylist()))
    written, source = nanoseconds(back), nanoseconds(expected)
    assert all(written[name] == value - value % 1000 for name, value in source.items())


def test_spark_writes_back_the_firepack_types_it_read(spark, events, tmp_path):
    # References, geopoints, vectors and fields kept as JSON text are Spark strings, structs and arrays; their marks
    # travel in the fields' Spark metadata and come back on writing, so a round trip through Spark keeps every type.
    frame = spark.read.format("firepack").option("timestampPrecision", "truncate").load(str(events))
    output = tmp_path / "out"
    # Files an earlier job left there, of each kind load(folder) reads, and one it does not: overwrite removes the
    # first, which would otherwise be read with the new ones, and keeps the other.
    output.mkdir()
    for stale in ["old.fpks", "old.fpks.gz", "old.fpk", "notes.txt"]:
        (output / stale).write_bytes(b"stale")
    frame.write.format("firepack").mode("overwrite").save(str(output))
    assert sorted(p.name for p in output.iterdir() if not p.name.startswith("part-")) == ["notes.txt"]
    parts = [str(part) for part in sorted(output.glob("part-*.fpks"))]

    def types(report):
        return {field["path"]: sorted(field["types"]) for field in report["fields"]}

    source, written = types(firepack.schema_report(events)), types(firepack.schema_report(parts))
    assert written == source
    assert any(kinds == ["reference"] for kinds in source.values()), source
    assert any("geoPoint" in kinds or "geopoint" in kinds for kinds in source.values()), source
    assert any("vector" in kinds for kinds in source.values()), source


def test_a_failed_spark_write_leaves_the_folder_as_it_was(spark, tmp_path):
    # Parts are staged in _temporary/JOB and moved in only when the job commits: a job that fails in one task leaves
    # neither its other tasks' parts nor its staging behind, and an appended-to folder keeps what it had.
    output = tmp_path / "out"
    output.mkdir()
    (output / "old.fpks").write_bytes(b"kept as it was")
    rows = [(f"c/{index}", index) for index in range(200)] + [("not/a/document/path/", 200)]
    frame = spark.createDataFrame(rows, "__name__ string, n long").repartition(4)
    with pytest.raises(Exception):
        frame.write.format("firepack").mode("append").save(str(output))
    assert sorted(path.name for path in output.iterdir()) == ["old.fpks"]
    assert (output / "old.fpks").read_bytes() == b"kept as it was"


def test_a_commit_that_cannot_move_a_part_in_leaves_the_folder_as_it_was(tmp_path):
    # The driver's commit moves the staged parts in one by one. When a rename fails (here: a folder stands where the
    # second part goes), the first part goes back out, so the folder holds its old files only, and the error says so.
    from firepack.spark import FirePackSparkWriter, WrittenFiles
    output = tmp_path / "out"
    output.mkdir()
    (output / "old.fpks").write_bytes(b"kept as it was")
    writer = FirePackSparkWriter({"path": str(output)}, overwrite=True)
    staging = tmp_path / "out" / "_temporary" / writer.job
    parts = [staging / f"part-{task:05d}-{writer.job}.fpks" for task in range(3)]
    for part in parts:
        part.write_bytes(b"new")
    obstacle = output / parts[1].name
    obstacle.mkdir()
    (obstacle / "inside").write_bytes(b"x")
    with pytest.raises(firepack.FirePackError, match="not committed.*the folder is as it was"):
        writer.commit([WrittenFiles([str(part)]) for part in parts])
    assert sorted(path.name for path in output.iterdir()) == sorted(["old.fpks", obstacle.name])
    assert (output / "old.fpks").read_bytes() == b"kept as it was"
    assert not (output / "_temporary").exists()
    # Without the obstacle the same commit moves every part in and removes the old file.
    writer = FirePackSparkWriter({"path": str(output)}, overwrite=True)
    (obstacle / "inside").unlink()
    obstacle.rmdir()
    staging = output / "_temporary" / writer.job
    parts = [staging / f"part-{task:05d}-{writer.job}.fpks" for task in range(3)]
    for part in parts:
        part.write_bytes(b"new")
    writer.commit([WrittenFiles([str(part)]) for part in parts])
    assert sorted(path.name for path in output.iterdir()) == sorted(part.name for part in parts)


def test_a_commit_whose_rollback_fails_too_names_the_parts_left_in(tmp_path, monkeypatch):
    # When a rename fails and moving an earlier part back out fails as well, the error lists that part: it is in the
    # folder beside the old files, and load(folder) would read it. (The second failure is injected: os.replace is
    # wrapped to refuse the move back.)
    from firepack import spark as spark_module
    from firepack.spark import FirePackSparkWriter, WrittenFiles
    output = tmp_path / "out"
    output.mkdir()
    writer = FirePackSparkWriter({"path": str(output)}, overwrite=False)
    staging = output / "_temporary" / writer.job
    parts = [staging / f"part-{task:05d}-{writer.job}.fpks" for task in range(2)]
    for part in parts:
        part.write_bytes(b"new")
    (output / parts[1].name).mkdir()   # the second rename fails: a folder stands there
    real_replace = os.replace

    def replace(source, target):
        if os.fspath(target).startswith(os.fspath(staging)):
            raise PermissionError(13, "Permission denied", os.fspath(source))
        return real_replace(source, target)
    monkeypatch.setattr(spark_module.os, "replace", replace)
    with pytest.raises(firepack.FirePackError, match=r"1 part\(s\) moved in before could not be taken out again") as error:
        writer.commit([WrittenFiles([str(part)]) for part in parts])
    assert parts[0].name in str(error.value) and "Permission denied" in str(error.value)
    assert (output / parts[0].name).read_bytes() == b"new"


def test_a_key_with_a_dot_keeps_its_own_type_through_spark(spark, tmp_path, firepack_tool):
    # `m` holds the key "a.b" (a reference) and the map `a`, whose `b` is a string that looks like a path. Their marks'
    # paths (".`a.b`" and ".a.b") differ, so the string is not written back as a reference, nor the reference as a
    # string.
    lines = tmp_path / "dots.jsonl"
    lines.write_text('{"id": "d1", "m": {"a.b": {"__reference__": "projects/p/databases/(default)/documents/c/x"}, '
                     '"a": {"b": "c/y"}}}\n')
    source = tmp_path / "dots.fpks"
    subprocess.run([firepack_tool, "convert", str(lines), str(source), "--collection", "c", "--id-field", "id"],
                   check=True, capture_output=True)
    frame = spark.read.format("firepack").load(str(source))
    output = tmp_path / "out"
    frame.write.format("firepack").mode("overwrite").save(str(output))
    parts = [str(part) for part in sorted(output.glob("part-*.fpks"))]

    def types(report):
        return {field["path"]: sorted(field["types"]) for field in report["fields"]}

    source_types, written = types(firepack.schema_report(source)), types(firepack.schema_report(parts))
    assert source_types["m.`a.b`"] == ["reference"] and source_types["m.a.b"] == ["string"], source_types
    assert written == source_types


def test_an_overwrite_leaves_folders_and_loses_nothing(spark, events, tmp_path):
    # A folder named like a stream (another job's output saved there) is not one of the files an overwrite replaces:
    # it is left as it is, and the old files go only once the new parts are in (a failure on the way lost both).
    output = tmp_path / "out"
    output.mkdir()
    (output / "old.fpks").write_bytes(b"stale")
    inner = output / "b.fpks"
    inner.mkdir()
    (inner / "part-00000-x.fpks").write_bytes(b"kept")
    frame = spark.read.format("firepack").option("timestampPrecision", "truncate").load(str(events))
    frame.write.format("firepack").mode("overwrite").save(str(output))
    assert not (output / "old.fpks").exists() and (inner / "part-00000-x.fpks").read_bytes() == b"kept"
    parts = sorted(output.glob("part-*.fpks"))
    assert parts and sum(firepack.read_table(part).num_rows for part in parts) == firepack.read_table(events).num_rows


def test_marks_written_before_paths_were_quoted_still_read(spark):
    # A schema saved by an earlier version spelled the mark of the key "a.b" as ".a.b": it is read as the one field
    # it names; a mark that names no field is an error, not a reference written back as a string.
    from pyspark.sql.types import StringType, StructField, StructType
    from firepack.spark import arrow_schema
    inner = StructType([StructField("a.b", StringType()), StructField("c", StringType())])

    def schema(marks):
        return StructType([StructField("m", inner, True, {"firepack": marks})])
    found = arrow_schema(schema({".a.b": {"firepack.type": "reference"}}))
    assert found.field("m").type.field("a.b").metadata == {b"firepack.type": b"reference"}
    assert not found.field("m").type.field("c").metadata
    with pytest.raises(firepack.FirePackError, match="names no field"):
        arrow_schema(schema({".x": {"firepack.type": "reference"}}))


def test_a_schema_with_types_firepack_cannot_read_names_the_field(spark, events):
    # An int would come back a long, which Spark refuses with an error that names neither the field nor the reason.
    with pytest.raises(Exception, match=r"field 'repo.id': Spark type int has no FirePack type"):
        spark.read.format("firepack").schema("repo struct<id: int>").load(str(events)).collect()
