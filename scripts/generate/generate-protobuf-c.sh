#!/usr/bin/env bash
# Regenerates the protobuf-c code for the cross-check from Tests/CFirestoreProto/proto/firestore_check.proto.
# Needs Debian's protobuf-c-compiler (apt-get install protobuf-c-compiler). The generated files are committed.
set -euo pipefail
cd "$(dirname "$0")/../../Tests/CFirestoreProto"
protoc-c --proto_path=proto --c_out=. proto/firestore_check.proto
mv firestore_check.pb-c.h include/
header="/* Made by scripts/generate/generate-protobuf-c.sh from proto/firestore_check.proto: do not edit, run it again. */"
for file in firestore_check.pb-c.c include/firestore_check.pb-c.h; do
  { echo "$header"; cat "$file"; } > "$file.new" && mv "$file.new" "$file"
done
echo "Regenerated Tests/CFirestoreProto/firestore_check.pb-c.c and include/firestore_check.pb-c.h"
