#!/usr/bin/env python3
"""Checks the benchmarks that matter against the thresholds checked in (Benchmarks/Thresholds/guarded.json).

    python3 scripts/checks/check-benchmark-thresholds.py            # run the guarded benchmarks, check, print the table
    python3 scripts/checks/check-benchmark-thresholds.py --update   # run them 3 times and record what they measure
    python3 scripts/checks/check-benchmark-thresholds.py --markdown run.md   # check an existing run's markdown output

Wall-clock times differ from machine to machine and from run to run on a busy 2-core one, so no time is compared
with a time recorded elsewhere. A speed is guarded as a ratio to a peer measured in the same run (FirePack's
generated and Codable paths against Foundation's JSON coders, FirePack's JSON conversion against JSONSerialization):
the check fails when a ratio falls more than `tolerance` below the recorded one.

Each side of a ratio is its fastest iteration (p0), not its median: another process on the machine only ever adds
time, so the fastest iteration is the one it disturbed least. That is not enough alone: a whole benchmark process
can run in a slow state (JSONEncoder's fastest iteration 1.6x slower in one run than in the next, every encode
ratio with it; a CI run of an unchanged commit read 19x where 8.3x was recorded, and elsewhere 30% low). So a guard
that fails is measured again, only its two benchmarks, each time in new processes, up to `confirmations` more
times, keeping each benchmark's fastest iteration over all runs: a real regression fails every time, a slow process
does not fail the step. `--update` records the same way: the fastest iteration (and lowest allocation count) of each
benchmark over 1 + `confirmations` runs.

Allocations are counted, not timed, and do not vary between machines, but the harness's count varies between
iterations: some iterations read more than the code makes (`Encode 1000 BookWithTags/FirePackEncoder
@FirePackCodable` reads 17 in most iterations and 21 in the rest; `Encode 5000 Order/FirePackEncoder
@FirePackCodable` 20 in some and 5,023 in others, where valgrind finds no allocation per iteration at all), so a
median lands on either count, or between them, by chance (a CI run read 19 where three local runs of the same commit
read 17). Each guard takes the lower quartile (p25): the lower count, as long as a quarter of the iterations read it.
Even that moves between processes (`Encode 1000 Book/FirePackEncoder @FirePackCodable` read 18 in one CI run where
16 was recorded, and 16 in the run before of nearly the same code), so a guard whose count grows past the recorded
one by more than `mallocTolerance` (and one allocation) is measured again like a failing ratio, keeping its lowest
count over all runs: an allocation the code makes per element or per call is there in every run.

The benchmarks package must be built (scripts/checks/benchmark-smoke.sh builds it); this runs only the guarded
benchmarks, about two and a half minutes, and a few seconds more per guard measured again."""
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
THRESHOLDS = ROOT / "Benchmarks" / "Thresholds" / "guarded.json"
_spec = importlib.util.spec_from_file_location("update_benchmarks", ROOT / "scripts" / "measure" / "update-benchmarks.py")
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
parse, fmt_time = _module.parse, _module.fmt_time


def names(thresholds):
    """Every benchmark the thresholds name, by target."""
    by_target = {}
    for guard in thresholds["ratios"]:
        for key in ("faster", "than"):
            by_target.setdefault(guard["target"], set()).add(guard[key])
    for guard in thresholds["mallocs"]:
        by_target.setdefault(guard["target"], set()).add(guard["benchmark"])
    return by_target


def run(by_target):
    """Runs the named benchmarks (only those; {target: names}) and returns package-benchmark's markdown output.

    One call for every target: each call of the plugin checks the package and its build before it runs anything. The
    guarded names are unique across targets, so one pattern of exact names selects each benchmark once."""
    targets = sorted(by_target)
    benchmarks = sorted(set().union(*by_target.values()))
    pattern = "^(" + "|".join(re.escape(name) for name in benchmarks) + ")$"
    command = ["swift", "package", "--allow-writing-to-package-directory", "benchmark"]
    for target in targets:
        command += ["--target", target]
    command += ["--filter", pattern, "--no-progress", "--format", "markdown"]
    print(f"running {len(benchmarks)} benchmark(s) of {', '.join(targets)}", file=sys.stderr, flush=True)
    result = subprocess.run(command, cwd=ROOT / "Benchmarks", capture_output=True, text=True)
    if result.returncode != 0:
        # The plugin's build step has failed once in a run of many with nothing changed; a second try tells a
        # broken build from that.
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        print("the benchmarks did not run; trying once more", file=sys.stderr, flush=True)
        result = subprocess.run(command, cwd=ROOT / "Benchmarks", capture_output=True, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"error: the benchmarks of {', '.join(targets)} did not run")
    return result.stdout


def measure(thresholds, results):
    """(rows, failures): one row per guard with what was recorded and what this run measured."""
    rows, failures = [], []
    tolerance = thresholds["tolerance"]
    for guard in thresholds["ratios"]:
        faster, than = results.get(guard["faster"]), results.get(guard["than"])
        if not faster or not than or "ns" not in faster or "ns" not in than:
            failures.append(f"{guard['faster']} or {guard['than']} did not run")
            continue
        ratio = than["ns_min"] / faster["ns_min"]
        floor = guard["recorded"] * (1 - tolerance)
        ok = ratio >= floor
        # "Decode 1 Book/… ÷ JSONDecoder" when both are rows of one workload, else the peer's whole name.
        same = guard["faster"].split("/")[0] == guard["than"].split("/")[0]
        peer = guard["than"].split("/", 1)[1] if same else guard["than"]
        rows.append((f"{guard['faster']} ÷ {peer}", f"{guard['recorded']:.2f}×",
                     f"≥ {floor:.2f}×", f"{ratio:.2f}×", ok))
        if not ok:
            failures.append(f"{guard['faster']}: {ratio:.2f}× {guard['than']}, below {floor:.2f}× "
                            f"(recorded {guard['recorded']:.2f}×, tolerance {tolerance:.0%}; fastest iterations "
                            f"{fmt_time(faster['ns_min'])} and {fmt_time(than['ns_min'])})")
    for guard in thresholds["mallocs"]:
        result = results.get(guard["benchmark"])
        if not result or "mallocs_low" not in result:
            failures.append(f"{guard['benchmark']} did not run or counted no allocations")
            continue
        ceiling = malloc_ceiling(thresholds, guard)
        ok = result["mallocs_low"] <= ceiling
        rows.append((f"{guard['benchmark']} (mallocs per iteration)", f"{guard['recorded']:.0f}", f"≤ {ceiling:.0f}",
                     f"{result['mallocs_low']:.0f}", ok))
        if not ok:
            failures.append(f"{guard['benchmark']}: {result['mallocs_low']:.0f} allocations per iteration (lower quartile), "
                            f"above {ceiling:.0f} (recorded {guard['recorded']:.0f})")
    return rows, failures


def update(thresholds, results):
    """Records this run's ratios and allocation counts as the thresholds."""
    for guard in thresholds["ratios"]:
        guard["recorded"] = round(results[guard["than"]]["ns_min"] / results[guard["faster"]]["ns_min"], 2)
    for guard in thresholds["mallocs"]:
        guard["recorded"] = results[guard["benchmark"]]["mallocs_low"]
    THRESHOLDS.write_text(json.dumps(thresholds, indent=2, ensure_ascii=False) + "\n")
    print(f"recorded {len(thresholds['ratios'])} ratios and {len(thresholds['mallocs'])} allocation counts in "
          f"{THRESHOLDS.relative_to(ROOT)}")


def malloc_ceiling(thresholds, guard):
    """The most allocations per iteration a guard's benchmark may count."""
    return guard["recorded"] * (1 + thresholds["mallocTolerance"]) + 1


def failing_malloc_guards(thresholds, results):
    """The allocation guards this run's results do not hold."""
    return [guard for guard in thresholds["mallocs"]
            if "mallocs_low" in results.get(guard["benchmark"], {})
            and results[guard["benchmark"]]["mallocs_low"] > malloc_ceiling(thresholds, guard)]


def failing_ratio_guards(thresholds, results):
    """The ratio guards this run's results do not hold."""
    floor = 1 - thresholds["tolerance"]
    return [guard for guard in thresholds["ratios"]
            if guard["faster"] in results and guard["than"] in results
            and "ns_min" in results[guard["faster"]] and "ns_min" in results[guard["than"]]
            and results[guard["than"]]["ns_min"] / results[guard["faster"]]["ns_min"] < guard["recorded"] * floor]


def confirm(thresholds, results):
    """Measures the benchmarks of failing guards again, keeping each benchmark's fastest iteration and lowest
    allocation count of all runs."""
    for attempt in range(thresholds.get("confirmations", 2)):
        ratios, mallocs = failing_ratio_guards(thresholds, results), failing_malloc_guards(thresholds, results)
        if not ratios and not mallocs:
            return
        by_target = {}
        for guard in ratios:
            by_target.setdefault(guard["target"], set()).update((guard["faster"], guard["than"]))
        for guard in mallocs:
            by_target.setdefault(guard["target"], set()).add(guard["benchmark"])
        named = [guard["faster"] for guard in ratios] + [f"{guard['benchmark']} (mallocs)" for guard in mallocs]
        print(f"measuring {len(named)} guard(s) again (confirmation {attempt + 1}): " + "; ".join(named),
              file=sys.stderr, flush=True)
        merge_best(results, parse(run(by_target)))


def merge_best(results, again):
    """Keeps each benchmark's fastest iteration and lowest allocation count of `results` and `again`."""
    for name, other in again.items():
        if name not in results:
            continue
        for key in ("ns_min", "mallocs_low"):
            if key in other:
                results[name][key] = min(results[name].get(key, other[key]), other[key])


def main(arguments):
    thresholds = json.loads(THRESHOLDS.read_text())
    if "--markdown" in arguments:
        markdown = Path(arguments[arguments.index("--markdown") + 1]).read_text()
    else:
        markdown = run(names(thresholds))
    results = parse(markdown)
    if "--update" in arguments:
        # Recorded as the check measures: each benchmark's fastest iteration and lowest allocation count over several
        # processes.
        for _ in range(thresholds.get("confirmations", 2)):
            merge_best(results, parse(run(names(thresholds))))
        return update(thresholds, results)
    if "--markdown" not in arguments:
        confirm(thresholds, results)
    rows, failures = measure(thresholds, results)
    print("| guarded | recorded | threshold | this run | |")
    print("|---|---:|---:|---:|---|")
    for name, recorded, threshold, measured, ok in rows:
        print(f"| {name} | {recorded} | {threshold} | {measured} | {'ok' if ok else '**regressed**'} |")
    if failures:
        print("\n".join(["", "error: benchmarks regressed past their thresholds:"] + failures), file=sys.stderr)
        raise SystemExit(1)
    print(f"\nBenchmark thresholds: {len(rows)} guards held.")


if __name__ == "__main__":
    main(sys.argv[1:])
