#!/usr/bin/env bash
# Builds the Benchmarks package (release) and runs every benchmark for a few iterations, so the suite cannot rot.
# Not a measurement: see BENCHMARKS.md and scripts/measure/update-benchmarks.py for that.
set -euo pipefail
cd "$(dirname "$0")/../../Benchmarks"
mkdir -p .build   # a fresh clone has none yet, and tee opens its file before the build makes one
FIREPACK_BENCHMARK_SMOKE=1 swift package --allow-writing-to-package-directory benchmark --no-progress --quiet 2>&1 | tee .build/smoke.log
# package-benchmark reports a benchmark that throws and goes on: a failed benchmark is a missing row, so it fails here.
if grep -q "^Benchmark .* failed with" .build/smoke.log; then
  echo "error: benchmarks failed (above)" >&2; exit 1
fi
echo "Benchmark smoke pass: every benchmark built and ran."
