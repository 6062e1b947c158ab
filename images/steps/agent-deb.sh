#!/bin/bash
# Builds the droplet Debian package the way a release does (`npm run build`, then scripts/package-deb.sh) and
# prints its path: .cache/debs-outpost/droplet-<content hash>/droplet_<version>_<arch>.deb. The hash is over the
# package's unpacked control files and contents (dpkg-deb writes build times into the archive, so the .deb's own
# bytes change on every build): an unchanged agent keeps the cached .deb, and every downstream cache key with it.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

mkdir -p "$CACHE_DIR/debs-outpost"
if ! (cd "$REPO_DIR" && npm run --silent build >"$CACHE_DIR/debs-outpost/build.log" 2>&1); then
  # as a type error elsewhere in the checkout would: package what was emitted (package-deb.sh checks it is there)
  log "agent: 'npm run build' reported errors (see $CACHE_DIR/debs-outpost/build.log); packaging what was emitted"
fi

WORK=$(fresh_workdir agent-deb)
trap 'rm -rf "$WORK"' EXIT
DEB=$(bash "$REPO_DIR/scripts/package-deb.sh" --out "$WORK/deb")
dpkg-deb -R "$DEB" "$WORK/unpacked"
KEY=$(cache_key "$WORK/unpacked")
OUT_DIR_DEB="$CACHE_DIR/debs-outpost/droplet-$KEY"
if [ -d "$OUT_DIR_DEB" ]; then
  touch "$OUT_DIR_DEB"
else
  mkdir -p "$WORK/out"
  mv "$DEB" "$WORK/out/"
  mv "$WORK/out" "$OUT_DIR_DEB"
fi
OUT=$(find "$OUT_DIR_DEB" -maxdepth 1 -name 'droplet_*.deb' -print -quit)
log "agent: $(basename "$OUT"), $(du -k "$OUT" | cut -f1) KiB ($KEY)"
printf '%s\n' "$OUT"
