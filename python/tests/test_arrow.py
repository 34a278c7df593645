"""The native core through pyarrow: type mapping, lossless round trips, schemas, projection, splits, damage and
hostile input. Expected values come from the JSON-lines sources (parsed here with Python's json) or from the Swift
tool, never from the reader under test."""
import base64
import datetime
import filecmp
import json
import math
import os
import random
import re
import struct
import subprocess
import sys
import warnings

import pyarrow as pa
import pytest

import firepack
from firepack import FirePackError, FirePackWarning
from stream_surgery import block_frames, without_blocks


def source_documents(stream):
    lines = str(stream).replace(".fpks", ".jsonl")
    with open(lines, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def rfc3339_nanoseconds(text):
    whole, fraction = text.rstrip("Z").split(".")
    seconds = datetime.datetime.fromisoformat(whole).replace(tzinfo=datetime.timezone.utc).timestamp()
    return int(seconds) * 1_000_000_000 + int(fraction.ljust(9, "0"))


def test_round_trip_is_byte_for_byte(events, orders, fixtures, folder):
    for stream in [events, orders, fixtures / "books.fpks", fixtures / "generated-books.fpks"]:
        table = firepack.read_table(stream)
        copy = folder / ("copy-" + os.path.basename(stream))
        assert firepack.write_table(table, copy) == table.num_rows
        assert filecmp.cmp(stream, copy, shallow=False), f"{stream} changed on the way through Arrow"
        assert firepack.read_table(copy).equals(table)


def test_types_map_as_documented(events):
    table = firepack.read_table(events)
    documents = source_documents(events)
    assert table.num_rows == len(documents)
    schema = table.schema
    assert schema.field("__name__").metadata[b"firepack.type"] == b"reference"
    assert schema.field("createdAt").type == pa.timestamp("ns", tz="UTC")
    assert schema.field("public").type == pa.bool_()
    assert schema.field("signature").type == pa.binary()
    assert schema.field("location").metadata[b"firepack.type"] == b"geopoint"
    assert schema.field("embedding").type == pa.list_(pa.field("item", pa.float64()), 8)
    assert schema.field("embedding").metadata[b"firepack.type"] == b"vector"
    assert schema.field("actor").type.field("profile").metadata[b"firepack.type"] == b"reference"
    rows = table.to_pylist()
    nanoseconds = table.column("createdAt").cast(pa.int64()).to_pylist()
    for index in random.Random(1).sample(range(len(documents)), 200):
        document, row = documents[index], rows[index]
        assert row["__name__"] == document["__name__"]
        assert nanoseconds[index] == rfc3339_nanoseconds(document["createdAt"]["__timestamp__"])
        assert row["actor"]["profile"] == document["actor"]["profile"]["__reference__"]
        assert row["location"] == dict(zip(["latitude", "longitude"], document["location"]["__geopoint__"]))
        assert row["signature"] == base64.b64decode(document["signature"]["__bytes__"])
        assert row["embedding"] == document["embedding"]["__vector__"]
        assert row["payload"]["commits"] == document["payload"]["commits"]
        assert row["org"] == document["org"]
        assert ("closedAt" in document) == (row["closedAt"] is not None)


def test_a_field_of_several_types_is_kept_exactly(events):
    table = firepack.read_table(events)
    field = table.schema.field("weight")
    assert field.type == pa.string() and field.metadata[b"firepack.type"] == b"value"
    reasons = json.loads(table.schema.metadata[b"firepack.exact"])
    assert "several types" in reasons["weight"]
    for text, document in zip(table.column("weight").to_pylist(), source_documents(events)):
        # FirePack's reversible JSON: integers stay integers, doubles keep a fraction, strings are strings.
        value = json.loads(text)
        assert type(value) is type(document["weight"]) and value == document["weight"], (text, document["weight"])


def test_null_and_absent_stay_apart(folder):
    # null in one document, absent from another, a number in a third: only the exact form can tell them apart.
    table = pa.table({"__name__": ["c/a", "c/b", "c/c"], "x": ["null", None, "1"],
                      "y": [None, 2.5, 3.5]},
                     schema=pa.schema([pa.field("__name__", pa.string()),
                                       pa.field("x", pa.string(), metadata={"firepack.type": "value"}),
                                       pa.field("y", pa.float64(), metadata={"firepack.null": "value"})]))
    path = folder / "nulls.fpks"
    firepack.write_table(table, path)
    back = firepack.read_table(path)
    assert back.column("x").to_pylist() == ["null", None, "1"]
    assert back.schema.field("y").metadata == {b"firepack.null": b"value"}
    report = {f["path"]: f for f in firepack.schema_report(path)["fields"]}
    assert report["x"]["types"] == {"null": 1, "integer": 1} and report["x"]["absent"] == 1
    assert report["y"]["types"] == {"double": 2, "null": 1} and report["y"]["absent"] == 0
    again = folder / "nulls-again.fpks"
    firepack.write_table(back, again)
    assert filecmp.cmp(path, again, shallow=False)


def test_double_bit_patterns_survive(folder):
    patterns = [0x7FF8000000000001, 0xFFF0000000000000, 0x8000000000000000, 0x7FF4000000000ABC, 0x3FF0000000000001]
    values = pa.array([struct.unpack("<d", struct.pack("<Q", bits))[0] for bits in patterns], pa.float64())
    table = pa.table({"__name__": [f"d/{i}" for i in range(len(patterns))], "v": values})
    path = folder / "doubles.fpks"
    firepack.write_table(table, path)
    back = firepack.read_table(path).column("v").combine_chunks()
    bits = [struct.unpack("<Q", struct.pack("<d", v))[0] for v in back.to_pylist()]
    raw = back.buffers()[1].to_pybytes()
    assert [struct.unpack_from("<Q", raw, 8 * i)[0] for i in range(len(patterns))] == patterns
    assert bits[1:3] == patterns[1:3]


def test_a_schema_the_value_does_not_fit(events):
    schema = firepack.infer_schema(events)
    wrong = schema.set(schema.get_field_index("public"), pa.field("public", pa.int64()))
    with pytest.raises(FirePackError) as raised:
        firepack.read_table(events, schema=wrong)
    message = str(raised.value)
    assert "record 0 at byte 6" in message and "public" in message and "boolean" in message
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = firepack.read_table(events, schema=wrong, on_mismatch="null")
    assert table.column("public").null_count == table.num_rows
    assert any(issubclass(w.category, FirePackWarning) and f"public: {table.num_rows}" in str(w.message) for w in caught)


def test_a_sampled_schema_refuses_fields_it_did_not_see(folder):
    table = pa.table({"__name__": [f"c/{i}" for i in range(10)], "a": list(range(10))})
    late = pa.table({"__name__": ["c/late"], "a": [1], "b": ["new"]})
    path = folder / "late.fpks"
    firepack.write_table(pa.RecordBatchReader.from_batches(late.schema, [
        pa.RecordBatch.from_pydict({"__name__": table.column(0).to_pylist(), "a": table.column(1).to_pylist(),
                                    "b": [None] * 10}, schema=late.schema), late.to_batches()[0]]), path)
    with pytest.raises(FirePackError, match=r"record 10 at byte \d+, field \$\.b.*not in the schema"):
        firepack.read_table(path, sample=5)
    assert firepack.read_table(path, sample=11).column("b").to_pylist()[-1] == "new"


def test_columns_are_projected(events):
    whole = firepack.read_table(events)
    part = firepack.read_table(events, columns=["repo", "__name__", "weight"])
    assert part.column_names == ["__name__", "repo", "weight"]
    for name in part.column_names:
        assert part.column(name).equals(whole.column(name))
    with pytest.raises(FirePackError, match="no column"):
        firepack.read_table(events, columns=["nosuch"])


@pytest.mark.parametrize("target", [1, 997, 4096, 65_536, 1 << 30])
def test_splits_read_every_record_once(events, target):
    whole = firepack.read_table(events)
    schema = whole.schema
    ranges = firepack.splits(events, target)
    assert sum(length for _, length in ranges) == os.path.getsize(events)
    assert all(ranges[i][0] + ranges[i][1] == ranges[i + 1][0] for i in range(len(ranges) - 1))
    sample = ranges if len(ranges) < 400 else ranges[:150] + ranges[-150:] + random.Random(target).sample(ranges[150:-150], 100)
    parts = [firepack.open_stream(events, schema=schema, offset=o, length=n).read_all() for o, n in sample]
    names = [name for part in parts for name in part.column("__name__").to_pylist()]
    assert len(names) == len(set(names)), "a record was read by two ranges"
    if len(sample) == len(ranges):
        assert pa.concat_tables(parts).equals(whole)


def damaged_copy(stream, folder, positions):
    data = bytearray(open(stream, "rb").read())
    for position in positions:
        data[position] ^= 0xFF
    path = folder / "damaged.fpks"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("layout", [["--stream-version", "2"], ["--block-size", "16384"]], ids=["records", "blocks"])
def test_damaged_records_are_reported_never_dropped_silently(events, folder, firepack_tool, layout):
    # Version 2 frames each document: one flipped byte costs one record. Version 3 frames blocks of a few dozen
    # records: it costs that block's records, and the records after it keep their numbers.
    stream = folder / "layout.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(stream)] + layout, check=True, capture_output=True)
    size = os.path.getsize(stream)
    path = damaged_copy(stream, folder, [size // 3, size // 2, 2 * size // 3])
    with pytest.raises(FirePackError, match=r"at byte \d+"):
        firepack.read_table(path)
    problems = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = firepack.read_table(path, on_damage="skip", problems=problems)
    assert len(problems) == 3 and all(p["code"] == "badChecksum" for p in problems)
    if layout[0] == "--stream-version":
        assert table.num_rows == 3000 - 3
    else:
        # Each damaged block held more than one record, and far fewer than the stream.
        assert 3000 - 3 * 200 < table.num_rows < 3000 - 3
        whole = firepack.read_table(stream)
        kept = set(table.column("__name__").to_pylist())
        assert kept < set(whole.column("__name__").to_pylist())
    assert any(issubclass(w.category, FirePackWarning) and "3 damaged" in str(w.message) for w in caught)
    # The records lost are counted too, from the close record (a damaged block costs all of its records).
    said = [str(w.message) for w in caught if issubclass(w.category, FirePackWarning)]
    assert any(f": {3000 - table.num_rows} of 3000 records not read;" in message for message in said), said
    # Split anywhere, the ranges together report each damaged record once and read every intact one once.
    for target in [1000, 7919, 100_000]:
        found, rows = [], 0
        for offset, length in firepack.splits(path, target):
            part = []
            rows += firepack.open_stream(path, schema=table.schema, offset=offset, length=length,
                                         on_damage="skip", problems=part).read_all().num_rows
            found += part
        assert rows == table.num_rows
        assert sorted(p["offset"] for p in found) == sorted(p["offset"] for p in problems)


def test_hostile_bytes_give_errors_not_crashes(folder, events):
    rng = random.Random(5)
    original = open(events, "rb").read()[:200_000]
    cases = {"random.fpks": bytes(rng.getrandbits(8) for _ in range(5000)),
             "empty.fpks": b"",
             "header-only.fpks": original[:6],
             "torn.fpks": original[:150_001],
             "wrong-version.fpks": original[:4] + b"\x09" + original[5:1000]}
    for name, data in cases.items():
        path = folder / name
        path.write_bytes(data)
        # A child process: if anything crashed the interpreter, the test sees it.
        code = ("import firepack, sys\n"
                "try:\n    t = firepack.read_table(sys.argv[1], on_damage='skip')\n    print('rows', t.num_rows)\n"
                "except firepack.FirePackError as e:\n    print('error', e)\n")
        result = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"{name}: {result.stderr}"
        assert result.stdout.startswith(("rows", "error")), name
        if name in ("random.fpks", "wrong-version.fpks", "empty.fpks"):
            assert result.stdout.startswith("error") and "byte" in result.stdout or "empty" in result.stdout, result.stdout


def test_blocks_cut_out_cleanly_are_reported_never_dropped_silently(events, folder, firepack_tool):
    # Whole blocks removed at their boundaries leave no damage: every block left checks out. Only the next block's
    # `first` says records are missing, and every reader — whole file, byte ranges, Spark splits — must say so.
    stream = folder / "blocks.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(stream), "--block-size", "16384"],
                   check=True, capture_output=True)
    data = open(stream, "rb").read()
    blocks = len(block_frames(data))
    assert blocks > 10
    path = folder / "cut.fpks"
    path.write_bytes(without_blocks(data, {0, 4, blocks // 2}))
    with pytest.raises(FirePackError, match=r"missing"):
        firepack.read_table(path)
    problems = []
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        table = firepack.read_table(path, on_damage="skip", problems=problems)
    assert [p["code"] for p in problems] == ["missingRecords"] * 3
    lost = len(source_documents(events)) - table.num_rows
    assert lost > 3 * 10
    # Split anywhere, the ranges together report each gap once, at the same byte as the whole read.
    for target in [1000, 7919, 16384, 100_000]:
        found, rows = [], 0
        for offset, length in firepack.splits(path, target):
            part = []
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")
                rows += firepack.open_stream(path, schema=table.schema, offset=offset, length=length,
                                             on_damage="skip", problems=part).read_all().num_rows
            found += part
        assert rows == table.num_rows
        assert sorted(p["offset"] for p in found) == sorted(p["offset"] for p in problems), target


def test_records_by_number_agree_with_the_whole_table(events, folder, firepack_tool):
    # Version 3 in 16 KiB blocks (entered through the index), version 2 and gzip (read up to the records): each range
    # of record numbers is the same rows as that slice of the whole table.
    forms = {"blocks": folder / "numbered.fpks", "records": folder / "numbered-v2.fpks",
             "gzip": folder / "numbered.fpks.gz"}
    subprocess.run([firepack_tool, "convert", str(events), str(forms["blocks"]), "--block-size", "16384"],
                   check=True, capture_output=True)
    subprocess.run([firepack_tool, "convert", str(events), str(forms["records"]), "--stream-version", "2"],
                   check=True, capture_output=True)
    subprocess.run([firepack_tool, "convert", str(events), str(forms["gzip"])], check=True, capture_output=True)
    whole = firepack.read_table(forms["blocks"])
    assert whole.num_rows == 3000
    for name, path in forms.items():
        for start, stop in [(0, 1), (17, 400), (1234, 1300), (2999, 3000), (1500, 1500), (2990, 5000)]:
            part = firepack.read_table(path, schema=whole.schema, records=range(start, stop))
            expected = whole.slice(start, max(0, min(stop, 3000) - start))
            assert part.equals(expected), f"{name} {start}..{stop}"
    with pytest.raises(ValueError):
        firepack.read_table(forms["blocks"], records=(10, 20), offset=6)
    with pytest.raises(ValueError):
        firepack.read_table(forms["blocks"], records=(20, 10))


def test_a_damaged_block_met_on_the_way_to_records_names_the_file(events, folder, firepack_tool):
    # Read by number, a stream is entered through its index, or read from its start up to the records when it has
    # none (cut short here): damage met on the way is an error naming the file, as the batches' errors do.
    stream = folder / "numbered-damaged.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(stream), "--block-size", "16384", "--codec", "none"],
                   check=True, capture_output=True)
    data = bytearray(stream.read_bytes())
    data[2000] ^= 0xFF
    damaged = folder / "numbered-damaged-closed.fpks"
    damaged.write_bytes(bytes(data))
    unclosed = folder / "numbered-damaged-unclosed.fpks"
    unclosed.write_bytes(bytes(data[:-4000]))
    for path, records in [(damaged, (0, 10)), (unclosed, (0, 10)), (unclosed, (2000, 2010))]:
        with pytest.raises(FirePackError, match=f"^{re.escape(str(path))}: .*CRC-32 mismatch"):
            firepack.read_table(path, records=records)


def test_other_file_kinds(fixtures, folder, firepack_tool):
    gz = folder / "books.fpks.gz"
    subprocess.run([firepack_tool, "convert", str(fixtures / "books.fpks"), str(gz)], check=True, capture_output=True)
    assert firepack.read_table(gz).equals(firepack.read_table(fixtures / "books.fpks"))
    with pytest.raises(FirePackError, match="byte range"):
        firepack.open_stream(gz, offset=10, length=100).read_all()
    assert firepack.splits(gz, 10) == [(0, os.path.getsize(gz))]
    # The one range a planner gets for it reads the whole file.
    assert firepack.open_stream(gz, offset=0, length=os.path.getsize(gz)).read_all().num_rows == 5


def test_writing_other_arrow_types_and_failures(folder):
    table = pa.table({"id32": pa.array([1, 2], pa.int32()), "name": pa.array(["a", "b"], pa.large_string()),
                      "when": pa.array([datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)] * 2, pa.timestamp("us")),
                      "f": pa.array([1.5, 2.5], pa.float32())})
    path = folder / "cast.fpks"
    assert firepack.write_table(table, path, collection="things") == 2
    back = firepack.read_table(path)
    assert back.column("__name__").to_pylist() == ["things/0", "things/1"]
    assert back.column("id32").type == pa.int64() and back.column("f").to_pylist() == [1.5, 2.5]
    assert back.column("when").to_pylist()[0] == datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=datetime.timezone.utc)
    with pytest.raises(FirePackError, match="__name__"):
        firepack.write_table(pa.table({"a": [1]}), folder / "unnamed.fpks")
    bad = folder / "bad.fpks"
    with pytest.raises(FirePackError, match="row 1.*__name__|row 1"):
        firepack.write_table(pa.table({"__name__": ["c/ok", "not-a-document-path"], "a": [1, 2]}), bad)
    assert not bad.exists(), "a failed write left a file"
    with pytest.raises(FirePackError, match="decimal"):
        firepack.write_table(pa.table({"__name__": ["c/a"], "d": pa.array([1], pa.decimal128(5, 2))}), bad)
    # A document's time from a column of another type would be its bytes read as nanoseconds: refused, naming it.
    for column, values in [("__create_time__", pa.array(["2020"])), ("__update_time__", pa.array([1.5])),
                           ("__update_time__", pa.array([{"a": 1}])), ("__create_time__", pa.array([True]))]:
        with pytest.raises(FirePackError, match=f"{column} must be a timestamp column"):
            firepack.write_table(pa.table({"__name__": ["c/a"], column: values}), bad)
        assert not bad.exists()
    # A column of nulls (how engines type an empty one) gives no time; timestamps of any unit give theirs.
    times = folder / "times.fpks"
    when = datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=datetime.timezone.utc)
    firepack.write_table(pa.table({"__name__": ["c/a"], "__update_time__": pa.nulls(1),
                                   "__create_time__": pa.array([when], pa.timestamp("us", tz="UTC"))}), times)
    back = firepack.read_table(times)
    assert back.column("__create_time__").to_pylist() == [when] and "__update_time__" not in back.column_names


def test_parquet_conversion_round_trip(events, folder):
    parquet = folder / "events.parquet"
    back = folder / "events-back.fpks"
    for source, target in [(events, parquet), (parquet, back)]:
        subprocess.run([sys.executable, "-m", "firepack", "convert", str(source), str(target)], check=True, capture_output=True)
    import pyarrow.parquet as pq
    assert pq.read_table(parquet).num_rows == 3000
    assert filecmp.cmp(events, back, shallow=False), "FirePack → Parquet → FirePack changed the documents"
    shown = subprocess.run([sys.executable, "-m", "firepack", "schema", str(events)], check=True, capture_output=True, text=True).stdout
    assert "weight: JSON text" in shown and "createdAt: timestamp[ns, UTC]" in shown


def test_parquet_conversion_refuses_what_parquet_cannot_hold_and_leaves_nothing(folder):
    # A map empty in every document is a struct with no fields, which Parquet cannot write: said before anything is
    # written. A damaged record ends the conversion with no half-written file beside the target.
    source, target = folder / "empty-map.fpks", folder / "empty-map.parquet"
    firepack.write_table(pa.table({"__name__": ["c/a", "c/b"], "m": pa.array([{}, {}], pa.struct([])),
                                   "n": [1, 2]}), source)
    result = subprocess.run([sys.executable, "-m", "firepack", "convert", str(source), str(target)],
                            capture_output=True, text=True)
    assert result.returncode == 1 and "m is a map empty in every document" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert not target.exists() and not [p.name for p in folder.iterdir() if p.name.endswith(".partial")]
    damaged = folder / "damaged.fpks"
    firepack.write_table(pa.table({"__name__": [f"c/{i}" for i in range(2000)], "n": list(range(2000))}), damaged)
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    result = subprocess.run([sys.executable, "-m", "firepack", "convert", str(damaged), str(folder / "d.parquet")],
                            capture_output=True, text=True)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert not (folder / "d.parquet").exists() and not [p.name for p in folder.iterdir() if p.name.endswith(".partial")]


def test_a_sample_of_every_record_sees_the_end_without_scanning_a_long_tail(folder):
    # A sample that stops at the last record learns how the stream ends from one more read, where what is left of the
    # file is small (its close record and index); a long tail after it (here 8 MB of noise) is not scanned for it.
    path = folder / "four.fpks"
    firepack.write_table(pa.table({"__name__": [f"c/{i}" for i in range(4)], "n": list(range(4))}), path)
    report = firepack.schema_report(path, sample=4)
    assert report["closed_records"] == 4 and report["not_closed"] == [] and report["problems"] == 0, report
    noisy = folder / "four-noisy.fpks"
    noisy.write_bytes(path.read_bytes() + random.Random(4).randbytes(8 << 20))

    def bytes_read():
        with open("/proc/self/io") as io:
            return next(int(line.split()[1]) for line in io if line.startswith("rchar:"))
    before = bytes_read()
    report = firepack.schema_report(noisy, sample=4)
    assert bytes_read() - before < 2 << 20, "the sample's peek scanned the tail"
    assert report["documents"] == 4 and report["problems"] == 0 and report["closed_records"] is None, report


def test_parquet_conversion_refuses_a_file_a_sticky_folder_keeps_from_it(events):
    # A file of root's anyone may write, in a sticky folder of root's: another user may write it but not replace it,
    # which the rename at the end would find only after all the work. Refused before any, as the tool refuses it.
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/setpriv"):
        pytest.skip("needs root and setpriv to run the conversion as another user")
    as_nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    if subprocess.run(as_nobody + [sys.executable, "-c", "import firepack"], capture_output=True).returncode != 0:
        pytest.skip("the test environment cannot be read by another user")
    import pathlib
    import shutil
    import tempfile
    # Under /tmp itself: pytest's own folders are its user's alone.
    outer = pathlib.Path(tempfile.mkdtemp(prefix="firepack-sticky-", dir="/tmp"))
    os.chmod(outer, 0o755)
    sticky = outer / "sticky"
    sticky.mkdir()
    os.chmod(sticky, 0o1777)
    source = sticky / "events.fpks"
    source.write_bytes(events.read_bytes())
    os.chmod(source, 0o644)
    target = sticky / "events.parquet"
    target.write_bytes(b"old")
    os.chmod(target, 0o666)
    try:
        result = subprocess.run(as_nobody + [sys.executable, "-m", "firepack", "convert", str(source), str(target)],
                                capture_output=True, text=True)
        assert result.returncode == 1 and "the folder is sticky" in result.stderr, result.stderr
        assert target.read_bytes() == b"old"
        assert sorted(p.name for p in sticky.iterdir()) == ["events.fpks", "events.parquet"]
    finally:
        shutil.rmtree(outer, ignore_errors=True)


def test_memory_follows_the_batch_not_the_file(data_folder):
    from conftest import make_stream
    # Eight times the records: the allocators' warm-up (pyarrow's pool and the native core's malloc settle after some
    # tens of batches, about 1 MB here, the same for 160,000 and 640,000 orders) stays well under the bound, which a
    # reader holding a quarter of what it read would still cross.
    small, large = make_stream(data_folder, "orders", 20_000, seed=3), make_stream(data_folder, "orders", 160_000, seed=3)
    # VmHWM: this process's own peak (ru_maxrss can carry the forking parent's on Linux).
    code = ("import firepack, sys\n"
            "def peak():\n"
            "    return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
            "schema = firepack.infer_schema(sys.argv[1])\n"
            "rows = sum(b.num_rows for b in firepack.open_stream(sys.argv[1], batch_size=2048, schema=schema))\n"
            "print(rows, peak())\n")
    peaks = {}
    for path in (small, large):
        rows, peak = subprocess.run([sys.executable, "-c", code, str(path)], check=True, capture_output=True, text=True).stdout.split()
        peaks[path] = int(peak) * 1024
    growth = peaks[large] - peaks[small]
    assert growth < (os.path.getsize(large) - os.path.getsize(small)) / 4, f"peak memory grew {growth} bytes with the file"


def test_writer_edge_cases_are_errors_or_exact(folder):
    # Two columns of one name, one of them null-marked: an error, not a crash of the process.
    marked = pa.field("a", pa.int64(), metadata={"firepack.null": "value"})
    twice = pa.table([pa.array(["c/1"]), pa.array([None], pa.int64()), pa.array([1])],
                     schema=pa.schema([pa.field("__name__", pa.string()), marked, pa.field("a", pa.int64())]))
    with pytest.raises(FirePackError, match="two columns are named"):
        firepack.write_table(twice, folder / "twice.fpks")
    # A column of Arrow's null type (pandas' all-None column) holds absences; a column of empty strings.
    empty = pa.array(["", ""])
    table = pa.table({"__name__": ["c/1", "c/2"], "n": pa.nulls(2), "s": empty,
                      "fixed": pa.array([[1, 2], [3, 4]], pa.list_(pa.int64(), 2))})
    path = folder / "edges.fpks"
    firepack.write_table(table, path)
    back = firepack.read_table(path)
    assert back.column_names == ["__name__", "s", "fixed"]
    assert back.column("s").to_pylist() == ["", ""] and back.column("fixed").to_pylist() == [[1, 2], [3, 4]]


def test_a_sampled_schema_refuses_nulls_it_did_not_foresee(folder):
    rows = [{"__name__": f"c/{i}", "x": i} for i in range(10)] + [{"__name__": "c/late", "x": None}]
    marked = pa.schema([pa.field("__name__", pa.string()), pa.field("x", pa.int64(), metadata={"firepack.null": "value"})])
    path = folder / "late-null.fpks"
    firepack.write_table(pa.Table.from_pylist(rows, schema=marked), path)
    with pytest.raises(FirePackError, match="record 10 .*null value where the sampled schema"):
        firepack.read_table(path, sample=5)
    sampled = firepack.infer_schema(path, sample=5)
    with pytest.raises(FirePackError, match="null value where the sampled schema"):
        firepack.open_stream(path, schema=sampled, sampled_schema=True).read_all()
    assert firepack.read_table(path).column("x").to_pylist()[-1] is None


def test_a_stream_cut_at_a_block_boundary_is_said_to_be_cut(events, folder, firepack_tool):
    # An interrupted copy or a crashed writer leaves whole blocks and no close record: every block checks out, so only
    # the missing close record tells. The reader that reads the last records (it reads to the end of the file) says
    # so, as `firepack convert` does, with the record it stops after; a closed stream, ranges that stop short of the
    # end, and ranges past the last record or inside a close record (splits of a few bytes) say nothing.
    stream = folder / "blocks.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(stream), "--block-size", "16384"],
                   check=True, capture_output=True)
    data = open(stream, "rb").read()
    frames = block_frames(data)
    cut = folder / "cut.fpks"
    cut.write_bytes(data[:frames[3][0]])
    for path, unclosed in [(stream, False), (cut, True)]:
        size = os.path.getsize(path)
        total = firepack.read_table(path).num_rows
        said_by = []
        for offset, length in [(0, None)] + firepack.splits(path, 20_000) + [(size - 1, 1), (size - 10, 10)]:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                rows = firepack.open_stream(path, offset=offset, length=length).read_all().num_rows
            said = [str(w.message) for w in caught if issubclass(w.category, FirePackWarning)]
            if said:
                # Version 3: a range counts by its blocks' record numbers, so it names the same record as a whole read.
                assert said == [f"{path}: not closed after record {total} (the writer crashed, was interrupted or "
                                "is still writing): read what it holds"], said
                assert rows > 0, (offset, length)
                said_by.append((offset, length))
        # The whole read, and the one range that read the last records.
        assert len(said_by) == (2 if unclosed else 0), said_by
        if unclosed:
            assert said_by[0] == (0, None)
            assert 0 < total < len(source_documents(events))
    # Version 2 has no record numbers in its records: a range that starts inside the stream counts what it read.
    old = folder / "v2.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(old), "--stream-version", "2"],
                   check=True, capture_output=True)
    torn = folder / "v2-torn.fpks"
    torn.write_bytes(open(old, "rb").read()[:-16])  # without its close record (Docs/FORMAT.md §8)
    total = len(source_documents(events))
    said_by = {}
    for offset, length in [(0, None)] + firepack.splits(torn, 200_000):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rows = firepack.open_stream(torn, offset=offset, length=length).read_all().num_rows
        said = [str(w.message) for w in caught if issubclass(w.category, FirePackWarning)]
        if said:
            said_by[offset, length] = (rows, said)
    assert len(said_by) == 2, said_by
    rows, said = said_by.pop((0, None))
    assert rows == total and said == [f"{torn}: not closed after record {total} (the writer crashed, was interrupted "
                                      "or is still writing): read what it holds"], said
    [(rows, said)] = said_by.values()
    assert 0 < rows < total and said == [f"{torn}: not closed after {rows} record(s) of the range read (the writer "
                                         "crashed, was interrupted or is still writing): read what it holds"], said


def test_numbers_past_int64_are_refused_not_wrapped(events, folder):
    # ctypes wraps an int64 argument modulo 2^64 without a word: 2^64 + 3 would read as 3.
    table = firepack.read_table(events, records=(0, 3))
    assert table.num_rows == 3
    for bad in [dict(records=(2**64, 2**64 + 3)), dict(records=(5, 5 + 2**64)), dict(offset=2**64),
                dict(length=-1), dict(batch_size=2**64 + 1), dict(batch_size=0), dict(sample=2**64)]:
        with pytest.raises(ValueError, match=r"2\*\*63 - 1"):
            firepack.read_table(events, **bad)
    with pytest.raises(ValueError):
        firepack.splits(events, 2**64 + 1)
    with pytest.raises(TypeError, match="list of column names"):
        firepack.read_table(events, columns="type")
    with pytest.raises(TypeError):
        firepack.read_table(events, offset=1.5)
    with pytest.raises(ValueError, match="no batches"):
        firepack.write_table([], folder / "empty.fpks")
    with pytest.raises(TypeError, match="collection is a string"):
        firepack.write_table(table, folder / "x.fpks", collection=123)
    with pytest.raises(ValueError, match="NUL"):
        firepack.write_table(table.drop_columns(["__name__"]), folder / "x.fpks", collection="c\0x")
    for call in (firepack.infer_schema, firepack.schema_report):
        with pytest.raises(ValueError, match=r"2\*\*63 - 1"):
            call(events, sample=2**64 + 5)
    assert not (folder / "empty.fpks").exists() and not (folder / "x.fpks").exists()


def test_damage_errors_name_the_file(events, folder):
    data = bytearray(open(events, "rb").read())
    data[len(data) // 2] ^= 0x40
    path = folder / "flipped.fpks"
    path.write_bytes(bytes(data))
    with pytest.raises(FirePackError) as raised:
        firepack.read_table(path)
    assert str(path) in str(raised.value)


def test_canonically_equivalent_keys_stay_two_columns(folder):
    # FirePack compares keys byte for byte: "a" + combining acute and the precomposed "á" are two fields, in two
    # columns (a String-keyed lookup merged them, renaming one document's key, and failed when a map held both).
    decomposed, precomposed = "a\u0301", "\u00e1"
    table = pa.table({"__name__": ["c/1", "c/2", "c/3"],
                      decomposed: pa.array([1, None, 5], pa.int64()), precomposed: pa.array([None, 2, 6], pa.int64())})
    path = folder / "keys.fpks"
    assert firepack.write_table(table, path) == 3
    back = firepack.read_table(path)
    names = [name.encode() for name in back.schema.names]
    assert decomposed.encode() in names and precomposed.encode() in names
    rows = {row["__name__"]: row for row in back.to_pylist()}
    assert rows["c/1"][decomposed] == 1 and rows["c/1"][precomposed] is None
    assert rows["c/2"][precomposed] == 2 and rows["c/2"][decomposed] is None
    assert rows["c/3"][decomposed] == 5 and rows["c/3"][precomposed] == 6
    assert firepack.read_table(path, columns=["__name__", precomposed]).column(precomposed).to_pylist() == [None, 2, 6]


def test_a_nul_in_a_key_is_never_cut_short(folder, firepack_tool):
    # Arrow's C interface carries names as C strings: "x\0y" would arrive as "x", beside a real "x".
    lines = folder / "nul.jsonl"
    lines.write_text(json.dumps({"__name__": "c/1", "x\u0000y": 1, "x": 2, "m": {"k\u0000": 3}, "n": {"k": 4}}) + "\n")
    stream = folder / "nul.fpks"
    subprocess.run([firepack_tool, "convert", str(lines), str(stream)], check=True, capture_output=True)
    with pytest.raises(FirePackError, match="NUL byte"):
        firepack.read_table(stream)
    nested = folder / "nested.jsonl"
    nested.write_text(json.dumps({"__name__": "c/1", "x": 2, "m": {"k\u0000": 3}, "n": {"k": 4}}) + "\n")
    subprocess.run([firepack_tool, "convert", str(nested), str(stream)], check=True, capture_output=True)
    table = firepack.read_table(stream)
    assert table.schema.field("m").metadata[b"firepack.type"] == b"value"   # the map kept whole, as JSON text
    assert json.loads(table.column("m")[0].as_py()) == {"k\u0000": 3}
    assert table.column("n")[0].as_py() == {"k": 4}
    with pytest.raises(FirePackError, match="NUL byte"):
        firepack.write_table(pa.table({"__name__": ["c/1"], "x\u0000y": [1]}), folder / "out.fpks")
    with pytest.raises(FirePackError, match="NUL byte"):
        firepack.write_table(pa.table({"__name__": ["c/1"], "s": pa.array([{"k\u0000": 1}])}), folder / "out.fpks")
    assert not (folder / "out.fpks").exists()


def test_rows_that_repeat_a_path_are_written_and_named(folder):
    # Firestore would keep only the last of each path; the rows are all written (nothing dropped) and said, as the
    # tool says it for documents.
    table = pa.table({"__name__": ["c/a", "c/b", "c/a", "c/c", "c/b"], "n": [1, 2, 3, 4, 5]})
    path = folder / "repeats.fpks"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert firepack.write_table(table, path) == 5
    said = [str(w.message) for w in caught if issubclass(w.category, FirePackWarning)]
    assert len(said) == 1, said
    assert "2 row(s) repeat the path of an earlier one" in said[0]
    assert "row 2 repeats the path of row 0: c/a" in said[0] and "row 4 repeats the path of row 1: c/b" in said[0]
    assert firepack.read_table(path).column("n").to_pylist() == [1, 2, 3, 4, 5]
    # Distinct paths, or rows named by a collection: nothing to say.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        firepack.write_table(pa.table({"n": [1, 2]}), folder / "named.fpks", collection="c")
        firepack.write_table(pa.table({"__name__": ["c/x", "c/y"]}), folder / "distinct.fpks")
    assert not [w for w in caught if issubclass(w.category, FirePackWarning)]


def test_maps_keyed_by_ids_cost_their_own_keys(folder, firepack_tool):
    # A map keyed by IDs (`members: {uid: role}`) holds a different key in each document: as a struct of every key
    # seen, 20,000 documents (90 KB) made 3.2 GB of columns. Past 1,000 keys it is JSON text, each row its own.
    lines = "".join(json.dumps({"__name__": f"teams/t{i}", "members": {f"uid{i}": "owner"}, "n": i}) + "\n"
                    for i in range(5_000))
    (folder / "teams.jsonl").write_text(lines)
    path = folder / "teams.fpks"
    subprocess.run([firepack_tool, "convert", str(folder / "teams.jsonl"), str(path)], check=True)
    table = firepack.read_table(path)
    assert table.num_rows == 5_000 and table.schema.names == ["__name__", "members", "n"]
    members = table.schema.field("members")
    assert members.type == pa.string() and members.metadata == {b"firepack.type": b"value"}
    assert json.loads(table.column("members")[17].as_py()) == {"uid17": "owner"}
    assert table.nbytes < 64 * os.path.getsize(path)
    assert "5000 distinct keys" in json.loads(table.schema.metadata[b"firepack.exact"])["members"]
    # Written back, the same bytes.
    again = folder / "teams-again.fpks"
    firepack.write_table(table, again)
    assert filecmp.cmp(path, again, shallow=False)


def test_a_schema_wider_than_a_reader_fills_is_refused_with_a_remedy(folder, firepack_tool):
    # Each document its own top-level field: every row would hold 10,001 columns.
    lines = "".join(json.dumps({"__name__": f"c/d{i}", f"f{i}": i}) + "\n" for i in range(10_001))
    (folder / "wide.jsonl").write_text(lines)
    path = folder / "wide.fpks"
    subprocess.run([firepack_tool, "convert", str(folder / "wide.jsonl"), str(path)], check=True)
    assert len(firepack.infer_schema(path)) == 10_002
    with pytest.raises(FirePackError, match=r"10002 Arrow fields.*columns"):
        firepack.read_table(path)
    assert firepack.read_table(path, columns=["__name__", "f5"]).column("f5").to_pylist()[:7] == [None] * 5 + [5, None]
    # The engines infer once and hand the schema to their readers as given: their planners refuse it the same way.
    with pytest.raises(FirePackError, match=r"10002 Arrow fields"):
        firepack._check_inferred_width(firepack.infer_schema(path))
    assert firepack._check_inferred_width(firepack.infer_schema(path), columns=["__name__", "f5"]) is not None


def test_a_block_repeated_is_said_not_taken_silently(events, folder, firepack_tool):
    # A block copied twice (a bad merge): nothing is lost, but the stream holds records its writer did not write.
    # The close record counts fewer than are found: validate refuses the stream, convert and read_table say so.
    stream = folder / "blocks.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(stream), "--block-size", "16384"],
                   check=True, capture_output=True)
    data = stream.read_bytes()
    frames = block_frames(data)
    start, end = frames[1]
    doubled = folder / "doubled.fpks"
    doubled.write_bytes(data[:end] + data[start:end] + data[end:])
    counted = len(firepack.read_table(stream))
    check = subprocess.run([firepack_tool, "validate", str(doubled), "--max-problems", "100"], capture_output=True,
                           text=True)
    assert check.returncode == 1 and "records were added" in check.stderr and "records are missing" not in check.stderr
    out = folder / "doubled.jsonl"
    converted = subprocess.run([firepack_tool, "convert", str(doubled), str(out)], capture_output=True, text=True)
    assert converted.returncode == 0 and f"its close record counts {counted}" in converted.stderr
    with pytest.warns(FirePackWarning, match=f"close record counts {counted}"):
        table = firepack.read_table(doubled)
    assert len(table) > counted and len(out.read_text().splitlines()) == len(table)


def test_batches_of_another_schema_are_refused_not_misread(folder):
    # pyarrow does not check the batches of a reader made with from_batches, nor an iterable's: the second batch's
    # buffers were read as the first's types (offsets as integers, doubles' bits as integers) or crashed the process.
    path = folder / "drift.fpks"
    first = pa.record_batch({"__name__": ["c/a"], "x": pa.array([1], pa.int64())})
    for second, differs in [(pa.record_batch({"__name__": ["c/b"], "y": ["text"]}), "columns are"),
                            (pa.record_batch({"__name__": ["c/b"], "x": [1.5]}), "column 'x' is double"),
                            (pa.record_batch({"__name__": ["c/b"], "x": [True]}), "column 'x' is bool")]:
        for data in ([first, second], pa.RecordBatchReader.from_batches(first.schema, [first, second])):
            with pytest.raises(FirePackError, match=f"batch 1 does not have the first batch's schema: .*{differs}"):
                firepack.write_table(data, path)
            assert not path.exists(), "a refused write left a file"
    # The native writer checks each array against its schema too: an array of another type is refused, not read.
    strings = pa.schema([pa.field("__name__", pa.string()), pa.field("s", pa.string())])
    integers = pa.record_batch({"__name__": ["c/a"], "s": pa.array([7], pa.int64())})
    with pytest.raises(FirePackError, match="column \"s\": an array of 2 buffers"):
        firepack._native.write_stream(pa.RecordBatchReader.from_batches(strings, [integers]), str(path))
    assert not path.exists()


def test_batches_that_differ_only_in_what_is_cast_away_are_written(folder):
    # Nullability, a narrower integer, a dictionary of another value type: the same columns once cast.
    path = folder / "same.fpks"
    first = pa.record_batch([pa.array(["c/a"]), pa.array([1], pa.int64())],
                            schema=pa.schema([pa.field("__name__", pa.string()), pa.field("x", pa.int64(), nullable=False)]))
    second = pa.record_batch({"__name__": ["c/b"], "x": pa.array([2], pa.int32())})
    third = pa.record_batch({"__name__": pa.array(["c/c"]).dictionary_encode(), "x": pa.array([3], pa.int8())})
    assert firepack.write_table([first, second, third], path) == 3
    back = firepack.read_table(path)
    assert back.column("__name__").to_pylist() == ["c/a", "c/b", "c/c"] and back.column("x").to_pylist() == [1, 2, 3]
    # Timestamps of two units are one column, cast to the first batch's unit; a cast that would drop digits is refused.
    when = datetime.datetime(2024, 1, 2, 3, 4, 5, 123000, tzinfo=datetime.timezone.utc)
    micro = pa.record_batch({"__name__": ["c/a"], "t": pa.array([when], pa.timestamp("us", tz="UTC"))})
    nano = pa.record_batch({"__name__": ["c/b"], "t": pa.array([when], pa.timestamp("ns"))})
    day = pa.record_batch({"__name__": ["c/c"], "t": pa.array([datetime.date(2024, 1, 2)], pa.date32())})
    assert firepack.write_table([micro, nano, day], path) == 3
    assert firepack.read_table(path).column("t").to_pylist() == [when, when, datetime.datetime(2024, 1, 2, tzinfo=datetime.timezone.utc)]
    finer = pa.record_batch({"__name__": ["c/d"], "t": pa.array([1], pa.timestamp("ns", tz="UTC"))})
    with pytest.raises(FirePackError, match="column 't' in batch 1"):
        firepack.write_table([micro, finer], path)


def test_document_times_past_nanoseconds_are_refused_when_written(folder):
    # A document's times are read back as timestamp[ns]: one outside it is refused on the way in, naming its column.
    path = folder / "times.fpks"
    early = pa.table({"__name__": ["c/a"], "__create_time__": pa.array([datetime.datetime(1500, 1, 1)], pa.timestamp("us"))})
    with pytest.raises(FirePackError, match="column '__create_time__' in batch 0"):
        firepack.write_table(early, path)
    assert not path.exists()


def test_an_exception_from_the_batches_keeps_its_cause_and_the_input_is_closed(folder):
    path = folder / "cause.fpks"
    closed = []

    def failing():
        try:
            yield pa.record_batch({"__name__": ["c/a"], "x": [1]})
            try:
                raise KeyError("inner")
            except KeyError as inner:
                raise ValueError("outer") from inner
        finally:
            closed.append(True)

    with pytest.raises(ValueError, match="outer") as caught:
        firepack.write_table(failing(), path)
    assert isinstance(caught.value.__cause__, KeyError) and closed == [True] and not path.exists()

    def endless():
        try:
            while True:
                yield pa.record_batch({"__name__": ["not a path"], "x": [1]})
        finally:
            closed.append("endless")

    with pytest.raises(FirePackError, match="row 0: 'not a path' is not a document path"):
        firepack.write_table(endless(), path)
    assert closed[-1] == "endless", "the input was left open after the writer failed"


def test_a_value_a_cast_refuses_is_named_and_an_interrupt_is_itself(folder):
    path = folder / "cast.fpks"
    big = pa.table({"__name__": ["c/a", "c/b"], "u": pa.array([1, 2**64 - 1], pa.uint64())})
    with pytest.raises(FirePackError, match="column 'u' in batch 0: its uint64 values do not all convert to int64") as caught:
        firepack.write_table(big, path)
    assert "Traceback" not in str(caught.value) and not path.exists()

    def interrupted():
        yield pa.record_batch({"__name__": ["c/a"], "x": [1]})
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        firepack.write_table(interrupted(), path)
    assert not path.exists()


def test_times_outside_nanoseconds_and_dates_are_written_exactly(folder, firepack_tool):
    # timestamp[ns] holds 1677–2262 only; FirePack's timestamps hold every Int64 second (Firestore's years 1 to 9999
    # among them), and each unit is read as itself.
    path = folder / "times.fpks"
    table = pa.table({
        "__name__": ["c/a", "c/b"],
        "day": pa.array([datetime.date(1, 1, 1), datetime.date(9999, 12, 31)], pa.date32()),
        "us": pa.array([datetime.datetime(3000, 1, 2, 3, 4, 5, 6), datetime.datetime(1, 1, 1)], pa.timestamp("us")),
        "s": pa.array([-62135596800, 253402300799], pa.timestamp("s", tz="+05:30")),
        "ms": pa.array([-1, 1], pa.timestamp("ms")),
    })
    firepack.write_table(table, path)
    text = subprocess.run([firepack_tool, "convert", str(path), "-", "--to", "jsonl"], check=True,
                          capture_output=True, text=True).stdout.splitlines()
    first, second = (json.loads(line) for line in text)
    assert first["day"] == {"__timestamp__": "0001-01-01T00:00:00Z"}
    assert second["day"] == {"__timestamp__": "9999-12-31T00:00:00Z"}
    assert first["us"] == {"__timestamp__": "3000-01-02T03:04:05.000006Z"}
    assert second["us"] == {"__timestamp__": "0001-01-01T00:00:00Z"}
    assert first["s"] == {"__timestamp__": "0001-01-01T00:00:00Z"}
    assert second["s"] == {"__timestamp__": "9999-12-31T23:59:59Z"}
    assert first["ms"] == {"__timestamp__": "1969-12-31T23:59:59.999Z"}
    assert second["ms"] == {"__timestamp__": "1970-01-01T00:00:00.001Z"}


def test_list_views_and_polars_objects_are_refused_by_name(folder):
    path = folder / "refused.fpks"
    if hasattr(pa, "list_view"):
        for type_ in (pa.list_view(pa.int64()), pa.large_list_view(pa.int64())):
            views = pa.table({"__name__": ["c/a", "c/b"], "v": pa.array([[1], [2, 3]], type_)})
            with pytest.raises(FirePackError, match="column 'v': Arrow list views are not written"):
                firepack.write_table(views, path)
            assert not path.exists()
    polars = pytest.importorskip("polars")
    frame = polars.DataFrame({"__name__": ["c/a"], "o": polars.Series([{"a": 1}], dtype=polars.Object)})
    with pytest.raises(FirePackError, match="column 'o' holds Python objects"):
        firepack.write_table(frame, path)
    assert not path.exists()
    # 128-bit integers reach Arrow in a format of Polars' own: named, wherever they are, with what to cast them to.
    for kind in (getattr(polars, name) for name in ("Int128", "UInt128") if hasattr(polars, name)):
        wide = polars.DataFrame({"__name__": ["c/a"], "s": [{"n": 1}]}).with_columns(
            polars.col("s").struct.with_fields(polars.field("n").cast(kind)))
        with pytest.raises(FirePackError, match=f"column 's.n' is a polars {kind}, which has no Arrow type: cast it"):
            firepack.write_table(wide, path)
        with pytest.raises(FirePackError, match=r"column 'l\[\]' is a polars"):
            firepack.write_table(polars.DataFrame({"__name__": ["c/a"], "l": polars.Series([[1]], dtype=polars.List(kind))}),
                                 path)
        assert not path.exists()
    # A LazyFrame is collected, as Polars' own writers run one.
    lazy = polars.DataFrame({"__name__": ["c/a", "c/b"], "n": [1, 2]}).lazy().filter(polars.col("n") > 1)
    assert firepack.write_table(lazy, path) == 1
    assert firepack.read_table(path).to_pylist() == [{"__name__": "c/b", "n": 2}]
    path.unlink()
    with pytest.raises(FirePackError, match="column 'o' holds Python objects"):
        firepack.write_table(frame.lazy(), path)
    assert not path.exists()
    # Categoricals (dictionaries of string_view) are written as their strings.
    categories = polars.DataFrame({"__name__": ["c/a", "c/b"], "kind": polars.Series(["x", "y"], dtype=polars.Categorical)})
    firepack.write_table(categories, path)
    assert firepack.read_table(path).column("kind").to_pylist() == ["x", "y"]
    # At any depth too: a struct's field, a list's values, a list of structs, with nulls at each level.
    nested = polars.DataFrame({
        "__name__": ["c/a", "c/b", "c/c"],
        "s": [{"k": "x", "n": 1}, None, {"k": None, "n": 2}],
        "l": [["a", None], None, ["c"]],
        "ls": [[{"k": "q"}], [], None],
    }).with_columns(polars.col("s").struct.with_fields(polars.field("k").cast(polars.Categorical)),
                    polars.col("l").cast(polars.List(polars.Categorical)),
                    polars.col("ls").cast(polars.List(polars.Struct({"k": polars.Categorical}))))
    firepack.write_table(nested, path)
    back = firepack.read_table(path)
    assert back.column("s").to_pylist() == [{"k": "x", "n": 1}, None, {"k": None, "n": 2}]
    assert back.column("l").to_pylist() == [["a", None], None, ["c"]]
    assert back.column("ls").to_pylist() == [[{"k": "q"}], [], None]


def test_a_fpk_files_error_offsets_count_from_its_first_byte(folder, firepack_tool):
    # FORMAT.md §7: an offset counts from the input's first byte, the magic's; the reader checked the bytes after the
    # five-byte header and reported offsets five short.
    path = folder / "dup.fpk"
    path.write_bytes(bytes.fromhex("89 46 50 4B 03 B2 06 02 61 01 02 61 02"))
    tool = subprocess.run([firepack_tool, "validate", str(path)], capture_output=True, text=True)
    assert tool.returncode == 1 and "(at byte 10)" in tool.stderr, tool.stderr
    with pytest.raises(FirePackError, match=r"duplicateKey: .*\(at byte 10\)"):
        firepack.read_table(path)


def test_the_command_line_reports_a_missing_folder_in_one_line(events, folder):
    result = subprocess.run([sys.executable, "-m", "firepack", "convert", str(events),
                             str(folder / "missing" / "events.parquet")], capture_output=True, text=True, cwd=folder)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.startswith("firepack: ") and "missing" in result.stderr, result.stderr
    assert not (folder / "missing").exists()
    help_text = subprocess.run([sys.executable, "-m", "firepack", "convert", "--help"], capture_output=True,
                               text=True, cwd=folder).stdout
    for option in ("--batch-size", "--compression", "--on-damage"):
        line = next(line for line in help_text.splitlines() if line.strip().startswith(option))
        assert "default" in help_text[help_text.index(line):help_text.index(line) + 300], help_text


def test_document_times_read_in_microseconds_past_nanoseconds_range(folder, firepack_tool):
    # Microseconds hold years 1 to 9999 and far beyond: a document time of 1500 reads in them, not only in ns.
    source = folder / "old.jsonl"
    source.write_text('{"__name__": "c/a", "__create_time__": {"__timestamp__": "1500-01-01T00:00:00.000001Z"}, "x": 1}\n')
    path = folder / "old.fpks"
    subprocess.run([firepack_tool, "convert", str(source), str(path), "--quiet"], check=True)
    back = firepack.read_table(path, timestamp_unit="us")
    assert back.column("__create_time__").to_pylist() == [
        datetime.datetime(1500, 1, 1, 0, 0, 0, 1, tzinfo=datetime.timezone.utc)]
    with pytest.raises(FirePackError, match="outside what timestamp\\[ns\\] holds"):
        firepack.read_table(path)


def test_a_damaged_close_record_loses_nothing_in_either_mode(events, folder):
    # The close record is the stream's last 24 bytes: damaged, it costs no record (FORMAT.md §8), so reading with
    # on_damage="error" gives every row and says so, as the tool's convert does, rather than raising.
    data = bytearray(open(events, "rb").read())
    data[len(data) - 24 + 6] ^= 0x10
    path = folder / "closing.fpks"
    path.write_bytes(bytes(data))
    whole = firepack.read_table(events)
    for on_damage in ("error", "skip"):
        with pytest.warns(FirePackWarning, match="damaged index or close record.*no record is lost"):
            table = firepack.read_table(path, on_damage=on_damage)
        assert table.num_rows == whole.num_rows and table.equals(whole)


def test_on_unclosed_error_fails_the_range_that_reads_the_last_records(events, folder, firepack_tool):
    # What the Spark readers ask for: the one range that reads the last records of a stream without a close record
    # fails, naming the file; ranges that read no record (inside the close record of a closed stream, or past the
    # last record) do not, nor does any range of a closed stream.
    stream = folder / "refused-blocks.fpks"
    subprocess.run([firepack_tool, "convert", str(events), str(stream), "--block-size", "16384"],
                   check=True, capture_output=True)
    data = open(stream, "rb").read()
    cut = folder / "refused-cut.fpks"
    cut.write_bytes(data[:block_frames(data)[3][0]])
    for path, refused in [(stream, False), (cut, True)]:
        size = os.path.getsize(path)
        failures, rows = [], 0
        for offset, length in firepack.splits(path, 20_000) + [(size - 1, 1), (size - 10, 10)]:
            try:
                rows += firepack.open_stream(path, offset=offset, length=length, on_unclosed="error").read_all().num_rows
            except FirePackError as error:
                assert str(path) in str(error) and "without a close record" in str(error), str(error)
                failures.append(offset)
        assert len(failures) == (1 if refused else 0), failures
        if not refused:
            assert rows == firepack.read_table(path).num_rows
        whole = firepack.open_stream(path, on_unclosed="error")
        if refused:
            with pytest.raises(FirePackError, match="without a close record after record"):
                whole.read_all()
        else:
            assert whole.read_all().num_rows == rows
    with pytest.raises(ValueError, match="on_unclosed"):
        firepack.open_stream(stream, on_unclosed="ignore")


def test_a_given_schema_types_the_documents_own_columns_as_they_are(events):
    # A path read into an integer column was its bytes' address; a time into a string column crashed the process.
    for column, type_ in [("__name__", pa.int64()), ("__name__", pa.list_(pa.string())),
                          ("__create_time__", pa.string()), ("__update_time__", pa.int64())]:
        schema = pa.schema([pa.field(column, type_), pa.field("type", pa.string())])
        with pytest.raises(FirePackError, match=rf"{column} must be a (string|timestamp) column"):
            firepack.read_table(events, schema=schema)
    named = firepack.read_table(events, schema=pa.schema([pa.field("__name__", pa.string())]))
    assert named.num_rows == firepack.read_table(events).num_rows


def test_outputs_that_are_not_files_are_written_in_place_or_refused_before_any_work(events, folder):
    # As the tool opens its outputs: a device or a pipe is written to, never replaced by a file; a folder is refused
    # before the input is read (a one-shot stream would be gone); a link is written through, and stays a link.
    import stat as stat_module
    import threading
    table = firepack.read_table(events)
    assert firepack.write_table(table, "/dev/null") == table.num_rows
    assert stat_module.S_ISCHR(os.stat("/dev/null").st_mode)
    fifo = folder / "pipe.fpks"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()))
    reader.start()
    firepack.write_table(table, fifo)
    reader.join()
    assert stat_module.S_ISFIFO(os.stat(fifo).st_mode)
    copy = folder / "from-pipe.fpks"
    copy.write_bytes(received[0])
    assert firepack.read_table(copy).equals(table)
    taken = []

    def batches():
        for batch in table.to_batches(max_chunksize=100):
            taken.append(batch.num_rows)
            yield batch
    (folder / "out.fpks").mkdir()
    with pytest.raises(FirePackError, match="is a directory"):
        firepack.write_table(pa.RecordBatchReader.from_batches(table.schema, batches()), folder / "out.fpks")
    assert not taken
    target = folder / "target.fpks"
    target.write_bytes(b"old")
    link = folder / "link.fpks"
    link.symlink_to(target)
    firepack.write_table(table, link)
    assert link.is_symlink() and firepack.read_table(target).num_rows == table.num_rows


def test_parquet_outputs_follow_the_same_rules(events, folder):
    import stat as stat_module
    convert = [sys.executable, "-m", "firepack", "convert", str(events)]
    (folder / "dir.parquet").mkdir()
    result = subprocess.run(convert + [str(folder / "dir.parquet")], capture_output=True, text=True)
    assert result.returncode == 1 and "dir.parquet: is a folder" in result.stderr, result.stderr
    assert not [p.name for p in folder.iterdir() if p.name.endswith(".partial")]
    # A user's own file named like the old temporary one is neither overwritten nor renamed away.
    (folder / "mine.parquet.partial").write_bytes(b"mine")
    target = folder / "real.parquet"
    link = folder / "mine.parquet"
    link.symlink_to(target)
    subprocess.run(convert + [str(link)], check=True, capture_output=True)
    assert (folder / "mine.parquet.partial").read_bytes() == b"mine"
    import pyarrow.parquet as pq
    assert link.is_symlink() and pq.read_table(target).num_rows == firepack.read_table(events).num_rows
    subprocess.run(convert + ["/dev/null"], check=True, capture_output=True)
    assert stat_module.S_ISCHR(os.stat("/dev/null").st_mode)
    piped = subprocess.run(convert + ["-"], check=True, capture_output=True)
    (folder / "piped.parquet").write_bytes(piped.stdout)
    assert pq.read_table(folder / "piped.parquet").num_rows == firepack.read_table(events).num_rows


def test_python_schema_says_damage_and_exits_1(folder):
    damaged = folder / "schema-damaged.fpks"
    firepack.write_table(pa.table({"__name__": [f"c/{i}" for i in range(2000)], "n": list(range(2000))}), damaged)
    data = bytearray(damaged.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged.write_bytes(bytes(data))
    result = subprocess.run([sys.executable, "-m", "firepack", "schema", str(damaged)], capture_output=True, text=True)
    assert result.returncode == 1 and "problem(s) (damaged records" in result.stderr, result.stderr
    assert "of 2000 records not read" in result.stderr and "Traceback" not in result.stderr
    # The JSON report is the same report: the exit status says the profile is partial there too.
    result = subprocess.run([sys.executable, "-m", "firepack", "schema", "--json", str(damaged)], capture_output=True,
                            text=True)
    assert result.returncode == 1 and json.loads(result.stdout)["problems"] > 0, result.stderr
    unclosed = folder / "schema-unclosed.fpks"
    clean = folder / "schema-clean.fpks"
    firepack.write_table(pa.table({"__name__": [f"c/{i}" for i in range(2000)], "n": list(range(2000))}), clean)
    unclosed.write_bytes(clean.read_bytes()[:-24])
    result = subprocess.run([sys.executable, "-m", "firepack", "schema", str(unclosed)], capture_output=True, text=True)
    assert result.returncode == 0 and "was not closed after record 2000" in result.stderr, result.stderr


def test_a_misspelled_mark_is_refused_not_dropped(folder):
    # Written as a plain string, the reference the mark meant would be gone without a word.
    for key, value in [(b"firepack.type", b"refrence"), (b"firepack.null", b"values")]:
        field = pa.field("owner", pa.string(), metadata={key: value})
        table = pa.table({"__name__": pa.array(["c/a"]), "owner": pa.array(["c/b"])},
                         schema=pa.schema([pa.field("__name__", pa.string()), field]))
        with pytest.raises(FirePackError, match=rf"owner.*{key.decode()} \"{value.decode()}\""):
            firepack.write_table(table, folder / "marked.fpks")
        assert not (folder / "marked.fpks").exists()


def test_a_collection_for_a_table_with_names_is_refused(folder):
    # It would name none of the documents, which go where __name__ says: a caller who gave it expects them elsewhere.
    table = pa.table({"__name__": ["c/a"], "n": [1]})
    with pytest.raises(FirePackError, match="collection \"other\" would name none of them"):
        firepack.write_table(table, folder / "named.fpks", collection="other")
    with pytest.raises(FirePackError, match="id prefix \"run-\" would name none of them"):
        firepack.write_table(table, folder / "named.fpks", id_prefix="run-")
    assert not (folder / "named.fpks").exists()
    assert firepack.write_table(table.drop_columns(["__name__"]), folder / "prefixed.fpks", collection="other",
                                id_prefix="run-") == 1
    assert firepack.read_table(folder / "prefixed.fpks").column("__name__").to_pylist() == ["other/run-0"]
    assert firepack.write_table(table.drop_columns(["__name__"]), folder / "named.fpks", collection="other") == 1
