"""An independent FirePack `.fpk` validator, written from Docs/FORMAT.md alone.

It exists for test_spec_conformance.py, which compares it with `firepack validate` so that places where the
specification text and the project's implementation disagree come to light.  It was written without reading the
project's sources (Sources/, Tests/, python/firepack/): every rule below cites the section of FORMAT.md it follows.

    check(data) -> None                      the bytes are a valid whole `.fpk` file (§5)
    check(data) -> (code, offset)            the first defect, with the code name and byte offset of §7

Each rule whose order or offset a first reading of the text left open cites the sentence that now settles it.
"""
import math
import struct

MAGIC = b"\x89FPK"
MAX_DEPTH = 100                      # §6 default
MAX_ELEMENTS = 16_777_216            # §6
MAX_INPUT = 2 * 1024 ** 3            # §6
TWO53 = 1 << 53


class Defect(Exception):
    def __init__(self, code, offset):
        super().__init__(code, offset)
        self.code, self.offset = code, offset


def _fixed_size(tag):
    """Payload bytes of the tags whose payload has a fixed size (§1), else None."""
    return {0xC0: 0, 0xC1: 0, 0xC2: 0, 0xCC: 0, 0xC3: 1, 0xC4: 2, 0xC5: 4, 0xC6: 8, 0xC7: 4, 0xC8: 8,
            0xC9: 8, 0xCA: 12, 0xCB: 16}.get(tag)


def _width(form, packed_array):
    """Element width of a D6/D7 (packed_array False) or D8/D9 (True) form byte, or None when undefined (§1)."""
    if form == 0x80:
        return 4
    if form < 0x80:
        return ((form >> 4) & 7) + 1
    if packed_array:
        # 81: integers and doubles, 8 bytes each (a binary64, or an integer boxed where the high bytes are 7F F4)
        return {0x81: 8, 0xC3: 1, 0xC4: 2, 0xC5: 4, 0xC6: 8, 0xC8: 8}.get(form)
    return None


def _valid_segment(seg):
    if seg in ("", ".", ".."):
        return False
    if len(seg) >= 4 and seg.startswith("__") and seg.endswith("__"):
        middle = seg[2:-2]
        # the one exception: __id<ASCII digits>__
        return middle.startswith("id") and len(middle) > 2 and all("0" <= c <= "9" for c in middle[2:])
    return True


def valid_reference(path):
    """§1 'References': a relative document path or the full projects/…/documents/… form."""
    segs = path.split("/")
    if not all(_valid_segment(s) for s in segs):
        return False
    if (len(segs) >= 5 and segs[0] == "projects" and segs[2] == "databases" and segs[4] == "documents"
            and len(segs) - 5 > 0 and (len(segs) - 5) % 2 == 0):
        return True
    return len(segs) > 0 and len(segs) % 2 == 0


class _Reader:
    def __init__(self, data, max_depth=MAX_DEPTH):
        self.d = data
        self.n = len(data)
        self.max_depth = max_depth
        self.root = 5
        self.root_end = None
        self.table = None            # list of entry offsets (relative to the root)
        self.table_entries_at = None  # file offset of entry 0
        self.width = None
        self.literal_headers = set()  # offsets (relative to the root) of every key literal's header

    # ---- primitives ---------------------------------------------------------------------------------------
    def varint(self, pos, end):
        """Conventions: unsigned LEB128, at most 10 bytes, minimal, < 2^63 (`badVarint`); cut → `truncated` at
        the varint's first byte (§7)."""
        value = 0
        for i in range(10):
            if pos + i >= end:
                raise Defect("truncated", pos)
            b = self.d[pos + i]
            value |= (b & 0x7F) << (7 * i)
            if not b & 0x80:
                if i > 0 and b == 0:
                    raise Defect("badVarint", pos)
                if value >= 1 << 63:
                    raise Defect("badVarint", pos)
                return value, pos + i + 1
        raise Defect("badVarint", pos)

    def length(self, pos, end):
        """A varint length or count that must fit in the bytes left (`lengthOutOfBounds` at its first byte)."""
        value, after = self.varint(pos, end)
        if value > end - after:
            raise Defect("lengthOutOfBounds", pos)
        return value, after

    def utf8(self, start, stop):
        try:
            return self.d[start:stop].decode("utf-8")
        except UnicodeDecodeError as e:
            # §7: the first byte of the first ill-formed sequence.
            raise Defect("invalidUTF8", start + e.start)

    def depth_check(self, tag_pos, depth):
        if depth > self.max_depth:
            raise Defect("depthLimitExceeded", tag_pos)

    def limit_check(self, tag_pos, count):
        if count > MAX_ELEMENTS:
            raise Defect("limitExceeded", tag_pos)

    def mantissa_le(self, pos, w):
        m = int.from_bytes(self.d[pos:pos + w], "little", signed=True)
        if abs(m) > TWO53:
            raise Defect("invalidDecimal", pos)
        return m

    def packed_number(self, form, pos, w):
        """One element of a D6/D7 form as a double (binary32 or decimal)."""
        if form == 0x80:
            return struct.unpack_from("<f", self.d, pos)[0]
        m = self.mantissa_le(pos, w)
        return m / 10 ** (form & 0x0F)

    def check_decimals(self, form, start, count, w):
        if form < 0x80:
            for i in range(count):
                self.mantissa_le(start + i * w, w)

    # ---- values ---------------------------------------------------------------------------------------------
    def value(self, pos, end, depth, shallow=False):
        """Read (validate) the value at pos, which must end by `end`; returns the offset after it. `depth` is
        the depth of the enclosing container (0 at the root, §6). `shallow` reads only what finding the value's
        end needs (tag, lengths, counts, form bytes): how the input is opened to locate the key table (§3)."""
        if pos >= end:
            raise Defect("truncated", pos)
        d = self.d
        tag = d[pos]
        if tag <= 0x7F or tag >= 0xE0:
            return pos + 1
        size = _fixed_size(tag)
        if size is not None:
            if pos + 1 + size > end:
                raise Defect("truncated", pos)
            if shallow:
                return pos + 1 + size
            if tag == 0xCA:
                nanos = int.from_bytes(d[pos + 9:pos + 13], "little")
                if nanos >= 1_000_000_000:
                    raise Defect("invalidTimestamp", pos + 9)
            elif tag == 0xCB:
                lat, lon = struct.unpack_from("<dd", d, pos + 1)
                self.geo(pos, lat, lon)
            return pos + 1 + size
        if 0x80 <= tag <= 0x9F:
            n = tag - 0x80
            if pos + 1 + n > end:
                raise Defect("truncated", pos)   # the length is in the tag: a fixed-size payload
            if not shallow:
                self.utf8(pos + 1, pos + 1 + n)
            return pos + 1 + n
        if tag in (0xCD, 0xCE, 0xCF):
            n, q = self.length(pos + 1, end)
            if tag != 0xCE and not shallow:
                text = self.utf8(q, q + n)
                if tag == 0xCF and not valid_reference(text):
                    raise Defect("invalidReference", pos)
            return q + n
        if 0xA0 <= tag <= 0xBF or tag in (0xD0, 0xD1):
            return self.container(pos, end, depth, shallow)
        if tag == 0xD2:
            count, q = self.varint(pos + 1, end)
            if count * 8 > end - q:
                raise Defect("lengthOutOfBounds", pos + 1)
            if not shallow:
                self.limit_check(pos, count)
            return q + count * 8
        if tag == 0xD5:
            if pos + 2 > end:
                raise Defect("truncated", pos)
            n = ((d[pos + 1] >> 4) & 7) + 1
            if pos + 2 + n > end:
                raise Defect("truncated", pos)
            if not shallow and int.from_bytes(d[pos + 2:pos + 2 + n], "big") > TWO53:
                raise Defect("invalidDecimal", pos + 2)
            return pos + 2 + n
        if tag in (0xD6, 0xD7, 0xD8, 0xD9):
            return self.packed(pos, end, depth, tag, shallow)
        if tag == 0xD4:
            _, q = self.varint(pos + 1, end)
            n, q = self.length(q, end)
            if shallow:
                return q + n                           # finding the root's end skips it (§5)
            # §5: a whole-input check asks for every value; this version implements no extension type.
            raise Defect("unsupportedExtension", pos)
        # D3 where a value belongs, DA–DF
        raise Defect("unknownTag", pos)

    def geo(self, tag_pos, lat, lon):
        if not (-90.0 <= lat <= 90.0) or not (-180.0 <= lon <= 180.0):
            raise Defect("invalidGeoPoint", tag_pos)

    def packed(self, pos, end, depth, tag, shallow):
        d = self.d
        if tag in (0xD8, 0xD9):
            # §7: the depth limit is met at the tag, before the bytes after it.
            self.depth_check(pos, depth + 1)
            if tag == 0xD9:
                self.depth_check(pos, depth + 2)      # its rows are arrays one level deeper
        if pos + 2 > end:
            raise Defect("truncated", pos)            # the form byte is a fixed-size part
        form = d[pos + 1]
        w = _width(form, tag in (0xD8, 0xD9))
        if w is None:
            raise Defect("unknownTag", pos + 1)
        if tag == 0xD7:
            if pos + 2 + 2 * w > end:
                raise Defect("truncated", pos)
            if shallow:
                return pos + 2 + 2 * w
            lat = self.packed_number(form, pos + 2, w)
            lon = self.packed_number(form, pos + 2 + w, w)
            self.geo(pos, lat, lon)
            return pos + 2 + 2 * w
        if tag in (0xD6, 0xD8):
            count, q = self.varint(pos + 2, end)
            if count * w > end - q:
                raise Defect("lengthOutOfBounds", pos + 2)
            if not shallow:
                self.limit_check(pos, count)
                self.check_decimals(form, q, count, w)
            return q + count * w
        # D9: form, rows, columns (≥ 1), rows × columns × width bytes
        rows, q = self.varint(pos + 2, end)
        cols_at = q
        cols, q = self.varint(q, end)
        if cols == 0:
            raise Defect("lengthMismatch", cols_at)
        if rows > 0 and cols * w > end - q:             # §1: no rows take no bytes
            raise Defect("lengthOutOfBounds", cols_at)
        if rows * cols * w > end - q:
            raise Defect("lengthOutOfBounds", pos + 2)
        # §6, §7: counts are checked against the bytes first, then against the element limit (§6
        # "Independently of the limits, every length and count is checked against the bytes actually present").
        if shallow:
            return q + rows * cols * w
        self.limit_check(pos, rows)
        self.limit_check(pos, cols)
        self.check_decimals(form, q, rows * cols, w)
        return q + rows * cols * w

    def container(self, pos, end, depth, shallow=False):
        d = self.d
        tag = d[pos]
        is_map = (0xB0 <= tag <= 0xBF) or tag == 0xD1
        self.depth_check(pos, depth + 1)   # §7: at the tag, before the length (see packed())
        body_len, q = self.length(pos + 1, end)
        body_end = q + body_len
        if shallow:
            return body_end
        if tag in (0xD0, 0xD1):
            count, q = self.varint(q, body_end)
            self.limit_check(pos, count)
        else:
            count = tag & 0x0F
        room = body_end - q
        if count * (2 if is_map else 1) > room:
            raise Defect("lengthMismatch", pos)
        if is_map:
            seen = set()
            for _ in range(count):
                key_at = q
                key, q = self.key(q, body_end)
                q = self.value(q, body_end, depth + 1)
                if key in seen:
                    raise Defect("duplicateKey", key_at)
                seen.add(key)
        else:
            for _ in range(count):
                q = self.value(q, body_end, depth + 1)
        if q != body_end:
            raise Defect("lengthMismatch", pos)
        return body_end

    def key(self, pos, end):
        """§2: a varint header h; even: literal of h >> 1 bytes; odd: reference to table entry h >> 1 (§3)."""
        h, q = self.varint(pos, end)
        if h % 2 == 0:
            n = h >> 1
            if n > end - q:
                raise Defect("lengthOutOfBounds", pos)
            self.utf8(q, q + n)
            self.literal_headers.add(pos - self.root)
            return bytes(self.d[q:q + n]), q + n
        index = h >> 1
        if self.table is None or index >= len(self.table):
            raise Defect("badKeyReference", pos)
        entry = self.table[index]
        if entry >= pos - self.root:                   # inside the root value and before the reference
            raise Defect("badKeyReference", pos)
        at = self.root + entry
        try:
            h2, r = self.varint(at, self.root_end)
        except Defect:
            raise Defect("badKeyReference", pos)
        if h2 % 2 or (h2 >> 1) > self.root_end - r:
            raise Defect("badKeyReference", pos)
        self.utf8(r, r + (h2 >> 1))                    # §3: the literal resolved to is UTF-8, as every key
        return bytes(self.d[r:r + (h2 >> 1)]), q

    # ---- the whole file -------------------------------------------------------------------------------------
    def run(self):
        d, n = self.d, self.n
        if n > MAX_INPUT:
            raise Defect("limitExceeded", 0)
        for i in range(min(4, n)):
            if d[i] != MAGIC[i]:
                raise Defect("badMagic", i)
        if n < 5:
            # §5: a cut header is `truncated` at its first byte.
            raise Defect("truncated", 0)
        if d[4] not in (0x01, 0x03):
            raise Defect("unsupportedVersion", 4)
        if n == 5:
            raise Defect("truncated", 5)
        self.root_end = self.value(self.root, n, 0, shallow=True)
        self.read_table()
        after = self.value(self.root, self.root_end, 0)
        assert after == self.root_end
        if self.table is not None:
            for i, entry in enumerate(self.table):
                if entry not in self.literal_headers:
                    raise Defect("badKeyTable", self.table_entries_at + i * self.width)

    def read_table(self):
        d, n, r = self.d, self.n, self.root_end
        if r == n:
            return
        if d[r] != 0xD3:
            raise Defect("trailingBytes", r)
        count, q = self.varint(r + 1, n)
        if count == 0:
            raise Defect("badKeyTable", r)
        if 2 * count > r - self.root:
            raise Defect("badKeyTable", r)
        if q >= n:
            raise Defect("truncated", r)   # §3, §7: a table cut after its N, at its tag
        w = d[q]
        if not 1 <= w <= 8:
            raise Defect("badKeyTable", q)
        q += 1
        if count * w > n - q:
            raise Defect("truncated", r)
        if count * w < n - q:
            raise Defect("trailingBytes", q + count * w)
        self.width = w
        self.table_entries_at = q
        self.table = [int.from_bytes(d[q + i * w:q + (i + 1) * w], "little") for i in range(count)]


def check(data, max_depth=MAX_DEPTH):
    """None when `data` is a valid `.fpk` file, else (error code, byte offset) of the first defect."""
    try:
        _Reader(bytes(data), max_depth).run()
    except Defect as e:
        return (e.code, e.offset)
    return None


def open_bare(data, base, end, max_depth=MAX_DEPTH):
    """A reader over one bare root value and its key table occupying data[base:end] (a `.fpks` record's payload,
    §8), opened as §7 says (the root value's end, the key table, `trailingBytes`); raises Defect. Offsets stay
    those of `data`. Added for spec_stream_reader.py; `check` does not use it."""
    r = _Reader(bytes(data[:end]), max_depth)
    r.root = base
    if base >= end:
        raise Defect("truncated", base)
    r.root_end = r.value(base, end, 0, shallow=True)
    r.read_table()
    return r


def check_bare(data, base, end, max_depth=MAX_DEPTH):
    """None when data[base:end] is one valid bare value and its key table, else (code, offset in `data`)."""
    try:
        r = open_bare(data, base, end, max_depth)
        r.value(base, r.root_end, 0)
        check_table_entries(r)
    except Defect as e:
        return (e.code, e.offset)
    return None


def check_table_entries(r):
    """§3, whole-input validation after the whole value was read: every table entry names a key literal's header."""
    if r.table is not None:
        for i, entry in enumerate(r.table):
            if entry not in r.literal_headers:
                raise Defect("badKeyTable", r.table_entries_at + i * r.width)
