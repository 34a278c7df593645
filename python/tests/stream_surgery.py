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
