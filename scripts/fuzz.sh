#!/usr/bin/env bash
# Coverage-guided fuzzing of FirePack's parsers with libFuzzer and AddressSanitizer.
#
#   scripts/fuzz.sh [TARGET[,TARGET…]|all] [SECONDS]   fuzz the targets (or every one), in turn, SECONDS each (default 60)
#   FUZZ_RUNS=N scripts/fuzz.sh TARGET          stop after N executions instead of after a time
#   FUZZ_WORKERS=N scripts/fuzz.sh TARGET S     N libFuzzer processes sharing the corpus (default 1)
#
# Targets: `Fuzz/.build/release/firepack-fuzz list` (value, reader, decoder, json, json-lines, rest-json, proto, stream, stream-json, gzip, export).
# The corpus of each target grows in Fuzz/.corpus/TARGET (not committed), seeded from Fixtures/ and small generated
# inputs; dictionaries are in Fuzz/Dictionaries. Every input that crashes, leaks past a limit, hangs or breaks a
# target's invariant is copied to Tests/FirePackFuzzRegressionTests/Crashers/TARGET/, which `swift test` replays,
# and the script exits 1. A summary line per target gives executions, coverage and corpus size.
# FUZZ_BUILD_LOCK=FILE serialises the build with other builds on the machine (flock).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

target=${1:-all}
seconds=${2:-60}
workers=${FUZZ_WORKERS:-1}

# libFuzzer and AddressSanitizer ship with the toolchain; gold cannot link the instrumented binary, lld can.
# A failed build must stop the run: fuzzing the previous binary would test code that is no longer there.
build_log=$(mktemp)
if ! ${FUZZ_BUILD_LOCK:+flock "$FUZZ_BUILD_LOCK"} swift build -c release --package-path Fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld >"$build_log" 2>&1; then
  grep -vE '^\[[0-9]+/[0-9]+\]' "$build_log" >&2
  echo "fuzz.sh: the fuzzer did not build" >&2
  exit 1
fi
grep -vE '^\[[0-9]+/[0-9]+\]' "$build_log" || true
rm -f "$build_log"
fuzzer="$root/Fuzz/.build/release/firepack-fuzz"
[ -x "$fuzzer" ] || { echo "fuzz.sh: the fuzzer did not build" >&2; exit 1; }

if [ "$target" = all ]; then targets=$("$fuzzer" list | cut -f1); else targets=${target//,/ }; fi

# The Swift runtime's backtracer would run inside the crashed process and trip AddressSanitizer itself.
export SWIFT_BACKTRACE=enable=no

status=0
summary=()
for name in $targets; do
  corpus="$root/Fuzz/.corpus/$name"
  artifacts="$root/Fuzz/.artifacts/$name"
  crashers="$root/Tests/FirePackFuzzRegressionTests/Crashers/$name"
  mkdir -p "$corpus" "$artifacts"
  rm -f "$artifacts"/*   # earlier findings are already kept under Tests/
  "$fuzzer" seed "$name" "$corpus" "$root/Fixtures" >/dev/null
  dict="$root/Fuzz/Dictionaries/$name.dict"
  case "$name" in value|reader|decoder|stream-json) dict="$root/Fuzz/Dictionaries/fpk.dict" ;; json-lines) dict="$root/Fuzz/Dictionaries/json.dict" ;; gzip) dict="" ;; esac
  limit=(-max_total_time="$seconds")
  [ -n "${FUZZ_RUNS:-}" ] && limit=(-runs="$FUZZ_RUNS")
  log="$root/Fuzz/.artifacts/$name.log"
  echo "== $name: ${FUZZ_RUNS:+$FUZZ_RUNS runs}${FUZZ_RUNS:-$seconds s}, $workers worker(s); log $log"
  # Streams hold several records per input and cost the most per byte: shorter inputs keep them fast.
  max_len=4096; [ "$name" = stream ] && max_len=1024
  args=("${limit[@]}" -max_len=$max_len -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024
        -artifact_prefix="$artifacts/" -print_final_stats=1 ${dict:+-dict="$dict"})
  if [ "$workers" -gt 1 ]; then args+=(-fork="$workers" -ignore_crashes=1); fi
  set +e
  (cd "$root/Fuzz/.artifacts" && "$fuzzer" run "$name" "${args[@]}" "$corpus") >"$log" 2>&1
  code=$?
  set -e
  found=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | sort)
  if [ -n "$found" ]; then
    mkdir -p "$crashers"
    for file in $found; do cp "$file" "$crashers/"; echo "   FINDING: $(basename "$file") (kept in ${crashers#$root/})"; done
    grep -E 'ERROR|INVARIANT|SUMMARY' "$log" | head -5 || true
    status=1
  elif [ $code -ne 0 ]; then
    echo "   libFuzzer exited $code without a finding; see $log"; tail -5 "$log"; status=1
  fi
  execs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | awk '{s+=$1} END {print s+0}')
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -oE 'cov: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo "?")
  features=$(grep -oE 'ft: [0-9]+' <<<"$last" | grep -oE '[0-9]+' || echo "?")
  files=$(find "$corpus" -type f | wc -l)
  line=$(printf '%-10s %12s execs  cov %6s  ft %7s  corpus %6s files' "$name" "$execs" "$cov" "$features" "$files")
  echo "   $line"
  summary+=("$line")
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
