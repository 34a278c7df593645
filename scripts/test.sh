#!/usr/bin/env bash
# Installs what the tests need (when missing), builds everything, and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
command -v swift >/dev/null || { echo "error: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }
# zlib for gzip streams; libprotobuf-c and protoc-c for the independent protobuf cross-check
# (Tests/CFirestoreProto links libprotobuf-c; scripts/generate-protobuf-c.sh uses protoc-c).
for pkg in zlib1g-dev libprotobuf-c-dev protobuf-c-compiler; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "Installing: ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi

# Everything, the optional FirePackNIO / FirePackHummingbird modules and the example service included.
swift build --build-tests --traits FirePackHummingbird
swift test --skip-build --traits FirePackHummingbird 2>&1 | tee .build/test-output.txt
# The claim that the traits keep swift-nio and Hummingbird away from FirePack-only users, checked.
bash scripts/check-footprint.sh
