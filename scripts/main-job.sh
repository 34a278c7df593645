#!/usr/bin/env bash
# The main job on the bundled fixtures: build firepack (release), convert every Fixtures/*.json to FirePack,
# check each against the committed .fpk, read it back, validate it, and print what it costs next to JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || { echo "error: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }
swift build -c release --product firepack
firepack=.build/release/firepack
out=.build/fixtures-out
mkdir -p "$out"
status=0
for json in Fixtures/*.json; do
  name=$(basename "$json" .json)
  "$firepack" convert "$json" "$out/$name.fpk"
  "$firepack" validate "$out/$name.fpk"
  if ! cmp -s "$out/$name.fpk" "Fixtures/$name.fpk"; then
    echo "error: Fixtures/$name.fpk is out of date; run scripts/generate-fixtures.sh" >&2
    status=1
  fi
  "$firepack" convert "$out/$name.fpk" "$out/$name.roundtrip.json"
  "$firepack" stats "$json" | tail -3
  echo
done
"$firepack" inspect Fixtures/books.fpk --path '[0].cover.small'
exit $status
