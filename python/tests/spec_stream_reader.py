"""An independent reader of FirePack document streams (`.fpks`, versions 1, 2 and 3), written from Docs/FORMAT.md
alone (§8 "Document streams", §9 "Documents", with §5–§7 for headers, limits and error offsets).

It exists for test_spec_stream_conformance.py, which compares it with `firepack validate`. It was written without
reading the project's sources; record payloads are checked with spec_reader.py's value checks (also written from
the text alone). Comments cite the sentence each rule follows; where the text left a choice open, the comment says
which reading was taken ("READING:").

    read(data) -> Result
        .fatal        (code, offset) when the stream header is rejected (§8 "The header"), else None
        .problems     [Problem(kind, code, record, offset)] in stream order; kind is "record" (a damaged record or
                      block, or one whose payload is not a document), "index", "close", "path" (a record naming
                      the path of an earlier one, §9; offset None) or "count" (a close record whose count disagrees
                      with the records found; code None)
        .intact       record numbers of the intact documents
        .completion   ("closed", count) | ("not closed", N) | ("unknown",) for version 1 | None when fatal
        .unchecked    True when a zstd block was met (zstd is outside the standard library: its framing and header
                      are checked, its documents are not, and its records are counted as intact)
        .valid        no fatal error, no problem, and closed (version 1: no problem)

Offsets count from the stream's first byte (§7).
"""
import struct
import zlib
from collections import namedtuple

import spec_reader
from spec_reader import Defect
from spec_values import uv

MAGIC = b"\x89FPS"
SYNC = b"\xF3PR\x1E"
CLOSE = b"\xF3PRE"
INDEX = b"\xF3PRI"
EXPANSION = 1024                         # §8 "Expansion": bytes unpacked per byte of a block in the stream
RECORD_LIMIT = 64 * 1024 * 1024          # §8: "the reader's record limit, default 64 MiB"; "above" it is refused
DOC_KEYS = ("name", "fields", "createTime", "updateTime")

Problem = namedtuple("Problem", "kind code record offset")


class Result:
    def __init__(self):
        self.version = None
        self.fatal = None
        self.problems = []
        self.intact = []
        self.completion = None
        self.unchecked = False

    @property
    def valid(self):
        if self.fatal or self.problems:
            return False
        return self.completion[0] in ("closed", "unknown")

    def __repr__(self):
        return (f"Result(v{self.version}, fatal={self.fatal}, problems={self.problems}, intact={len(self.intact)}, "
                f"completion={self.completion})")


def crc32(b):
    # §8: "CRC-32 of the payload (zlib's crc32)"
    return zlib.crc32(b) & 0xFFFFFFFF


def varint(d, pos, end):
    """Conventions of FORMAT.md: minimal LEB128, ≤ 10 bytes, < 2^63. Returns (value, after) or None if invalid/cut."""
    value = 0
    for i in range(10):
        if pos + i >= end:
            return None
        b = d[pos + i]
        value |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            if (i > 0 and b == 0) or value >= 1 << 63:
                return None
            return value, pos + i + 1
    return None


# ---- §9: one document --------------------------------------------------------------------------------------------

def _is_map(tag):
    return 0xB0 <= tag <= 0xBF or tag == 0xD1


def check_document(data, base, end):
    """The document's path (bytes) when data[base:end] is a bare value and key table (§1–§3) that is a document (§9),
    else (code, offset).

    §7: what is checked when the input is opened (root end, key table, trailingBytes) comes first. Then the root map
    is read front to back. READING: each key is checked against §9's order as it is met (before its value: a reader
    that meets a key it does not accept at that place reports it there), and the value's type is checked at its tag
    before the value is read (`invalidDocument` at the value's tag, §7, §9); a missing required key is known only
    once the map's last entry is read (`invalidDocument` at the map's tag, §7), after the map's own `lengthMismatch`."""
    try:
        r = spec_reader.open_bare(data, base, end)
        d = r.d
        tag = d[base]
        if not _is_map(tag):
            raise Defect("invalidDocument", base)
        r.depth_check(base, 1)
        body_len, q = r.length(base + 1, r.root_end)
        body_end = q + body_len
        if tag == 0xD1:
            count, q = r.varint(q, body_end)
            r.limit_check(base, count)
        else:
            count = tag & 0x0F
        if 2 * count > body_end - q:
            raise Defect("lengthMismatch", base)
        nxt = 0                                  # index in DOC_KEYS of the first key still allowed
        path = None
        for _ in range(count):
            key_at = q
            key, q = r.key(q, body_end)
            name = key.decode("utf-8")
            if name not in DOC_KEYS or DOC_KEYS.index(name) < nxt or (nxt < 2 and DOC_KEYS.index(name) != nxt):
                raise Defect("invalidDocument", key_at)       # another key, out of order, repeated, or one skipped
            nxt = DOC_KEYS.index(name) + 1
            if q >= body_end:
                raise Defect("truncated", q)
            vt = d[q]
            if vt == 0xD3 or 0xDA <= vt <= 0xDF:
                raise Defect("unknownTag", q)                # not a value at all: no type to compare (§1, §7)
            ok = {"name": vt == 0xCF, "fields": _is_map(vt), "createTime": vt in (0xC9, 0xCA),
                  "updateTime": vt in (0xC9, 0xCA)}[name]
            if not ok:
                raise Defect("invalidDocument", q)            # "at the value's tag for a value of another type"
            if name == "name":
                length, p = r.varint(q + 1, body_end)
                path = bytes(d[p:p + length])
            q = r.value(q, body_end, 1)
        if q != body_end:
            raise Defect("lengthMismatch", base)
        if nxt < 2:
            raise Defect("invalidDocument", base)             # "the map's tag for a missing key"
        spec_reader.check_table_entries(r)                    # §3: whole-input validation, after the whole value
    except Defect as e:
        return (e.code, e.offset)
    return path


# ---- §8: the stream ----------------------------------------------------------------------------------------------

class _Stream:
    def __init__(self, data, limit):
        self.d = bytes(data)
        self.n = len(self.d)
        self.limit = limit
        self.res = Result()
        self.next_no = 0          # the number the next record takes
        self.intact_end = 0       # version 3: the number after the last intact block's records
        self.frames = 0           # versions 1, 2: intact records (fewer than next_no: damage took numbers)
        self.paths = {}           # §9 "One path, one record": path → the record that named it first
        self.crc_failed = 0       # §8 "Bounded work": payload bytes whose CRC-32 failed
        self.search_landing = None  # §8: where the last search for a marker landed

    def problem(self, kind, code, offset, record=None):
        self.res.problems.append(Problem(kind, code, self.next_no if record is None else record, offset))

    # framing shared by v2 records, v3 blocks and the v3 index (§8; version 3: "framed exactly as a version-2 record")
    def frame(self, pos, region_end):
        """Check the unit at pos (its 4 marker bytes are known). Returns (status, code, body_end):
        "ok"; "torn" (the stream ends inside it: truncated); "bad" (limitExceeded, lengthOutOfBounds, badChecksum)."""
        d = self.d
        if pos + 12 > self.n:
            return "torn", "truncated", None
        length, crc = struct.unpack_from("<II", d, pos + 4)
        if length > self.limit:
            return "bad", "limitExceeded", None
        if pos + 12 + length > self.n:
            # §8: a length "past the end of the file" is wrong (one that ends inside the close record is not: its
            # CRC-32 decides). `lengthOutOfBounds` "a length that runs past the end although a later record
            # follows"; `truncated` "the stream ends inside the record … payload: a torn last record".
            # READING: in a closed stream the close record follows, so the record is not the torn last one.
            if self.closed_at is not None or self.resync(pos + 1, region_end) is not None:
                return "bad", "lengthOutOfBounds", None
            return "torn", "truncated", None
        # §8 "Bounded work": a candidate that would take the failed count past 2 × offset + 2 × limit is refused.
        if self.crc_failed + length > 2 * pos + 2 * self.limit:
            return "bad", "limitExceeded", None
        if crc32(d[pos + 12:pos + 12 + length]) != crc:
            self.crc_failed += length
            return "bad", "badChecksum", pos + 12 + length
        return "ok", None, pos + 12 + length

    def whole_after_damage(self, v, code, pos, body_end):
        """§8 version 3: a unit that fails its CRC-32 is passed over by its length "when its start was reached by the
        length before it (not found by a search) and that length ends where a unit starts … or where the stream
        ends" (its payload may hold blocks of another stream); else the reader resynchronises."""
        return (v == 3 and code == "badChecksum" and pos != self.search_landing
                and (body_end == self.n or self.d[body_end:body_end + 4] in self.markers))

    def resync(self, start, region_end):
        """§8: "searches forward from the byte after the damaged record's start for the next marker — F3 50 52 1E,
        or a close record's (or, in version 3, an index's) — and reads on from it as from any record start".
        READING: a marker is its four bytes, found wherever they lie before the region's end. Returns its offset
        or None."""
        found = [j for j in (self.d.find(mk, start, region_end) for mk in self.markers) if j != -1]
        self.search_landing = min(found) if found else None
        return self.search_landing

    def run(self):
        d, n, res = self.d, self.n, self.res
        # §8 "The header": another magic is badMagic at the first differing byte; version at 4; flags at 5.
        for i in range(min(4, n)):
            if d[i] != MAGIC[i]:
                res.fatal = ("badMagic", i)
                return res
        if n < 6:
            # READING: §8 does not say where a cut stream header is reported; §5/§7 put a cut `.fpk` header's
            # `truncated` at offset 0 ("offset 0 for a file header"), taken here for the stream header too. The
            # version byte, when present, is checked before the cut flags byte (front to back, §7).
            if n >= 5 and d[4] not in (1, 2, 3):
                res.fatal = ("unsupportedVersion", 4)
            else:
                res.fatal = ("truncated", 0)
            return res
        if d[4] not in (1, 2, 3):
            res.fatal = ("unsupportedVersion", 4)
            return res
        if d[5] != 0:
            res.fatal = ("unsupportedVersion", 5)
            return res
        v = res.version = d[4]
        # §8 "Complete or not": closed when the last 16 bytes (version 3: the 24 bytes of its close record) are a
        # valid close record. Version 1 has no close record: completeness unknown, F3 50 52 45 is no marker there.
        csize = 24 if v == 3 else 16
        self.closed_at = None
        self.close_count = None
        if v != 1 and n - 6 >= csize and d[n - csize:n - csize + 4] == CLOSE:
            body = d[n - csize + 4:n - 4]
            if crc32(body) == struct.unpack_from("<I", d, n - 4)[0]:
                self.closed_at = n - csize
                self.close_count = struct.unpack_from("<Q", body, 0)[0]
        region_end = self.closed_at if self.closed_at is not None else n
        markers = self.markers = [SYNC] + ([CLOSE] if v != 1 else []) + ([INDEX] if v == 3 else [])
        pos = 6
        while pos < region_end:
            m = d[pos:pos + 4]
            if m == SYNC:
                status, code, body_end = self.frame(pos, region_end)
                if status == "ok":
                    if v == 3:
                        self.block(pos, body_end)
                    else:
                        self.record(pos, body_end)
                    pos = body_end
                    continue
                self.problem("record", code, pos)
                self.next_no += 1                   # "A damaged record costs only itself"
                if status == "torn":
                    break
                if self.whole_after_damage(v, code, pos, body_end):
                    pos = body_end
                    continue
                nxt = self.resync(pos + 1, region_end)
                pos = nxt if nxt is not None else region_end
                continue
            if m == CLOSE and v != 1:
                # A close record followed by more bytes: superseded, "readers skip it (its CRC still checked)";
                # "badChecksum … also a damaged close record". READING: it is not a record, so costs no number.
                if pos + csize > n:
                    # §8: a close record the stream ends inside (the writer stopped while closing) is not damage:
                    # the stream is not closed.
                    break
                body = d[pos + 4:pos + csize - 4]
                if crc32(body) == struct.unpack_from("<I", d, pos + csize - 4)[0]:
                    pos += csize
                    continue
                self.problem("close", "badChecksum", pos)
                nxt = self.resync(pos + 1, region_end)
                pos = nxt if nxt is not None else region_end
                continue
            if m == INDEX and v == 3:
                # §8 version 3: the index is checked "as a block is checked — length limit, end of stream, checksum
                # allowance, CRC-32, with the same codes — and pass over it (a damaged index is reported without a
                # record number of its own, and costs no record; one the stream ends inside is not reported: the
                # stream is not closed)". Its body is not interpreted.
                status, code, body_end = self.frame(pos, region_end)
                if status == "ok":
                    pos = body_end
                    continue
                if status == "torn":
                    break                           # §8: the writer stopped while closing; not closed, no problem
                self.problem("index", code, pos)
                if self.whole_after_damage(v, code, pos, body_end):
                    pos = body_end
                    continue
                nxt = self.resync(pos + 1, region_end)
                pos = nxt if nxt is not None else region_end
                continue
            # No marker where a record starts. READING: the bytes present are compared front to back (§7's
            # order), so a tail that is a cut marker is a torn record (`truncated`) and any other is badSyncMarker.
            if len(m) < 4 and any(mk.startswith(m) for mk in markers):
                self.problem("record", "truncated", pos)
                self.next_no += 1
                break
            self.problem("record", "badSyncMarker", pos)
            self.next_no += 1
            nxt = self.resync(pos + 1, region_end)
            pos = nxt if nxt is not None else region_end
        if v == 1:
            res.completion = ("unknown",)
        elif self.closed_at is not None:
            res.completion = ("closed", self.close_count)
            # "A reader that finds fewer … with no damage that could explain it (version 2: none in the stream;
            # version 3: none since the last intact block) reports `missingRecords` at the close record's marker";
            # "Otherwise `validate` names the disagreement" (more found than counted too).
            undamaged = self.next_no == self.intact_end if v == 3 else self.frames == self.next_no
            if self.close_count > self.next_no and undamaged:
                self.problem("record", "missingRecords", self.closed_at)
            elif self.close_count != self.next_no:
                self.problem("count", None, self.closed_at)
        else:
            res.completion = ("not closed", self.next_no)
        return res

    def record(self, pos, body_end):
        """Versions 1, 2: the payload is one document (§9); one that is not is "reported and skipped by its
        length", with the error's own code at its stream offset."""
        self.document(check_document(self.d, pos + 12, body_end), None)
        self.next_no += 1
        self.frames += 1                          # an intact record, its document valid or not

    def document(self, checked, at):
        """An intact record's document check: a problem (at `at` when given: a compressed block's marker), or its
        path, which §9 "One path, one record" makes a problem when an earlier record named it."""
        if isinstance(checked, tuple):
            self.problem("record", checked[0], checked[1] if at is None else at)
            return
        self.res.intact.append(self.next_no)
        if checked in self.paths:
            self.problem("path", "repeatedPath", None)
        else:
            self.paths[checked] = self.next_no

    def block(self, pos, body_end):
        """Version 3: a block whose CRC checks out; `invalidBlock` at its marker when its body is not as laid out,
        `limitExceeded` when it unpacks into more than "Expansion" allows."""
        d = self.d
        b = pos + 12
        fields = []
        q = b + 1
        for _ in range(4):                      # count, first, size, documents
            got = varint(d, q, body_end) if q <= body_end else None
            if got is None:
                break
            fields.append(got[0])
            q = got[1]
        # "bits 0–3: 00 none, 01 deflate, 02 zstd; bit 4 (10): the data is in the columns form; bit 5 (20, with
        # bit 4 only): its keys are numbered; bits 6–7: 0"
        bad = (b >= body_end or d[b] & 0x0F not in (0, 1, 2) or d[b] & 0xC0 or d[b] & 0x30 == 0x20
               or len(fields) < 4)
        if not bad:
            count, first, size, documents = fields
            columns = bool(d[b] & 0x10)
            numbered = bool(d[b] & 0x20)
            # "a `first` that with the count passes 2^62"; the row form's documents fit its data, the columns
            # form's rows are checked against the limit once rebuilt ("Columns", Checks).
            bad = (count < 1 or first + count > 1 << 62 or size > self.limit
                   or (not columns and documents > size))
        if bad:
            self.problem("record", "invalidBlock", pos)
            self.next_no += 1                   # READING: numbered and counted as one damaged record
            return
        # "Expansion": "at most 1,024 bytes per byte of the block in the stream (… the body length plus 12)",
        # `size` checked "before it decompresses"; a block past it is "`limitExceeded` at its marker".
        if size > EXPANSION * (body_end - pos):
            self.problem("record", "limitExceeded", pos)
            self.next_no += 1
            return
        codec, stored = d[b] & 0x0F, d[q:body_end]
        if codec == 2:                          # zstd: out of scope (see the docstring)
            self.res.unchecked = True
            self.number_block(first, count, pos)
            self.res.intact.extend(range(self.next_no, self.next_no + count))
            self.next_no += count
            return
        if codec == 0:
            data, data_at = stored, q
        else:
            try:
                z = zlib.decompressobj(-15)     # "deflate is raw RFC 1951 … windowBits = -15"
                data = z.decompress(stored, size + 1)
                # READING: the stored bytes are exactly one deflate stream: nothing after its end.
                if not z.eof or z.unused_data or z.unconsumed_tail:
                    data = None
            except zlib.error:
                data = None
            data_at = None
        if data is not None and len(data) == size and columns:
            # "A reader rebuilds the row form from it, byte for byte, before anything else"; "Where the block is
            # stored with codec `none` in the row form" only are errors reported at stream offsets.
            # "`size` plus the rows' size (documents and lengths) before it rebuilds them"
            rows = rows_size(data, count, documents, self.limit)
            if rows is not None and size + rows > EXPANSION * (body_end - pos):
                self.problem("record", "limitExceeded", pos)
                self.next_no += 1
                return
            data, data_at = rebuild_rows(data, count, documents, self.limit, numbered), None
            size = None if data is None else len(data)
        if data is None or len(data) != size:
            self.problem("record", "invalidBlock", pos)
            self.next_no += 1
            return
        lengths, r = [], documents
        while r < size and len(lengths) < count:
            got = varint(data, r, size)
            if got is None:
                break
            lengths.append(got[0])
            r = got[1]
        if len(lengths) != count or r != size or sum(lengths) != documents:
            self.problem("record", "invalidBlock", pos)
            self.next_no += 1
            return
        self.number_block(first, count, pos)
        at = 0
        for ln in lengths:
            if data_at is not None:
                self.document(check_document(d, data_at + at, data_at + at + ln), None)
            else:                               # compressed: reported at the block's marker
                self.document(check_document(data, at, at + ln), pos)
            self.next_no += 1
            at += ln


    def number_block(self, first, count, pos):
        """An intact block's records are numbered from its `first` ("takes the numbers of later records from the
        next intact block's first"), but "never go back below the intact blocks before"; a higher `first` with
        nothing damaged since the last intact block is `missingRecords` at the block's marker."""
        if first > self.next_no == self.intact_end:
            self.problem("record", "missingRecords", pos)
        self.next_no = max(first, self.intact_end)
        self.intact_end = self.next_no + count


# ---- §8 "Columns": the columns form of a block's data -------------------------------------------------------------

CONTAINERS = set(range(0xA0, 0xC0)) | {0xD0, 0xD1}
MAX_NESTING = 1000                       # "nesting deeper than 1,000 containers"


def _value_end(col, p, end):
    """The end of the (non-container) value at col[p], which must end by `end` (§1's payloads); None if it is not
    one: "a key table's D3, an undefined tag, a length past its column"."""
    t = col[p]
    if t < 0x80 or t >= 0xE0:
        n = p + 1
    elif t <= 0x9F:
        n = p + 1 + (t - 0x80)
    elif spec_reader._fixed_size(t) is not None:
        n = p + 1 + spec_reader._fixed_size(t)
    elif t in (0xCD, 0xCE, 0xCF):
        got = varint(col, p + 1, end)
        n = None if got is None else got[1] + got[0]
    elif t == 0xD2:
        got = varint(col, p + 1, end)
        n = None if got is None else got[1] + 8 * got[0]
    elif t == 0xD4:
        got = varint(col, p + 1, end)
        got = None if got is None else varint(col, got[1], end)
        n = None if got is None else got[1] + got[0]
    elif t == 0xD5:
        n = None if p + 1 >= end else p + 2 + ((col[p + 1] >> 4) & 7) + 1
    elif t in (0xD6, 0xD7, 0xD8, 0xD9):
        if p + 1 >= end:
            return None
        w = spec_reader._width(col[p + 1], t in (0xD8, 0xD9))
        if w is None:
            return None
        if t == 0xD7:
            n = p + 2 + 2 * w
        else:
            got = varint(col, p + 2, end)
            if got is not None and t == 0xD9:
                # §1 D9: "columns (at least 1)"; §6: a count past the element limit is refused at the tag.
                cols = varint(col, got[1], end)
                if cols is None or cols[0] < 1 or cols[0] > spec_reader.MAX_ELEMENTS:
                    return None
                got = (got[0] * cols[0], cols[1])
            n = None if got is None else got[1] + got[0] * w
    else:
        return None
    return n if n is not None and n <= end else None


def rows_size(data, count, documents, limit):
    """The size of the rows that `data` in the columns form rebuilds (its documents and their lengths), read from its
    lengths (§8 "Columns"), or None when they do not add up to `documents` or pass the limit."""
    p = 0
    lengths = 0
    for _ in range(count):
        got = varint(data, p, len(data))
        if got is None:
            return None
        lengths += got[0]
        p = got[1]
    if lengths != documents or documents + p > limit:
        return None
    return documents + p


def rebuild_rows(data, count, documents, limit, numbered=False):
    """The row form of `data` in the columns form (§8 "Columns"), its keys numbered or as written, or None for any
    of the checks it lists."""
    lengths, p = [], 0
    for _ in range(count):
        got = varint(data, p, len(data))
        if got is None:
            return None
        lengths.append(got[0])
        p = got[1]
    lengths_bytes = data[:p]
    if sum(lengths) != documents or documents + len(lengths_bytes) > limit:
        return None
    got = varint(data, p, len(data))
    if got is None or got[0] < 1 or got[0] > len(data) - got[1]:
        return None
    ncols, p = got
    # "C of 0, of 2^31 − 1 or more, or more than half the bytes after its varint; a column of 0 bytes"
    if ncols >= (1 << 31) - 1 or ncols > (len(data) - p) // 2:
        return None
    sizes = []
    for _ in range(ncols):
        got = varint(data, p, len(data))
        if got is None or got[0] < 1:
            return None
        sizes.append(got[0])
        p = got[1]
    if sum(sizes) > len(data) - p:
        return None
    keys_end = len(data) - sum(sizes)
    cursor, ends, at = [], [], keys_end
    for n in sizes:
        cursor.append(at)
        at += n
        ends.append(at)
    state = {"key": p}
    numbers = {}                          # path → number, in the order paths first occur
    by_number = []                        # number → path
    root = ()

    class Bad(Exception):
        pass

    def number(path):
        if path not in numbers:
            numbers[path] = len(numbers)
            by_number.append(path)
        i = numbers[path]
        if i >= ncols:                    # "a path numbered C or more"
            raise Bad
        return i

    def key(parent):
        k = state["key"]
        if numbered:
            got = varint(data, k, keys_end)
            if got is None:
                raise Bad
            if got[0] >= 1:
                # "k ≥ 1 stands for the key of path k − 1, which must be a path met before … whose parent is the
                # path of the map the key is in"
                if got[0] - 1 >= len(by_number):
                    raise Bad
                path = by_number[got[0] - 1]
                if not path or path[-1][0] != "key" or path[:-1] != parent:
                    raise Bad
                state["key"] = got[1]
                return path[-1][1]
            k = got[1]                    # "k = 0 is followed by the key as written"
        got = varint(data, k, keys_end)
        if got is None:
            raise Bad
        h, after = got
        stop = after + (h >> 1 if h % 2 == 0 else 0)
        if stop > keys_end:
            raise Bad
        state["key"] = stop
        return data[k:stop]

    def value(path, depth):
        """The value's rebuilt bytes, and where its key literals start in them (numbered keys' key tables)."""
        i = number(path)
        c = cursor[i]
        if c >= ends[i]:
            raise Bad
        t = data[c]
        if t in CONTAINERS:
            if depth >= MAX_NESTING:
                raise Bad
            if t in (0xD0, 0xD1):
                got = varint(data, c + 1, ends[i])
                if got is None:
                    raise Bad
                n, head_end = got
            else:
                n, head_end = t & 0x0F, c + 1
            cursor[i] = head_end
            body = bytearray(data[c + 1:head_end])
            literals = []
            is_map = 0xB0 <= t <= 0xBF or t == 0xD1
            for _ in range(n):
                if is_map:
                    k = key(path)
                    if k[0] % 2 == 0:         # §2: an even header is a literal
                        literals.append(len(body))
                    body += k
                    v, inner = value(path + (("key", k),), depth + 1)
                else:
                    v, inner = value(path + (("element",),), depth + 1)
                literals += [len(body) + at for at in inner]
                body += v
                if len(body) > limit:
                    raise Bad
            head = bytes([t]) + uv(len(body))
            return head + bytes(body), [len(head) + at for at in literals]
        stop = _value_end(data, c, ends[i])
        if stop is None:
            raise Bad
        cursor[i] = stop
        return data[c:stop], []

    def key_table(size, literals):
        """Numbered keys: "`D3`, `N` and `W` as written, then `N` varints: … the ordinal of the key literal it points
        at"; each entry written as that literal's offset in `W` bytes."""
        k = state["key"]
        if k >= keys_end or data[k] != 0xD3:
            raise Bad
        got = varint(data, k + 1, keys_end)
        if got is None or got[1] >= keys_end:
            raise Bad
        n, at = got
        w = data[at]
        head = data[k:at + 1]
        if not 1 <= w <= 8 or len(head) + n * w != size:
            raise Bad
        out, at = bytearray(head), at + 1
        for _ in range(n):
            got = varint(data, at, keys_end)
            if got is None or got[0] >= len(literals) or literals[got[0]] >= 1 << (8 * w):
                raise Bad
            out += literals[got[0]].to_bytes(w, "little")
            at = got[1]
        state["key"] = at
        return bytes(out)

    import sys
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, 4 * MAX_NESTING + 100))
    out = bytearray()
    try:
        for length in lengths:
            rooted, literals = value(root, 0)
            if len(rooted) > length:      # "a document's rebuilt root value longer than its length"
                return None
            tail = length - len(rooted)   # "its length less the rebuilt root value", from the keys
            if numbered and tail > 0:
                out += rooted + key_table(tail, literals)
                continue
            k = state["key"]
            if tail > keys_end - k:
                return None
            out += rooted + data[k:k + tail]
            state["key"] = k + tail
    except Bad:
        return None
    finally:
        sys.setrecursionlimit(old_limit)
    if state["key"] != keys_end or cursor != ends:
        return None                       # "left with bytes no document uses"
    return bytes(out) + lengths_bytes


def read(data, limit=RECORD_LIMIT):
    return _Stream(data, limit).run()
