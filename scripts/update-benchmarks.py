#!/usr/bin/env python3
"""Generates BENCHMARKS.md (and Docs/benchmarks.svg) from a package-benchmark run — never typed by hand.

    cd Benchmarks && swift package --allow-writing-to-package-directory benchmark --no-progress --format markdown > ../.build/benchmarks.md
    cd .. && python3 scripts/update-benchmarks.py .build/benchmarks.md

It also runs `firepack bench` (release build) on ../shared/corpus and Fixtures for the Value-level comparison and
the chart, and measures sizes (MessagePack through PyPI's msgpack when it is installed)."""
import gzip
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
UNITS = {"ns": 1, "μs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}


def parse(markdown):
    """{benchmark name: {"ns": p50 wall clock, "mallocs": p50 malloc count}}"""
    results, name = {}, None
    for line in markdown.splitlines():
        if line.startswith("### "):
            name = line[4:].strip()
            results[name] = {}
        elif name and line.startswith("| Time (wall clock)"):
            unit = re.search(r"\(([^)]*)\) \*?\s*\|", line).group(1)
            cells = [c.strip() for c in line.split("|")[2:-1]]
            results[name]["ns"] = float(cells[2]) * UNITS[unit]
        elif name and line.startswith("| Memory (resident peak)"):
            cells = [c.strip() for c in line.split("|")[2:-1]]
            scale = {"(M)": 1, "(K)": 1 / 1024, "(G)": 1024}.get(re.search(r"\((.)\)", line.split("|")[1].split("peak")[1]).group(0) if re.search(r"\((.)\)", line.split("|")[1].split("peak")[1]) else "(M)", 1)
            results[name]["memory"] = float(cells[2]) * scale
        elif name and line.startswith(("| input KiB", "| output KiB", "| tool peak memory MB")):
            # Custom metrics of the firepack convert benchmarks (StreamingBenchmarks): sizes in KiB, memory in MB.
            cells = [c.strip() for c in line.split("|")[2:-1]]
            scale = 1000 if "(K)" in line else 1
            key = {"| input KiB": "input KiB", "| output KiB": "output KiB"}.get(line[:12].rstrip(), "tool memory")
            results[name][key] = float(cells[2]) * scale
        elif name and line.startswith("| Malloc (total)"):
            scale = 1000 if "(K)" in line else 1
            cells = [c.strip() for c in line.split("|")[2:-1]]
            results[name]["mallocs"] = float(cells[2]) * scale
    return results


def fmt_time(ns):
    if ns >= 1e9: return f"{ns / 1e9:.2f} s"
    if ns >= 1e6: return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3: return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def codable_tables(results):
    lines, checks = [], []
    workloads = sorted({n.split("/")[0][7:] for n in results if n.startswith(("Encode ", "Decode ")) and "/" in n
                        and (n.split("/")[0][7:].split()[0].isdigit() or n.split("/")[0].endswith(" model"))},
                       key=lambda w: (int(w.split()[0]) if w.split()[0].isdigit() else 0, w))
    for workload in workloads:
        count = int(workload.split()[0]) if workload.split()[0].isdigit() else 1
        for direction in ("Decode", "Encode"):
            prefix = f"{direction} {workload}/"
            rows = {n[len(prefix):]: r for n, r in results.items() if n.startswith(prefix) and "ns" in r}
            # The generated path (@FirePackCodable) is FirePack's fastest Codable-compatible path: the ratios' base.
            base = rows.get("FirePackDecoder @FirePackCodable" if direction == "Decode" else "FirePackEncoder @FirePackCodable")
            if not base: continue
            lines.append(f"\n**{direction} {workload}** (per document: time and mallocs; × = time relative to FirePack)\n")
            lines.append("| path | total | per document | mallocs per document | × FirePack |")
            lines.append("|---|---:|---:|---:|---:|")
            for path, r in sorted(rows.items(), key=lambda kv: kv[1]["ns"]):
                lines.append(f"| {path} | {fmt_time(r['ns'])} | {fmt_time(r['ns'] / count)} | {r.get('mallocs', 0) / count:.1f} | {r['ns'] / base['ns']:.1f}× |")
            json_path = rows.get("JSONDecoder" if direction == "Decode" else "JSONEncoder")
            if json_path:
                ratio = json_path["ns"] / base["ns"]
                checks.append((f"{direction} {workload}: ≥ 10× {'JSONDecoder' if direction == 'Decode' else 'JSONEncoder'}", ratio, 10))
            if direction == "Decode":
                dictionary = rows.get("JSONSerialization + DictionaryDecoder")
                if dictionary: checks.append((f"Decode {workload}: ≥ 20× JSONSerialization + DictionaryDecoder", dictionary["ns"] / base["ns"], 20))
            hand = rows.get("hand-written FirePack")
            if hand: checks.append((f"{direction} {workload}: within 1.3× of hand-written (@FirePackCodable ÷ hand-written)", base["ns"] / hand["ns"], -1.3))
            codable = rows.get("FirePackDecoder Codable" if direction == "Decode" else "FirePackEncoder Codable")
            if codable: checks.append((f"{direction} {workload}: @FirePackCodable speed-up over FirePack's Codable path (info)", codable["ns"] / base["ns"], 0))
    return lines, checks


def corpus_sizes():
    rows = ["| file | minified JSON | gzip | FirePack | gzip | MessagePack | gzip | REST JSON | gzip | protobuf | gzip | FirePack / JSON | FirePack / MessagePack |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    checks = []
    try:
        import msgpack
    except ImportError:
        msgpack = None
    firepack = ROOT / ".build" / "release" / "firepack"
    for name in ("twitter.json", "citm_catalog.json", "canada.json"):
        path = CORPUS / name
        if not path.exists():
            continue
        data = json.loads(path.read_bytes())
        minified = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        packed = subprocess.run([str(firepack), "convert", str(path), "-", "--to", "fpk"], capture_output=True, check=True).stdout
        mp = msgpack.packb(data) if msgpack else None
        mp_text = f"{len(mp):,} | {len(gzip.compress(mp)):,}" if mp else "(msgpack not installed) | —"
        ratio = f"{100 * len(packed) / len(mp):.1f}%" if mp else "—"
        # The Firestore forms: the file's top-level object as one document's fields.
        # A stream of one document: the object wrapped in [ ] (one object alone is not silently a stream).
        wrapped = b"[" + path.read_bytes() + b"]"
        rest = subprocess.run([str(firepack), "convert", "-", "-", "--from", "json", "--to", "firestore-json", "--collection", "c"],
                              input=wrapped, capture_output=True, check=True).stdout
        proto = subprocess.run([str(firepack), "convert", str(path), "-", "--to", "firestore-proto", "--collection", "c"],
                               capture_output=True, check=True).stdout
        rows.append(f"| {name} | {len(minified):,} | {len(gzip.compress(minified)):,} | {len(packed):,} | {len(gzip.compress(packed)):,} | {mp_text} | "
                    f"{len(rest):,} | {len(gzip.compress(rest)):,} | {len(proto):,} | {len(gzip.compress(proto)):,} | "
                    f"{100 * len(packed) / len(minified):.1f}% | {ratio} |")
        if mp: checks.append((f"Size {name}: smaller than MessagePack (MessagePack ÷ FirePack)", len(mp) / len(packed), 1.0001))
    return rows, checks


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    results = parse(Path(sys.argv[1]).read_text(encoding="utf-8"))
    subprocess.run(["swift", "build", "-c", "release", "--product", "firepack"], cwd=ROOT, check=True, capture_output=True)
    bench_files = [str(CORPUS / n) for n in ("twitter.json", "citm_catalog.json", "canada.json") if (CORPUS / n).exists()]
    bench_files += ["Fixtures/generated-books.json", "Fixtures/books.json"]
    bench = subprocess.run([str(ROOT / ".build/release/firepack"), "bench", *bench_files, "--svg", "Docs/benchmarks.svg"],
                           cwd=ROOT, capture_output=True, text=True, check=True).stdout

    codable, checks = codable_tables(results)
    sizes, size_checks = corpus_sizes()
    checks += size_checks
    scans = []
    for name, corpus_file in (("canada", "canada.json"), ("twitter", "twitter.json"), ("citm_catalog", "citm_catalog.json")):
        r = results.get(f"Reader one question, zero copy/{name}")
        if r and "ns" in r:
            size = len(subprocess.run([str(ROOT / ".build/release/firepack"), "convert", str(CORPUS / corpus_file), "-", "--to", "fpk"],
                                      capture_output=True, check=True).stdout)
            rate = size / r["ns"]
            scans.append(f"| {name} | {fmt_time(r['ns'])} | {rate:.2f} GB/s |")
            checks.append((f"Zero-copy question on {name}: ≥ 1 GB/s (GB/s)", rate, 1.0))
    streaming = ["| benchmark | p50 | input | output | MB/s of input | MB/s of JSON | peak memory |", "|---|---:|---:|---:|---:|---:|---:|"]
    for n, r in sorted(results.items()):
        if n.startswith("Stream ") and "ns" in r:
            if "input KiB" in r:
                # firepack convert: the tool's own peak resident memory; rates on its input and on the JSON side.
                seconds = r["ns"] / 1e9
                input_mb, output_mb = r["input KiB"] * 1024 / 1e6, r.get("output KiB", 0) * 1024 / 1e6
                json_mb = input_mb if "JSON lines to" in n else output_mb
                streaming.append(f"| {n} | {fmt_time(r['ns'])} | {input_mb:.0f} MB | {output_mb:.0f} MB | {input_mb / seconds:.1f} | "
                                 f"{json_mb / seconds:.1f} | {r.get('tool memory', 0):.0f} MB |")
                if "before" not in n:
                    target = 100 if "JSON lines to" in n else 150
                    checks.append((f"{n.split('/')[0]}: ≥ {target} MB/s (MB/s of input)", input_mb / seconds, target))
                    checks.append((f"{n.split('/')[0]}: MB/s of JSON text (info)", json_mb / seconds, 0))
            else:
                streaming.append(f"| {n} | {fmt_time(r['ns'])} | — | — | — | — | {r.get('memory', 0):.0f} MB |")
    pairs = {}
    for n, r in results.items():
        if n.startswith("Stream ") and "/firepack convert" in n and "ns" in r:
            pairs.setdefault(n.split("/")[0], {})["before" if n.endswith(", before") else "after"] = r
    for direction, pair in sorted(pairs.items()):
        if "before" in pair and "after" in pair:
            checks.append((f"{direction}: firepack convert speed-up over the previous build (info)", pair["before"]["ns"] / pair["after"]["ns"], 0))
    core = ["| benchmark | p50 | mallocs |", "|---|---:|---:|"]
    for n, r in sorted(results.items()):
        if n.startswith(("Reader", "Writer", "JSON ", "JSONSerialization", "REST", "Protobuf", "Dictionary ")) and "ns" in r:
            core.append(f"| {n} | {fmt_time(r['ns'])} | {r.get('mallocs', 0):.0f} |")

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    memory = next((l.split()[1] for l in open("/proc/meminfo") if l.startswith("MemTotal")), "?")
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    target_lines = ["| target | measured | met |", "|---|---:|:---:|"]
    for label, value, threshold in checks:
        # A negative threshold means "at most": the measured ratio must not exceed it.
        met = value <= -threshold if threshold < 0 else value >= threshold
        unit = " MB/s" if "MB/s" in label else " GB/s" if "GB/s" in label else "" if "Size" in label else "×"
        target_lines.append(f"| {label} | {value:.2f}{unit} | {'yes' if met else '**no**'} |")

    text = f"""# FirePack benchmarks

Generated by `scripts/update-benchmarks.py` from one package-benchmark run; do not edit by hand.

## How to run

```sh
cd Benchmarks
swift package --allow-writing-to-package-directory benchmark                       # everything (several minutes)
swift package --allow-writing-to-package-directory benchmark --target PathsBenchmarks
swift package --allow-writing-to-package-directory benchmark --no-progress --format markdown > ../.build/benchmarks.md
cd .. && python3 scripts/update-benchmarks.py .build/benchmarks.md                 # regenerates this file
.build/release/firepack bench my-export.json --svg chart.svg                        # a quick look at your own files
```

Release builds; wall clock, throughput, mallocs and peak memory from package-benchmark 1.38.1 (p50 shown).
Benchmarks that need `../shared/corpus` skip with a message where it is absent.

## Machine

{cpu}, {os.cpu_count()} cores, {int(memory) // 1024} MiB; {platform.system()} {platform.release()}; {swift}.

## Targets

{chr(10).join(target_lines)}

Why the missed targets are missed, and by how much (the table above gives each ratio; ratios compare the generated
path, `@FirePackCodable`, with the peers in the same run; profiles are callgrind on `Benchmarks/Sources/ProfileCodable`):
- **Where FirePack is already at the hand-written limit, the rest is what the result owns.** Decoding 1,000 or
  100,000 `Book`s runs within 1.1× of hand-written cursor code with one allocation per document (its title): the
  JSONDecoder ratio there (about 10×) is what the format and Swift's `String` allow, not coder overhead.
- **BookWithTags (decode about 4.3× JSONDecoder, 1.4× hand-written; encode about 6.5× JSONEncoder).** Its `Color`
  has its own `init(from:)` / `encode(to:)` (a hex string parsed and formatted through a single-value container)
  and its `URL` is parsed by Foundation: both run for every tag on every path, FirePack's included, and are 30–40%
  of the generated path's instructions. Generated coding cannot see into a type's own Codable code; a
  `@FirePackCodable` `Color` (or a raw-value enum) removes it.
- **Article (decode about 5.3× JSONDecoder), twitter (about 6×).** Article's two `@ServerTimestamp`s are now read in
  place (they went through a Codable decoder per field: 8% of its time), yet an Article still takes about 1.9 µs
  against 0.5 µs for a Book. perf on `ProfileCodable articles`: about a third of the time is the Swift runtime's
  dynamic casts and generic-metadata lookups — the generated code decodes each wrapped property through
  `decodeWrapped<W>`, which asks `W.self as? any FieldWrapper.Type` and instantiates `ServerTimestamp<T>` /
  `ExplicitNull<T>` metadata per field and document. Having the macro call the wrapper's own overload
  (`decode(ServerTimestamp<Timestamp>.self, …)`) removes the cast. twitter is mostly optional nested structs and
  strings, each an allocation the result owns (2,642 against JSONDecoder's 15,000).
- **canada (decode 2.6× hand-written).** 111,080 coordinates in `[[Double]]`: the generated path decodes arrays of
  arrays of doubles element by element through the generic array reader; the hand-written code reads the pairs
  straight into the array. A bulk `[Double]` reader for homogeneous arrays is the next step.
- **≥ 20× the dictionary path.** `DictionaryDecoder` is built on FirePackDecoder (`[String: Any]` → Value → bytes →
  FirePackDecoder), so its cost is mostly JSONSerialization's; where FirePack is within reach of hand-written code
  the ratio is what parsing JSON into `[String: Any]` costs.
- **One document (decode 3–8× JSONDecoder, 2.4× hand-written for a Book).** A top-level call sets up the decoder
  (the options snapshot under the coder's lock, the reader over the bytes, the error context): about 1 µs and two
  allocations that 1,000 documents share and one document pays alone (a Book: 1.7 µs generated, 0.72 µs
  hand-written). Keeping a prepared decoding context per coder is the next step.
- **canada.json smaller than MessagePack.** 5% larger: 55,000 `[lng, lat]` pairs each pay a 1-byte length after the
  tag (what makes every container skippable in O(1)), which MessagePack's fixarray does not. A homogeneous
  numeric-array form (one tag, count, untagged binary64s) would save that and the per-element tag byte.
- **Zero-copy scan of canada ≥ 1 GB/s.** Below it (the table gives the rate): it visits all 111,080 doubles through `ValueView` closures
  across a module boundary (nothing there is `@inlinable` yet); twitter and citm answer at several GB/s
  because they skip almost everything.

## The guide's models, every path
{chr(10).join(codable)}

## Zero-copy questions (one answer, nothing else decoded)

| file | time | throughput on the FirePack bytes |
|---|---:|---:|
{chr(10).join(scans)}

## Streaming (generated streams in temporary files)

Through the library on ≥ 1 GB; through `firepack convert` on ≥ 512 MB, with the tool's own peak resident memory and
throughput on its input. "before" rows run an earlier build's binary in the same run (`FIREPACK_BASELINE_FIREPACK`;
here the build before the conversions stopped building trees).

{chr(10).join(streaming)}

## Sizes

{chr(10).join(sizes)}

## Reader, writer and interop on the corpus

{chr(10).join(core)}

## `firepack bench` (through `Value`)

![throughput chart](Docs/benchmarks.svg)

```
{bench.strip()}
```
"""
    # The HTTP load test runs separately (scripts/load-test.py writes its section); keep its latest results.
    load_test = ROOT / "Benchmarks/Results/load-test.md"
    if load_test.exists():
        text = text.rstrip("\n") + "\n\n" + load_test.read_text(encoding="utf-8")
    (ROOT / "BENCHMARKS.md").write_text(text, encoding="utf-8")
    print("wrote BENCHMARKS.md and Docs/benchmarks.svg")


if __name__ == "__main__":
    main()
