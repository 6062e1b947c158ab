#!/bin/bash
# check-libs.sh TREE BINARY...: fail when a binary copied from the host needs a shared library the tree lacks.
set -euo pipefail
TREE=$1
shift
for binary in "$@"; do
  for lib in $(ldd "$TREE$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $1 }'); do
    found=$(find "$TREE/usr/lib/x86_64-linux-gnu" "$TREE/usr/lib" -maxdepth 1 -name "$lib" -print -quit)
    [ -n "$found" ] || { echo "check-libs: $binary needs $lib, which the rootfs does not have" >&2; exit 1; }
  done
done
