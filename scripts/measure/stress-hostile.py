#!/usr/bin/env python3
"""Hostile-input stress test of the `firepack` tool: small inputs built to make it slow or large, against benign twins.

    python3 scripts/measure/stress-hostile.py                      # every case, .build/release/firepack
    python3 scripts/measure/stress-hostile.py --only fake-headers  # one case
    python3 scripts/measure/stress-hostile.py --binary PATH --scale 0.25 --max-ratio 3

Each case writes a hostile input and a benign twin of (about) the same size into a temporary folder, streaming
(gzip-compressed where the name ends in .gz), runs the binary on each and measures the wall time and the child's
peak RSS (`os.wait4`'s `ru_maxrss`). One row per case; exit status 1 when any case fails. A case fails on a crash
(a signal), a run over the time limit, or its own check:

    time     hostile seconds / benign seconds <= --max-ratio
    memory   hostile peak RSS <= the case's ceiling (a non-zero exit is expected: the inputs are damaged)
    rss      peak RSS of the big input / peak RSS of the small one <= 1.5, and the peak <= the ceiling
    refuse   the writer refuses the hostile input (non-zero exit); if it accepts it, `validate` of its output must
             pass. The benign twin, just inside the limit, must convert.

--scale multiplies the sizes (not those of the writer-limit cases, which sit at fixed limits). Note: Linux counts
the spawning process's own peak RSS into a child's `ru_maxrss` at exec, so a child's peak is floored at this
script's (printed at the end); the script therefore never holds more than about a MiB of input.
"""
import argparse, gzip, os, random, resource, signal, struct, sys, tempfile, time, zlib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MiB = 1 << 20
CHUNK = MiB
STREAM_HEADER = bytes([0x89, 0x46, 0x50, 0x53, 0x02, 0x00])   # .fpks, version 2, flags 0 (Docs/FORMAT.md §8)
STREAM_HEADER_V3 = bytes([0x89, 0x46, 0x50, 0x53, 0x03, 0x00])  # .fpks, version 3 (blocks)
FILE_HEADER = bytes([0x89, 0x46, 0x50, 0x4B, 0x01])           # .fpk, format version 1 (§5)
SYNC, CLOSE = struct.pack("<I", 0x1E5250F3), struct.pack("<I", 0x455250F3)
RECORD_LIMIT = 64 * MiB           # the stream reader's default record limit
ELEMENT_LIMIT = 16_777_216        # the reader's element limit (§6)
MEMORY_CEILING_MB = 256
RSS_RATIO_CEILING = 1.5


# ---------------------------------------------------------------------------------------------------------------
# Byte helpers: every input is written as a stream of chunks of about a MiB.

def write(path, parts):
    """Writes an iterable of byte chunks to `path` (gzip when its name ends in .gz); returns the file's size."""
    with gzip.open(path, "wb", compresslevel=6) if path.suffix == ".gz" else open(path, "wb") as out:
        for part in parts:
            out.write(part)
    return path.stat().st_size


def repeat(unit, count):
    """`unit` repeated `count` times, in chunks of about CHUNK bytes."""
    per = max(1, CHUNK // len(unit))
    full, rest = divmod(count, per)
    block = unit * per
    for _ in range(full):
        yield block
    if rest:
        yield unit * rest


def varint(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def record(payload, crc=None):
    """A .fpks record: sync marker, length, CRC-32 (the right one unless given), payload."""
    return SYNC + struct.pack("<II", len(payload), zlib.crc32(payload) if crc is None else crc) + payload


def close_record(count):
    count_bytes = struct.pack("<Q", count)
    return CLOSE + count_bytes + struct.pack("<I", zlib.crc32(count_bytes))


def document(path):
    """A FirePack document {"name": reference(path), "fields": {}} (§9)."""
    body = b"\x08name" + b"\xCF" + varint(len(path)) + path + b"\x0Cfields" + b"\xB0\x00"
    return b"\xB2" + varint(len(body)) + body


def proto_field(number, payload):
    """A length-delimited protobuf field."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def random_keys(rng, count, length):
    """`count` distinct random lowercase keys of `length` bytes."""
    keys = set()
    while len(keys) < count:
        keys.add("".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=length)))
    return list(keys)


def json_object(keys, value="0"):
    return ("{" + ",".join(f'"{key}":{value}' for key in keys) + "}\n").encode()


# ---------------------------------------------------------------------------------------------------------------
# Cases. Each builder writes its inputs into `d` and returns what to run.

@dataclass
class Inputs:
    benign: list            # arguments after the binary
    hostile: list
    hostile_input: Path
    hostile_output: Path = None   # refuse cases: the stream to validate when the writer accepted the input


def key_flood(d, scale):
    """30 lines x 10,000 keys sharing a long prefix (only the last bytes differ), 6 MiB; twin: random keys."""
    lines, per_line, length = max(1, round(30 * scale)), 10_000, 16
    prefix = "k" * (length - 4)
    rng = random.Random(1)
    hostile, benign = d / "flood.jsonl", d / "flood-twin.jsonl"
    write(hostile, (json_object(f"{prefix}{i:04d}" for i in range(per_line)) for _ in range(lines)))
    write(benign, (json_object(random_keys(rng, per_line, length)) for _ in range(lines)))
    return Inputs(["convert", str(benign), str(d / "b.fpks"), "--collection", "c", "--quiet"],
                  ["convert", str(hostile), str(d / "h.fpks"), "--collection", "c", "--quiet"], hostile)


def key_chain(d, scale):
    """One line {"k0":{"k1":0},"k1":{"k2":0},...} of 120,000 keys; twin: random keys of the same lengths."""
    count = max(2, round(120_000 * scale))
    rng = random.Random(2)

    def scrambled(i):
        """A random-looking key as long as f"k{i}", distinct for distinct i (an odd multiplier, not a multiple of
        13, permutes the residues modulo 26**length), so that no set of keys has to be kept."""
        length = len(f"k{i}")
        n = (i * 2654435761 + 12345) % 26 ** length
        return "".join(chr(97 + n // 26 ** p % 26) for p in range(length))

    def line(top, inner):
        yield b"{"
        for start in range(0, count, 10_000):
            yield "".join(f'{"," if i else ""}"{top(i)}":{{"{inner(i + 1)}":0}}'
                          for i in range(start, min(start + 10_000, count))).encode()
        yield b"}\n"

    hostile, benign = d / "chain.jsonl", d / "chain-twin.jsonl"
    write(hostile, line(lambda i: f"k{i}", lambda i: f"k{i}"))
    write(benign, line(scrambled, lambda i: "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=len(f"k{i}")))))
    return Inputs(["convert", str(benign), str(d / "b.fpks"), "--collection", "c", "--quiet"],
                  ["convert", str(hostile), str(d / "h.fpks"), "--collection", "c", "--quiet"], hostile)


def fake_headers(d, scale):
    """800 record headers claiming 64 MiB each, 1 KiB apart, then 64 MiB of zeros (about 65 KiB gzipped), so that
    every claim can be read; twin: 200 headers 4 KiB apart in the same bytes."""
    count = max(4, round(800 * scale))
    fake = SYNC + struct.pack("<II", RECORD_LIMIT, 0)

    def stream(spacing, headers):
        yield STREAM_HEADER
        for _ in range(headers):
            yield fake + bytes(spacing - len(fake))
        yield from repeat(b"\0", RECORD_LIMIT + 64 * 1024)

    hostile, benign = d / "fake.fpks.gz", d / "fake-twin.fpks.gz"
    write(hostile, stream(1024, count))
    write(benign, stream(4096, count // 4))
    return Inputs(["validate", str(benign)], ["validate", str(hostile)], hostile)


def zstd_run(size, byte=b"a"):
    """A zstd frame (RFC 8878) of `size` bytes of `byte`, built by hand: a header holding the content size (single
    segment), then one RLE block of four bytes per 128 KiB."""
    frame = bytearray(b"\x28\xB5\x2F\xFD\xE0" + struct.pack("<Q", size))
    for start in range(0, size, 128 * 1024):
        count = min(128 * 1024, size - start)
        frame += struct.pack("<I", count << 3 | 1 << 1 | (start + count == size))[:3] + byte
    return bytes(frame)


def block_bombs(d, scale):
    """500 version-3 blocks of about 1.9 KB, each a zstd frame claiming 60 MB of one byte (Docs/FORMAT.md §8,
    "Expansion"): 30 GB to decompress in 1 MB; twin: blocks of small documents stored as they are, the same bytes."""
    count = max(4, round(500 * scale))
    frame, size = zstd_run(60_000_000), 60_000_000

    def bombs():
        yield STREAM_HEADER_V3
        for first in range(count):
            yield record(b"\x02\x01" + varint(first) + varint(size) + varint(size - 4) + frame)

    def blocks():
        yield STREAM_HEADER_V3
        written, first = len(STREAM_HEADER_V3), 0
        while written < 6 + count * (12 + 5 + 8 + len(frame)):
            docs = [document(b"c/d%09d" % (first + i)) for i in range(40)]
            data = b"".join(docs) + b"".join(varint(len(doc)) for doc in docs)
            unit = record(b"\x00" + varint(40) + varint(first) + varint(len(data)) + varint(len(data) - 40) + data)
            written, first = written + len(unit), first + 40
            yield unit

    hostile, benign = d / "bombs.fpks", d / "bombs-twin.fpks"
    write(hostile, bombs())
    write(benign, blocks())
    return Inputs(["validate", str(benign)], ["validate", str(hostile)], hostile)


def json_array(d, scale):
    """60 MiB of [0,0,...] in a .json.gz; twin: [0] padded with spaces to the same size."""
    size = round(60 * MiB * scale)
    hostile, benign = d / "array.json.gz", d / "array-twin.json.gz"
    write(hostile, [b"[", *repeat(b"0,", size // 2 - 1), b"0]"])
    write(benign, [b"[0", *repeat(b" ", size - 3), b"]"])
    return Inputs(["validate", str(benign)], ["validate", str(hostile)], hostile)


def jsonl_line(d, scale):
    """One 40 MiB line [0,0,...] in a .jsonl.gz; twin: one line {"a":0} padded with spaces to the same size."""
    size = round(40 * MiB * scale)
    hostile, benign = d / "line.jsonl.gz", d / "line-twin.jsonl.gz"
    write(hostile, [b"[", *repeat(b"0,", size // 2 - 1), b"0]\n"])
    write(benign, [b'{"a":0', *repeat(b" ", size - 7), b"}\n"])
    return Inputs(["validate", str(benign), "--from", "jsonl"], ["validate", str(hostile), "--from", "jsonl"], hostile)


def proto_zeros(d, scale):
    """60 MiB of zero bytes as a .pb.gz; twin: delimited Document messages with a 16 KiB bytes field each."""
    size = round(60 * MiB * scale)
    hostile, benign = d / "zeros.pb.gz", d / "zeros-twin.pb.gz"
    write(hostile, repeat(b"\0", size))

    def messages():
        written, number = 0, 0
        while written < size:
            value = proto_field(18, bytes(16 * 1024))                          # Value.bytes_value
            entry = proto_field(1, b"b") + proto_field(2, value)               # map entry: key, value
            message = proto_field(1, b"c/d%09d" % number) + proto_field(2, entry)   # Document: name, fields
            chunk = varint(len(message)) + message
            written, number = written + len(chunk), number + 1
            yield chunk

    write(benign, messages())
    return Inputs(["validate", str(benign)], ["validate", str(hostile)], hostile)


def fpk_key_table(d, scale):
    """A .fpk.gz holding {"a": 0} and a key table of 30,000,000 one-byte entries, each pointing at the literal "a";
    twin: a bytes value of the same size."""
    entries = max(1, round(30_000_000 * scale))
    root = b"\xB1\x03\x02a\x00"          # {"a": 0}: the key literal's header 02 is at offset 2
    table = b"\xD3" + varint(entries) + b"\x01"
    hostile, benign = d / "table.fpk.gz", d / "table-twin.fpk.gz"
    write(hostile, [FILE_HEADER, root, table, *repeat(b"\x02", entries)])
    length = len(root) + len(table) + entries - 1 - len(varint(entries))   # so that both files are the same size
    write(benign, [FILE_HEADER, b"\xCE", varint(length), *repeat(b"\0", length)])
    return Inputs(["validate", str(benign)], ["validate", str(hostile)], hostile)


def long_key_references(d, scale):
    """A .fpk of an array of 10,000 maps naming two 1 MiB keys alike up to their last byte, literals in the first map
    and one-byte references after it (2.1 MB that stand for 20 GB of keys), converted to JSON; twin: the same maps
    with one-byte keys beside a 2 MiB string."""
    maps, length = max(2, round(10_000 * scale)), max(40, round((1 << 20) * scale))
    keys = [b"k" * (length - 1) + b"a", b"k" * (length - 1) + b"b"]

    def value(first_keys):
        first = b"".join(varint(2 * len(key)) + key + b"\x00" for key in first_keys)
        first_map = b"\xB2" + varint(len(first)) + first
        rest = b"\xB2\x04\x01\x00\x03\x00"
        elements = varint(maps) + first_map + rest * (maps - 1)
        head = b"\xD0" + varint(len(elements))
        offsets = [len(head) + len(varint(maps)) + 1 + len(varint(len(first)))]
        offsets.append(offsets[0] + len(varint(2 * len(first_keys[0]))) + len(first_keys[0]) + 1)
        table = b"\xD3\x02\x04" + b"".join(struct.pack("<I", offset) for offset in offsets)
        return head + elements + table

    hostile, benign = d / "long-keys.fpk", d / "long-keys-twin.fpk"
    write(hostile, [FILE_HEADER, value(keys)])
    # The twin: one-byte literal keys in every map, and the long keys' bytes as a string in a map of their own.
    text = b"k" * (2 * length)
    padding_body = b"\x02p\xCD" + varint(len(text)) + text
    padding = b"\xB1" + varint(len(padding_body)) + padding_body
    elements = varint(maps + 1) + padding + b"\xB2\x06\x02a\x00\x02b\x00" * maps
    write(benign, [FILE_HEADER, b"\xD0" + varint(len(elements)) + elements])
    return Inputs(["convert", str(benign), str(d / "twin.json")], ["convert", str(hostile), str(d / "hostile.json")],
                  hostile)


def damaged_records(d, scale):
    """1,000,000 records of length 0 with a wrong CRC in a .fpks.gz; twin: valid records of the same total size."""
    count = max(1, round(1_000_000 * scale))
    hostile, benign = d / "damaged.fpks.gz", d / "damaged-twin.fpks.gz"
    write(hostile, [STREAM_HEADER, *repeat(record(b"", crc=0xDEADBEEF), count)])

    total = (12 * count - 16) // len(record(document(b"c/d%09d" % 0)))   # 16: the close record

    def records():
        yield STREAM_HEADER
        for start in range(0, total, 1000):
            yield b"".join(record(document(b"c/d%09d" % i)) for i in range(start, min(start + 1000, total)))
        yield close_record(total)

    write(benign, records())
    return Inputs(["validate", str(benign)], ["validate", str(hostile)], hostile)


def stats_keys(d, scale):
    """`stats` of 600,000 one-field JSON lines with distinct keys, against 150,000 of them."""
    def lines(count):
        for start in range(0, count, 10_000):
            yield b"".join(b'{"field_%012d":0}\n' % i for i in range(start, min(start + 10_000, count)))

    hostile, benign = d / "keys.jsonl", d / "keys-small.jsonl"
    write(hostile, lines(max(4, round(600_000 * scale))))
    write(benign, lines(max(1, round(150_000 * scale))))
    return Inputs(["stats", str(benign)], ["stats", str(hostile)], hostile)


def long_path(d, scale):
    """REST JSON of a JSON line whose key is 1 MiB, over 100,000 rows [0] (each a Firestore-limits problem whose text
    names the path); twin: the same rows under the key "k", padded with spaces to the same size."""
    rows = max(10, round(100_000 * scale))
    key = b"k" * MiB
    hostile, benign = d / "long-path.jsonl", d / "long-path-twin.jsonl"
    body = [b",".join([b"[0]"] * rows), b"]}\n"]
    write(hostile, [b'{"__name__":"c/d","', key, b'":[', *body])
    write(benign, [b'{"__name__":"c/d","k":[', *body[:-1], b"]", b" " * (len(key) - 1), b"}\n"])
    return Inputs(["convert", str(benign), str(d / "b.firestore.jsonl"), "--quiet"],
                  ["convert", str(hostile), str(d / "h.firestore.jsonl"), "--quiet"], hostile)


def writer_array(d, scale):
    """A JSON line {"a": [16,777,217 numbers]}; twin: 16,777,216 numbers (the reader's limit) and a space."""
    hostile, benign = d / "long-array.jsonl", d / "long-array-twin.jsonl"
    write(hostile, [b'{"a":[', *repeat(b"0,", ELEMENT_LIMIT), b"0]}\n"])
    write(benign, [b'{"a":[', *repeat(b"0,", ELEMENT_LIMIT - 1), b"0]  }\n"])
    out = d / "long-array.fpks"
    return Inputs(["convert", str(benign), str(d / "b.fpks"), "--collection", "c", "--quiet"],
                  ["convert", str(hostile), str(out), "--collection", "c", "--quiet"], hostile, out)


def writer_string(d, scale):
    """A JSON line {"s": a 65 MiB string}, a record over the 64 MiB limit; twin: a 60 MiB string and 5 MiB of spaces."""
    hostile, benign = d / "long-string.jsonl", d / "long-string-twin.jsonl"
    write(hostile, [b'{"s":"', *repeat(b"x", 65 * MiB), b'"}\n'])
    write(benign, [b'{"s":"', *repeat(b"x", 60 * MiB), b'"', *repeat(b" ", 5 * MiB), b"}\n"])
    out = d / "long-string.fpks"
    return Inputs(["convert", str(benign), str(d / "b.fpks"), "--collection", "c", "--quiet"],
                  ["convert", str(hostile), str(out), "--collection", "c", "--quiet"], hostile, out)


CASES = {  # name: (builder, check)
    "key-flood": (key_flood, "time"),
    "key-chain": (key_chain, "time"),
    "fake-headers": (fake_headers, "time"),
    "block-bombs": (block_bombs, "time"),
    "mem-json-array": (json_array, "memory"),
    "mem-jsonl-line": (jsonl_line, "memory"),
    "mem-proto-zeros": (proto_zeros, "memory"),
    "mem-fpk-key-table": (fpk_key_table, "memory"),
    "mem-damaged-records": (damaged_records, "memory"),
    "mem-stats-keys": (stats_keys, "rss"),
    "long-path": (long_path, "time"),
    "long-key-references": (long_key_references, "time"),
    "writer-array": (writer_array, "refuse"),
    "writer-string": (writer_string, "refuse"),
}


# ---------------------------------------------------------------------------------------------------------------
# Running and judging.

@dataclass
class Run:
    seconds: float
    peak_kib: int
    code: int          # exit status; negative: killed by that signal
    timed_out: bool
    message: str       # the last line the tool wrote to standard error

    @property
    def crashed(self):
        return self.code < 0 and not self.timed_out

    def describe(self):
        if self.timed_out:
            return "timed out"
        return f"signal {-self.code}" if self.code < 0 else f"exit {self.code}"


def run_once(argv, log, timeout):
    """Runs argv with standard error to `log`; polls (the child stays unreaped until it ends, so killing it on
    timeout can never hit another process) and reaps it with wait4 for its rusage."""
    with open(log, "wb") as err:
        start = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
            (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
        timed_out, reaped = False, (0, 0, None)
        try:
            while not (reaped := os.wait4(pid, os.WNOHANG))[0]:
                if time.perf_counter() - start > timeout:
                    timed_out = True
                    break
                time.sleep(0.002)
        finally:
            if timed_out or not reaped[0]:   # over time, or interrupted (Ctrl-C): kill and reap our child
                os.kill(pid, signal.SIGKILL)
                reaped = os.wait4(pid, 0)
        _, status, usage = reaped
        seconds = time.perf_counter() - start
    with open(log, "rb") as err:   # only the end: a damaged stream's report can be long
        err.seek(max(0, log.stat().st_size - 4096))
        lines = err.read().decode(errors="replace").strip().splitlines()
    return Run(seconds, usage.ru_maxrss, os.waitstatus_to_exitcode(status), timed_out, lines[-1] if lines else "")


def measure(binary, args, log, timeout):
    """Runs once, or three times when a run is under a second (keeping the fastest time and the largest peak)."""
    first = run_once([binary, *args], log, timeout)
    if first.seconds >= 1 or first.crashed or first.timed_out:
        return first
    runs = [first] + [run_once([binary, *args], log, timeout) for _ in range(2)]
    best = min(runs, key=lambda r: r.seconds)
    best.peak_kib = max(r.peak_kib for r in runs)
    return next((r for r in runs if r.crashed), best)


def judge(check, benign, hostile, max_ratio, validation):
    """(ratio shown, ceiling shown, passed, note)."""
    time_ratio = hostile.seconds / max(benign.seconds, 1e-3)
    peak_mb = hostile.peak_kib / 1024
    note = f"benign {benign.describe()}, hostile {hostile.describe()}"
    if benign.code != 0 and check != "memory" and benign.message:   # validate's twins may exit 1; the rest not
        note += f" (benign: {benign.message[:60]})"
    if hostile.message and not hostile.timed_out:
        note += f": {hostile.message[:90]}"
    ok = not (benign.crashed or hostile.crashed or benign.timed_out or hostile.timed_out)
    if check == "time":
        return f"{time_ratio:.2f}x", f"time <= {max_ratio:g}x", ok and time_ratio <= max_ratio, note
    if check == "memory":
        return f"{time_ratio:.2f}x", f"<= {MEMORY_CEILING_MB} MB", ok and peak_mb <= MEMORY_CEILING_MB, note
    if check == "rss":
        rss_ratio = hostile.peak_kib / max(benign.peak_kib, 1)
        return (f"{rss_ratio:.2f}x RSS", f"RSS <= {RSS_RATIO_CEILING:g}x, {MEMORY_CEILING_MB} MB",
                ok and rss_ratio <= RSS_RATIO_CEILING and peak_mb <= MEMORY_CEILING_MB, note + f"; time {time_ratio:.2f}x")
    # refuse: the hostile input must be refused with a message, or what was written must validate.
    ok = ok and benign.code == 0
    if hostile.code == 0:
        ok = ok and validation is not None and validation.code == 0
        note += f"; ACCEPTED, then validate: {validation.describe() + ': ' + validation.message[:80] if validation else 'not run'}"
    else:
        ok = ok and bool(hostile.message)
    return f"{time_ratio:.2f}x", "refused or valid", ok, note


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--binary", default=str(ROOT / ".build/release/firepack"), help="the firepack binary")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the input sizes (default 1)")
    parser.add_argument("--max-ratio", type=float, default=3.0, help="largest hostile/benign time ratio (default 3)")
    parser.add_argument("--only", choices=sorted(CASES), help="run only this case")
    options = parser.parse_args()
    binary = str(Path(options.binary).resolve())
    if not os.access(binary, os.X_OK):
        sys.exit(f"stress-hostile: no executable at {binary} (build it with: swift build -c release --product firepack)")
    timeout = 120 * max(1.0, options.scale)
    names = [options.only] if options.only else list(CASES)

    columns = f"{'case':<20} {'input bytes':>12} {'benign s':>9} {'hostile s':>9} {'ratio':>11} {'peak MB':>8}  {'ceiling':<24} {'result':<6} note"
    print(columns)
    print("-" * len(columns))
    failures = 0
    with tempfile.TemporaryDirectory(prefix="firepack-hostile-") as temporary:
        for name in names:
            builder, check = CASES[name]
            d = Path(temporary) / name
            d.mkdir()
            inputs = builder(d, options.scale)
            size = inputs.hostile_input.stat().st_size
            benign = measure(binary, inputs.benign, d / "benign.err", timeout)
            hostile = measure(binary, inputs.hostile, d / "hostile.err", timeout)
            validation = None
            if check == "refuse" and hostile.code == 0 and inputs.hostile_output and inputs.hostile_output.exists():
                validation = run_once([binary, "validate", str(inputs.hostile_output)], d / "validate.err", timeout)
            for run in (benign, hostile, validation):
                if run:
                    run.message = run.message.replace(f"{d}/", "")
            ratio, ceiling, passed, note = judge(check, benign, hostile, options.max_ratio, validation)
            failures += not passed
            print(f"{name:<20} {size:>12,} {benign.seconds:>9.2f} {hostile.seconds:>9.2f} {ratio:>11} "
                  f"{hostile.peak_kib / 1024:>8.1f}  {ceiling:<24} {'PASS' if passed else 'FAIL':<6} {note}", flush=True)
            for path in d.iterdir():   # free the disk before the next case
                path.unlink()
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\n{len(names) - failures} passed, {failures} failed (this script's own peak RSS: {own:.1f} MB, "
          "a floor under every child's peak)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
