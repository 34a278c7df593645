#!/usr/bin/env bash
# Builds the Benchmarks package (release) and runs every benchmark for a few iterations, so the suite cannot rot.
# Not a measurement: see BENCHMARKS.md and scripts/update-benchmarks.py for that.
set -euo pipefail
cd "$(dirname "$0")/../Benchmarks"
FIREPACK_BENCHMARK_SMOKE=1 swift package --allow-writing-to-package-directory benchmark --no-progress --quiet
echo "Benchmark smoke pass: every benchmark built and ran."
