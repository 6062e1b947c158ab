#!/bin/bash
# disk-image.sh --slot-a ROOTFS_IMG [--encrypted]
# Builds the raw, sparse GPT disk image out/disk-<hash>.img (and the link out/disk.img):
#   esp     standalone GRUB EFI (A/B selection) + grubenv        mounted at /boot/efi
#   root_a  ROOTFS_IMG grown to the slot                          the committed slot
#   root_b  empty: the agent writes OS updates here
#   data    ext4 with config/hooks/ and data/                      mounted at /outpost
# Only sfdisk, mkfs.vfat -C, mtools, mkfs.ext4 -d and dd: no loop devices, no mounts.
# --encrypted: GRUB with the tpm module; the data partition is LUKS2 (its ext4 encrypted by images/lib/luks-data.ts,
# no device mapper) opened by a random factory key, which is also on the ESP ($FACTORY_KEY_ESP_PATH) for the first
# boot to enrol the TPM with (a factory writes each device's own data partition and key the same way).
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$IMAGES_DIR/boot/layout.sh"

SLOT_A='' ENCRYPTED=0
while [ $# -gt 0 ]; do
  case $1 in
    --slot-a) SLOT_A=$2; shift 2 ;;
    --encrypted) ENCRYPTED=1; shift ;;
    *) die "disk-image: unknown argument $1" ;;
  esac
done
[ -f "$SLOT_A" ] || die "disk-image: --slot-a must be a rootfs image"
if [ "$ENCRYPTED" = 1 ]; then GRUB_EFI=$("$IMAGES_DIR/steps/grub-efi.sh" --tpm); else GRUB_EFI=$("$IMAGES_DIR/steps/grub-efi.sh"); fi
GRUBENV_DEFAULTS=(active_slot=A try_slot= try_count=0 max_tries=1 last_failed= ab_use_initrd=0 "ab_extra_cmdline=quiet")

# the slot image's cache folder and GRUB's are named by their content hashes
KEY=$(cache_key "$0" "$IMAGES_DIR/boot/layout.sh" "=grub $GRUB_EFI" "=slot-a $SLOT_A" "=${GRUBENV_DEFAULTS[*]}" \
  "=encrypted $ENCRYPTED" "$IMAGES_DIR/lib/luks-data.ts")
OUT="$OUT_DIR/disk-$KEY.img"
if [ -f "$OUT" ]; then
  log "disk: cached ($(basename "$OUT"))"
else
  log "disk: building ($KEY)"
  start=$(now)
  WORK=$(fresh_workdir "disk-$KEY")
  trap 'rm -rf "$WORK"' EXIT

  grub-editenv "$WORK/grubenv" create
  grub-editenv "$WORK/grubenv" set "${GRUBENV_DEFAULTS[@]}"
  mkfs.vfat -C -n ESP -i "$ESP_FAT_ID" "$WORK/esp.img" $((ESP_MIB * 1024)) >/dev/null
  mmd -i "$WORK/esp.img" ::/EFI ::/EFI/BOOT ::/EFI/ab
  mcopy -i "$WORK/esp.img" "$GRUB_EFI" ::/EFI/BOOT/BOOTX64.EFI
  mcopy -i "$WORK/esp.img" "$WORK/grubenv" ::/EFI/ab/grubenv

  cp --sparse=always "$SLOT_A" "$WORK/root_a.img"
  chmod u+w "$WORK/root_a.img"
  e2fsck -fy "$WORK/root_a.img" >/dev/null 2>&1 # resize2fs insists on a fresh check
  resize2fs "$WORK/root_a.img" "${SLOT_MIB}M" >/dev/null 2>&1

  mkdir -p "$WORK/data/config/hooks" "$WORK/data/data"
  if [ "$ENCRYPTED" = 1 ]; then
    mkfs.ext4 -q -F -L data -E root_owner=0:0 -d "$WORK/data" "$WORK/data-fs.img" "$((DATA_MIB - DATA_LUKS_HEADER_MIB))M" >/dev/null
    head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$WORK/factory.key"
    (cd "$REPO_DIR" && tsx images/make-luks-data.ts --fs "$WORK/data-fs.img" --out "$WORK/data.img" \
      --size $((DATA_MIB * 1024 * 1024)) --key-file "$WORK/factory.key")
    mmd -i "$WORK/esp.img" "::/$(dirname "$FACTORY_KEY_ESP_PATH")"
    mcopy -i "$WORK/esp.img" "$WORK/factory.key" "::/$FACTORY_KEY_ESP_PATH"
  else
    mkfs.ext4 -q -F -L data -E root_owner=0:0 -d "$WORK/data" "$WORK/data.img" "${DATA_MIB}M" >/dev/null
  fi

  truncate -s "${DISK_MIB}M" "$WORK/disk.img"
  sfdisk -q "$WORK/disk.img" <<SFDISK
label: gpt
label-id: $DISK_GUID
unit: sectors
start=$((ESP_START * 2048)), size=$((ESP_MIB * 2048)), type=$TYPE_ESP, uuid=$ESP_GUID, name=esp
start=$((ROOT_A_START * 2048)), size=$((SLOT_MIB * 2048)), type=$TYPE_ROOT_X86_64, uuid=$ROOT_A_GUID, name=root_a
start=$((ROOT_B_START * 2048)), size=$((SLOT_MIB * 2048)), type=$TYPE_ROOT_X86_64, uuid=$ROOT_B_GUID, name=root_b
start=$((DATA_START * 2048)), size=$((DATA_MIB * 2048)), type=$TYPE_LINUX_DATA, uuid=$DATA_GUID, name=data
SFDISK
  for part in "esp.img $ESP_START" "root_a.img $ROOT_A_START" "data.img $DATA_START"; do
    read -r file start_mib <<<"$part"
    dd if="$WORK/$file" of="$WORK/disk.img" bs=1M seek="$start_mib" conv=notrunc,sparse status=none
  done
  chmod 0444 "$WORK/disk.img"
  mkdir -p "$OUT_DIR"
  mv "$WORK/disk.img" "$OUT"
  find "$OUT_DIR" -maxdepth 1 -name 'disk-*.img' ! -name "$(basename "$OUT")" -delete
  log "disk: $(du -m "$OUT" | cut -f1) MB allocated of $DISK_MIB MiB in $(seconds_since "$start")s"
fi
ln -sfn "$(basename "$OUT")" "$OUT_DIR/disk.img"
printf '%s\n' "$OUT"
