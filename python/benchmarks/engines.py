"""FirePack → Arrow and Spark, beside their JSON peers in the same run (Docs/ARROW.md; BENCHMARKS.md "Arrow and
engines"). Writes Benchmarks/Results/arrow.md, which scripts/measure/update-benchmarks.py appends to BENCHMARKS.md.

    .venv/bin/python python/benchmarks/engines.py                     # 200,000 events + twitter, Spark on 500 MB
    .venv/bin/python python/benchmarks/engines.py --events 20000 --spark-mb 0 --out /tmp/arrow.md   # quick

Each row reads the same records: FirePack from .fpks, the peers from the same documents as plain JSON lines (what
`firepack convert --to jsonl --plain` writes). Single-core rows use one thread on both sides; times are the best of
three runs after a warm-up read (files in the page cache)."""
import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.json as pajson

import firepack

REPOSITORY = Path(__file__).resolve().parents[2]
CORPUS = REPOSITORY.parent / "shared" / "corpus"


def tool():
    for candidate in (REPOSITORY / ".build/release/firepack", REPOSITORY / ".build/debug/firepack"):
        if candidate.exists():
            return str(candidate)
    raise SystemExit("build the firepack tool first (swift build -c release --product firepack)")


def best_of(runs, body):
    body()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        body()
        times.append(time.perf_counter() - start)
    return min(times)


def prepare_events(folder, count):
    lines = folder / "events.jsonl"
    stream = folder / "events.fpks"
    plain = folder / "events.plain.jsonl"
    # Without the field whose type varies: pyarrow.json cannot read such a column at all.
    subprocess.run([sys.executable, str(REPOSITORY / "scripts/generate/make-events.py"), "events-uniform", str(lines), str(count)], check=True)
    subprocess.run([tool(), "convert", str(lines), str(stream)], check=True, capture_output=True)
    subprocess.run([tool(), "convert", str(stream), str(plain), "--to", "jsonl", "--plain"], check=True, capture_output=True)
    return stream, plain


def prepare_twitter(folder, copies):
    source = CORPUS / "twitter.json"
    if not source.exists():
        return None
    statuses = json.loads(source.read_text(encoding="utf-8"))["statuses"]
    lines = folder / "twitter.jsonl"
    with open(lines, "w", encoding="utf-8") as out:
        for copy in range(copies):
            for status in statuses:
                out.write(json.dumps(dict(status, __name__=f"tweets/{copy}-{status['id_str']}"), separators=(",", ":")) + "\n")
    stream = folder / "twitter.fpks"
    plain = folder / "twitter.plain.jsonl"
    subprocess.run([tool(), "convert", str(lines), str(stream)], check=True, capture_output=True)
    subprocess.run([tool(), "convert", str(stream), str(plain), "--to", "jsonl", "--plain"], check=True, capture_output=True)
    return stream, plain


def arrow_rows(name, stream, plain):
    schema = firepack.infer_schema(stream)
    size = os.path.getsize(stream)
    ours = best_of(3, lambda: sum(b.num_rows for b in firepack.open_stream(stream, schema=schema)))
    options = pajson.ReadOptions(use_threads=False, block_size=1 << 24)
    peer = best_of(3, lambda: pajson.read_json(plain, read_options=options))
    rows = firepack.open_stream(stream, schema=schema).read_all().num_rows
    return [f"| {name}: .fpks → Arrow, 1 core | {rows:,} records, {size / 1e6:.1f} MB .fpks / {os.path.getsize(plain) / 1e6:.1f} MB JSON "
            f"| {size / ours / 1e6:.0f} MB/s ({ours:.2f} s) | pyarrow.json.read_json, 1 thread: {peer:.2f} s | {peer / ours:.2f}× |"]


def memory_row(stream):
    # VmHWM: this process's own peak (ru_maxrss can carry the forking parent's on Linux).
    code = ("import firepack, sys\n"
            "def peak():\n"
            "    return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:'))\n"
            "schema = firepack.infer_schema(sys.argv[1])\n"
            "rows = sum(b.num_rows for b in firepack.open_stream(sys.argv[1], batch_size=8192, schema=schema))\n"
            "print(rows, peak())\n")
    rows, peak = subprocess.run([sys.executable, "-c", code, str(stream)], check=True, capture_output=True, text=True).stdout.split()
    return (f"| peak memory streaming {int(rows):,} records in batches of 8,192 | {os.path.getsize(stream) / 1e6:.0f} MB .fpks "
            f"| {int(peak) / 1024:.0f} MB peak RSS (interpreter, pyarrow and library included) | | |")


def spark_rows(folder, megabytes):
    from pyspark.sql import SparkSession
    from firepack.spark import FirePackDataSource, jar_path
    count = int(megabytes * 1e6 / 830)   # about 830 bytes of plain JSON per event: the JSON side is `megabytes`
    (folder / "spark").mkdir()
    stream, plain = prepare_events(folder / "spark", count)
    os.environ["PYSPARK_PYTHON"] = sys.executable
    builder = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
               .config("spark.driver.memory", "4g"))
    jar = jar_path()
    if jar:
        builder = builder.config("spark.jars", jar)
    spark = builder.getOrCreate()
    spark.dataSource.register(FirePackDataSource)
    ours_frame = spark.read.format("firepack").option("timestampPrecision", "truncate").load(str(stream))
    json_schema = spark.read.json(str(plain), samplingRatio=0.01).schema
    ours_schema = ours_frame.schema

    def scan(reader, path):
        reader.load(str(path)).write.format("noop").mode("overwrite").save()

    def python_source():
        scan(spark.read.format("firepack").schema(ours_schema).option("timestampPrecision", "truncate"), stream)

    def connector():
        scan(spark.read.format("io.firepack.spark").schema(ours_schema).option("timestampPrecision", "truncate"), stream)

    def peer():
        scan(spark.read.schema(json_schema).format("json"), plain)
    peer_time = best_of(2, peer)
    timings = [("JVM connector (io.firepack.spark)", best_of(2, connector))] if jar else []
    timings.append(("Python data source (firepack)", best_of(2, python_source)))
    spark.stop()
    if not jar:
        print("no Spark connector jar (firepack.spark.jar_path()): its row is left out", file=sys.stderr)
    size = os.path.getsize(stream)
    return [f"| Spark local[2], full scan (noop sink), schema given to both: {name} | {count:,} events, "
            f"{size / 1e6:.0f} MB .fpks / {os.path.getsize(plain) / 1e6:.0f} MB JSON | {ours:.2f} s ({size / ours / 1e6:.0f} MB/s) "
            f"| spark.read.json: {peer_time:.2f} s | {peer_time / ours:.2f}× |" for name, ours in timings]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--twitter-copies", type=int, default=200)
    parser.add_argument("--spark-mb", type=float, default=500)
    parser.add_argument("--out", default=str(REPOSITORY / "Benchmarks/Results/arrow.md"))
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="firepack-bench-") as temporary:
        folder = Path(temporary)
        rows = []
        stream, plain = prepare_events(folder, arguments.events)
        rows += arrow_rows("GitHub-event-like", stream, plain)
        twitter = prepare_twitter(folder, arguments.twitter_copies)
        if twitter:
            rows += arrow_rows("twitter statuses", *twitter)
        else:
            print(f"skipping twitter: {CORPUS} is absent", file=sys.stderr)
        rows.append(memory_row(stream))
        if arguments.spark_mb > 0:
            rows += spark_rows(folder, arguments.spark_mb)
    section = "\n".join([
        "## Arrow and engines (python/benchmarks/engines.py)",
        "",
        f"One run on {platform.processor() or platform.machine()}, {os.cpu_count()} cores; pyarrow {pa.__version__}. "
        "Targets: .fpks → Arrow ≥ 300 MB/s on one core and ≥ 2× pyarrow.json.read_json (one thread each); Spark "
        "local[2] ≥ 2× spark.read.json with the schema given to both. Best of three (Spark: of two) after a warm-up.",
        "",
        "| workload | input | FirePack | peer | FirePack speed-up |",
        "|---|---|---:|---|---:|",
        *rows,
        "",
        "The JVM connector reads in Spark's JVM (columnar batches filled by the native core, Docs/ARROW.md \"Spark\"); the "
        "Python data source hands Arrow batches from Python workers to the JVM, which costs it the difference.",
        "",
    ])
    Path(arguments.out).write_text(section, encoding="utf-8")
    print(section)


if __name__ == "__main__":
    main()
