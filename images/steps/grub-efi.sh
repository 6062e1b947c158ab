#!/bin/bash
# Builds the standalone GRUB EFI binary with boot/grub-ab.cfg embedded. Prints its path (cached).
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

CFG="$IMAGES_DIR/boot/grub-ab.cfg"
GRUB_VERSION=$(dpkg-query -W -f='${Version}' grub-efi-amd64-bin)
KEY=$(cache_key "$0" "$CFG" "=$GRUB_VERSION")
OUT="$CACHE_DIR/grub/$KEY/BOOTX64.EFI"
if [ -f "$OUT" ]; then
  log "grub: cached ($KEY)"
  printf '%s\n' "$OUT"
  exit 0
fi

mkdir -p "$(dirname "$OUT")"
grub-mkstandalone -O x86_64-efi -o "$OUT.partial" \
  --install-modules="normal part_gpt fat ext2 search search_fs_uuid regexp test loadenv linux echo serial terminal configfile" \
  --modules="part_gpt fat ext2" --locales= --fonts= --themes= \
  "boot/grub/grub.cfg=$CFG"
mv "$OUT.partial" "$OUT"
log "grub: built $(du -k "$OUT" | cut -f1) KiB ($KEY)"
printf '%s\n' "$OUT"
