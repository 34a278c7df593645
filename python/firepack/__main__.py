"""`python -m firepack convert IN OUT`: FirePack ↔ Parquet through pyarrow, batch by batch (memory bounded by the
batch size, not the file).

    python -m firepack convert events.fpks events.parquet
    python -m firepack convert events.parquet events.fpks
    python -m firepack schema events.fpks
"""
import argparse
import contextlib
import json
import os
import stat
import sys
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq

import firepack

FIREPACK_SUFFIXES = (".fpks", ".fpks.gz", ".fpk")
EXPANSION_HELP = ("bytes a version-3 block may unpack into per byte of it (default 1024): raise it to read blocks "
                  "refused as past it")
KEY_EXPANSION_HELP = ("bytes of keys longer than 32 bytes that a record's key references may stand for, per byte of "
                      "the record (default 16): raise it to read records refused as past it")


def positive(text):
    """An argument of 1 or more (argparse's type)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"takes 1 or more, not {value}")
    return value


def convert(arguments):
    source, target = arguments.input, arguments.output
    if source == target:
        raise SystemExit("firepack: the output is the input")
    if source.endswith(FIREPACK_SUFFIXES) and (target.endswith(".parquet") or _written_in_place(target)):
        reader = firepack.open_stream(source, batch_size=arguments.batch_size, on_damage=arguments.on_damage,
                                      max_block_expansion=arguments.max_block_expansion,
                                      max_key_expansion=arguments.max_key_expansion)
        empty = _empty_structs(reader.schema)
        if empty:
            raise SystemExit(f"firepack: {source}: {', '.join(empty)} {'is a map' if len(empty) == 1 else 'are maps'} "
                             "empty in every document, which Parquet cannot hold (a group needs a field); nothing "
                             "written. Read it with firepack.read_table to keep it, or drop it from the table first")
        rows = 0
        with _output(target) as sink:
            with pq.ParquetWriter(sink, reader.schema, compression=arguments.compression) as writer:
                for batch in reader:
                    writer.write_batch(batch)
                    rows += batch.num_rows
        print(f"{source} → {target}: {rows} documents", file=sys.stderr)
    elif source.endswith(".parquet") and (target.endswith(".fpks") or _written_in_place(target)):
        for given, option in ((arguments.max_block_expansion, "--max-block-expansion"),
                              (arguments.max_key_expansion, "--max-key-expansion")):
            if given is not None:
                raise SystemExit(f"firepack: {option} applies to FirePack input, not Parquet")
        parquet = pq.ParquetFile(source)
        reader = pa.RecordBatchReader.from_batches(parquet.schema_arrow, parquet.iter_batches(batch_size=arguments.batch_size))
        rows = firepack.write_table(reader, target, collection=arguments.collection)
        print(f"{source} → {target}: {rows} documents", file=sys.stderr)
    else:
        raise SystemExit("firepack: convert reads .fpks/.fpks.gz/.fpk into .parquet (or standard output, a device "
                         "or a pipe), or .parquet into .fpks")


def _descriptor(target):
    """The descriptor a path names directly (`-`, `/dev/stdout`, `/dev/fd/N`, `/proc/self/fd/N`), or None."""
    if target in ("-", "/dev/stdout"):
        return 1
    if target == "/dev/stderr":
        return 2
    for prefix in ("/dev/fd/", "/proc/self/fd/"):
        if target.startswith(prefix) and target[len(prefix):].isdigit():
            return int(target[len(prefix):])
    return None


def _written_in_place(target):
    """Whether `target` is standard output, a descriptor, a device or a pipe: written in place, it has no name that
    says a format."""
    if _descriptor(target) is not None:
        return True
    try:
        kind = os.stat(os.path.realpath(target)).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(kind) or stat.S_ISFIFO(kind)


@contextlib.contextmanager
def _output(target):
    """Where a converted file goes, opened by the rules the `firepack` tool follows: `-`, `/dev/stdout`,
    `/dev/stderr`, `/dev/fd/N`, a character device or a pipe is written in place, never replaced; a regular file or
    a new path (through a link, its target's) is written to a temporary file of its own beside it and renamed over
    it only once complete, so a failure leaves it as it was and nothing half-written behind; an existing file the
    user may not write or, in a sticky folder, replace, a folder, a socket or a block device is refused before any
    work."""
    descriptor = _descriptor(target)
    if descriptor is not None:
        with os.fdopen(os.dup(descriptor), "wb") as stream:
            yield stream
        return
    real = os.path.realpath(target)
    try:
        kind = os.stat(real).st_mode
    except FileNotFoundError:
        kind = None
    if kind is not None and (stat.S_ISCHR(kind) or stat.S_ISFIFO(kind)):
        with open(real, "wb") as stream:
            yield stream
        return
    if kind is not None and not stat.S_ISREG(kind):
        what = "a folder; name a file in it" if stat.S_ISDIR(kind) else "not a file, device or pipe"
        raise SystemExit(f"firepack: {target}: is {what}")
    # Replacing it by a rename would need only the folder to be writable, as `cp` and a shell's `>` refuse it.
    if kind is not None and not os.access(real, os.W_OK):
        raise SystemExit(f"firepack: {target}: cannot write: permission denied")
    folder = os.path.dirname(real)
    if not os.path.isdir(folder):
        raise SystemExit(f"firepack: {target}: no folder {folder}")
    # Nor one that a sticky folder (as /tmp is) keeps its owner alone from replacing, which the rename at the end
    # would find only after all the work (the tool's `AtomicFileSink` refuses it alike).
    if kind is not None and os.geteuid() != 0:
        folder_status, target_status = os.stat(folder), os.lstat(real)
        if folder_status.st_mode & stat.S_ISVTX and os.geteuid() not in (target_status.st_uid, folder_status.st_uid):
            raise SystemExit(f"firepack: {target}: cannot replace: the folder is sticky and the file is another "
                             "user's (write elsewhere)")
    # The temporary name fits in NAME_MAX (255 bytes) whatever the target's: its name is cut to fit.
    name = os.fsencode(os.path.basename(real))[:200].decode("utf-8", "ignore")
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".partial", dir=folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            yield stream
        if kind is not None:
            os.chmod(temporary, stat.S_IMODE(kind))
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, real)
    except BaseException:
        # Nothing half-written stays behind (a damaged record, an interrupt, a failed rename): the target is as it was.
        try:
            os.remove(temporary)
        except FileNotFoundError:
            pass
        raise


def _empty_structs(schema):
    """The paths of struct columns with no fields (maps empty in every document), which Parquet cannot write."""
    import pyarrow as pa
    found = []

    def visit(type_, path):
        if pa.types.is_struct(type_):
            if type_.num_fields == 0:
                found.append(path)
            for child in type_:
                visit(child.type, firepack._field_path(path, child.name))
        elif pa.types.is_list(type_) or pa.types.is_large_list(type_) or pa.types.is_fixed_size_list(type_):
            visit(type_.value_type, f"{path}[]")

    for field in schema:
        visit(field.type, firepack._field_path("", field.name))
    return found


def schema(arguments):
    report = firepack.schema_report(arguments.input, sample=arguments.sample,
                                    max_block_expansion=arguments.max_block_expansion,
                                    max_key_expansion=arguments.max_key_expansion)
    if arguments.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"{arguments.input}: {report['documents']} documents")
        for field in report["fields"]:
            types = ", ".join(f"{name} {count}" for name, count in field["types"].items())
            note = f"  ({field['exact']})" if "exact" in field else ""
            print(f"  {field['path']}: {field['column']} — {types}, absent {field['absent']}{note}")
    for stream in report.get("not_closed", []):
        print(f"firepack: warning: {stream['path']} was not closed after record {stream['records']} (interrupted or "
              "still being written); profiled what it holds", file=sys.stderr)
    past = report.get("blocks_past_expansion", 0)
    if past:
        print(f"firepack: {past} block(s) past the block-expansion limit left out of this "
              f"profile: read them with --max-block-expansion {report['block_expansion_needed']} or more",
              file=sys.stderr)
    damaged = report.get("problems", 0) - past
    if damaged > 0:
        # Damage is not a profile of the whole file: said, and the exit status says it too, as `firepack schema`.
        closed = report.get("closed_records")
        missing = f": {closed - report['documents']} of {closed} records not read" if closed is not None else ""
        raise SystemExit(f"firepack: {arguments.input}: {damaged} problem(s) (damaged records, or places where records "
                         f"are missing){missing}, left out of this profile; firepack validate says which and why")
    if past:
        raise SystemExit(1)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m firepack")
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("convert", help="FirePack ↔ Parquet")
    c.add_argument("input", help="a .fpks, .fpks.gz or .fpk file, or a .parquet file")
    c.add_argument("output", help="a .parquet file, or a .fpks file (written all or nothing)")
    c.add_argument("--batch-size", type=positive, default=65536,
                   help="rows per Arrow batch read (default 65536): memory follows the batch")
    c.add_argument("--compression", default="zstd",
                   help="the Parquet codec (default zstd; any pyarrow.parquet takes: snappy, gzip, none, …)")
    c.add_argument("--collection", help="name documents COLLECTION/<row> when the table has no __name__ column")
    c.add_argument("--on-damage", choices=["error", "skip"], default="error",
                   help="a damaged record fails the conversion (error, the default) or is skipped and reported "
                        "(skip)")
    c.add_argument("--max-block-expansion", type=positive, help=EXPANSION_HELP)
    c.add_argument("--max-key-expansion", type=positive, help=KEY_EXPANSION_HELP)
    c.set_defaults(run=convert)
    s = commands.add_parser("schema", help="the columns a file becomes, with the types seen per field")
    s.add_argument("input", help="a .fpks, .fpks.gz or .fpk file")
    s.add_argument("--sample", type=positive, help="infer from the first SAMPLE documents (default: all of them)")
    s.add_argument("--json", action="store_true", help="the report as JSON, as firepack.schema_report gives it")
    s.add_argument("--max-block-expansion", type=positive, help=EXPANSION_HELP)
    s.add_argument("--max-key-expansion", type=positive, help=KEY_EXPANSION_HELP)
    s.set_defaults(run=schema)
    arguments = parser.parse_args(argv)
    try:
        arguments.run(arguments)
    except firepack.FirePackError as error:
        raise SystemExit(f"firepack: {error}")
    except (OSError, pa.ArrowException) as error:
        # A file that cannot be opened, read or written (a missing folder, no permission, not Parquet): one line,
        # not a traceback.
        text = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise SystemExit(f"firepack: {error.filename}: {error.strerror}" if getattr(error, "filename", None)
                         and getattr(error, "strerror", None) else f"firepack: {text}")


if __name__ == "__main__":
    main()
