#!/bin/bash
# grub-efi.sh [--tpm]
# Builds the standalone GRUB EFI binary with boot/grub-ab.cfg embedded. Prints its path (cached).
# --tpm: with GRUB's `tpm` module preloaded (the encrypted image), so that everything after it is measured: its
# commands and the kernel command line into PCR 8, the files it reads into PCR 9 (agent/src/os/unlock/DESIGN.md).
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"

INSTALL="normal part_gpt fat ext2 search search_fs_uuid regexp test loadenv linux echo serial terminal configfile"
MODULES="part_gpt fat ext2"
case ${1:-} in
  --tpm) INSTALL="$INSTALL tpm" MODULES="$MODULES tpm" ;;
  '') ;;
  *) die "grub-efi: unknown argument $1" ;;
esac
CFG="$IMAGES_DIR/boot/grub-ab.cfg"
GRUB_VERSION=$(dpkg-query -W -f='${Version}' grub-efi-amd64-bin)
KEY=$(cache_key "$0" "$CFG" "=$GRUB_VERSION" "=$INSTALL" "=$MODULES")
OUT="$CACHE_DIR/grub/$KEY/BOOTX64.EFI"
if [ -f "$OUT" ]; then
  log "grub: cached ($KEY)"
  printf '%s\n' "$OUT"
  exit 0
fi

mkdir -p "$(dirname "$OUT")"
grub-mkstandalone -O x86_64-efi -o "$OUT.partial" --install-modules="$INSTALL" --modules="$MODULES" --locales= --fonts= --themes= \
  "boot/grub/grub.cfg=$CFG"
mv "$OUT.partial" "$OUT"
log "grub: built $(du -k "$OUT" | cut -f1) KiB ($KEY)"
printf '%s\n' "$OUT"
