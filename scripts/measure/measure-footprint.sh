#!/usr/bin/env bash
# What FirePack adds to a program: builds, in release, a minimal program that uses the FirePack product alone (with
# the Swift runtime linked dynamically and statically) and the firepack tool, and prints a Markdown table of their
# sizes (as built and stripped) and of the Foundation libraries they load. `scripts/measure/measure-footprint.sh [PACKAGE]`
# measures the FirePack checkout at PACKAGE (default: this one), so that two commits can be compared; with FIREPACK_TOOL
# set to a release firepack already built from that checkout, the tool is not built again.
set -euo pipefail
root="$(cd "${1:-$(dirname "$0")/../..}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/app/Sources/App"
cat > "$work/app/Package.swift" <<MANIFEST
// swift-tools-version: 6.2
import PackageDescription
let package = Package(name: "app", dependencies: [.package(path: "$root")],
                      targets: [.executableTarget(name: "App", dependencies: [.product(name: "FirePack", package: "$(basename "$root")")])])
MANIFEST
cat > "$work/app/Sources/App/main.swift" <<'SWIFT'
import FirePack
struct Book: Codable { var title: String; var pages: Int }
let bytes = try FirePackEncoder().encode(Book(title: "Dune", pages: 412))
print(try FirePackDecoder().decode(Book.self, from: bytes).title)
SWIFT

size() { stat -c %s "$1"; }
stripped() { strip -o "$work/stripped" "$1"; stat -c %s "$work/stripped"; }
foundation() {  # the Foundation and ICU libraries a binary loads
  local libs
  libs="$(ldd "$1" | awk '{print $1}' | grep -E 'Foundation|ICU|icu' | sed 's/\.so.*//' | sort -u | tr '\n' ' ')"
  echo "${libs:-none}"
}
row() { printf '| %s | %s | %s | %s | %s |\n' "$1" "$2" "$(size "$3")" "$(stripped "$3")" "$(foundation "$3")"; }

echo "| program | Swift runtime | bytes | stripped | shared Foundation libraries loaded |"
echo "|---|---|---:|---:|---|"
(cd "$work/app" && swift build -c release --scratch-path "$work/app-dynamic" >"$work/log" 2>&1) || { cat "$work/log"; exit 1; }
row "FirePack only" dynamic "$work/app-dynamic/release/App"
(cd "$work/app" && swift build -c release --static-swift-stdlib --scratch-path "$work/app-static" >"$work/log" 2>&1) || { cat "$work/log"; exit 1; }
row "FirePack only" static "$work/app-static/release/App"
[ "$("$work/app-static/release/App")" = "Dune" ] || { echo "error: the static program did not run" >&2; exit 1; }
tool="${FIREPACK_TOOL:-}"
if [ -z "$tool" ]; then
  (cd "$root" && swift build -c release --product firepack --scratch-path "$work/tool" >"$work/log" 2>&1) || { cat "$work/log"; exit 1; }
  tool="$work/tool/release/firepack"
fi
row "firepack" dynamic "$tool"
