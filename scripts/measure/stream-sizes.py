#!/usr/bin/env python3
"""Stream sizes and speeds, version 3 blocks beside JSON lines, gzip and zstd, from one run on this machine.

    python3 scripts/measure/stream-sizes.py [--records N] [--keep DIR]

Generates GitHub-event-like and order-book-like JSON lines (scripts/generate/make-events.py, seeded; 220,000
records each by default, so that the events are over 200 MB), converts them with the release `firepack` (built when
absent) into `.fpks` version 2 and version 3 with each codec, and measures: sizes against the JSON lines, `gzip -6` and `zstd -3` of them (the
command-line tools, same run); the conversion's wall time each way, as MB/s of JSON; and `firepack inspect --record`
of the last record (the whole process, start-up included). Writes Benchmarks/Results/stream-sizes.md, which
update-benchmarks.py puts into BENCHMARKS.md, and puts it there itself, with a summary table in README.md between
`<!-- stream-sizes -->` and `<!-- /stream-sizes -->`."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TOOL = ROOT / ".build/release/firepack"
RESULT = ROOT / "Benchmarks/Results/stream-sizes.md"
LAYOUTS = [("version 2 (a record per document)", ["--stream-version", "2"]),
           ("version 3, none", ["--codec", "none"]),
           ("version 3, deflate", ["--codec", "deflate"]),
           ("version 3, zstd (default)", ["--codec", "zstd"])]


def compressed(command, decompress, path, output):
    """Compresses `path` into `output` with `command`, and back with `decompress`: the compressed size and the MB/s
    of `path` each way (the faster of two, decompressing into /dev/null), for speeds from the same run as FirePack's."""
    def run(arguments, source, target):
        start = time.perf_counter()
        with open(source, "rb") as reading, open(target, "wb") as writing:
            subprocess.run(arguments, stdin=reading, stdout=writing, check=True)
        return time.perf_counter() - start
    size = path.stat().st_size
    packing = min(run(command, path, output) for _ in range(2))
    unpacking = min(run(decompress, output, "/dev/null") for _ in range(2))
    return output.stat().st_size, size / 1e6 / packing, size / 1e6 / unpacking


def timed(arguments):
    start = time.perf_counter()
    subprocess.run([str(TOOL)] + arguments, check=True, capture_output=True)
    return time.perf_counter() - start


def measure(folder, kind, records):
    lines = folder / f"{kind}.jsonl"
    subprocess.run([sys.executable, str(ROOT / "scripts/generate/make-events.py"), kind, str(lines), str(records), "7"],
                   check=True)
    size = lines.stat().st_size
    gzip, gzip_in, gzip_out = compressed(["gzip", "-6", "-c"], ["gzip", "-d", "-c"], lines,
                                         folder / f"{kind}.jsonl.gz")
    zstd, zstd_in, zstd_out = compressed(["zstd", "-3", "-c", "-q"], ["zstd", "-d", "-c", "-q"], lines,
                                         folder / f"{kind}.jsonl.zst")
    summary = {"kind": kind, "records": records, "lines": size, "gzip": gzip, "zstd": zstd,
               "peer speeds": (gzip_in, gzip_out, zstd_in, zstd_out)}
    rows = [f"| JSON lines | {size:,} | 100% | — | — | — | — |",
            f"| JSON lines, gzip -6 (whole file) | {gzip:,} | {gzip / size:.1%} | — | {gzip_in:.0f} MB/s "
            f"| {gzip_out:.0f} MB/s | — |",
            f"| JSON lines, zstd -3 (whole file) | {zstd:,} | {zstd / size:.1%} | — | {zstd_in:.0f} MB/s "
            f"| {zstd_out:.0f} MB/s | — |"]
    for name, options in LAYOUTS:
        stream = folder / f"{kind}.fpks"
        to_stream = min(timed(["convert", str(lines), str(stream), "--quiet"] + options) for _ in range(2))
        back = folder / f"{kind}.back.jsonl"
        to_lines = min(timed(["convert", str(stream), str(back), "--quiet"]) for _ in range(2))
        seek = min(timed(["inspect", str(stream), "--record", str(records - 1)]) for _ in range(3))
        stream_size = stream.stat().st_size
        summary[name] = (stream_size, size / 1e6 / to_stream, size / 1e6 / to_lines)
        rows.append(f"| {name} | {stream_size:,} | {stream_size / size:.1%} | {stream_size / gzip:.2f}× "
                    f"/ {stream_size / zstd:.2f}× | {size / 1e6 / to_stream:.0f} MB/s | {size / 1e6 / to_lines:.0f} MB/s "
                    f"| {seek * 1000:.0f} ms |")
    return summary, (f"**{kind}** ({records:,} records of `make-events.py {kind}`):\n\n"
            "| form | bytes | of JSON lines | ÷ gzip / ÷ zstd of JSON lines | JSON lines → it | it → JSON lines "
            "| `inspect --record` last |\n|---|---:|---:|---:|---:|---:|---:|\n" + "\n".join(rows) + "\n")


def machine():
    """The CPU's model name and the number of cores."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=220_000)
    parser.add_argument("--keep", help="keep the generated files in this folder")
    arguments = parser.parse_args()
    for command in ["gzip", "zstd"]:
        if not shutil.which(command):
            raise SystemExit(f"error: {command} is not installed (Debian: apt-get install {command})")
    if not TOOL.exists():
        subprocess.run(["swift", "build", "-c", "release", "--product", "firepack"], cwd=ROOT, check=True)
    folder = Path(arguments.keep or tempfile.mkdtemp(prefix="firepack-stream-sizes-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        measured = [measure(folder, kind, arguments.records) for kind in ["events", "orders"]]
    finally:
        if not arguments.keep:
            shutil.rmtree(folder, ignore_errors=True)
    section = ("## Stream sizes (version 3 blocks)\n\n"
               "`.fpks` against the same records as JSON lines, compressed whole by the command-line tools, from one run "
               "of `scripts/measure/stream-sizes.py` (conversions through the release `firepack`, the faster of two; "
               "`inspect --record` the fastest of three, a whole process). Blocks hold 1 MiB of documents "
               "(Docs/FORMAT.md §8); each is compressed on its own, so the stream stays splittable and seekable, which "
               "a gzip or zstd of the whole file is not. Speeds are MB/s of JSON lines; for `gzip` and `zstd` (one "
               "thread each, the faster of two) compressing them and decompressing them into /dev/null, a measure of "
               f"this machine in the same run ({machine()}).\n\n" + "\n".join(table for _, table in measured))
    RESULT.parent.mkdir(parents=True, exist_ok=True)
    RESULT.write_text(section, encoding="utf-8")
    path = ROOT / "BENCHMARKS.md"
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"## Stream sizes \(version 3 blocks\)\n.*?(?=\n## |\Z)", "", text, flags=re.S).rstrip("\n")
    marker = "\n## Sizes\n"
    before, after = text.split(marker, 1) if marker in text else (text, None)
    text = before.rstrip("\n") + "\n\n" + section.rstrip("\n") + "\n" + (marker + after if after is not None else "")
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    write_readme_summary([summary for summary, _ in measured])
    print(section)


def write_readme_summary(summaries):
    """The README's side-by-side table: sizes in MB against JSON lines, gzip and zstd; conversion speeds."""
    megabytes = lambda count: f"{count / 1e6:.1f} MB"
    rows = ["| records | JSON lines | gzip -6 | zstd -3 | `.fpks` (zstd blocks) | `.fpks` (uncompressed) "
            "| JSON lines → `.fpks` | `.fpks` → JSON lines |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for summary in summaries:
        zstd_stream, to_stream, to_lines = summary["version 3, zstd (default)"]
        plain_stream = summary["version 3, none"][0]
        rows.append(f"| {summary['records']:,} {summary['kind']} | {megabytes(summary['lines'])} "
                    f"| {megabytes(summary['gzip'])} | {megabytes(summary['zstd'])} "
                    f"| {megabytes(zstd_stream)} ({zstd_stream / summary['zstd']:.2f}× zstd) "
                    f"| {megabytes(plain_stream)} ({plain_stream / summary['lines']:.0%}) "
                    f"| {to_stream:.0f} MB/s | {to_lines:.0f} MB/s |")
    path = ROOT / "README.md"
    text = path.read_text(encoding="utf-8")
    begin, end = "<!-- stream-sizes -->\n", "<!-- /stream-sizes -->"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        gzip_in, gzip_out, zstd_in, zstd_out = summaries[0]["peer speeds"]
        peers = (f"Speeds are MB/s of JSON lines on the machine of that run ({machine()}), where the command-line "
                 f"`zstd -3` compresses the events' JSON lines at {zstd_in:.0f} MB/s and decompresses them at "
                 f"{zstd_out:.0f} MB/s, `gzip -6` at {gzip_in:.0f} and {gzip_out:.0f} MB/s (one thread each; "
                 "`firepack convert` uses every core).")
        text = head + begin + "\n" + "\n".join(rows) + "\n\n" + peers + "\n\n" + end + rest.split(end, 1)[1]
        path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
