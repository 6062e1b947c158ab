#!/bin/bash
# The single entry point: base rootfs, the disk image with 1.0.0 in slot A, and the OS bundles
# 1.0.0, 1.1.0, 1.2.0-no-commit and 1.3.0-kernel-panic, plus out/images.json describing them.
# Everything is cached by content hash under images/.cache/: a run with nothing changed takes seconds.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
lock_cache

FACTORY_VERSION=1.0.0
BUNDLES=("1.0.0 normal" "1.1.0 normal" "1.2.0 no-commit" "1.3.0 kernel-panic")

for tool in mmdebstrap mkfs.ext4 resize2fs mkfs.vfat mcopy sfdisk grub-mkstandalone grub-editenv qemu-img; do
  command -v "$tool" >/dev/null || die "$tool is missing: run images/install-deps.sh (as root)"
done
require_root "build-all.sh"

run_start=$(now)
mkdir -p "$CACHE_DIR"
RUN_STAMP="$CACHE_DIR/.run-started"
touch "$RUN_STAMP"

BASE_TARBALL=$(timed "timing: base rootfs" "$IMAGES_DIR/steps/base-rootfs.sh")
DROPLET_DEB=$(timed "timing: droplet .deb (npm run build + package-deb.sh)" "$IMAGES_DIR/steps/agent-deb.sh")
NODEJS_DEB=$(timed "timing: nodejs .deb" "$IMAGES_DIR/steps/nodejs-deb.sh")
SIGNING_KEY=$("$IMAGES_DIR/steps/signing-key.sh")
export BASE_TARBALL DROPLET_DEB NODEJS_DEB SIGNING_KEY

FACTORY_SLOT=$(timed "timing: slot image $FACTORY_VERSION" "$IMAGES_DIR/steps/slot-image.sh" --version "$FACTORY_VERSION")
DISK=$(timed "timing: disk image" "$IMAGES_DIR/steps/disk-image.sh" --slot-a "$FACTORY_SLOT")

bundle_entries=()
for entry in "${BUNDLES[@]}"; do
  read -r version variant <<<"$entry"
  dir=$(timed "timing: bundle $version $variant" "$IMAGES_DIR/steps/os-bundle.sh" --version "$version" --variant "$variant")
  bundle_entries+=("{\"name\": \"$(basename "$dir")\", \"version\": \"$version\", \"variant\": \"$variant\", \"dir\": \"bundles/$(basename "$dir")\"}")
done

mkdir -p "$OUT_DIR/keys"
cp "${SIGNING_KEY%.key}.pub" "$OUT_DIR/keys/os-signing.pub"
{
  printf '{\n  "deviceType": "%s",\n  "disk": "%s",\n' "$DEVICE_TYPE" "$(basename "$DISK")"
  printf '  "diskSlotA": {"version": "%s", "variant": "normal"},\n' "$FACTORY_VERSION"
  printf '  "publicKey": "keys/os-signing.pub",\n  "signingKey": "%s",\n  "bundles": [\n' "$(readlink -f "$SIGNING_KEY")"
  last=$((${#bundle_entries[@]} - 1))
  for i in "${!bundle_entries[@]}"; do
    printf '    %s%s\n' "${bundle_entries[$i]}" "$([ "$i" -lt "$last" ] && echo ,)"
  done
  printf '  ]\n}\n'
} >"$OUT_DIR/images.json"

# drop cache entries this run did not use (older droplet and nodejs packages, slots and bundles)
find "$CACHE_DIR/debs-outpost" "$CACHE_DIR/slots" "$CACHE_DIR/bundles" -mindepth 1 -maxdepth 1 ! -name '*.log' \
  ! -newer "$RUN_STAMP" -exec rm -rf {} + 2>/dev/null || true
rm -rf "$CACHE_DIR/tmp"

log "disk:    $DISK"
for entry in "${BUNDLES[@]}"; do
  read -r version variant <<<"$entry"
  name=$version
  [ "$variant" = normal ] || name="$version-$variant"
  log "bundle:  $OUT_DIR/bundles/$name ($(du -m --apparent-size "$OUT_DIR/bundles/$name/rootfs.img" | cut -f1) MB)"
done
log "index:   $OUT_DIR/images.json"
log "timing: total $(seconds_since "$run_start")s"
