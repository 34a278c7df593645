#!/usr/bin/env bash
# Installs what the tests need (when missing), builds everything, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v swift >/dev/null || { echo "error: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }
# zlib for gzip streams and deflate blocks, zstd for zstd blocks; libprotobuf-c and protoc-c for the independent protobuf cross-check
# (Tests/CFirestoreProto links libprotobuf-c; scripts/generate/generate-protobuf-c.sh uses protoc-c).
for pkg in zlib1g-dev libzstd-dev libprotobuf-c-dev protobuf-c-compiler; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
# Java for Apache Spark (the Python package's Spark tests run a real local Spark session), and its compiler for the
# package's Spark connector (java/, built into the wheel).
command -v java >/dev/null || need_apt+=(openjdk-17-jre-headless)
command -v javac >/dev/null || need_apt+=(openjdk-17-jdk-headless)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "Installing: ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

# Everything, the optional FirePackNIO / FirePackHummingbird modules and the example service included.
swift build --build-tests --traits FirePackHummingbird
echo "test.sh: built in $SECONDS s"
swift test --skip-build --traits FirePackHummingbird 2>&1 | tee .build/test-output.txt
# The large cases, alone (a 200 MB conversion would starve the timing-sensitive tests that run beside it above).
FIREPACK_LARGE_TESTS=1 swift test --skip-build --traits FirePackHummingbird --filter aTwoHundredMegabyteJSONArrayConvertsUnder64MB 2>&1 \
  | tee .build/large-test-output.txt
grep -q "1 test.* passed" .build/large-test-output.txt || { echo "test.sh: the large test did not run and pass" >&2; exit 1; }
echo "test.sh: Swift tests passed at $SECONDS s"
# The claim that the traits keep swift-nio and Hummingbird away from FirePack-only users, checked.
bash scripts/checks/check-footprint.sh

# The Python package and the engines (Docs/ARROW.md): a virtual environment with the pinned engines from PyPI, the
# wheel built from python/ (it builds the native library in release mode and bundles the Swift runtime), installed
# as a user would install it, then pytest: pyarrow, pandas, DuckDB, Polars, Ray Data and a local Spark session.
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --disable-pip-version-check -r python/requirements-test.txt
.venv/bin/pip install -q --disable-pip-version-check --no-deps leveldb-export==0.1.1
rm -rf .build/python-dist python/build
FIREPACK_REQUIRE_SPARK_CONNECTOR=1 .venv/bin/python -m build --wheel --no-isolation -o .build/python-dist python
echo "test.sh: wheel built at $SECONDS s"
.venv/bin/pip install -q --disable-pip-version-check --force-reinstall --no-deps .build/python-dist/firepack-*.whl
# From python/tests, so that `import firepack` is the installed wheel, not the source folder.
(cd python/tests && FIREPACK_REQUIRE_SPARK_CONNECTOR=1 FIREPACK_TOOL="$PWD/../../.build/debug/firepack" PYSPARK_PYTHON="$PWD/../../.venv/bin/python" ../../.venv/bin/pytest -q -p no:cacheprovider --durations=10 .) 2>&1 | tee .build/python-test-output.txt
