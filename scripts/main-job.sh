#!/usr/bin/env bash
# The main job on the bundled fixtures: build firepack (release), convert every Fixtures/*.json collection into
# every format (FirePack value and stream, Firestore REST JSON, Firestore protobuf, JSON lines, gzip), check the
# committed forms have not drifted, read everything back, validate against Firestore's limits, and report sizes.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v swift >/dev/null || { echo "error: the Swift toolchain (swift) is not on PATH" >&2; exit 1; }
# zlib (gzip, deflate blocks, CRC-32) and zstd (zstd blocks, the default) from Debian, when missing.
need_apt=()
for pkg in zlib1g-dev libzstd-dev; do dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg"); done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "Installing: ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi
swift build -c release --product firepack
firepack=.build/release/firepack
out=.build/fixtures-out
rm -rf "$out"; mkdir -p "$out"
status=0
for json in Fixtures/*.json; do
  case "$json" in *.firestore.json) continue ;; esac
  name=$(basename "$json" .json)
  echo "== $name"
  "$firepack" convert "$json" "$out/$name.fpk"
  "$firepack" convert "$json" "$out/$name.fpks" --collection "$name" --id-field id --quiet
  for form in fpk fpks; do
    cmp -s "$out/$name.$form" "Fixtures/$name.$form" || { echo "error: Fixtures/$name.$form is out of date; run scripts/generate/generate-fixtures.sh" >&2; status=1; }
  done
  if [ -f "Fixtures/$name.firestore.json" ]; then
    "$firepack" convert "$json" "$out/$name.firestore.json" --collection "$name" --id-field id --resolve-server-timestamps 2024-01-01T00:00:00Z
    cmp -s "$out/$name.firestore.json" "Fixtures/$name.firestore.json" || { echo "error: Fixtures/$name.firestore.json is out of date" >&2; status=1; }
  fi
  # Firestore's wire formats cannot hold pending server timestamps: the round trips start from resolved ones.
  "$firepack" convert "$out/$name.fpks" "$out/$name.resolved.fpks" --resolve-server-timestamps 2024-01-01T00:00:00Z --quiet
  for target in pb firestore.json jsonl.gz fpks.gz; do
    "$firepack" convert "$out/$name.resolved.fpks" "$out/$name.$target" --quiet
    "$firepack" convert "$out/$name.$target" "$out/$name.roundtrip.$target.fpks" --collection "$name" --id-field id --quiet
    cmp -s "$out/$name.roundtrip.$target.fpks" "$out/$name.resolved.fpks" || { echo "error: $name did not survive $target" >&2; status=1; }
  done
  "$firepack" validate "$out/$name.fpks" --firestore-limits
  "$firepack" stats "$json" | tail -3
done
echo "== lookups"
"$firepack" inspect Fixtures/books.fpk --path '[0].cover.small'
"$firepack" inspect Fixtures/books.fpks --record 1 --path 'tags[0].color'
exit $status
