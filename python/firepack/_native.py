"""The native core through ctypes: libFirePackArrowC.so's C ABI (Docs/ARROW.md, "The C ABI"). Arrow data crosses
as C Data / C Stream Interface structs that pyarrow imports and exports; nothing here touches a value."""
import ctypes
import json
import operator
import os
from pathlib import Path


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_void_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.c_void_p), ("dictionary", ctypes.c_void_p),
    ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    _fields_ = [
        ("get_schema", ctypes.c_void_p), ("get_next", ctypes.c_void_p), ("get_last_error", ctypes.c_void_p),
        ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p),
    ]


class FirePackError(Exception):
    """A FirePack input or output that cannot be read or written as asked: the message names the file, the record,
    its byte offset and the field path where there is one."""


def _library_path() -> str:
    override = os.environ.get("FIREPACK_NATIVE_LIB")
    if override:
        return override
    return str(Path(__file__).resolve().parent / "lib" / "libFirePackArrowC.so")


_lib = ctypes.CDLL(_library_path())
_char_pp = ctypes.POINTER(ctypes.c_char_p)
_error_p = ctypes.POINTER(ctypes.c_void_p)

_lib.firepack_string_free.argtypes = [ctypes.c_void_p]
_lib.firepack_string_free.restype = None
_lib.firepack_arrow_version.argtypes = []
_lib.firepack_arrow_version.restype = ctypes.c_void_p
_lib.firepack_reader_open.argtypes = [ctypes.c_char_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                      _char_pp, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int32,
                                      ctypes.c_int64, ctypes.c_int64, _error_p]
_lib.firepack_reader_open.restype = ctypes.c_void_p
_lib.firepack_reader_export_stream.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_lib.firepack_reader_export_stream.restype = None
_lib.firepack_reader_export_schema.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
_lib.firepack_reader_export_schema.restype = None
_lib.firepack_reader_report.argtypes = [ctypes.c_void_p]
_lib.firepack_reader_report.restype = ctypes.c_void_p
_lib.firepack_reader_free.argtypes = [ctypes.c_void_p]
_lib.firepack_reader_free.restype = None
_lib.firepack_infer_schema.argtypes = [_char_pp, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                                       ctypes.c_void_p, _error_p, _error_p]
_lib.firepack_infer_schema.restype = ctypes.c_int32
_lib.firepack_splits.argtypes = [ctypes.c_char_p, ctypes.c_int64, _error_p, _error_p]
_lib.firepack_splits.restype = ctypes.c_int32
_lib.firepack_write_stream.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, _error_p,
                                       _error_p]
_lib.firepack_write_stream.restype = ctypes.c_int64


#: The library's interface this module calls (`firepack_arrow_version`): another would read its arguments otherwise.
ABI = "FirePackArrow 3 "


def _take_string(pointer) -> str:
    """A string the library returned, freed."""
    if not pointer:
        return ""
    try:
        return ctypes.string_at(pointer).decode("utf-8", "replace")
    finally:
        _lib.firepack_string_free(pointer)


_version = _take_string(_lib.firepack_arrow_version())
if not _version.startswith(ABI):
    raise ImportError(f"{_library_path()} is {_version!r}, not the {ABI.strip()} this package calls: reinstall the "
                      "package, or point FIREPACK_NATIVE_LIB at the library built with it")


def _raise(error: ctypes.c_void_p):
    raise FirePackError(_take_string(error.value))


def _encode(text) -> bytes:
    """A path or name as the C string the library takes: one holding a NUL would end there, naming another file or
    column without a word (Python's own open() refuses it too)."""
    encoded = os.fsencode(text)
    if b"\0" in encoded:
        raise ValueError(f"{text!r} holds a NUL character, which a C string ends at")
    return encoded


def int64(name, value, minimum=0):
    """`value` as an int64 the library takes, at least `minimum`: ctypes would wrap a larger one modulo 2^64 without
    a word (records=(2**64, 2**64 + 3) read records 0 to 2)."""
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} is an integer, not {type(value).__name__}") from None
    if not minimum <= number <= 2**63 - 1:
        raise ValueError(f"{name} is {number}: it must be from {minimum} to 2**63 - 1")
    return number


def _strings(values):
    array = (ctypes.c_char_p * max(len(values), 1))(*[_encode(v) for v in values])
    return ctypes.cast(array, _char_pp), array


class NativeReader:
    """One open reader: its batches as an Arrow C stream, and what it met (damaged records, nulled mismatches)."""

    def __init__(self, path, *, offset=0, length=None, batch_size=65536, columns=None, schema=None, sample=None,
                 nulls_for_mismatches=False, skip_damaged=False, sampled_schema=False, records=None,
                 max_block_expansion=None, max_key_expansion=None, truncate_to_microseconds=False,
                 microseconds=False, refuse_unclosed=False):
        # Every argument checked before the schema is exported: a refusal after it would leak the exported schema.
        offset, batch_size = int64("offset", offset), int64("batch_size", batch_size, 1)
        length = None if length is None else int64("length", length)
        sample = None if sample is None else int64("sample", sample)
        expansion = 0 if max_block_expansion is None else int64("max_block_expansion", max_block_expansion, 1)
        keys = 0 if max_key_expansion is None else int64("max_key_expansion", max_key_expansion, 1)
        if records is not None:
            records = (int64("records start", records[0]), int64("records stop", records[1]))
        if isinstance(columns, (str, bytes)):
            raise TypeError(f"columns is a list of column names, not the one name {columns!r}")
        error = ctypes.c_void_p()
        names, keep = _strings(columns) if columns is not None else (None, None)
        # Encoded (and a NUL refused) before the schema is exported: a refusal after it would leak the export.
        encoded_path = _encode(path)
        schema_struct = None
        if schema is not None:
            schema_struct = ArrowSchema()
            schema._export_to_c(ctypes.addressof(schema_struct))
        flags = (1 if nulls_for_mismatches else 0) | (2 if skip_damaged else 0) | (4 if sampled_schema else 0)
        # Flag 16: timestamps in microseconds, nanoseconds dropped towards the past (as the JVM connector reads them).
        flags |= 16 if truncate_to_microseconds else 0
        # Flag 32: timestamps in microseconds, one with nanoseconds a mismatch (as the JVM connector reads by default).
        flags |= 32 if microseconds and not truncate_to_microseconds else 0
        # Flag 64: a stream read to its end without a close record is an error (as both Spark readers read).
        flags |= 64 if refuse_unclosed else 0
        if records is not None:
            # Flag 8: offset and length count records, not bytes (the library seeks through a stream's index).
            offset, length, flags = records[0], records[1] - records[0], flags | 8
        self._handle = _lib.firepack_reader_open(
            encoded_path, offset, -1 if length is None else length, batch_size, names,
            len(columns) if columns is not None else 0,
            ctypes.addressof(schema_struct) if schema_struct is not None else None,
            -1 if sample is None else sample, flags, expansion, keys, ctypes.byref(error))
        del keep
        if not self._handle:
            _raise(error)

    def record_batch_reader(self):
        import pyarrow as pa
        stream = ArrowArrayStream()
        _lib.firepack_reader_export_stream(self._handle, ctypes.addressof(stream))
        return pa.RecordBatchReader._import_from_c(ctypes.addressof(stream))

    def schema(self):
        import pyarrow as pa
        struct = ArrowSchema()
        _lib.firepack_reader_export_schema(self._handle, ctypes.addressof(struct))
        return pa.Schema._import_from_c(ctypes.addressof(struct))

    def report(self) -> dict:
        return json.loads(_take_string(_lib.firepack_reader_report(self._handle)))

    def __del__(self):
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            _lib.firepack_reader_free(handle)


def infer_schema(paths, sample=None, max_block_expansion=None, max_key_expansion=None):
    import pyarrow as pa
    sample = None if sample is None else int64("sample", sample)
    expansion = 0 if max_block_expansion is None else int64("max_block_expansion", max_block_expansion, 1)
    keys = 0 if max_key_expansion is None else int64("max_key_expansion", max_key_expansion, 1)
    names, keep = _strings(paths)
    struct = ArrowSchema()
    report, error = ctypes.c_void_p(), ctypes.c_void_p()
    status = _lib.firepack_infer_schema(names, len(paths), -1 if sample is None else sample, expansion, keys,
                                        ctypes.addressof(struct), ctypes.byref(report), ctypes.byref(error))
    del keep
    if status != 0:
        _raise(error)
    return pa.Schema._import_from_c(ctypes.addressof(struct)), json.loads(_take_string(report.value))


def splits(path, target_bytes):
    out, error = ctypes.c_void_p(), ctypes.c_void_p()
    target_bytes = int64("target_bytes", target_bytes, 1)
    if _lib.firepack_splits(_encode(path), target_bytes, ctypes.byref(out), ctypes.byref(error)) != 0:
        _raise(error)
    return [tuple(pair) for pair in json.loads(_take_string(out.value))]


def write_stream(reader, path, collection=None, id_prefix=""):
    """Writes a pyarrow RecordBatchReader (consumed) to a new .fpks; returns the documents written."""
    # Checked before the stream is exported: a refusal after it would leak the exported stream.
    if collection is not None and not isinstance(collection, str):
        raise TypeError(f"collection is a string, not {type(collection).__name__}")
    if not isinstance(id_prefix, str):
        raise TypeError(f"id_prefix is a string, not {type(id_prefix).__name__}")
    # A C string ends at its first NUL: "c\0x" would name documents c/… without a word.
    for name, text in (("collection", collection or ""), ("id_prefix", id_prefix)):
        if "\0" in text:
            raise ValueError(f"{name} {text!r} holds a NUL character, which the native core's strings end at")
    encoded_path = _encode(path)
    stream = ArrowArrayStream()
    reader._export_to_c(ctypes.addressof(stream))
    error, warning = ctypes.c_void_p(), ctypes.c_void_p()
    written = _lib.firepack_write_stream(ctypes.addressof(stream), encoded_path,
                                         None if collection is None else collection.encode(),
                                         id_prefix.encode(), ctypes.byref(warning), ctypes.byref(error))
    if written < 0:
        _raise(error)
    return written, (_take_string(warning.value) if warning.value else None)
