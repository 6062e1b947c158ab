#!/bin/bash
# os-bundle.sh --version V [--variant normal|no-commit|kernel-panic] [--pcr8-table FILE]
# Builds the signed OS version bundle out/bundles/<V>[-<variant>]/ for `outpost os publish`:
#   rootfs.img      the slot's minimal ext4 image
#   rootfs.img.sig  raw 64-byte Ed25519 signature over the 32-byte SHA-256 digest of rootfs.img
#   manifest.json   {version, deviceType, sha256, size, signature (base64)}
# Files are hard links into the cache: treat them as read-only. Prints the bundle folder.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

VERSION='' VARIANT=normal SLOT_OPTIONS=()
while [ $# -gt 0 ]; do
  case $1 in
    --version) VERSION=$2; shift 2 ;;
    --variant) VARIANT=$2; shift 2 ;;
    --pcr8-table) SLOT_OPTIONS=(--pcr8-table "$2"); shift 2 ;; # the encrypted image's slot (slot-image.sh)
    *) die "os-bundle: unknown argument $1" ;;
  esac
done
SIGNING_KEY=${SIGNING_KEY:-$("$IMAGES_DIR/steps/signing-key.sh")}
export SIGNING_KEY
SLOT_IMAGE=$("$IMAGES_DIR/steps/slot-image.sh" --version "$VERSION" --variant "$VARIANT" "${SLOT_OPTIONS[@]}")
NAME=$VERSION
[ "$VARIANT" = normal ] || NAME="$VERSION-$VARIANT"

# the slot image's folder is named by its content hash
KEY=$(cache_key "$0" "$IMAGES_DIR/make-bundle.ts" "$IMAGES_DIR/lib" "=slot $SLOT_IMAGE" "$SIGNING_KEY" \
  "=$VERSION" "=$DEVICE_TYPE")
CACHED="$CACHE_DIR/bundles/$KEY"
if [ -f "$CACHED/manifest.json" ]; then
  log "bundle $NAME: cached ($KEY)"
  touch "$CACHED"
else
  start=$(now)
  WORK=$(fresh_workdir "bundle-$KEY")
  trap 'rm -rf "$WORK"' EXIT
  ln "$SLOT_IMAGE" "$WORK/rootfs.img"
  (cd "$REPO_DIR" && tsx images/make-bundle.ts --dir "$WORK" --version "$VERSION" \
    --device-type "$DEVICE_TYPE" --key "$SIGNING_KEY") >/dev/null
  chmod 0444 "$WORK/manifest.json" "$WORK/rootfs.img.sig"
  mkdir -p "$CACHE_DIR/bundles"
  rm -rf "$CACHED"
  mv "$WORK" "$CACHED"
  log "bundle $NAME: signed in $(seconds_since "$start")s ($KEY)"
fi

DEST="$OUT_DIR/bundles/$NAME"
rm -rf "$DEST"
mkdir -p "$DEST"
ln "$CACHED/rootfs.img" "$CACHED/rootfs.img.sig" "$CACHED/manifest.json" "$DEST/"
printf '%s\n' "$DEST"
