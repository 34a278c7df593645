"""Cutting whole blocks out of a version-3 `.fpks` stream, as a careless copy or a bad merge would: what is left is
intact block for block, and only the blocks' `first` numbers say that records are gone (Docs/FORMAT.md §8)."""
import struct

BLOCK_MARKER = b"\xF3\x50\x52\x1E"  # a block's sync marker; the index and the close record have markers of their own


def block_frames(data):
    """(start, end) of each block before the first unit that is not one (the index, in a stream never appended
    to: every block): the framed units after the 6-byte stream header that carry the block marker."""
    frames, offset = [], 6
    while offset + 12 <= len(data) and data[offset:offset + 4] == BLOCK_MARKER:
        end = offset + 12 + struct.unpack_from("<I", data, offset + 4)[0]
        frames.append((offset, end))
        offset = end
    return frames


def without_blocks(data, indices):
    """`data` without the blocks numbered `indices` (the index and close record kept, now stale)."""
    frames = block_frames(data)
    kept = b"".join(data[start:end] for number, (start, end) in enumerate(frames) if number not in indices)
    return data[:6] + kept + data[frames[-1][1]:]


def before_the_expansion_rule(run=2_000_000):
    """A version-3 stream as FirePack wrote it before the expansion rule (Docs/FORMAT.md §8, "Expansion",
    2026-12-02), built from the spec: record 0 a small document in a block stored as it is, record 1 a document
    holding `run` `a`s in a zstd block of about a hundred bytes (a frame of raw and RLE blocks, RFC 8878), then a
    close record without an index. Returns the bytes and what reading the second block needs (its data's bytes per
    byte of it in the stream, rounded up), as the reader's message says it."""
    import zlib
    from spec_values import key, mp, ref, s, uv

    def document(path, fields):
        return mp((key("name"), ref(path)), (key("fields"), mp(*fields)))

    def framed(body):
        return BLOCK_MARKER + struct.pack("<II", len(body), zlib.crc32(body)) + body

    def zstd_frame(parts, size):
        """Raw blocks for (bytes, 0), RLE blocks of n copies for (byte, n); at most 128 KiB each."""
        blocks = []
        for content, repeats in parts:
            for start in range(0, repeats or len(content), 128 * 1024):
                count = min(128 * 1024, (repeats or len(content)) - start)
                blocks.append((1, count, content) if repeats else (0, count, content[start:start + count]))
        frame = b"\x28\xB5\x2F\xFD\xE0" + struct.pack("<Q", size)
        for index, (kind, count, content) in enumerate(blocks):
            frame += struct.pack("<I", count << 3 | kind << 1 | (index == len(blocks) - 1))[:3] + content
        return frame

    small = document("books/small", [(key("t"), s("x"))])
    small_data = small + uv(len(small))
    stream = b"\x89FPS\x03\x00" + framed(b"\x00" + uv(1) + uv(0) + uv(len(small_data)) + uv(len(small)) + small_data)
    long = document("books/long", [(key("text"), s("a" * run))])
    data = long + uv(len(long))
    start = data.index(b"aa")
    frame = zstd_frame([(data[:start], 0), (b"a", run), (data[start + run:], 0)], len(data))
    block = framed(b"\x02" + uv(1) + uv(1) + uv(len(data)) + uv(len(long)) + frame)
    stream += block
    fields = struct.pack("<QQ", 2, 0)
    stream += b"\xF3PRE" + fields + struct.pack("<I", zlib.crc32(fields))
    return stream, -(-len(data) // len(block))


def long_key_references(length=5_000, count=400):
    """A version-2 stream as a FirePack writer before 2026-12-05 could write it, built from the spec (Docs/FORMAT.md
    §3, §8): records `c/0` `{a: 0}`, `c/1` `{a: 1, m: [{K: 0}, {K: 1}, …]}` whose `count` maps repeat one key K of
    `length` bytes by reference, and `c/2` `{a: 2}`, then a close record. What record 1's references stand for
    (`count` × `length` bytes of keys) is past the readers' default limit of 16 times its size. Returns the bytes, K
    and a `max_key_expansion` that reads it."""
    import zlib
    from spec_values import arr, key, mp, ref, uv

    long_key = "K" * length

    def document(path, fields):
        return mp((key("name"), ref(path)), (key("fields"), mp(*fields)))

    def record(payload):
        return b"\xF3\x50\x52\x1E" + struct.pack("<II", len(payload), zlib.crc32(payload)) + payload

    maps = [mp((key(long_key), uv(0)))] + [mp((uv(1), uv(i & 0x7F))) for i in range(1, count)]
    hostile = document("c/1", [(key("a"), uv(1)), (key("m"), arr(*maps))])
    offset, root = hostile.index(key(long_key)), len(hostile)  # the literal's header, from the root value's start
    width = (offset.bit_length() + 7) // 8
    hostile += b"\xD3" + uv(1) + bytes([width]) + offset.to_bytes(width, "little")
    records = [document("c/0", [(key("a"), uv(0))]), hostile, document("c/2", [(key("a"), uv(2))])]
    stream = b"\x89FPS\x02\x00" + b"".join(record(payload) for payload in records)
    closing = struct.pack("<Q", len(records))
    stream += b"\xF3\x50\x52\x45" + closing + struct.pack("<I", zlib.crc32(closing))
    return stream, long_key, count * length // root + 1
