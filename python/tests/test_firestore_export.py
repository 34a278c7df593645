"""Firestore managed exports (`gcloud firestore export`): LevelDB log files of Datastore EntityProto records, read by
`firepack convert EXPORT_FOLDER/ out.fpks` and checked against an independent reader — App Engine's own entity code
(appengine-python-standard: entity_pb2 and `datastore.Entity.FromPb`) and Google's records reader (as packaged by
leveldb-export), on export folders built here with App Engine's `Entity.ToPb`."""
import base64
import datetime
import json
import math
import os
import random
import struct
import subprocess
from pathlib import Path

import pytest

os.environ.setdefault("APPLICATION_ID", "s~demo-project")
datastore = pytest.importorskip("google.appengine.api.datastore", reason="appengine-python-standard is not installed")
from google.appengine.api import datastore_types  # noqa: E402
from google.appengine.datastore import entity_bytes_pb2 as entity_pb2  # noqa: E402

records = pytest.importorskip("leveldb_export.records", reason="leveldb-export is not installed")
crc32c = pytest.importorskip("google_crc32c", reason="google-crc32c is not installed")

APP = "s~demo-project"
BLOCK = 32768


def masked_crc(data: bytes) -> int:
    crc = crc32c.value(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def write_log(path: Path, payloads, pad=True):
    """A LevelDB log (leveldb/doc/log_format.md) as App Engine's records writer makes it: chunks that never cross a
    32 KiB block, a zero trailer where fewer than 7 bytes are left, the last block padded with zeros."""
    out = bytearray()
    for payload in payloads:
        first, rest = True, payload
        while True:
            left = BLOCK - len(out) % BLOCK
            if left < 7:
                out += b"\0" * left
                left = BLOCK
            take = min(len(rest), left - 7)
            last = take == len(rest)
            kind = (1 if last else 2) if first else (4 if last else 3)
            chunk = rest[:take]
            out += struct.pack("<IHB", masked_crc(bytes([kind]) + chunk), len(chunk), kind) + chunk
            rest, first = rest[take:], False
            if last:
                break
    if pad and len(out) % BLOCK:
        out += b"\0" * (BLOCK - len(out) % BLOCK)
    path.write_bytes(bytes(out))


def embedded(fields: dict) -> datastore_types.EmbeddedEntity:
    """A map as Firestore exports it: an EntityProto without a key, its fields as unindexed properties."""
    proto = entity_pb2.EntityProto()
    for name, value in fields.items():
        for pb in _property_pbs(name, value):
            proto.raw_property.add().CopyFrom(pb)
    return datastore_types.EmbeddedEntity(proto)


def _property_pbs(name, value):
    pbs = datastore_types.ToPropertyPb(name, value)
    return pbs if isinstance(pbs, list) else [pbs]


def make_entities(count: int, seed: int):
    rng = random.Random(seed)
    entities = []
    for index in range(count):
        if index % 50 == 7:
            key = datastore.Key.from_path("books", 1000 + index, _app=APP)   # a numeric ID: __idN__
        elif index % 10 == 3:
            key = datastore.Key.from_path("books", f"b{index // 10}", "reviews", f"r{index}", _app=APP)
        else:
            key = datastore.Key.from_path("books" if index % 2 else "authors", f"doc-{index:05d}-é", _app=APP)
        entity = datastore.Entity(key.kind(), name=key.name(), id=key.id(), parent=key.parent(), _app=APP)
        entity["title"] = rng.choice(["Dune", "Émile", "数学", "a \"quoted\" line\n"]) + str(index)
        entity["pages"] = rng.randint(-(2 ** 63), 2 ** 63 - 1) if index % 5 == 0 else rng.randint(0, 2000)
        entity["price"] = round(rng.uniform(0, 100), 2) if index % 3 else -0.0
        entity["available"] = bool(index % 2)
        entity["missing"] = None
        entity["published"] = datetime.datetime(1969, 12, 31, 23, 59, 59, 999_999) + datetime.timedelta(
            microseconds=rng.randint(0, 10 ** 15))
        entity["where"] = datastore_types.GeoPt(rng.uniform(-90, 90), rng.uniform(-180, 180))
        entity["cover"] = datastore_types.Blob(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 40))))
        entity["isbn"] = datastore_types.ByteString(b"978-" + str(index).encode())
        entity["tags"] = [rng.choice(["sf", "classic", "ü"]) for _ in range(rng.randint(1, 4))]
        entity["scores"] = [rng.randint(0, 9), rng.random(), None, True]
        entity["nothingYet"] = []
        entity["author"] = datastore.Key.from_path("authors", f"a{index % 7}", _app=APP)
        entity["elsewhere"] = datastore.Key.from_path("books", "x", _app="s~other-project")
        entity["details"] = embedded({
            "language": "en", "edition": index,
            "printings": [embedded({"year": 1965 + index % 50, "copies": 1000})],
            "embedding": embedded({"__type__": "__vector__", "value": [0.25, -1.5, 3.0]}),
        })
        if index % 97 == 11:
            entity["body"] = datastore_types.Text("long text " * 9000)    # 90 KB: a record over several blocks
        entity.set_unindexed_properties(["cover", "details", "body"])
        entities.append(entity)
    return entities


def build_export(folder: Path, entities, files: int = 12) -> Path:
    """An export folder as `gcloud firestore export` lays it out, the entities spread over `files` output files."""
    export = folder / "2026-11-25T10:00:00_12345"
    kinds = export / "all_namespaces" / "all_kinds"
    kinds.mkdir(parents=True)
    (export / "2026-11-25T10:00:00_12345.overall_export_metadata").write_bytes(b"metadata: not documents")
    (kinds / "all_namespaces_all_kinds.export_metadata").write_bytes(b"metadata: not documents")
    per_file = math.ceil(len(entities) / files)
    for number in range(files):
        chunk = entities[number * per_file:(number + 1) * per_file]
        write_log(kinds / f"output-{number}", [entity.ToPb().SerializeToString() for entity in chunk])
    return export


def output_files(export: Path):
    kinds = export / "all_namespaces" / "all_kinds"
    return sorted(kinds.glob("output-*"), key=lambda p: int(p.name.split("-")[1]))


# --- The independent side: Google's records reader and App Engine's entity decoder, to Firestore REST JSON values.

def rest_value(value):
    if value is None:
        return {"nullValue": None}
    if isinstance(value, bool):
        return {"booleanValue": value}
    if isinstance(value, int):
        return {"integerValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, datetime.datetime):
        return {"timestampValue": value.replace(tzinfo=datetime.timezone.utc)}
    if isinstance(value, datastore_types.GeoPt):
        return {"geoPointValue": {"latitude": value.lat, "longitude": value.lon}}
    if isinstance(value, datastore_types.Key):
        path = "/".join(f"{kind}/{ident if isinstance(ident, str) else f'__id{ident}__'}"
                        for kind, ident in zip(value.to_path()[::2], value.to_path()[1::2]))
        project = value.app().split("~")[-1]
        prefix = "" if project == "demo-project" else f"projects/{project}/databases/(default)/documents/"
        return {"referenceValue": prefix + path}
    if isinstance(value, datastore_types.EmbeddedEntity):
        fields = entity_fields(entity_pb2.EntityProto.FromString(bytes(value)))
        return {"mapValue": {"fields": fields}}
    if isinstance(value, (datastore_types.Blob, datastore_types.ByteString)):
        return {"bytesValue": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, str):
        return {"stringValue": str(value)}
    if isinstance(value, list):
        return {"arrayValue": {"values": [rest_value(element) for element in value]}}
    raise AssertionError(f"unexpected value {value!r}")


def entity_fields(proto):
    entity = datastore.Entity.FromPb(proto, validate_reserved_properties=False)
    return {name: rest_value(value) for name, value in entity.items()}


def independent_documents(export: Path):
    documents = []
    for path in output_files(export):
        with open(path, "rb") as handle:
            for payload in records.RecordsReader(handle, no_check_crc=False):
                proto = entity_pb2.EntityProto.FromString(payload)
                key = datastore.Entity.FromPb(proto).key()
                name = rest_value(key)["referenceValue"]
                documents.append({"name": name, "fields": entity_fields(proto)})
    return documents


def normalized(value):
    """REST JSON as the tool writes it, made comparable: timestamps parsed, empty arrays and maps in one shape."""
    if isinstance(value, dict):
        if "timestampValue" in value and isinstance(value["timestampValue"], str):
            text = value["timestampValue"].replace("Z", "+00:00")
            head, _, tail = text.partition(".")
            if tail:
                fraction, zone = tail[:tail.index("+")], tail[tail.index("+"):]
                text = f"{head}.{fraction.ljust(6, '0')[:6]}{zone}"
                assert fraction.ljust(9, "0")[6:] == "000", "Datastore timestamps are microseconds"
            return {"timestampValue": datetime.datetime.fromisoformat(text)}
        if "arrayValue" in value:
            return {"arrayValue": {"values": [normalized(v) for v in value["arrayValue"].get("values", [])]}}
        if "mapValue" in value:
            return {"mapValue": {"fields": {k: normalized(v) for k, v in value["mapValue"].get("fields", {}).items()}}}
        return {key: normalized(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normalized(item) for item in value]
    return value


def tool_documents(tool: str, export, folder: Path, *extra):
    out = folder / "export.firestore.json"
    subprocess.run([tool, "convert", str(export), str(out), "--quiet", *extra], check=True, capture_output=True)
    return [json.loads(line) for line in out.read_text().splitlines()]


# --- Tests


def test_log_writer_agrees_with_googles_records_reader(folder):
    payloads = [b"", b"x" * 10, b"y" * (BLOCK - 14), b"z" * (3 * BLOCK + 5), b"tail"]
    write_log(folder / "output-0", payloads)
    with open(folder / "output-0", "rb") as handle:
        assert list(records.RecordsReader(handle, no_check_crc=False)) == payloads


def test_export_converts_as_app_engine_reads_it(firepack_tool, folder):
    entities = make_entities(400, seed=11)
    export = build_export(folder, entities)
    expected = independent_documents(export)
    assert len(expected) == 400
    converted = tool_documents(firepack_tool, export, folder)
    assert len(converted) == len(expected)
    for index, (ours, theirs) in enumerate(zip(converted, expected)):
        assert ours["name"] == theirs["name"], index
        assert list(ours["fields"]) == list(theirs["fields"]), index       # field order as Datastore lists them
        assert normalized(ours["fields"]) == theirs["fields"], index
    # The shapes that matter were exercised: numeric IDs, sub-collections, records over several blocks, vectors.
    names = [document["name"] for document in converted]
    assert any(name.endswith("/__id1007__") for name in names)
    assert any("/reviews/" in name for name in names)
    assert any("body" in document["fields"] for document in converted)


def test_every_way_of_naming_an_export_reads_the_same(firepack_tool, folder):
    export = build_export(folder, make_entities(60, seed=3), files=3)
    whole = tool_documents(firepack_tool, export, folder)
    metadata = next(export.glob("*.overall_export_metadata"))
    assert tool_documents(firepack_tool, metadata, folder) == whole
    single = output_files(export)[1]
    assert tool_documents(firepack_tool, single, folder) == whole[20:40]


def test_export_to_fpks_and_back_is_lossless(firepack_tool, folder):
    export = build_export(folder, make_entities(120, seed=5), files=2)
    direct = tool_documents(firepack_tool, export, folder)
    stream = folder / "export.fpks"
    subprocess.run([firepack_tool, "convert", str(export), str(stream), "--quiet"], check=True, capture_output=True)
    again = folder / "again.firestore.json"
    subprocess.run([firepack_tool, "convert", str(stream), str(again), "--quiet"], check=True, capture_output=True)
    assert [json.loads(line) for line in again.read_text().splitlines()] == direct
    result = subprocess.run([firepack_tool, "validate", str(export)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "valid firestore-export, 120 document(s)" in result.stdout
    # inspect and stats read exports too, numbering records as validate does.
    listing = subprocess.run([firepack_tool, "inspect", str(export)], capture_output=True, text=True, check=True).stdout
    lines = listing.splitlines()
    assert len(lines) == 120 and lines[5].startswith(f"record 5: {direct[5]['name'].split('/documents/')[-1]} (")
    stats = subprocess.run([firepack_tool, "stats", str(export)], capture_output=True, text=True)
    assert stats.returncode == 0 and "120 documents" in stats.stdout, stats.stdout + stats.stderr


def test_damaged_export_fails_naming_file_and_byte(firepack_tool, folder):
    export = build_export(folder, make_entities(90, seed=9), files=3)
    damaged = output_files(export)[1]
    data = bytearray(damaged.read_bytes())
    data[200] ^= 0x40
    damaged.write_bytes(bytes(data))
    out = folder / "out.fpks"
    result = subprocess.run([firepack_tool, "convert", str(export), str(out)], capture_output=True, text=True)
    assert result.returncode == 1
    assert str(damaged) in result.stderr and "checksum" in result.stderr and "at byte" in result.stderr
    assert not out.exists()
    validate = subprocess.run([firepack_tool, "validate", str(export)], capture_output=True, text=True)
    assert validate.returncode == 1
    # Records are numbered across the export's files: the damaged file's first record is record 30.
    assert f"{damaged}: record 30 at byte 0: chunk checksum mismatch" in validate.stderr
    assert "invalid firestore-export: 1 problem(s), 60 document(s) intact" in validate.stderr
    inspect = subprocess.run([firepack_tool, "inspect", str(export)], capture_output=True, text=True)
    assert f"{damaged}: record 30 at byte 0: chunk checksum mismatch" in inspect.stderr
    assert "1 damaged record(s); firepack validate says why" in inspect.stderr
    assert len(inspect.stdout.splitlines()) == 60


def test_namespaced_entities_are_refused_not_dropped(firepack_tool, folder):
    entity = datastore.Entity("books", name="b", namespace="tenant-a", _app=APP)
    entity["title"] = "x"
    export = folder / "ns"
    export.mkdir()
    write_log(export / "output-0", [entity.ToPb().SerializeToString()])
    result = subprocess.run([firepack_tool, "convert", str(export), str(folder / "ns.fpks")], capture_output=True, text=True)
    assert result.returncode == 1
    assert "record 0" in result.stderr and "namespace 'tenant-a'" in result.stderr


def test_a_missing_output_file_is_refused_not_skipped(firepack_tool, folder):
    # A download cut short leaves `output-1_.gstmp` where `output-1` belongs: its documents must not go missing
    # without a word, whichever way the export is named.
    export = build_export(folder, make_entities(60, seed=11), files=3)
    files = output_files(export)
    files[1].rename(files[1].with_name(files[1].name + "_.gstmp"))
    for named in [export, next(export.glob("*.overall_export_metadata"))]:
        for command in [["convert", str(named), str(folder / "out.fpks")], ["validate", str(named)]]:
            result = subprocess.run([firepack_tool, *command], capture_output=True, text=True)
            assert result.returncode == 1, result.stdout + result.stderr
            assert "output-1 is missing (output-2 is there)" in result.stderr, result.stderr
    assert not (folder / "out.fpks").exists()
    # The first file missing is refused too.
    files[0].unlink()
    result = subprocess.run([firepack_tool, "validate", str(export)], capture_output=True, text=True)
    assert result.returncode == 1 and "output-0 is missing (output-2 is there)" in result.stderr, result.stderr


def test_a_missing_last_output_file_is_refused_not_skipped(firepack_tool, folder):
    # The last file cut short leaves no gap in the numbering: the partial file itself is what says the export is
    # incomplete, and so does any other file named like its data (`output-2.gz`).
    export = build_export(folder, make_entities(60, seed=12), files=3)
    files = output_files(export)
    partial = files[2].with_name(files[2].name + "_.gstmp")
    files[2].rename(partial)
    for command in [["convert", str(export), str(folder / "out.fpks")], ["validate", str(export)],
                    ["stats", str(export)], ["inspect", str(export)]]:
        result = subprocess.run([firepack_tool, *command], capture_output=True, text=True)
        assert result.returncode == 1, result.stdout + result.stderr
        assert f"{partial}: named like an export's data but not an output-N file" in result.stderr, result.stderr
    assert not (folder / "out.fpks").exists()
    compressed = files[2].with_name(files[2].name + ".gz")
    partial.rename(compressed)
    result = subprocess.run([firepack_tool, "validate", str(export)], capture_output=True, text=True)
    assert result.returncode == 1 and f"{compressed}: named like" in result.stderr, result.stderr
    # Moved out of the export, by the user's word that it is whole without it: the other two files read.
    compressed.unlink()
    result = subprocess.run([firepack_tool, "validate", str(export)], capture_output=True, text=True)
    assert result.returncode == 0 and "valid firestore-export, 40 document(s)" in result.stdout, result.stderr
    # A metadata file's partial download holds no documents: not refused.
    (export / "2026.overall_export_metadata_.gstmp").write_bytes(b"x")
    result = subprocess.run([firepack_tool, "validate", str(export)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    # Nothing but a partial file: it is named, not reported as "no output-N files".
    files[0].unlink()
    files[1].rename(files[1].with_name(files[1].name + "_.gstmp"))
    result = subprocess.run([firepack_tool, "validate", str(export)], capture_output=True, text=True)
    assert result.returncode == 1 and "output-1_.gstmp: named like" in result.stderr, result.stderr


def test_an_output_that_is_a_file_of_the_export_is_refused(firepack_tool, folder):
    export = build_export(folder, make_entities(60, seed=7), files=2)
    files = output_files(export)
    before = [path.read_bytes() for path in files]
    metadata = next(export.glob("*.overall_export_metadata"))
    metadata_files = sorted(export.rglob("*export_metadata"))
    assert len(metadata_files) >= 1
    metadata_before = [path.read_bytes() for path in metadata_files]
    # From any part of the export (its folder, its metadata, one of its data files) onto any file of it (a data file,
    # itself, a sibling, a metadata file that an import needs), --in-place or not.
    for source in (export, metadata, files[0], files[1], files[0].parent):
        for target in files + metadata_files:
            for in_place in ([], ["--in-place"]):
                result = subprocess.run([firepack_tool, "convert", str(source), str(target), "--to", "fpks", "--quiet",
                                         *in_place], capture_output=True, text=True)
                assert result.returncode == 2, (source, target, in_place, result.stderr)
                assert "a file of the export being read: refusing to write over it" in result.stderr, result.stderr
    # Relative paths too, from inside the export and from its root (the folders above the current one count, and a
    # bare file name is no crash).
    for cwd, source in ((files[0].parent, files[0].name), (export, files[0].relative_to(export))):
        for target in files + metadata_files:
            result = subprocess.run([firepack_tool, "convert", str(source), os.path.relpath(target, cwd), "--to", "fpks",
                                     "--quiet"], capture_output=True, text=True, cwd=cwd)
            assert result.returncode == 2, (cwd, source, target, result.stderr)
            assert "a file of the export being read: refusing to write over it" in result.stderr, result.stderr
    assert [path.read_bytes() for path in files] == before
    assert [path.read_bytes() for path in metadata_files] == metadata_before
    result = subprocess.run([firepack_tool, "validate", str(export)], capture_output=True, text=True)
    assert result.returncode == 0 and "valid firestore-export, 60 document(s)" in result.stdout
    # Beside the export's files, not over them, is allowed.
    beside = export / "converted.jsonl"
    subprocess.run([firepack_tool, "convert", str(export), str(beside), "--quiet"], check=True, capture_output=True)
    assert len(beside.read_text().splitlines()) == 60
