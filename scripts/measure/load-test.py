#!/usr/bin/env python3
"""HTTP load test of the example book service (Examples/BookService): JSON vs FirePack per route, in one run.

    python3 scripts/measure/load-test.py            # release build, 10 s per route and format; writes
                                            # Benchmarks/Results/load-test.md and its section of BENCHMARKS.md
    python3 scripts/measure/load-test.py --smoke    # debug build (as `scripts/test.sh` leaves it), 1 s each, checks only

The server runs pinned to CPU 1 and wrk (Debian's package, installed when missing) to CPU 0, on 127.0.0.1.
Per route and format: requests/s, p50/p99 latency (wrk --latency), bytes per response, and the server's CPU time
per request (from /proc/PID/stat). Any non-2xx answer or socket error fails the run.
"""
import argparse, os, platform, re, shutil, socket, subprocess, sys, tempfile, time, urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FORMATS = {"JSON": "application/json", "FirePack": "application/vnd.firepack"}
ROUTES = [  # (name, method, path, body count)
    ("list 1 book", "GET", "/books?count=1", None),
    ("list 100 books", "GET", "/books?count=100", None),
    ("list 1,000 books", "GET", "/books?count=1000", None),
    ("fetch 1 book", "GET", "/books/book-0042", None),
    ("create 100 books", "POST", "/books", 100),
]
SECTION_BEGIN, SECTION_END = "<!-- load-test: begin -->", "<!-- load-test: end -->"


def ensure_wrk():
    if shutil.which("wrk"):
        return
    print("Installing wrk (Debian package)")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, env=env)


def build(configuration):
    command = ["swift", "build", "-c", configuration, "--traits", "FirePackHummingbird", "--product", "book-service"]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)
    out = subprocess.run(["swift", "build", "-c", configuration, "--traits", "FirePackHummingbird", "--show-bin-path"],
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
    return Path(out) / "book-service"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fetch(url, accept):
    request = urllib.request.Request(url, headers={"Accept": accept})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.read(), response.headers.get("Content-Type", "")


def to_ms(text):
    value, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def run_wrk(url, accept, duration, connections, script=None):
    command = ["taskset", "-c", "0", "wrk", "-t1", f"-c{connections}", f"-d{duration}s", "--latency", "-H", f"Accept: {accept}"]
    if script:
        command += ["-s", script]
    output = subprocess.run(command + [url], check=True, capture_output=True, text=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    latency = {p: to_ms(v) for p, v in re.findall(r"^\s+(50|99)%\s+(\S+)", output, re.M)}
    problems = re.findall(r"(Non-2xx or 3xx responses: \d+|Socket errors: .*)", output)
    if problems:
        sys.exit(f"error: {url} ({accept}): {'; '.join(problems)}\n{output}")
    return rps, requests, latency["50"], latency["99"]


def post_script(directory, body, content_type):
    body_file = Path(directory) / f"body-{len(body)}"
    body_file.write_bytes(body)
    script = Path(directory) / f"post-{len(body)}.lua"
    script.write_text(f'''local f = assert(io.open("{body_file}", "rb"))
wrk.body = f:read("*a")
f:close()
wrk.method = "POST"
wrk.headers["Content-Type"] = "{content_type}"
''')
    return str(script)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="debug build, 1 s per run, no results written")
    parser.add_argument("--duration", type=int, default=10, help="seconds per route and format (default 10)")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections (default 16)")
    args = parser.parse_args()
    duration, warmup = (1, 0) if args.smoke else (args.duration, 2)
    connections = 2 if args.smoke else args.connections

    ensure_wrk()
    server_binary = build("debug" if args.smoke else "release")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(["taskset", "-c", "1", str(server_binary), "--port", str(port)], stdout=subprocess.DEVNULL)
    rows = []
    try:
        for _ in range(100):
            try:
                fetch(base + "/books?count=1", "application/json")
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("error: the book service did not start")
        with tempfile.TemporaryDirectory() as directory:
            for name, method, path, body_count in ROUTES:
                for format_name, media_type in FORMATS.items():
                    script = None
                    if method == "POST":
                        body, _ = fetch(f"{base}/books?count={body_count}", media_type)
                        script = post_script(directory, body, media_type)
                        size = len(body)  # the answer echoes the stored books: same shape, new ids
                    else:
                        body, content_type = fetch(base + path, media_type)
                        assert content_type.startswith(media_type), f"{path}: asked for {media_type}, got {content_type}"
                        size = len(body)
                    if warmup:
                        run_wrk(base + path, media_type, warmup, connections, script)
                    before = cpu_seconds(server.pid)
                    rps, requests, p50, p99 = run_wrk(base + path, media_type, duration, connections, script)
                    cpu_us = (cpu_seconds(server.pid) - before) / requests * 1e6
                    rows.append((name, format_name, rps, p50, p99, size, cpu_us))
                    print(f"{name:18} {format_name:8} {rps:10.0f} req/s  p50 {p50:7.2f} ms  p99 {p99:7.2f} ms  "
                          f"{size:8} B  {cpu_us:7.1f} µs CPU/req", flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)
    if args.smoke:
        print("Load test smoke pass: every route answered under wrk in both formats.")
        return
    write_results(rows, duration, connections)


def write_results(rows, duration, connections):
    by_route = {}
    for row in rows:
        by_route.setdefault(row[0], {})[row[1]] = row
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    wrk_version = subprocess.run(["wrk", "-v"], capture_output=True, text=True).stdout.splitlines()[0].split(" [")[0]
    lines = [SECTION_BEGIN, "## HTTP load test (Examples/BookService under wrk)", "",
             f"Generated by `python3 scripts/measure/load-test.py` ({wrk_version}, 1 thread, {connections} connections, {duration} s per "
             f"route and format after a 2 s warm-up; server pinned to CPU 1 and wrk to CPU 0; {cpu}, {os.cpu_count()} cores). "
             "One run, JSON and FirePack alternating route by route. Server CPU is the service's user + system time "
             "per request. Bodies are BookWithTags (`@FirePackCodable`); JSON through Foundation's JSONEncoder/JSONDecoder "
             "as Hummingbird's own JSON coding does.", "",
             "| route | format | requests/s | p50 | p99 | bytes per response | server CPU per request |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for name, _, _, _ in ROUTES:
        for format_name in FORMATS:
            _, _, rps, p50, p99, size, cpu_us = by_route[name][format_name]
            lines.append(f"| {name} | {format_name} | {rps:,.0f} | {p50:.2f} ms | {p99:.2f} ms | {size:,} | {cpu_us:.0f} µs |")
    lines += ["", "| route | FirePack / JSON requests/s | p99 JSON → FirePack | target (≥ 2× at 100 and 1,000 books, lower p99) |",
              "|---|---:|---:|:---:|"]
    for name, _, _, _ in ROUTES:
        json, fp = by_route[name]["JSON"], by_route[name]["FirePack"]
        ratio = fp[2] / json[2]
        target = "—"
        if name in ("list 100 books", "list 1,000 books"):
            target = "yes" if ratio >= 2 and fp[4] < json[4] else "**no**"
        lines.append(f"| {name} | {ratio:.2f}× | {json[4]:.2f} → {fp[4]:.2f} ms | {target} |")
    lines.append(SECTION_END)
    section = "\n".join(lines) + "\n"
    (ROOT / "Benchmarks/Results").mkdir(parents=True, exist_ok=True)
    (ROOT / "Benchmarks/Results/load-test.md").write_text(section, encoding="utf-8")
    benchmarks = ROOT / "BENCHMARKS.md"
    text = benchmarks.read_text(encoding="utf-8")
    if SECTION_BEGIN in text:
        start, end = text.index(SECTION_BEGIN), text.index(SECTION_END) + len(SECTION_END)
        text = text[:start] + section.rstrip("\n") + text[end:]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    benchmarks.write_text(text, encoding="utf-8")
    print("wrote Benchmarks/Results/load-test.md and its section of BENCHMARKS.md")


if __name__ == "__main__":
    main()
