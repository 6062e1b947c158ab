#!/bin/bash
# pcr8-table.sh --grub BOOTX64.EFI --disk DISK --slot-b ROOTFS_IMG
# The PCR 8 prediction table of a GRUB build (agent/src/os/unlock/tpm2-predictions.ts), measured: boots each path
# the bootloader may take (normal, trial and fallback boot of slot A and of slot B) once in QEMU with OVMF and a
# fresh swtpm, with GRUB (built with the `tpm` module) swapped into the ESP of DISK (slot A) and ROOTFS_IMG written
# into slot B, and reads PCR 8 in the real root: an on-boot hook on the data partition writes it to the serial
# console. PCR 8 holds GRUB's commands and the kernel command line, not the kernel's or the root's bytes, so the
# plain image measures the table of the encrypted one (same GRUB, same grubenv defaults, same layout).
# Everything happens in qcow2 overlays and a scratch folder. Prints the table's path (cached by the GRUB build,
# the layout and DISK's grubenv); the boots' JSON lines ({"slot","path","booted","pcr8","seconds"}) go to the log.
set -euo pipefail
source "$(dirname "$0")/../lib/common.sh"
source "$IMAGES_DIR/boot/layout.sh"

GRUB_EFI='' DISK='' SLOT_B=''
while [ $# -gt 0 ]; do
  case $1 in
    --grub) GRUB_EFI=$2; shift 2 ;;
    --disk) DISK=$(readlink -f "$2"); shift 2 ;;
    --slot-b) SLOT_B=$(readlink -f "$2"); shift 2 ;;
    *) die "pcr8-table: unknown argument $1" ;;
  esac
done
[ -f "$GRUB_EFI" ] && [ -f "$DISK" ] && [ -f "$SLOT_B" ] || die "pcr8-table: --grub, --disk and --slot-b are required"
MiB=$((1024 * 1024))

GRUBENV=$(mcopy -n -i "$DISK@@${ESP_START}M" ::EFI/ab/grubenv - | sha256sum | cut -c1-16)
# the GRUB's cache folder is named by its content hash
KEY=$(cache_key "$0" "=grub $GRUB_EFI" "$IMAGES_DIR/boot/layout.sh" "=grubenv $GRUBENV")
OUT="$CACHE_DIR/pcr8/$KEY.json"
if [ -f "$OUT" ]; then
  log "pcr8 table: cached ($KEY)"
  printf '%s\n' "$OUT"
  exit 0
fi

log "pcr8 table: measuring 6 boot paths in QEMU with swtpm ($KEY)"
start=$(now)
WORK=$(fresh_workdir "pcr8-$KEY")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
# the partitions as files: the ESP (GRUB swapped; grubenv set per boot) and the data partition with the hook
dd if="$DISK" of=esp.img bs=1M skip="$ESP_START" count="$ESP_MIB" status=none
mcopy -o -i esp.img "$GRUB_EFI" ::EFI/BOOT/BOOTX64.EFI
mcopy -n -i esp.img ::EFI/ab/grubenv grubenv.base
dd if="$DISK" of=data.img bs=1M skip="$DATA_START" count="$DATA_MIB" status=none
cat >on-boot <<'HOOK'
#!/bin/sh
printf '\nMEASURED-PCR8=%s\n' "$(cat /sys/class/tpm/tpm0/pcr-sha256/8)" >/dev/ttyS0
HOOK
debugfs -w -R "write on-boot config/hooks/on-boot" data.img >/dev/null 2>&1
debugfs -w -R "sif config/hooks/on-boot mode 0100755" data.img >/dev/null 2>&1

# <slot> <path> <grubenv settings...>: one VM on a fresh swtpm; appends one JSON line to boots.jsonl and sets
# `measured`, or leaves it empty when the guest printed no PCR 8 within 300 s
boot() {
  local slot=$1 path=$2 dir="$WORK/run-$1-$2"
  shift 2
  rm -rf "$dir"
  mkdir -p "$dir/tpm"
  cp esp.img "$dir/esp.img" && cp grubenv.base "$dir/grubenv"
  grub-editenv "$dir/grubenv" set "$@"
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
    pcr8=$(tr -d '\r' <"$dir/serial.log" | sed -n 's/.*MEASURED-PCR8=\([0-9A-Fa-f]\{64\}\).*/\1/p' | head -1 || true)
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
    tail -n 40 "$dir/serial.log" >&2
    log "pcr8 table: no PCR 8 from the $slot $path boot ($booted)"
    return 0
  fi
  measured=$pcr8
  printf '{"slot":"%s","path":"%s","booted":"%s","pcr8":"%s","seconds":%d}\n' \
    "$slot" "$path" "$booted" "${pcr8,,}" $((SECONDS - started)) | tee -a boots.jsonl >&2
  rm -f "$dir/disk.qcow2"
}

: >boots.jsonl
# A TCG guest starved of the host's CPU (other work on a 2-core machine) can stall for good (RCU stalls on its
# timer); a boot that printed nothing is made once more, on a fresh overlay and TPM, before the build fails.
measure() {
  local attempt
  for attempt in 1 2; do
    measured=''
    boot "$@"
    [ -n "$measured" ] && return 0
    log "pcr8 table: the $1 $2 boot printed no PCR 8 (attempt $attempt of 2)"
  done
  die "pcr8 table: no PCR 8 from the $1 $2 boot in 2 attempts"
}

measure A normal active_slot=A try_slot= try_count=0
measure A trial active_slot=B try_slot=A try_count=0
measure A fallback active_slot=A try_slot=B try_count=1
measure B normal active_slot=B try_slot= try_count=0
measure B trial active_slot=A try_slot=B try_count=0
measure B fallback active_slot=B try_slot=A try_count=1

mkdir -p "$CACHE_DIR/pcr8"
node -e '
const boots = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map((l) => JSON.parse(l));
const slots = {};
for (const b of boots) (slots[b.slot] ??= {})[b.path] = b.pcr8;
// every path is a chain of its own; one value twice, or zeros, means GRUB measured nothing (no tpm module, no TPM)
const values = new Set(boots.map((b) => b.pcr8));
if (values.size !== boots.length || values.has("0".repeat(64))) throw new Error("PCR 8 values not distinct: " + [...values]);
console.log(JSON.stringify({ version: 1, pcr: 8, slots }));
' "$WORK/boots.jsonl" >"$OUT.partial"
mv "$OUT.partial" "$OUT"
log "pcr8 table: measured in $(seconds_since "$start")s: $(cat "$OUT")"
printf '%s\n' "$OUT"
