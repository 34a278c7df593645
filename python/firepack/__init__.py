"""FirePack documents as Apache Arrow.

Reading decodes each record straight from its bytes into Arrow column buffers in the native core and hands the
batches over through the Arrow C Stream Interface; writing takes Arrow batches the same way. The type mapping, the
schema rules and the split rule are in Docs/ARROW.md.
"""
import os
import sys
import warnings

import pyarrow as pa
import pyarrow.compute as pc

from . import _native
from ._native import FirePackError

__all__ = ["read_table", "open_stream", "infer_schema", "schema_report", "write_table", "restore_schema", "splits",
           "FirePackError", "FirePackWarning"]


class FirePackWarning(UserWarning):
    """Damaged records skipped (`on_damage="skip"`) or values that did not fit their column turned into nulls
    (`on_mismatch="null"`)."""


def _flags(on_mismatch, on_damage):
    if on_mismatch not in ("error", "null"):
        raise ValueError(f"on_mismatch is 'error' or 'null', not {on_mismatch!r}")
    if on_damage not in ("error", "skip"):
        raise ValueError(f"on_damage is 'error' or 'skip', not {on_damage!r}")
    return on_mismatch == "null", on_damage == "skip"


def open_stream(path, batch_size=65536, schema=None, offset=0, length=None, *, columns=None, sample=None,
                on_mismatch="error", on_damage="error", problems=None, sampled_schema=False, records=None,
                max_block_expansion=None, max_key_expansion=None, timestamp_unit="ns", on_unclosed="warn"):
    """A `pyarrow.RecordBatchReader` over the documents of `path` (a `.fpks`, `.fpks.gz` or `.fpk`).

    `offset`/`length` read one byte range: exactly the records whose sync marker starts in it, so adjacent ranges
    read every record once (`splits`). `records` (a `range`, or `(start, stop)`) reads the records numbered so
    instead: a closed version-3 stream is entered through its index at the block that holds `start`, in about a
    millisecond whatever its size; other files are read up to it. `schema` (a `pyarrow.Schema`) is used as given; without one it is inferred
    from the file (all of it, or `sample` records). `columns` reads only those top-level columns.

    A value that does not fit its column raises `FirePackError` naming the record, byte offset and field path, or
    with `on_mismatch="null"` becomes a null counted in a `FirePackWarning`. A damaged record raises, or with
    `on_damage="skip"` is skipped and reported in a `FirePackWarning` (and appended to the list `problems`). A
    damaged index or close record costs no record: it is reported so in either mode, and reading goes on.
    `sampled_schema=True` says `schema` came from `infer_schema(…, sample=N)`: fields it lacks and nulls it did not
    foresee are then errors (or counted with `on_mismatch="null"`), as when the reader infers from a sample itself.

    `max_block_expansion` is how many bytes a version-3 block may unpack into per byte of it in the file (1,024 by
    default, Docs/FORMAT.md §8 "Expansion"): a block past it is refused as `limitExceeded` — not damage — with the
    value that reads it in the message. Raise it for a stream that FirePack wrote before 2026-12-02 holding
    megabytes of one value repeated, or another writer's.

    `max_key_expansion` is how many times its own size the keys of more than 32 bytes that a record's key references
    stand for may be (16 by default, Docs/FORMAT.md §3): a record past it is refused as `limitExceeded` (skipped and
    reported with `on_damage="skip"`) by inference and reading alike. Raise it for a file that a FirePack writer
    before 2026-12-05 filled with references to long keys.

    `timestamp_unit` is `"ns"` (FirePack's, the default), `"us"`: microseconds, as Spark holds them, where a
    timestamp with nanoseconds is a mismatch (an error naming the record, or a counted null with
    `on_mismatch="null"`), or `"us-truncate"`: microseconds with the nanoseconds dropped towards the past
    (1969-12-31T23:59:59.999999999Z is …59.999999, not 1970).

    A stream read to its end that has no close record (its writer crashed or was interrupted, or is still writing:
    records after the last one may be lost) gives a `FirePackWarning` naming the record it ends after, or with
    `on_unclosed="error"` (what the Spark readers do unless option `allowUnclosed` is `true`) raises `FirePackError`.
    """
    if timestamp_unit not in ("ns", "us", "us-truncate"):
        raise ValueError(f'timestamp_unit is "ns", "us" or "us-truncate", not {timestamp_unit!r}')
    nulls, skip = _flags(on_mismatch, on_damage)
    if on_unclosed not in ("warn", "error"):
        raise ValueError(f"on_unclosed is 'warn' or 'error', not {on_unclosed!r}")
    if records is not None:
        if offset != 0 or length is not None:
            raise ValueError("read records by number or a byte range, not both")
        if isinstance(records, range):
            if records.step != 1:
                raise ValueError("records is a range with step 1")
            records = (records.start, records.stop)
        start, stop = (_native.int64("records start", records[0]), _native.int64("records stop", records[1]))
        if stop < start:
            raise ValueError(f"records ({start}, {stop}) is not a range of record numbers")
        records = (start, stop)
    name = os.fsdecode(path)
    try:
        native = _native.NativeReader(path, offset=offset, length=length, batch_size=batch_size, columns=columns,
                                      schema=schema, sample=sample, nulls_for_mismatches=nulls, skip_damaged=skip,
                                      sampled_schema=sampled_schema, records=records,
                                      max_block_expansion=max_block_expansion,
                                      max_key_expansion=max_key_expansion,
                                      truncate_to_microseconds=timestamp_unit == "us-truncate",
                                      microseconds=timestamp_unit == "us",
                                      refuse_unclosed=on_unclosed == "error")
    except FirePackError as error:
        # Opening reads as far as the first batch (a seek to `records` counts the records before them): its errors
        # name the file as the batches' do.
        message = str(error)
        raise FirePackError(message if name in message else f"{name}: {message}") from None
    whole = records is None and offset == 0 and length is None
    reader = native.record_batch_reader()

    # A thin generator over the native stream (one step per batch, never per value): errors come out as
    # FirePackError, and what was skipped or nulled is reported at the end.
    def batches():
        try:
            yield from reader
        except (pa.ArrowException, OSError) as error:
            message = str(error)
            message = message if name in message else f"{name}: {message}"
            # A block past the expansion limit (Docs/FORMAT.md §8): the option that reads it, by its Python name.
            needed = native.report().get("block_expansion_needed", 0)
            if needed and "block-expansion limit" in message:
                message += f"; read it with max_block_expansion={needed} or more"
            # A record past the key-expansion limit (Docs/FORMAT.md §3): the option that reads it, by its Python name.
            if "ReaderLimits.maxKeyExpansion" in message:
                message += "; read it with a larger max_key_expansion"
            raise FirePackError(message) from None
        report = native.report()
        # A stream that ends without its close record may have been cut short (an interrupted copy, a writer that
        # crashed): said by the reader that reaches the end of the file, as `firepack convert` says it.
        completion = report.get("completion")
        # Said by the reader that read the last records (it reads to the end of the file), not by a range past them
        # or inside a closed stream's close record, which sees neither records nor a close record; asked to refuse
        # it, that reader has raised.
        if isinstance(completion, dict) and completion.get("said") and on_unclosed == "warn":
            warnings.warn(FirePackWarning(
                f"{name}: not closed {completion['said']} (the writer crashed, was interrupted or is still writing): "
                "read what it holds"), stacklevel=2)
        if isinstance(completion, dict) and "closed" in completion and whole and completion["closed"] < report["rows"]:
            # Nothing is lost, but the stream holds records its writer did not write (`firepack validate` refuses it).
            warnings.warn(FirePackWarning(
                f"{name}: holds {report['rows']} records but its close record counts {completion['closed']} (a "
                "spliced stream, or a block repeated): read all of them"), stacklevel=2)
        if report["problem_count"]:
            if problems is not None:
                problems.extend(report["problems"])
            # A damaged version-3 block costs all of its records: what was lost, counted by the close record, for a
            # read of the whole file (as `firepack convert` counts it).
            lost = ""
            if isinstance(completion, dict) and "closed" in completion and whole:
                total = completion["closed"]
                if total > report["rows"]:
                    lost = f": {total - report['rows']} of {total} records not read"
            # Blocks refused as past the expansion limit are not damage: said apart, with the value that reads them.
            past = report.get("blocks_past_expansion", 0)
            # A damaged index or close record costs no record (read in either mode): said apart.
            closings = report.get("damaged_closings", 0)
            damaged = report["problem_count"] - past - closings
            found = (f"{damaged} damaged record(s) skipped or gap(s) of missing records found" if damaged else "")
            if closings:
                found += ("; " if found else "") + (
                    f"{closings} damaged index or close record(s), read past: no record is lost, but whether the "
                    "stream is complete cannot be told")
            if past:
                found += ("; " if found else "") + (
                    f"{past} block(s) past the block-expansion limit skipped, refused before being unpacked, not as "
                    f"damage: read them with max_block_expansion={report['block_expansion_needed']} or more")
            warnings.warn(FirePackWarning(
                f"{path}: {found}{lost}; first: "
                + "; ".join(f"record {p['record']} at byte {p['offset']}: {p['reason']}" for p in report["problems"][:3])),
                stacklevel=2)
        if report["warnings"]:
            counts = ", ".join(f"{field}: {count}" for field, count in report["warnings"].items())
            warnings.warn(FirePackWarning(f"{path}: values that did not fit their column became nulls ({counts}); "
                                          + "; ".join(report["warning_examples"][:3])), stacklevel=2)

    return pa.RecordBatchReader.from_batches(reader.schema, batches())


def read_table(path, columns=None, schema=None, **options):
    """The documents of `path` as one `pyarrow.Table` (see `open_stream` for the options)."""
    try:
        return open_stream(path, schema=schema, columns=columns, **options).read_all()
    except (pa.ArrowException, OSError) as error:
        raise FirePackError(str(error)) from None


def infer_schema(path, sample=None, *, max_block_expansion=None, max_key_expansion=None):
    """The schema `read_table` would use: the union of every field over all records of `path` (a path or a list of
    paths), or over the first `sample` records. Fields whose values disagree in type are kept as JSON text
    (`firepack.type: value`); the schema's metadata `firepack.exact` says which and why. `max_block_expansion` and
    `max_key_expansion`: see `open_stream`."""
    paths = [path] if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__") else list(path)
    return _native.infer_schema(paths, sample, max_block_expansion, max_key_expansion)[0]


def _check_nothing_rejected(report, skip_option, key_option):
    """Raises, for a planner that hands its inferred schema to readers and reads without skipping damaged records,
    when inference found records that are not documents (`DocumentProfile.checkNothingRejected`): readers that take
    the schema as given read of a record what it names, and one left out for a defect in fields only it holds would
    be read as a row without them."""
    if report.get("rejected"):
        first = report["first_rejected"]
        past = report.get("rejected_past_key_limit", 0)
        raise_limit = f", or raise the key-expansion limit with {key_option} ({past} are past it)" if past else ""
        raise FirePackError(f"invalidDocument: {report['rejected']} record(s) are not documents (first: {first}): "
                            f"read with {skip_option} to leave them out{raise_limit}")


MAX_INFERRED_FIELDS = 10_000  # ArrowDocumentSchema.maxReadFields: Docs/ARROW.md, "Wide and sparse maps"


def _field_count(type_):
    if pa.types.is_struct(type_):
        return 1 + sum(_field_count(type_.field(i).type) for i in range(type_.num_fields))
    if pa.types.is_list(type_) or pa.types.is_large_list(type_) or pa.types.is_fixed_size_list(type_):
        return 1 + _field_count(type_.value_type)
    return 1


def _check_inferred_width(schema, columns=None):
    """Refuses an inferred schema (of the `columns` read, when given) wider than a reader fills, as the native reader
    does: the engines' planners infer once and hand the schema to their readers as given."""
    fields = [f for f in schema if columns is None or f.name in columns]
    count = sum(_field_count(f.type) for f in fields)
    if count > MAX_INFERRED_FIELDS:
        raise FirePackError(
            f"limitExceeded: the inferred schema has {count} Arrow fields ({len(fields)} columns and their nested "
            f"fields), more than the {MAX_INFERRED_FIELDS} a reader fills from an inferred schema: every row holds "
            "every one, present or not. Read fewer columns, or give a schema")
    return schema


def schema_report(path, sample=None, *, max_block_expansion=None, max_key_expansion=None):
    """What inference saw: `{"documents", "problems", "fields": [{"path", "types": {type: count}, "absent",
    "column", "exact"?}]}`, the same as `firepack schema FILE --json`."""
    paths = [path] if isinstance(path, (str, bytes)) or hasattr(path, "__fspath__") else list(path)
    return _native.infer_schema(paths, sample, max_block_expansion, max_key_expansion)[1]


def splits(path, target_bytes):
    """Byte ranges `(offset, length)` of about `target_bytes` covering `path`, for parallel `open_stream` readers."""
    return _native.splits(path, int(target_bytes))


def write_table(data, path, *, collection=None, id_prefix=""):
    """Writes a `pyarrow.Table`, `RecordBatch`, `RecordBatchReader`, iterable of batches, or anything with
    `__arrow_c_stream__` (a Polars or pandas frame through pyarrow, a DuckDB relation; a Polars `LazyFrame` is
    collected first) as a new `.fpks` at `path`:
    a file all or nothing (through a link, its target); standard output (`-`), a descriptor, a device or a pipe
    written in place (a failure leaves there what was written, without a close record); a folder refused before any
    row is read. Rows are named by the `__name__` column, or `collection/<id_prefix><row>` (a collection or an
    id_prefix for a table with `__name__` is refused: it would name none of them). Returns the number of
    documents written. Columns of other Arrow types are cast to the mapped ones first (`Docs/ARROW.md`); a type
    with no lossless FirePack form (decimals, durations, maps) raises. Rows whose `__name__` repeats an earlier row's
    are written, and named in a `FirePackWarning`: Firestore would keep only the last of each. A pandas frame's
    named index levels are fields like its columns (`df.set_index("__name__")` names the documents); unnamed ones
    (a row number, what filtering leaves) are not written."""
    reader = _as_reader(_polars_frame(data))
    _refuse_nul_names(reader.schema)
    target = canonical_schema(reader.schema)
    # The batches reach the native writer through a generator: an exception in it (a batch of another schema, a
    # value the cast refuses, an interrupt) would come back as the writer's I/O failure, so it is kept and raised as
    # itself, cause and all, once the writer has stopped; the generator is closed then, so that the input's own
    # clean-up runs at once.
    raised = []
    batches = _checked_batches(reader, target, raised)
    written, repeats, failure = 0, None, None
    try:
        try:
            written, repeats = _native.write_stream(pa.RecordBatchReader.from_batches(target, batches), path,
                                                    collection=collection, id_prefix=id_prefix)
        except FirePackError:
            if not raised:
                raise
            failure = raised[0]
    finally:
        batches.close()
    if failure is not None:
        raise failure
    if repeats:
        # Written, as the tool writes them; Firestore would keep only the last document of each path.
        warnings.warn(FirePackWarning(f"{path}: {repeats}"), stacklevel=2)
    return written


def _path_key(name):
    """`name` as one key of a field path, as the native side spells it (`FieldPathText`): as it is, or in backquotes
    (a backquote or backslash in it after a backslash) when it holds `.`, `[`, `]`, a backquote or a backslash, or
    is empty, so that the key `a.b` and the key `b` of `a` have different paths."""
    if name and not any(c in name for c in ".[]`\\"):
        return name
    return "`" + name.replace("\\", "\\\\").replace("`", "\\`") + "`"


def _field_path(parent, name):
    """The path of the field `name` of the map at `parent` ("" for a document's own fields)."""
    key = _path_key(name)
    return f"{parent}.{key}" if parent else key


def restore_schema(data, schema):
    """`data` (a `pyarrow.Table` or `RecordBatch` that an engine without field metadata gave back: DuckDB, Polars)
    cast to `schema`, the one the data came from (`read_table(…).schema`, `infer_schema`), so that its marks — a
    reference, a geopoint, a vector, JSON text — are written back as they were read. Every field must still have its
    name, at every level: a cast matches struct fields by name, and would fill a renamed one (DuckDB names a field
    with an empty name `element1`, and renames a column that differs from another only by case) with nulls and drop
    the other without a word. A difference raises `FirePackError` naming where, and nothing is cast."""
    def check(found, wanted, path):
        if pa.types.is_struct(wanted):
            if not pa.types.is_struct(found):
                raise FirePackError(f"{path}: the data has {found}, the schema a struct")
            names, expected = [f.name for f in found], [f.name for f in wanted]
            if names != expected:
                raise FirePackError(f"{path}: the data's fields are {names}, the schema's {expected} (renamed by an "
                                    "engine?): nothing cast")
            for child, target in zip(found, wanted):
                check(child.type, target.type, _field_path(path, child.name))
        elif pa.types.is_list(wanted) or pa.types.is_large_list(wanted) or pa.types.is_fixed_size_list(wanted):
            if hasattr(found, "value_type"):
                check(found.value_type, wanted.value_type, f"{path}[]")
    names, expected = data.schema.names, schema.names
    if names != expected:
        raise FirePackError(f"the data's columns are {names}, the schema's {expected} (renamed by an engine?): "
                            "nothing cast")
    for field, target in zip(data.schema, schema):
        check(field.type, target.type, _field_path("", field.name))
    return data.cast(schema)


def _checked_batches(reader, target, raised):
    """`reader`'s batches cast to `target`, each first checked to have the reader's schema: a reader built from
    batches (`from_batches`, an iterable) is not checked by pyarrow, and a batch of other types read with the first
    batch's would be its buffers misread. An exception is appended to `raised` before it ends the stream."""
    try:
        for number, batch in enumerate(reader):
            # Compared as written: the types each batch is cast to (so an int32 batch after an int64 one, or a
            # column non-nullable in one batch only, is the same column), never the first batch's buffers.
            difference = _schema_difference(target, canonical_schema(batch.schema))
            if difference:
                raise FirePackError(f"batch {number} does not have the first batch's schema: {difference}")
            if batch.schema != target:
                batch = _cast_batch(batch, target, number)
            yield batch
    except GeneratorExit:
        raise
    except BaseException as error:
        raised.append(error)
        raise


def _schema_difference(expected, found):
    """Where `found` first differs in its columns or their types from `expected`, in words; None when it does not
    (nullability and metadata aside: both schemas are canonical, every field nullable)."""
    if expected.names != found.names:
        return f"its columns are {found.names}, the first batch's {expected.names}"
    for want, got in zip(expected, found):
        if not _comparable(want.type).equals(_comparable(got.type), check_metadata=False):
            return f"column {got.name!r} is {got.type}, in the first batch {want.type}"
    return None


def _comparable(type_):
    """`type_` with every timestamp as one type: timestamps of two units are the same column, cast to the first
    batch's unit (a cast that would drop digits is refused, naming the column)."""
    t = pa.types
    if t.is_timestamp(type_):
        return pa.timestamp("ns", tz="UTC")
    if t.is_struct(type_):
        return pa.struct([type_.field(i).with_type(_comparable(type_.field(i).type)) for i in range(type_.num_fields)])
    if t.is_list(type_):
        return pa.list_(type_.value_field.with_type(_comparable(type_.value_type)))
    if t.is_fixed_size_list(type_):
        return pa.list_(type_.value_field.with_type(_comparable(type_.value_type)), type_.list_size)
    return type_


def _cast_batch(batch, target, number):
    """`batch` cast to `target`; a value the cast refuses (a date outside the nanosecond range, an unsigned integer
    past int64) raises a `FirePackError` naming its column and batch."""
    try:
        return _decode_dictionaries(batch, target).cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as error:
        for field, column in zip(target, batch.columns):
            try:
                _decode_dictionaries(pa.record_batch([column], names=[field.name]), pa.schema([field])) \
                    .column(0).cast(field.type)
            except pa.ArrowNotImplementedError as column_error:
                raise FirePackError(
                    f"column {field.name!r} in batch {number}: pyarrow has no cast from {column.type} to "
                    f"{field.type}: {str(column_error).splitlines()[0]}") from None
            except pa.ArrowInvalid as column_error:
                raise FirePackError(
                    f"column {field.name!r} in batch {number}: its {column.type} values do not all convert to "
                    f"{field.type}: {str(column_error).splitlines()[0]}") from None
        raise FirePackError(f"batch {number}: {str(error).splitlines()[0]}") from None


def _decode_dictionaries(batch, target):
    """`batch` with its dictionary-encoded values decoded, at any depth (a struct field or a list's values), their
    dictionaries cast first (Polars' categoricals are dictionaries of `string_view`, which pyarrow can neither decode
    nor cast as they are)."""
    if not any(_holds_dictionary(column.type) for column in batch.columns):
        return batch
    columns, fields = [], []
    for field, column, wanted in zip(batch.schema, batch.columns, target):
        if _holds_dictionary(column.type):
            column = _decoded(column, wanted.type)
        columns.append(column)
        fields.append(field.with_type(column.type))
    return pa.RecordBatch.from_arrays(columns, schema=pa.schema(fields, metadata=batch.schema.metadata))


def _holds_dictionary(type_):
    """Whether `type_` is a dictionary or holds one (in a struct's fields or a list's values)."""
    t = pa.types
    if t.is_dictionary(type_):
        return True
    if t.is_struct(type_):
        return any(_holds_dictionary(type_.field(i).type) for i in range(type_.num_fields))
    if t.is_list(type_) or t.is_large_list(type_) or t.is_fixed_size_list(type_):
        return _holds_dictionary(type_.value_type)
    return False


def _decoded(array, wanted):
    """`array` with every dictionary in it decoded to `wanted`'s types; its shape and its nulls kept."""
    t = pa.types
    if not _holds_dictionary(array.type):
        return array
    if t.is_dictionary(array.type):
        return pa.DictionaryArray.from_arrays(array.indices, array.dictionary.cast(wanted)).dictionary_decode()
    mask = array.is_null() if array.null_count else None
    if t.is_struct(array.type):
        # `field(i)` is the child as this (perhaps sliced) array sees it.
        children = [_decoded(array.field(i), wanted.field(i).type) for i in range(array.type.num_fields)]
        fields = [array.type.field(i).with_type(child.type) for i, child in enumerate(children)]
        return pa.StructArray.from_arrays(children, fields=fields, mask=mask)
    if t.is_fixed_size_list(array.type):
        size = array.type.list_size
        values = _decoded(array.values.slice(array.offset * size, len(array) * size), wanted.value_type)
        return pa.FixedSizeListArray.from_arrays(values, size, mask=mask)
    # A list's offsets, as this (perhaps sliced) array sees them, index its whole values array: made to start at 0
    # over the values they span (pyarrow takes no nulls with sliced offsets).
    offsets = array.offsets
    first, last = offsets[0].as_py(), offsets[-1].as_py()
    values = _decoded(array.values.slice(first, last - first), wanted.value_type)
    kind = pa.LargeListArray if t.is_large_list(array.type) else pa.ListArray
    return kind.from_arrays(pc.subtract(offsets, pa.scalar(first, offsets.type)), values, mask=mask)


def _polars_frame(data):
    """`data` as a Polars `DataFrame` when it is a Polars frame (a `LazyFrame` is collected, as Polars' own writers
    run one), else `data` as it is; columns whose values cannot reach Arrow as values are refused, wherever they are
    nested: Python objects (`pl.Object`), which Polars hands over as 8-byte pointers with no mark (written, they would
    be addresses), and 128-bit integers, which it hands over in a format of its own that pyarrow cannot read."""
    polars = sys.modules.get("polars")
    if polars is None:
        return data
    if isinstance(data, getattr(polars, "LazyFrame", ())):
        data = data.collect()
    if not isinstance(data, getattr(polars, "DataFrame", ())):
        return data
    wide = tuple(getattr(polars, name) for name in ("Int128", "UInt128") if hasattr(polars, name))

    def check(dtype, path):
        if dtype == polars.Object:
            raise FirePackError(f"column {path!r} holds Python objects (polars Object), which Arrow carries as "
                                "pointers: convert it to a typed column first")
        if any(dtype == kind for kind in wide):
            raise FirePackError(f"column {path!r} is a polars {dtype}, which has no Arrow type: cast it to Int64 "
                                "(FirePack's integers are 64-bit), or to a string to keep every digit")
        if isinstance(dtype, polars.Struct):
            for field in dtype.fields:
                check(field.dtype, f"{path}.{_path_key(field.name)}")
        elif isinstance(dtype, (polars.List, polars.Array)):
            check(dtype.inner, f"{path}[]")
    for name, dtype in data.schema.items():
        check(dtype, _path_key(name))
    return data


def _refuse_nul_names(schema):
    """Arrow's C interface ends a name at its first NUL byte: a field "x\0y" would reach the writer as "x"."""
    def check(field, path):
        name = f"{path}.{field.name}" if path else field.name
        if "\0" in field.name:
            raise FirePackError(f"the column {name!r} has a NUL byte in its name, which Arrow's C interface cuts short")
        type_ = field.type
        if pa.types.is_struct(type_):
            for index in range(type_.num_fields):
                check(type_.field(index), name)
        elif pa.types.is_list(type_) or pa.types.is_large_list(type_) or pa.types.is_fixed_size_list(type_):
            check(type_.value_field, name)
    for field in schema:
        check(field, "")


def _as_reader(data):
    if isinstance(data, pa.RecordBatchReader):
        return data
    if isinstance(data, pa.Table):
        return pa.RecordBatchReader.from_batches(data.schema, data.to_batches())
    if isinstance(data, pa.RecordBatch):
        return pa.RecordBatchReader.from_batches(data.schema, [data])
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(data, pandas.DataFrame):
        return _as_reader(_pandas_table(data))
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    if hasattr(data, "to_arrow"):
        return _as_reader(data.to_arrow())
    batches = iter(data)
    first = next(batches, None)
    if first is None:
        raise ValueError("no batches to write: an empty iterable has no schema (give an empty pyarrow.Table instead)")

    def chained():
        yield first
        yield from batches

    return pa.RecordBatchReader.from_batches(first.schema, chained())


def _pandas_table(frame):
    """A pandas frame as a table of its columns and its named index levels (a level named like a column is that
    column, once). Through `__arrow_c_stream__` pandas
    adds any index but a plain range as a column `__index_level_N__`: every document of a filtered frame would get a
    field of row numbers, under a name Firestore reserves."""
    table = pa.Table.from_pandas(frame, preserve_index=True)
    metadata = table.schema.pandas_metadata or {}
    index_columns = metadata.get("index_columns", [])
    # pyarrow names a level `__index_level_N__` when it has no name, or one a column already has
    # (`set_index("__name__", drop=False)`): row numbers, or a copy of that column — or, named like a column but
    # holding other values, data that dropping would lose: refused.
    generated = [name for name in index_columns if isinstance(name, str) and name.startswith("__index_level_")]
    level_names = {entry.get("field_name"): entry.get("name") for entry in metadata.get("columns", [])}
    def same(column, level):
        try:
            wanted = canonical_type(column.type)
            return column.cast(wanted).equals(level.cast(wanted))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, FirePackError):
            return False
    for field_name in generated:
        name = level_names.get(field_name)
        if name is None or name not in table.column_names:
            continue
        if not same(table.column(name), table.column(field_name)):
            raise FirePackError(
                f"the index level {name!r} has a column's name but other values: both would be the field {name!r} "
                "(rename the level with rename_axis, or drop it with reset_index(drop=True))")
    return table.drop_columns(generated).replace_schema_metadata(None)


def canonical_type(type_, name="value"):
    """The Arrow type FirePack reads for `type_` (Docs/ARROW.md, "Writing"): integers → int64, floats → float64,
    any string → string, any binary → binary, timestamps → timestamp[their unit, UTC], dates → timestamp[ms, UTC],
    lists → list (list views are refused), dictionaries
    → their values; structs and fixed-size lists keep their shape."""
    t = pa.types
    if t.is_null(type_) or t.is_boolean(type_):
        return type_
    if t.is_integer(type_):
        return pa.int64()
    if t.is_floating(type_):
        return pa.float64()
    if t.is_string(type_) or t.is_large_string(type_) or getattr(t, "is_string_view", lambda _: False)(type_):
        return pa.string()
    if t.is_binary(type_) or t.is_large_binary(type_) or t.is_fixed_size_binary(type_) \
            or getattr(t, "is_binary_view", lambda _: False)(type_):
        return pa.binary()
    if t.is_timestamp(type_):
        # Its own unit: nanoseconds cannot hold years before 1678 or after 2261, which FirePack's timestamps can.
        return pa.timestamp(type_.unit, tz="UTC")
    if t.is_date(type_):
        return pa.timestamp("ms", tz="UTC")
    if t.is_dictionary(type_):
        return canonical_type(type_.value_type, name)
    if t.is_struct(type_):
        return pa.struct([canonical_field(type_.field(i)) for i in range(type_.num_fields)])
    if t.is_fixed_size_list(type_) and t.is_floating(type_.value_type):
        # A fixed-size list of floating-point numbers is a vector's form; any other is a list.
        return pa.list_(canonical_field(type_.value_field), type_.list_size)
    if t.is_fixed_size_list(type_):
        return pa.list_(canonical_field(type_.value_field))
    if getattr(t, "is_list_view", lambda _: False)(type_) or getattr(t, "is_large_list_view", lambda _: False)(type_):
        # pyarrow's cast of a list view to a list gives an invalid array (offsets out of order).
        raise FirePackError(f"column {name!r}: Arrow list views are not written; make them lists first "
                            "(pyarrow.compute.list_flatten and pyarrow.ListArray.from_arrays, or the engine's own "
                            "conversion)")
    if t.is_list(type_) or t.is_large_list(type_):
        return pa.list_(canonical_field(type_.value_field))
    raise FirePackError(f"column {name!r}: Arrow type {type_} has no lossless FirePack type; cast it first "
                        "(decimals to float64 or string, durations to int64)")


def canonical_field(field):
    return pa.field(field.name, canonical_type(field.type, field.name), nullable=True, metadata=field.metadata)


# A document's own times, read back as timestamp[ns] whatever unit they were written in: written so, so that a time
# its readers cannot hold is refused when it is written, naming its column.
_DOCUMENT_TIMES = ("__create_time__", "__update_time__")


def canonical_schema(schema):
    """`schema` with every field's type made one FirePack reads (metadata kept)."""
    def top(field):
        if field.name in _DOCUMENT_TIMES and (pa.types.is_timestamp(field.type) or pa.types.is_date(field.type)):
            return pa.field(field.name, pa.timestamp("ns", tz="UTC"), nullable=True, metadata=field.metadata)
        return canonical_field(field)
    return pa.schema([top(field) for field in schema], metadata=schema.metadata)
