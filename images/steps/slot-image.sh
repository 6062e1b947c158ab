#!/bin/bash
# slot-image.sh --version V [--variant normal|no-commit|kernel-panic] [--pcr8-table FILE]
# Builds one slot's root filesystem: base rootfs + customize.sh, as a minimal ext4 image
# (mkfs.ext4 -d, no mounts; then resize2fs -M). Prints the image's path in the cache.
# --pcr8-table: the encrypted image's slot, with this PCR 8 prediction table (steps/pcr8-table.sh).
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

VERSION='' VARIANT=normal PCR8_TABLE=''
while [ $# -gt 0 ]; do
  case $1 in
    --version) VERSION=$2; shift 2 ;;
    --variant) VARIANT=$2; shift 2 ;;
    --pcr8-table) PCR8_TABLE=$2; shift 2 ;;
    *) die "slot-image: unknown argument $1" ;;
  esac
done
[[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$ ]] || die "slot-image: --version must be semver, got '$VERSION'"
[ -x "$IMAGES_DIR/rootfs/variants/$VARIANT.sh" ] || die "slot-image: unknown variant '$VARIANT'"

BASE=${BASE_TARBALL:-$("$IMAGES_DIR/steps/base-rootfs.sh")}
DROPLET_DEB=${DROPLET_DEB:-$("$IMAGES_DIR/steps/agent-deb.sh")}
NODEJS_DEB=${NODEJS_DEB:-$("$IMAGES_DIR/steps/nodejs-deb.sh")}
SIGNING_KEY=${SIGNING_KEY:-$("$IMAGES_DIR/steps/signing-key.sh")}
PUBKEY=${SIGNING_KEY%.key}.pub
SLOT_MIB=768 # the partition size: the image must fit in it

KEY=$(cache_key "$0" "$IMAGES_DIR/lib/common.sh" "$IMAGES_DIR/rootfs" "=base $(basename "$BASE")" "$DROPLET_DEB" "$NODEJS_DEB" \
  "$(command -v grub-editenv)" "$PUBKEY" "=$VERSION" "=$VARIANT" "=$SLOT_MIB" ${PCR8_TABLE:+"$PCR8_TABLE"})
OUT="$CACHE_DIR/slots/$KEY/rootfs.img"
if [ -f "$OUT" ]; then
  log "slot $VERSION ($VARIANT): cached ($KEY)"
  touch "$(dirname "$OUT")" # marks it used (build-all.sh prunes what a run did not use)
  printf '%s\n' "$OUT"
  exit 0
fi

require_root "the slot tree"
log "slot $VERSION ($VARIANT${PCR8_TABLE:+, encrypted}): building ($KEY)"
start=$(now)
WORK=$(fresh_workdir "slot-$KEY")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/tree"
tar -C "$WORK/tree" --numeric-owner -xpf "$BASE"
"$IMAGES_DIR/rootfs/customize.sh" "$WORK/tree" "$VERSION" "$VARIANT" "$DROPLET_DEB" "$NODEJS_DEB" "$PUBKEY" ${PCR8_TABLE:+"$PCR8_TABLE"}

IMG="$WORK/rootfs.img"
mkfs.ext4 -q -F -L "os-$VERSION" -E root_owner=0:0 -d "$WORK/tree" "$IMG" "${SLOT_MIB}M" >/dev/null
rm -rf "$WORK/tree"
e2fsck -fy "$IMG" >/dev/null 2>&1 # resize2fs insists on a fresh check
resize2fs -M "$IMG" >/dev/null 2>&1
BLOCKS=$(dumpe2fs -h "$IMG" 2>/dev/null | awk -F: '/^Block count/ { print $2 + 0 }')
BLOCK_SIZE=$(dumpe2fs -h "$IMG" 2>/dev/null | awk -F: '/^Block size/ { print $2 + 0 }')
truncate -s $((BLOCKS * BLOCK_SIZE)) "$IMG"
e2fsck -fn "$IMG" >/dev/null 2>&1 || die "slot $VERSION: the shrunk filesystem does not check clean"
chmod 0444 "$IMG"

mkdir -p "$(dirname "$OUT")"
mv "$IMG" "$OUT"
log "slot $VERSION ($VARIANT): $(du -m --apparent-size "$OUT" | cut -f1) MB in $(seconds_since "$start")s"
printf '%s\n' "$OUT"
