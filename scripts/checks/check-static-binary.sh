#!/usr/bin/env bash
# Builds the firepack tool as a binary that runs without a Swift toolchain (Swift's runtime and Foundation linked in
# statically: `--static-swift-stdlib`) and checks it: `ldd` lists only system libraries, and a copy in an empty folder,
# run with an empty environment, converts and validates a fixture.
#   bash scripts/checks/check-static-binary.sh            # builds into .build-static/ and checks
# The binary is .build-static/release/firepack: copy it to any Linux x86-64 machine with the same C library.
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product firepack --static-swift-stdlib --scratch-path .build-static
binary=.build-static/release/firepack
echo "$binary links:"; ldd "$binary" | sed 's/^/  /'
if ldd "$binary" | grep -E "libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime|/opt/swift"; then
  echo "error: the static firepack still needs the Swift libraries above" >&2; exit 1
fi
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cp "$binary" Fixtures/books.json "$work/"
( cd "$work" && env -i ./firepack convert books.json books.fpks --collection books --id-field id --quiet \
  && env -i ./firepack validate books.fpks && env -i ./firepack --version >/dev/null )
echo "Static binary: $(du -h "$binary" | cut -f1), runs without the toolchain."
