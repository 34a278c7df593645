#!/usr/bin/env bash
# Regenerates Benchmarks/Sources/FirestoreProtos/firestore_document.pb.swift from Benchmarks/Proto with protoc
# (Debian protobuf-compiler) and protoc-gen-swift built from swift-protobuf 1.39.0. The output is committed, so
# neither tool is needed to build or run the benchmarks.
#   usage: scripts/generate/generate-swift-protobuf.sh PATH/TO/protoc-gen-swift
set -euo pipefail
plugin=${1:?give the path to a protoc-gen-swift built from swift-protobuf 1.39.0}
cd "$(dirname "$0")/../../Benchmarks"
protoc --plugin=protoc-gen-swift="$plugin" --swift_opt=Visibility=Public --proto_path=Proto --proto_path=/usr/include \
  --swift_out=Sources/FirestoreProtos Proto/firestore_document.proto
generated=Sources/FirestoreProtos/firestore_document.pb.swift
{ echo "// Made by scripts/generate/generate-swift-protobuf.sh from Benchmarks/Proto/firestore_document.proto: do not edit, run it again."
  cat "$generated"; } > "$generated.new" && mv "$generated.new" "$generated"
echo "Regenerated Benchmarks/Sources/FirestoreProtos/firestore_document.pb.swift"
