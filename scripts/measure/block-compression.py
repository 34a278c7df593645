#!/usr/bin/env python3
"""How `.fpks` compresses in blocks, beside the same documents as JSON lines (issue "Format 3", block streams):
measured before a block format and its default size are settled.

    python3 scripts/generate/make-events.py events /tmp/events.jsonl 50000
    firepack convert /tmp/events.jsonl /tmp/events.fpks
    python3 scripts/measure/block-compression.py /tmp/events          # reads /tmp/events.fpks and /tmp/events.jsonl

Today's streams (version 2) are cut into blocks of N records, and the JSON lines into blocks of the same N lines;
each block is compressed alone, as a block stream would (deflate level 6 through zlib, zstd level 3 through Debian's
`zstd`), and the totals are compared for N from 100 records to the whole file. Records are taken whole (marker,
length, CRC and payload, Docs/FORMAT.md §8), so the sizes are those a block of today's records would have."""
import struct
import subprocess
import sys
import zlib


def fpks_records(path):
    """The records of a version-2 stream, each with its 12-byte header."""
    data = open(path, "rb").read()
    if data[:6] != b"\x89FPS\x02\x00":
        raise SystemExit(f"{path}: not a version-2 .fpks stream")
    position, records = 6, []
    while position + 12 <= len(data) and data[position:position + 4] == b"\xF3\x50\x52\x1E":
        length = struct.unpack_from("<I", data, position + 4)[0]
        records.append(data[position:position + 12 + length])
        position += 12 + length
    return records


def zstd_size(block):
    return len(subprocess.run(["zstd", "-3", "-q", "-c"], input=block, capture_output=True, check=True).stdout)


def blocks(items, per):
    return [b"".join(items[i:i + per]) for i in range(0, len(items), per)]


def main(arguments):
    if not arguments:
        raise SystemExit(__doc__)
    for stem in arguments:
        records = fpks_records(stem + ".fpks")
        lines = [line for line in open(stem + ".jsonl", "rb").read().splitlines(keepends=True) if line.strip()]
        if len(records) != len(lines):
            raise SystemExit(f"{stem}: {len(records)} records but {len(lines)} lines")
        fpks, json = sum(map(len, records)), sum(map(len, lines))
        print(f"\n{stem}: {len(records):,} documents; .fpks {fpks:,} bytes, {fpks / json:.0%} of the JSON lines ({json:,})")
        print("| records per block | KiB of .fpks per block | deflate-6: .fpks / JSON lines | zstd-3: .fpks / JSON lines |")
        print("|---:|---:|---|---|")
        for per in sorted({100, 500, 2_000, 10_000, len(records)}):
            if per > len(records):
                continue
            fpks_blocks, json_blocks = blocks(records, per), blocks(lines, per)
            deflate_fpks = sum(len(zlib.compress(block, 6)) for block in fpks_blocks)
            deflate_json = sum(len(zlib.compress(block, 6)) for block in json_blocks)
            zstd_fpks = sum(zstd_size(block) for block in fpks_blocks)
            zstd_json = sum(zstd_size(block) for block in json_blocks)
            print(f"| {per:,} | {fpks / len(fpks_blocks) / 1024:,.0f} | {deflate_fpks:,} / {deflate_json:,} = "
                  f"{deflate_fpks / deflate_json:.2f} | {zstd_fpks:,} / {zstd_json:,} = {zstd_fpks / zstd_json:.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
