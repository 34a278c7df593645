#!/usr/bin/env bash
# Regenerates Fixtures/: the JSON collections (Python, deterministic), then with firepack their .fpk (one value),
# .fpks (document stream) and, for the guide's collections, .firestore.json (Firestore REST JSON lines) forms.
# Tests/FirePackToolTests fails when the committed forms drift from what this script produces.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 scripts/generate/generate-fixtures.py
swift build -c release --product firepack
firepack=.build/release/firepack
for json in Fixtures/*.json; do
  case "$json" in *.firestore.json) continue ;; esac
  name=$(basename "$json" .json)
  "$firepack" convert "$json" "Fixtures/$name.fpk"
  "$firepack" convert "$json" "Fixtures/$name.fpks" --collection "$name" --id-field id --quiet
  if [ "$name" != "generated-books" ]; then
    # REST JSON cannot hold pending server timestamps (Firestore sends them as transforms): fix them to one time.
    "$firepack" convert "$json" "Fixtures/$name.firestore.json" --collection "$name" --id-field id \
      --resolve-server-timestamps 2024-01-01T00:00:00Z
  fi
done
echo "Fixtures regenerated."
