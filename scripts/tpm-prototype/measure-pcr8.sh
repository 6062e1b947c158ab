#!/bin/bash
# The PCR 8 prediction table (agent/src/os/unlock/tpm2-predictions.ts) measured on the real A/B disk image:
# boots each path the bootloader may take (normal, trial and fallback boot of slot A and of slot B) once in QEMU
# with OVMF and swtpm, with the image's own grub-ab.cfg in a GRUB built with the `tpm` module (the images' GRUB
# has none yet, so it measures nothing), and reads PCR 8 in the real root: an on-boot hook on the data partition
# writes it to the serial console. Nothing of the image changes; everything happens in qcow2 overlays.
#
# Needs: qemu-system-x86 qemu-utils ovmf grub-efi-amd64-bin mtools e2fsprogs swtpm (images/install-deps.sh)
# usage: measure-pcr8.sh [disk.img] [bundle rootfs.img for slot B] [work dir]
#   defaults: images/out/disk.img, images/out/bundles/1.1.0/rootfs.img, a new folder under /tmp
# Prints one JSON line per boot ({"slot","path","pcr8","seconds"}), then the table as one JSON line
# ({"version":1,"pcr":8,"slots":{...}}). REPEAT=1 boots A's normal path a second time (a fresh swtpm) to show that
# the value does not depend on the TPM.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
DISK=$(readlink -f "${1:-$REPO/images/out/disk.img}")
SLOT_B=$(readlink -f "${2:-$REPO/images/out/bundles/1.1.0/rootfs.img}")
WORK=${3:-$(mktemp -d /tmp/measure-pcr8.XXXXXX)}
mkdir -p "$WORK" && cd "$WORK"
source "$REPO/images/boot/layout.sh"
MiB=$((1024 * 1024))

# GRUB as images/steps/grub-efi.sh builds it, plus the tpm module (preloaded: everything after it is measured)
grub-mkstandalone -O x86_64-efi -o BOOTX64-tpm.EFI \
  --install-modules="normal part_gpt fat ext2 search search_fs_uuid regexp test loadenv linux echo serial terminal configfile tpm" \
  --modules="part_gpt fat ext2 tpm" --locales= --fonts= --themes= \
  "boot/grub/grub.cfg=$REPO/images/boot/grub-ab.cfg"

# the partitions as files: the ESP (GRUB swapped per boot for grubenv) and the data partition with the hook
dd if="$DISK" of=esp.img bs=1M skip="$ESP_START" count="$ESP_MIB" status=none
mcopy -o -i esp.img BOOTX64-tpm.EFI ::EFI/BOOT/BOOTX64.EFI
mcopy -n -i esp.img ::EFI/ab/grubenv grubenv.base
dd if="$DISK" of=data.img bs=1M skip="$DATA_START" count="$DATA_MIB" status=none
cat >on-boot <<'HOOK'
#!/bin/sh
echo "MEASURED-PCR8=$(cat /sys/class/tpm/tpm0/pcr-sha256/8)" >/dev/ttyS0
HOOK
debugfs -w -R "write on-boot config/hooks/on-boot" data.img >/dev/null 2>&1
debugfs -w -R "sif config/hooks/on-boot mode 0100755" data.img >/dev/null 2>&1

boot() { # <slot> <path> <grubenv settings...>: one VM on a fresh swtpm; prints one JSON line
  local slot=$1 path=$2 dir="$WORK/run-$1-$2-$RANDOM"
  shift 2
  mkdir -p "$dir/tpm"
  cp esp.img "$dir/esp.img" && cp grubenv.base "$dir/grubenv"
  if [ $# -gt 0 ]; then grub-editenv "$dir/grubenv" set "$@"; fi
  mcopy -o -i "$dir/esp.img" "$dir/grubenv" ::EFI/ab/grubenv
  qemu-img create -q -f qcow2 -b "$DISK" -F raw "$dir/disk.qcow2"
  qemu-io -f qcow2 -c "write -s $dir/esp.img $((ESP_START * MiB)) $((ESP_MIB * MiB))" "$dir/disk.qcow2" >/dev/null
  qemu-io -f qcow2 -c "write -s data.img $((DATA_START * MiB)) $((DATA_MIB * MiB))" "$dir/disk.qcow2" >/dev/null
  qemu-io -f qcow2 -c "write -s $SLOT_B $((ROOT_B_START * MiB)) $(stat -c %s "$SLOT_B")" "$dir/disk.qcow2" >/dev/null
  swtpm socket --tpmstate dir="$dir/tpm" --ctrl type=unixio,path="$dir/swtpm.sock" --tpm2 --terminate &
  local swtpm_pid=$!
  for _ in $(seq 100); do [ -S "$dir/swtpm.sock" ] && break; sleep 0.1; done
  local started=$SECONDS
  : >"$dir/serial.log"
  qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp 2 -m 1024 -bios /usr/share/ovmf/OVMF.fd \
    -chardev socket,id=chrtpm,path="$dir/swtpm.sock" -tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0 \
    -drive if=none,id=d0,file="$dir/disk.qcow2",format=qcow2 -device nvme,drive=d0,serial=measure \
    -display none -vga none -monitor none -serial file:"$dir/serial.log" -no-reboot &
  local qemu_pid=$!
  local pcr8=''
  for _ in $(seq 600); do
    pcr8=$(tr -d '\r' <"$dir/serial.log" | sed -n 's/^MEASURED-PCR8=\([0-9A-Fa-f]\{64\}\)$/\1/p' | head -1 || true)
    [ -n "$pcr8" ] && break
    kill -0 "$qemu_pid" 2>/dev/null || break
    sleep 0.5
  done
  kill "$qemu_pid" 2>/dev/null || true
  wait "$qemu_pid" 2>/dev/null || true
  kill "$swtpm_pid" 2>/dev/null || true
  wait "$swtpm_pid" 2>/dev/null || true
  local booted
  booted=$(tr -d '\r' <"$dir/serial.log" | grep -a -o 'AB: booting slot [AB] (trial=[0-9]*)' | head -1 || true)
  if [ -z "$pcr8" ]; then
    echo "no PCR 8 from the $slot $path boot ($booted); serial log: $dir/serial.log" >&2
    exit 1
  fi
  printf '{"slot":"%s","path":"%s","booted":"%s","pcr8":"%s","seconds":%d}\n' \
    "$slot" "$path" "$booted" "${pcr8,,}" $((SECONDS - started)) | tee -a boots.jsonl
  rm -f "$dir/disk.qcow2"
}

: >boots.jsonl
boot A normal active_slot=A try_slot= try_count=0
boot A trial active_slot=B try_slot=A try_count=0
boot A fallback active_slot=A try_slot=B try_count=1
boot B normal active_slot=B try_slot= try_count=0
boot B trial active_slot=A try_slot=B try_count=0
boot B fallback active_slot=B try_slot=A try_count=1
if [ "${REPEAT:-0}" = 1 ]; then boot A normal-again active_slot=A try_slot= try_count=0; fi

node -e '
const boots = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
const slots = {};
for (const b of boots) if (!b.path.endsWith("-again")) (slots[b.slot] ??= {})[b.path] = b.pcr8;
console.log(JSON.stringify({ version: 1, pcr: 8, slots }));
' "$WORK/boots.jsonl" | tee pcr8-predictions.json
