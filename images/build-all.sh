#!/bin/bash
# build-all.sh [--encrypted]
# The single entry point: base rootfs, the disk image with 1.0.0 in slot A, and the OS bundles
# 1.0.0, 1.1.0, 1.2.0-no-commit and 1.3.0-kernel-panic, plus out/images.json describing them.
# --encrypted: also the encrypted image set in out/encrypted/ (GRUB with the tpm module, its PCR 8 table measured
# in QEMU with swtpm, a LUKS2 data partition, the unlock unit): its disk and the bundles 1.0.0, 1.1.0 and
# 1.3.0-kernel-panic, with out/encrypted/images.json.
# Everything is cached by content hash under images/.cache/: a run with nothing changed takes seconds.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
lock_cache

ENCRYPTED=0
case ${1:-} in
  --encrypted) ENCRYPTED=1 ;;
  '') ;;
  -h | --help) sed -n '2,7p' "$0"; exit 0 ;;
  *) die "build-all.sh: unknown argument $1 (see --help)" ;;
esac
FACTORY_VERSION=1.0.0
BUNDLES=("1.0.0 normal" "1.1.0 normal" "1.2.0 no-commit" "1.3.0 kernel-panic")
ENCRYPTED_BUNDLES=("1.0.0 normal" "1.1.0 normal" "1.3.0 kernel-panic")

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

# build_set OUT SLOT_OPTIONS DISK_OPTIONS INDEX_EXTRA BUNDLE...: the factory slot, the disk, the bundles and
# OUT/images.json (SLOT_OPTIONS and DISK_OPTIONS: extra arguments of the steps, one string; INDEX_EXTRA: JSON members)
build_set() {
  local out=$1 slot_options=$2 disk_options=$3 index_extra=$4 factory_slot disk entry version variant dir last i
  shift 4
  export OUTPOST_IMAGES_OUT=$out
  # shellcheck disable=SC2086 # the options are words
  factory_slot=$(timed "timing: slot image $FACTORY_VERSION" "$IMAGES_DIR/steps/slot-image.sh" --version "$FACTORY_VERSION" $slot_options)
  # shellcheck disable=SC2086
  disk=$(timed "timing: disk image" "$IMAGES_DIR/steps/disk-image.sh" --slot-a "$factory_slot" $disk_options)
  local bundle_entries=()
  for entry in "$@"; do
    read -r version variant <<<"$entry"
    # shellcheck disable=SC2086
    dir=$(timed "timing: bundle $version $variant" "$IMAGES_DIR/steps/os-bundle.sh" --version "$version" --variant "$variant" $slot_options)
    bundle_entries+=("{\"name\": \"$(basename "$dir")\", \"version\": \"$version\", \"variant\": \"$variant\", \"dir\": \"bundles/$(basename "$dir")\"}")
    log "bundle:  $dir ($(du -m --apparent-size "$dir/rootfs.img" | cut -f1) MB)"
  done
  mkdir -p "$out/keys"
  cp "${SIGNING_KEY%.key}.pub" "$out/keys/os-signing.pub"
  {
    printf '{\n  "deviceType": "%s",\n  "disk": "%s",\n' "$DEVICE_TYPE" "$(basename "$disk")"
    printf '  "diskSlotA": {"version": "%s", "variant": "normal"},\n%b' "$FACTORY_VERSION" "$index_extra"
    printf '  "publicKey": "keys/os-signing.pub",\n  "signingKey": "%s",\n  "bundles": [\n' "$(readlink -f "$SIGNING_KEY")"
    last=$((${#bundle_entries[@]} - 1))
    for i in "${!bundle_entries[@]}"; do
      printf '    %s%s\n' "${bundle_entries[$i]}" "$([ "$i" -lt "$last" ] && echo ,)"
    done
    printf '  ]\n}\n'
  } >"$out/images.json"
  log "disk:    $disk"
  log "index:   $out/images.json"
  BUILT_DISK=$disk
}

build_set "$OUT_DIR" "" "" "" "${BUNDLES[@]}"

if [ "$ENCRYPTED" = 1 ]; then
  source "$IMAGES_DIR/boot/layout.sh"
  # PCR 8 depends on GRUB's commands, not on the root: the plain disk (slot B: the 1.1.0 bundle) measures it
  GRUB_TPM=$("$IMAGES_DIR/steps/grub-efi.sh" --tpm)
  PCR8_TABLE=$(timed "timing: PCR 8 table" "$IMAGES_DIR/steps/pcr8-table.sh" --grub "$GRUB_TPM" --disk "$BUILT_DISK" \
    --slot-b "$OUT_DIR/bundles/1.1.0/rootfs.img")
  build_set "$OUT_DIR/encrypted" "--pcr8-table $PCR8_TABLE" --encrypted \
    "  \"encryptedData\": {\"factoryKey\": \"$FACTORY_KEY_ESP_PATH\", \"pcr8Table\": $(cat "$PCR8_TABLE")},\n" \
    "${ENCRYPTED_BUNDLES[@]}"
fi

# drop cache entries this run did not use (older droplet and nodejs packages, slots and bundles)
find "$CACHE_DIR/debs-outpost" "$CACHE_DIR/slots" "$CACHE_DIR/bundles" -mindepth 1 -maxdepth 1 ! -name '*.log' \
  ! -newer "$RUN_STAMP" -exec rm -rf {} + 2>/dev/null || true
rm -rf "$CACHE_DIR/tmp"

log "timing: total $(seconds_since "$run_start")s"
