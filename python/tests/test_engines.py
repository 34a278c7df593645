"""The engines that read Arrow, for real: pandas, DuckDB, Polars and Ray Data over FirePack streams, and back."""
import filecmp
import os

import pyarrow as pa
import pytest

import firepack
from stream_surgery import before_the_expansion_rule, long_key_references


def test_pandas_gets_utc_nanosecond_timestamps(events):
    table = firepack.read_table(events)
    frame = table.to_pandas()
    assert str(frame["createdAt"].dtype) == "datetime64[ns, UTC]"
    assert len(frame) == table.num_rows
    nanoseconds = table.column("createdAt").cast(pa.int64()).to_pylist()
    assert [int(v) for v in frame["createdAt"].astype("int64")] == nanoseconds
    # And back: a pandas frame written as documents.
    path = events.parent / "from-pandas.fpks"
    firepack.write_table(pa.Table.from_pandas(frame[["__name__", "type", "createdAt"]], preserve_index=False), path)
    back = firepack.read_table(path)
    assert back.column("createdAt").cast(pa.int64()).to_pylist() == nanoseconds


def test_a_pandas_frame_is_written_as_its_columns_and_named_index(events):
    frame = firepack.read_table(events, columns=["__name__", "type", "public"]).to_pandas()
    # A filtered frame: its index (row numbers) is not a range any more, and it has no name.
    kept = frame[frame["public"]]
    assert 0 < len(kept) < len(frame)
    path = events.parent / "filtered.fpks"
    assert firepack.write_table(kept, path) == len(kept)
    back = firepack.read_table(path)
    assert back.column_names == ["__name__", "type", "public"]
    assert back.column("__name__").to_pylist() == kept["__name__"].tolist()
    # A named index is data: here the documents' names.
    named = events.parent / "named.fpks"
    firepack.write_table(kept.set_index("__name__"), named)
    again = firepack.read_table(named)
    assert sorted(again.column_names) == ["__name__", "public", "type"]
    assert again.column("__name__").to_pylist() == kept["__name__"].tolist()
    # An index that is also a column (drop=False) is that column, once; a MultiIndex's named levels are fields.
    both = events.parent / "both.fpks"
    firepack.write_table(kept.set_index("__name__", drop=False), both)
    assert sorted(firepack.read_table(both).column_names) == ["__name__", "public", "type"]
    multi = events.parent / "multi.fpks"
    firepack.write_table(kept.set_index(["__name__", "type"]), multi)
    assert sorted(firepack.read_table(multi).column_names) == ["__name__", "public", "type"]
    # A level named like a column but holding other values would lose one of them: refused, naming it.
    clash = events.parent / "clash.fpks"
    other = kept.set_index(kept["type"].rename("public").astype(str))
    with pytest.raises(firepack.FirePackError, match="the index level 'public' has a column's name but other values"):
        firepack.write_table(other, clash)
    assert not clash.exists()
    # The same values in another integer width are the column, once.
    import pandas
    frame = pandas.DataFrame({"__name__": ["c/a", "c/b"], "n": [1, 2]})
    frame.index = pandas.Index([1, 2], dtype="int32", name="n")
    firepack.write_table(frame, clash)
    assert firepack.read_table(clash).column("n").to_pylist() == [1, 2]


def test_duckdb_queries_the_stream(events):
    duckdb = pytest.importorskip("duckdb")
    table = firepack.read_table(events)
    reader = firepack.open_stream(events, batch_size=500)
    counts = dict(duckdb.sql("select type, count(*) from reader group by type").fetchall())
    expected = {}
    for value in table.column("type").to_pylist():
        expected[value] = expected.get(value, 0) + 1
    assert counts == expected
    # DuckDB's own result written as documents, read back equal.
    connection = duckdb.connect()
    connection.register("events_table", table)
    result = connection.sql("select __name__, repo.stars as stars, createdAt from events_table order by __name__").arrow()
    path = events.parent / "from-duckdb.fpks"
    firepack.write_table(result, path)
    back = firepack.read_table(path)
    assert back.num_rows == table.num_rows
    expected = sorted((row["__name__"], row["repo"]["stars"]) for row in table.select(["__name__", "repo"]).to_pylist())
    assert list(zip(back.column("__name__").to_pylist(), back.column("stars").to_pylist())) == expected


def test_restoring_the_schema_refuses_fields_an_engine_renamed(folder):
    # DuckDB gives a struct field with an empty name back as `element1`: a cast to the original schema would fill ""
    # with nulls and drop `element1`, losing the key without a word.
    duckdb = pytest.importorskip("duckdb")
    original = pa.table({"__name__": ["c/a"], "m": pa.array([{"": "v", "k": "w"}])})
    path = folder / "empty-key.fpks"
    firepack.write_table(original, path)
    table = firepack.read_table(path)
    connection = duckdb.connect()
    connection.register("t", table)
    result = connection.sql("select * from t").arrow()
    if hasattr(result, "read_all"):
        result = result.read_all()
    names = [field.name for field in result.schema.field("m").type]
    if names != ["", "k"]:
        with pytest.raises(firepack.FirePackError, match=r"m: the data's fields are .*renamed by an engine"):
            firepack.restore_schema(result, table.schema)
    else:
        assert firepack.restore_schema(result, table.schema).equals(table)
    # Same names: the marks come back.
    assert firepack.restore_schema(table.cast(pa.schema([f.remove_metadata() for f in table.schema])),
                                   table.schema).equals(table, check_metadata=True)


def test_polars_reads_and_writes(events):
    polars = pytest.importorskip("polars")
    frame = polars.from_arrow(firepack.read_table(events, columns=["__name__", "type", "repo", "labels"]))
    pushes = frame.filter(polars.col("type") == "PushEvent")
    table = firepack.read_table(events)
    assert pushes.height == table.column("type").to_pylist().count("PushEvent")
    path = events.parent / "from-polars.fpks"
    # Polars hands over large and view strings: the writer casts them to the mapped types.
    assert firepack.write_table(frame, path) == frame.height
    back = polars.from_arrow(firepack.read_table(path))
    assert back.equals(frame)
    # Polars keeps no field metadata, so the marks go (a reference reads back a string, a geopoint a map): the
    # documented recipe gives them back by casting to the schema the data came from, and the documents are the same.
    whole = polars.from_arrow(table)
    plain = events.parent / "from-polars-plain.fpks"
    firepack.write_table(whole, plain)
    assert firepack.read_table(plain).schema.field("location").metadata in (None, {})
    marked = events.parent / "from-polars-marked.fpks"
    firepack.write_table(firepack.restore_schema(whole.to_arrow(), table.schema), marked)
    assert firepack.read_table(marked).equals(table, check_metadata=True)


def test_ray_data_reads_byte_ranges(events, folder):
    ray = pytest.importorskip("ray")
    from firepack.ray import FirePackDatasource
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    try:
        # Ranges of a sixteenth of the file, whatever its blocks compress to: most hold no block's start, and the
        # records are still read once each.
        source = FirePackDatasource(str(events), target_bytes=events.stat().st_size // 16)
        assert len(source.get_read_tasks(2)) >= 16
        dataset = ray.data.read_datasource(source)
        names = [row["__name__"] for row in dataset.select_columns(["__name__"]).iter_rows()]
        expected = firepack.read_table(events).column("__name__").to_pylist()
        assert len(names) == len(expected) and sorted(names) == sorted(expected)
        # A stream written before the expansion rule (Docs/FORMAT.md §8), read with the limit it needs.
        data, needed = before_the_expansion_rule()
        (folder / "old.fpks").write_bytes(data)
        old = FirePackDatasource(str(folder / "old.fpks"), max_block_expansion=needed)
        assert sorted(row["__name__"] for row in ray.data.read_datasource(old).iter_rows()) == [
            "books/long", "books/small"]
        # A record past the key-expansion limit (Docs/FORMAT.md §3): the planner's inference leaves it out, and says
        # so before its readers (which read of a record what the schema names) read a row without its `m`; read when
        # allowed.
        data, _, needed = long_key_references()
        (folder / "long-keys.fpks").write_bytes(data)
        with pytest.raises(firepack.FirePackError, match='not documents .*on_damage="skip".*max_key_expansion'):
            FirePackDatasource(str(folder / "long-keys.fpks"))
        allowed = FirePackDatasource(str(folder / "long-keys.fpks"), max_key_expansion=needed)
        assert sorted(row["__name__"] for row in ray.data.read_datasource(allowed).iter_rows()) == [
            "c/0", "c/1", "c/2"]
        # A name is itself before it is a pattern: "a[1].fpks" is that file, not "a1.fpks" beside it; a path that
        # names nothing is an error, not a task that fails later.
        import shutil
        shutil.copyfile(events, folder / "a[1].fpks")
        (folder / "a1.fpks").write_bytes(data)
        assert FirePackDatasource(str(folder / "a[1].fpks")).paths == [str(folder / "a[1].fpks")]
        with pytest.raises(firepack.FirePackError, match="no file matches"):
            FirePackDatasource(str(folder / "missing-*.fpks"))
    finally:
        ray.shutdown()


def test_pandas_with_arrow_types_keeps_large_integers(folder):
    # The NumPy route makes an integer column with an absent value float64, where 2**53 + 1 reads as 2**53; the Arrow
    # dtypes Docs/ARROW.md recommends keep it, and write it back as the integer it is.
    pandas = pytest.importorskip("pandas")
    path = folder / "big.fpks"
    firepack.write_table(pa.table({"__name__": ["c/1", "c/2"], "n": pa.array([2**53 + 1, None], pa.int64())}), path)
    table = firepack.read_table(path)
    assert table.to_pandas()["n"].dtype == "float64"          # what the default does (and why the docs say so)
    frame = table.to_pandas(types_mapper=pandas.ArrowDtype)
    assert frame["n"][0] == 2**53 + 1
    firepack.write_table(frame, folder / "back.fpks")
    assert firepack.read_table(folder / "back.fpks").column("n").to_pylist() == [2**53 + 1, None]
