#!/usr/bin/env python3
"""How much a decimal form for doubles would save (issue "Format 3", "Doubles that compress"): measured on the corpus
and on generated order-book records before the encoding is settled.

    python3 scripts/measure/measure-doubles.py                 # ../shared/corpus + 20,000 generated orders; a Markdown table

For every double in the data: its shortest round-trip decimal (Python's repr, the same digits as Swift's
description), written as an integer mantissa m and a decimal exponent e with d == m × 10^e. The decimal form is
*eligible* when decoding it is one correctly rounded operation that gives back the identical bits — |m| < 2^53 and
|e| ≤ 22, so m and 10^|e| are exact doubles and m × 10^e or m / 10^-e is correctly rounded (Clinger's fast path) —
and the sign survives (−0.0 is not). Sizes compare today's encoding (9 bytes; 5 when the value is exactly a float32)
with the decimal form (a tag byte, one exponent byte, the zig-zag varint of m), taken where it is eligible and shorter
(otherwise today's form), each value alone and the whole sequence compressed with gzip -6 and zstd -3, beside the numbers as JSON text
(comma-separated, as they stand in the input). zstd comes from Debian's `zstd` package.
"""
import gzip
import json
import random
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"


def doubles(value, out):
    if isinstance(value, float):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            doubles(item, out)
    elif isinstance(value, list):
        for item in value:
            doubles(item, out)
    return out


def decimal(d):
    """(m, e) with d == m × 10^e from the shortest round-trip text, or None when the fast path cannot give d back."""
    if d != d or d in (float("inf"), float("-inf")) or (d == 0 and struct.pack(">d", d)[0] & 0x80):
        return None
    text = repr(d)
    mantissa, _, exponent = text.partition("e")
    e = int(exponent) if exponent else 0
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("-")
    m = int(digits) * (-1 if whole.startswith("-") else 1)
    e -= len(fraction)
    while m != 0 and m % 10 == 0:
        m //= 10
        e += 1
    if abs(m) >= 1 << 53 or abs(e) > 22:
        return None
    back = float(m) * 10.0 ** e if e >= 0 else float(m) / 10.0 ** -e
    return (m, e) if struct.pack("<d", back) == struct.pack("<d", d) else None


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def encodings(values):
    today, compact = bytearray(), bytearray()
    eligible = 0
    for d in values:
        as_float32 = struct.unpack("<f", struct.pack("<f", d))[0] if abs(d) < 3.4e38 or d != d else None
        current = b"\xc9" + struct.pack("<f", d) if as_float32 is not None and struct.pack("<d", as_float32) == struct.pack("<d", d) \
            else b"\xca" + struct.pack("<d", d)
        today += current
        form = decimal(d)
        if form is not None:
            m, e = form
            encoded = b"\xcb" + bytes([e & 0xFF]) + varint((m << 1) ^ (m >> 63))
            if len(encoded) < len(current):   # the writer takes the decimal form only where it is shorter
                eligible += 1
                compact += encoded
                continue
        compact += current
    return bytes(today), bytes(compact), eligible


def zstd(data):
    if not shutil.which("zstd"):
        return None
    return len(subprocess.run(["zstd", "-3", "-c", "-q"], input=data, capture_output=True, check=True).stdout)


def row(name, values, text):
    today, compact, eligible = encodings(values)
    sizes = []
    for data in (today, compact, text):
        sizes.append((len(data), len(gzip.compress(data, 6)), zstd(data)))
    def cell(size):
        plain, gz, zs = size
        return f"{plain:,} / {gz:,} / {zs:,}" if zs is not None else f"{plain:,} / {gz:,} / –"
    return (f"| {name} | {len(values):,} | {eligible / max(len(values), 1):.1%} | {cell(sizes[0])} | {cell(sizes[1])} "
            f"| {cell(sizes[2])} | {sizes[1][1] / sizes[0][1]:.2f} / {sizes[1][1] / sizes[2][1]:.2f} |")


def main():
    rows = []
    for name in ("canada.json", "citm_catalog.json", "twitter.json"):
        path = CORPUS / name
        if not path.exists():
            print(f"{path} is absent: {name} skipped", file=sys.stderr)
            continue
        values = doubles(json.loads(path.read_text(encoding="utf-8")), [])
        rows.append(row(name, values, ",".join(map(repr, values)).encode()))
    # Order-book-like records from the seeded generator: prices and quantities.
    with tempfile.TemporaryDirectory() as folder:
        orders = Path(folder) / "orders.jsonl"
        subprocess.run([sys.executable, str(ROOT / "scripts/generate/make-events.py"), "orders", str(orders), "20000", "7"], check=True)
        lines = orders.read_text(encoding="utf-8").splitlines()
    values = []
    for line in lines:
        doubles(json.loads(line), values)
    rows.append(row("generated orders (20,000)", values, ",".join(map(repr, values)).encode()))
    random.seed(1)
    noise = [random.random() for _ in range(100_000)]
    rows.append(row("random() doubles (control)", noise, ",".join(map(repr, noise)).encode()))
    print("| data | doubles | decimal form taken | today: bytes / gzip / zstd | decimal form: bytes / gzip / zstd "
          "| JSON text: bytes / gzip / zstd | decimal gzip ÷ today, ÷ JSON |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
