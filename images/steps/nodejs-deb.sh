#!/bin/bash
# Builds a minimal `nodejs` Debian package from the host's node binary and prints its path:
# .cache/debs-outpost/nodejs-<key>/nodejs_<node version>-outpost1_<arch>.deb.
#
# Why: the droplet package depends on `nodejs (>= N), nodejs (<< N+1)` for the node its native addons were built
# with (N = 20), and Debian bookworm's own nodejs is 18. The host's node is the one the agent was built and tested
# with, and the image is the host's Debian release, so its glibc and libstdc++ fit. The package is shaped like
# NodeSource's: /usr/bin/node, Version = node's version (without npm, headers or docs: the device needs none).
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

NODE=$(readlink -f "$(command -v node)")
NODE_VERSION=$("$NODE" -p 'process.versions.node')
ARCH=$(dpkg --print-architecture)
KEY=$(cache_key "$0" "$NODE" "=$ARCH")
OUT="$CACHE_DIR/debs-outpost/nodejs-$KEY/nodejs_${NODE_VERSION}-outpost1_${ARCH}.deb"
if [ -f "$OUT" ]; then
  touch "$(dirname "$OUT")"
  printf '%s\n' "$OUT"
  exit 0
fi

WORK=$(fresh_workdir nodejs-deb)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/root/usr/bin" "$WORK/root/DEBIAN"
install -m 0755 "$NODE" "$WORK/root/usr/bin/node"
if command -v strip >/dev/null; then strip --strip-all "$WORK/root/usr/bin/node"; fi
cat >"$WORK/root/DEBIAN/control" <<CONTROL
Package: nodejs
Version: ${NODE_VERSION}-outpost1
Architecture: $ARCH
Maintainer: Outpost <outpost@localhost>
Depends: libc6 (>= 2.28), libgcc-s1, libstdc++6 (>= 5.2)
Section: web
Priority: optional
Installed-Size: $(du -sk --exclude=DEBIAN "$WORK/root" | cut -f1)
Description: Node.js runtime (the build host's node binary, for Outpost images)
 Only /usr/bin/node: what the droplet agent runs on.
CONTROL
mkdir -p "$(dirname "$OUT")"
dpkg-deb --root-owner-group -Zgzip --build "$WORK/root" "$OUT.partial" >/dev/null
mv "$OUT.partial" "$OUT"
log "nodejs: $(basename "$OUT"), $(du -m "$OUT" | cut -f1) MB"
printf '%s\n' "$OUT"
