"""Builders of FirePack values (Docs/FORMAT.md §1–§3) for the two conformance tests: each returns the bytes the
text gives for a value, so a test can write inputs by hand — valid ones and every kind of damage."""
import struct


def uv(v):
    out = bytearray()
    while True:
        c, v = v & 0x7F, v >> 7
        out.append(c | 0x80 if v else c)
        if not v:
            return bytes(out)


def h(text):
    return bytes.fromhex(text)


def s(text):
    b = text.encode() if isinstance(text, str) else text
    return (bytes([0x80 + len(b)]) if len(b) < 32 else b"\xCD" + uv(len(b))) + b


def ref(path):
    b = path.encode()
    return b"\xCF" + uv(len(b)) + b


def key(name):
    b = name.encode() if isinstance(name, str) else name
    return uv(2 * len(b)) + b


def arr(*elements):
    body = b"".join(elements)
    if len(elements) < 16:
        return bytes([0xA0 + len(elements)]) + uv(len(body)) + body
    body = uv(len(elements)) + body
    return b"\xD0" + uv(len(body)) + body


def mp(*entries):  # entries: (key bytes, value bytes)
    body = b"".join(k + v for k, v in entries)
    if len(entries) < 16:
        return bytes([0xB0 + len(entries)]) + uv(len(body)) + body
    body = uv(len(entries)) + body
    return b"\xD1" + uv(len(body)) + body


def f64(x):
    return struct.pack("<d", x)


def f32(x):
    return struct.pack("<f", x)


def table(offsets, width=1):
    return b"\xD3" + uv(len(offsets)) + bytes([width]) + b"".join(o.to_bytes(width, "little") for o in offsets)
