#!/usr/bin/env bash
# Builds a throwaway package that depends on the FirePack product alone (default traits) and checks that it neither
# downloads nor builds swift-nio or Hummingbird, builds none of swift-syntax, and runs without Foundation proper (its
# internationalization and ICU libraries): FirePack uses FoundationEssentials only. Prints what it did download.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/app/Sources/App"
cat > "$work/app/Package.swift" <<MANIFEST
// swift-tools-version: 6.2
import PackageDescription
let package = Package(name: "app", dependencies: [.package(path: "$root")],
                      targets: [.executableTarget(name: "App", dependencies: [.product(name: "FirePack", package: "$(basename "$root")")])])
MANIFEST
# (a path dependency is known by its folder's name)
printf 'import FirePack\nprint(try FirePackDecoder().decode(String.self, from: FirePackEncoder().encode("ok")))\n' > "$work/app/Sources/App/main.swift"
cd "$work/app"
swift build >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
fetched="$(ls .build/checkouts 2>/dev/null | tr '\n' ' ')"
built="$(ls .build/debug/Modules 2>/dev/null | sed -n 's/\.swiftmodule$//p' | tr '\n' ' ')"
echo "A FirePack-only package fetched: ${fetched:-nothing}; built modules: $built"
for unwanted in swift-nio hummingbird; do
  if [ -d ".build/checkouts/$unwanted" ]; then echo "error: a FirePack-only package fetched $unwanted" >&2; exit 1; fi
done
for module in NIOCore Hummingbird SwiftSyntax FirePackNIO FirePackHummingbird; do
  if ls .build/debug/Modules 2>/dev/null | grep -qx "$module.swiftmodule"; then
    echo "error: a FirePack-only package built $module" >&2; exit 1
  fi
done
[ "$(.build/debug/App)" = "ok" ] || { echo "error: the FirePack-only program did not run" >&2; exit 1; }
if ldd .build/debug/App | grep -E 'libFoundation\.so|FoundationInternationalization|FoundationICU' >&2; then
  echo "error: a FirePack-only program loads Foundation beyond FoundationEssentials (above)" >&2; exit 1
fi
echo "Footprint check passed."
