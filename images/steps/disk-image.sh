#!/bin/bash
# disk-image.sh --slot-a ROOTFS_IMG
# Builds the raw, sparse GPT disk image out/disk-<hash>.img (and the link out/disk.img):
#   esp     standalone GRUB EFI (A/B selection) + grubenv        mounted at /boot/efi
#   root_a  ROOTFS_IMG grown to the slot                          the committed slot
#   root_b  empty: the agent writes OS updates here
#   data    ext4 with config/hooks/ and data/                      mounted at /outpost
# Only sfdisk, mkfs.vfat -C, mtools, mkfs.ext4 -d and dd: no loop devices, no mounts.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$IMAGES_DIR/boot/layout.sh"

SLOT_A=''
while [ $# -gt 0 ]; do
  case $1 in
    --slot-a) SLOT_A=$2; shift 2 ;;
    *) die "disk-image: unknown argument $1" ;;
  esac
done
[ -f "$SLOT_A" ] || die "disk-image: --slot-a must be a rootfs image"
GRUB_EFI=$("$IMAGES_DIR/steps/grub-efi.sh")
GRUBENV_DEFAULTS=(active_slot=A try_slot= try_count=0 max_tries=1 last_failed= ab_use_initrd=0 "ab_extra_cmdline=quiet")

# the slot image's cache folder and GRUB's are named by their content hashes
KEY=$(cache_key "$0" "$IMAGES_DIR/boot/layout.sh" "=grub $GRUB_EFI" "=slot-a $SLOT_A" "=${GRUBENV_DEFAULTS[*]}")
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
  mkfs.ext4 -q -F -L data -E root_owner=0:0 -d "$WORK/data" "$WORK/data.img" "${DATA_MIB}M" >/dev/null

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
