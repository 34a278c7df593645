#!/usr/bin/env bash
# Regenerates Fixtures/: the JSON collections (Python, deterministic), then their .fpk forms (firepack convert).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/generate-fixtures.py
swift build -c release --product firepack
for json in Fixtures/*.json; do
  .build/release/firepack convert "$json" "${json%.json}.fpk"
done
echo "Fixtures regenerated."
