#!/bin/bash
# The tpm2 unlock adapter inside the real A/B disk image under QEMU, OVMF and swtpm (issue 20): the current
# agent bundle's `droplet unlock-data` runs in the guest (an on-boot hook on the data partition), with tpm2-tools
# and cryptsetup copied next to it (the images ship neither yet) and a LUKS2 container in a file on the data
# partition. The GRUB is the image's grub-ab.cfg built with the `tpm` module (as images/steps/pcr8-table.sh), the PCR 8
# table is the one images/steps/pcr8-table.sh measured. One disk (a qcow2 overlay) and one swtpm state live through all
# boots, each ended by killing QEMU (a power cut). Boots:
#   1. A normal: enrol (`--enroll-with factory.key --slot A`), then unlock       → expect enrolled, unlocked
#   2. A trial   3. A fallback                                                    → expect unlocked
#   4. B normal (the policy accepts only A's chains)                              → expect not unlocked
#   5. A with a changed kernel command line (tampered)                            → expect not unlocked
#   6. A normal again                                                             → expect unlocked
# Needs what images/steps/pcr8-table.sh needs, plus tpm2-tools and cryptsetup on the host, and `npm run build` (agent/dist).
# usage: in-guest-unlock.sh <pcr8-predictions.json> [disk.img] [bundle rootfs.img for slot B] [work dir]
# Prints one JSON line per boot: {"boot","expect","enrolled" (exit code of the enrolment), "exit" (of unlock-data:
# 0 unlocked, 1 not), "unlockMs" (unlock-data's own timing of the unseal and the key check), "seconds" (the whole
# boot)}; exits 1 when a boot did not do what it should.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
TABLE=$(readlink -f "$1")
DISK=$(readlink -f "${2:-$REPO/images/out/disk.img}")
SLOT_B=$(readlink -f "${3:-$REPO/images/out/bundles/1.1.0/rootfs.img}")
WORK=${4:-$(mktemp -d /tmp/in-guest-unlock.XXXXXX)}
mkdir -p "$WORK" && cd "$WORK"
source "$REPO/images/boot/layout.sh"
MiB=$((1024 * 1024))
PATH=$PATH:/usr/sbin:/sbin

grub-mkstandalone -O x86_64-efi -o BOOTX64-tpm.EFI \
  --install-modules="normal part_gpt fat ext2 search search_fs_uuid regexp test loadenv linux echo serial terminal configfile tpm" \
  --modules="part_gpt fat ext2 tpm" --locales= --fonts= --themes= \
  "boot/grub/grub.cfg=$REPO/images/boot/grub-ab.cfg"
dd if="$DISK" of=esp.img bs=1M skip="$ESP_START" count="$ESP_MIB" status=none
mcopy -o -i esp.img BOOTX64-tpm.EFI ::EFI/BOOT/BOOTX64.EFI
mcopy -n -i esp.img ::EFI/ab/grubenv grubenv.base

# the data partition: the hook, the agent bundle, the tools with their libraries, the LUKS2 file
T=tree/tpm-test
rm -rf tree && mkdir -p tree/config/hooks tree/data "$T/bin" "$T/lib" "$T/agent"
cp "$REPO/agent/dist/main.js" "$T/agent/" && cp -r "$REPO/agent/dist/chunks" "$T/agent/"
cp -L "$(command -v tpm2)" "$T/bin/tpm2"
for tool in load startauthsession policypcr policyor unseal flushcontext readpublic createprimary evictcontrol create pcrread; do
  ln -s tpm2 "$T/bin/tpm2_$tool"
done
cp -L "$(command -v cryptsetup)" "$T/bin/cryptsetup"
for lib in $( (ldd "$(command -v tpm2)" && ldd "$(command -v cryptsetup)") | awk '/=>/ {print $3}' | sort -u) \
  /lib/x86_64-linux-gnu/libtss2-tcti-device.so.0; do
  case "$(basename "$lib")" in libc.so.* | libm.so.* | ld-linux*) continue ;; esac
  cp -L "$lib" "$T/lib/"
done
printf factory >"$T/factory.key"
truncate -s 20M "$T/luks.img"
cryptsetup luksFormat --type luks2 --batch-mode --pbkdf pbkdf2 --pbkdf-force-iterations 1000 --key-file "$T/factory.key" "$T/luks.img"
cp "$TABLE" "$T/pcr8.json"
printf '{"device":"/outpost/tpm-test/luks.img","mapperName":"outpost-test","predictionsFile":"/outpost/tpm-test/pcr8.json"}\n' >"$T/encrypted-data.json"
touch "$T/enroll"
cat >tree/config/hooks/on-boot <<'HOOK'
#!/bin/sh
T=/outpost/tpm-test
export PATH="$T/bin:$PATH" LD_LIBRARY_PATH="$T/lib"
# output goes to a file first: with it written straight to /dev/ttyS0 while the serial getty started, node once
# ended with SIGABRT (exit 134) and no output (likely the getty's hangup of the tty), so only short lines go there
mkdir -p /run/outpost-test
run() { node "$T/agent/main.js" unlock-data --config "$T/encrypted-data.json" --runtime-dir /run/outpost-test "$@" >>/run/outpost-test/out.log 2>&1; }
echo "GUEST-PCR8=$(cat /sys/class/tpm/tpm0/pcr-sha256/8)" >/dev/ttyS0
if [ -f "$T/enroll" ]; then
  run --enroll-with "$T/factory.key" --slot A
  echo "GUEST-ENROLL=$?" >/dev/ttyS0
  rm -f "$T/enroll"
  sync
fi
run --test-only
code=$?
cat /run/outpost-test/out.log >/dev/ttyS0
echo "GUEST-RECORD=$(cat /run/outpost-test/unlock.json | tr -d '\n ')" >/dev/ttyS0
echo "GUEST-UNLOCK=$code" >/dev/ttyS0
HOOK
chmod +x tree/config/hooks/on-boot
mkfs.ext4 -q -F -d tree data.img "${DATA_MIB}M"

qemu-img create -q -f qcow2 -b "$DISK" -F raw disk.qcow2
qemu-io -f qcow2 -c "write -s data.img $((DATA_START * MiB)) $((DATA_MIB * MiB))" disk.qcow2 >/dev/null
qemu-io -f qcow2 -c "write -s $SLOT_B $((ROOT_B_START * MiB)) $(stat -c %s "$SLOT_B")" disk.qcow2 >/dev/null
mkdir -p tpm

failed=0
boot() { # <name> <expect unlocked: 0|1> <grubenv settings...>
  local name=$1 expect=$2
  shift 2
  # grubenv for this boot, on the disk's own ESP (what GRUB wrote at earlier boots is replaced)
  cp esp.img "esp-$name.img" && cp grubenv.base "grubenv-$name"
  grub-editenv "grubenv-$name" set "$@"
  mcopy -o -i "esp-$name.img" "grubenv-$name" ::EFI/ab/grubenv
  qemu-io -f qcow2 -c "write -s esp-$name.img $((ESP_START * MiB)) $((ESP_MIB * MiB))" disk.qcow2 >/dev/null
  rm -f swtpm.sock
  swtpm socket --tpmstate dir="$WORK/tpm" --ctrl type=unixio,path="$WORK/swtpm.sock" --tpm2 --terminate &
  local swtpm_pid=$!
  for _ in $(seq 100); do [ -S swtpm.sock ] && break; sleep 0.1; done
  local started=$SECONDS log="serial-$name.log"
  : >"$log"
  qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp 2 -m 1024 -bios /usr/share/ovmf/OVMF.fd \
    -chardev socket,id=chrtpm,path="$WORK/swtpm.sock" -tpmdev emulator,id=tpm0,chardev=chrtpm -device tpm-tis,tpmdev=tpm0 \
    -drive if=none,id=d0,file=disk.qcow2,format=qcow2 -device nvme,drive=d0,serial=unlock \
    -display none -vga none -monitor none -serial file:"$log" -no-reboot &
  local qemu_pid=$!
  for _ in $(seq 900); do
    grep -a -q '^GUEST-UNLOCK=' <(tr -d '\r' <"$log") && break
    kill -0 "$qemu_pid" 2>/dev/null || break
    sleep 0.5
  done
  sleep 1 # the power cut comes after the hook's last line
  kill "$qemu_pid" 2>/dev/null || true
  wait "$qemu_pid" 2>/dev/null || true
  kill "$swtpm_pid" 2>/dev/null || true
  wait "$swtpm_pid" 2>/dev/null || true
  local clean enrolled unlocked ms
  clean=$(tr -d '\r' <"$log")
  enrolled=$(sed -n 's/^GUEST-ENROLL=\([0-9]*\)$/\1/p' <<<"$clean" | head -1 || true)
  unlocked=$(sed -n 's/^GUEST-UNLOCK=\([0-9]*\)$/\1/p' <<<"$clean" | head -1 || true)
  ms=$(grep -a -o '"ms":[0-9]*' <<<"$clean" | tail -1 | cut -d: -f2 || true)
  printf '{"boot":"%s","expect":"%s","enrolled":%s,"exit":%s,"unlockMs":%s,"seconds":%d}\n' "$name" \
    "$([ "$expect" = 0 ] && echo unlocked || echo sealed)" "$([ -z "$enrolled" ] && echo null || echo "$enrolled")" \
    "${unlocked:-null}" "${ms:-null}" $((SECONDS - started))
  if [ "$unlocked" != "$expect" ]; then
    echo "boot $name: expected exit $expect from unlock-data, got '${unlocked}' (serial log: $WORK/$log)" >&2
    failed=1
  fi
}

boot A-normal-enrol 0 active_slot=A try_slot= try_count=0
boot A-trial 0 active_slot=B try_slot=A try_count=0
boot A-fallback 0 active_slot=A try_slot=B try_count=1
boot B-normal 1 active_slot=B try_slot= try_count=0
boot A-tampered 1 active_slot=A try_slot= try_count=0 "ab_extra_cmdline=quiet outpost.tampered=1"
boot A-normal 0 active_slot=A try_slot= try_count=0
exit "$failed"
