#!/bin/bash
# Prototype behind agent/src/os/unlock/DESIGN.md: which PCRs OVMF and bookworm's GRUB (tpm module) measure for an
# A/B boot like images/boot/grub-ab.cfg, and whether a TPM2 PolicyOR over PCR 7+8 unseals for the committed slot's
# boot and a trial boot while refusing a tampered kernel command line.
#
# Needs: qemu-system-x86 ovmf grub-efi-amd64-bin mtools dosfstools swtpm swtpm-tools tpm2-tools busybox-static
# usage: pcr-policy-prototype.sh <vmlinuz> [work dir]     (e.g. the cloud kernel of images/.cache/base/*.tar)
# Boots one VM at a time (TCG), about 20 s each, 10 boots. Prints one JSON line per boot.
set -euo pipefail
KERNEL=$1
WORK=${2:-$(mktemp -d /tmp/tpm-prototype.XXXXXX)}
mkdir -p "$WORK" && cd "$WORK"
TPM2=$(command -v tpm2)

# GRUB as images/steps/grub-efi.sh builds it, plus the tpm module (preloaded: everything after it is measured)
cat > grub.cfg <<'CFG'
set timeout=0
serial --unit=0 --speed=115200
terminal_output serial console
terminal_input serial console
search --no-floppy --fs-uuid --set=esp 1234-ABCD
set envfile=($esp)/EFI/ab/grubenv
set active_slot=A
set try_slot=
set try_count=0
set ab_extra_cmdline=
load_env --file $envfile
set slot=$active_slot
set trial=0
if [ -n "$try_slot" ]; then
  set try_count=1
  set slot=$try_slot
  set trial=1
  save_env --file $envfile try_slot try_count
fi
menuentry "slot $slot" {
  linux ($esp)/vmlinuz-$slot console=ttyS0,115200 panic=5 ab.slot=$slot ab.trial=$trial $ab_extra_cmdline
  initrd ($esp)/initrd.img
}
CFG
grub-mkstandalone -O x86_64-efi -o BOOTX64.EFI \
  --install-modules="normal part_gpt fat ext2 search search_fs_uuid regexp test loadenv linux echo serial terminal configfile tpm" \
  --modules="part_gpt fat ext2 tpm" --locales= --fonts= --themes= "boot/grub/grub.cfg=grub.cfg"

# initrd: prints PCR 7 and 8, tries the unseal when /seal holds a sealed object, powers off
build_initrd() { # <out> [seal dir]
  rm -rf initrd && mkdir -p initrd/bin initrd/proc initrd/sys initrd/dev initrd/tmp initrd/usr/bin
  cp /bin/busybox initrd/bin/busybox
  cp "$TPM2" initrd/usr/bin/tpm2
  for lib in $(ldd "$TPM2" | awk '/=>/ {print $3} /ld-linux/ {print $1}') /lib/x86_64-linux-gnu/libtss2-tcti-device.so.0; do
    mkdir -p "initrd$(dirname "$lib")" && cp -L "$lib" "initrd$lib"
  done
  if [ $# -gt 1 ]; then cp -r "$2" initrd/seal; fi
  cat > initrd/init <<'INIT'
#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev
echo "PCR7=$(/bin/busybox cat /sys/class/tpm/tpm0/pcr-sha256/7)"
echo "PCR8=$(/bin/busybox cat /sys/class/tpm/tpm0/pcr-sha256/8)"
if [ -d /seal ]; then
  export TPM2TOOLS_TCTI=device:/dev/tpmrm0
  T0=$(/bin/busybox cut -d' ' -f1 /proc/uptime)
  /usr/bin/tpm2 createprimary -C o -g sha256 -G ecc -c /tmp/prim.ctx >/dev/null
  /usr/bin/tpm2 load -C /tmp/prim.ctx -u /seal/seal.pub -r /seal/seal.priv -c /tmp/seal.ctx >/dev/null
  /usr/bin/tpm2 startauthsession --policy-session -S /tmp/s.ctx
  /usr/bin/tpm2 policypcr -S /tmp/s.ctx -l sha256:7,8 >/dev/null
  /usr/bin/tpm2 policyor -S /tmp/s.ctx sha256:/seal/branch-1.policy,/seal/branch-2.policy >/dev/null
  if /usr/bin/tpm2 unseal -p session:/tmp/s.ctx -c /tmp/seal.ctx >/tmp/key 2>/dev/null; then R=true; else R=false; fi
  T1=$(/bin/busybox cut -d' ' -f1 /proc/uptime)
  echo "UNSEAL=$R $T0 $T1"
fi
/bin/busybox poweroff -f
INIT
  chmod +x initrd/init
  (cd initrd && find . | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$1"
}

make_esp() { # <out> <kernel A> <initrd>
  rm -f "$1" && mkfs.vfat -C -i 1234ABCD "$1" 65536 >/dev/null
  mmd -i "$1" ::EFI ::EFI/BOOT ::EFI/ab
  mcopy -i "$1" BOOTX64.EFI ::EFI/BOOT/BOOTX64.EFI
  mcopy -i "$1" "$2" ::vmlinuz-A && mcopy -i "$1" "$KERNEL" ::vmlinuz-B && mcopy -i "$1" "$3" ::initrd.img
  rm -f grubenv && grub-editenv grubenv create && grub-editenv grubenv set active_slot=A
  mcopy -i "$1" grubenv ::EFI/ab/grubenv
}

boot() { # <case> <esp> <tpm state dir or ''> [grubenv settings...]: one VM, one swtpm; prints nothing, leaves run-<case>/
  local name=$1 esp=$2 state=$3 dir="$WORK/run-$1"
  shift 3
  rm -rf "$dir" && mkdir -p "$dir/tpm"
  if [ -n "$state" ]; then cp -a "$state/." "$dir/tpm/"; fi
  cp "$esp" "$dir/esp.img"
  if [ $# -gt 0 ]; then
    mcopy -i "$dir/esp.img" ::EFI/ab/grubenv "$dir/grubenv" && grub-editenv "$dir/grubenv" set "$@"
    mcopy -o -i "$dir/esp.img" "$dir/grubenv" ::EFI/ab/grubenv
  fi
  swtpm socket --tpmstate dir="$dir/tpm" --ctrl type=unixio,path="$dir/swtpm.sock" --tpm2 --terminate &
  local swtpm_pid=$!
  for _ in $(seq 50); do [ -S "$dir/swtpm.sock" ] && break; sleep 0.1; done
  timeout 180 qemu-system-x86_64 -machine q35 -accel tcg -cpu max -smp 2 -m 512 -bios /usr/share/ovmf/OVMF.fd \
    -chardev socket,id=chrtpm,path="$dir/swtpm.sock" -tpmdev emulator,id=tpm0,chardev=chrtpm \
    -device tpm-tis,tpmdev=tpm0 -drive file="$dir/esp.img",format=raw,if=none,id=d0 -device nvme,drive=d0,serial=esp \
    -nographic -no-reboot -serial mon:stdio </dev/null >"$dir/serial.log" 2>&1 || true
  kill "$swtpm_pid" 2>/dev/null || true
  wait "$swtpm_pid" 2>/dev/null || true
  tr -d '\r' <"$dir/serial.log" | grep -a '^PCR[78]=\|^UNSEAL=' >"$dir/result" || true
}

report() { # <case>: one JSON line
  local r="$WORK/run-$1/result" unseal
  unseal=$(grep '^UNSEAL=' "$r" | cut -d= -f2 || true)
  printf '{"case":"%s","pcr7":"%s","pcr8":"%s"' "$1" "$(grep '^PCR7=' "$r" | cut -d= -f2)" "$(grep '^PCR8=' "$r" | cut -d= -f2)"
  if [ -n "$unseal" ]; then
    set -- $unseal
    printf ',"unsealed":%s,"unsealSeconds":%s' "$1" "$(echo "$3 - $2" | bc)"
  fi
  printf '}\n'
}

cp "$KERNEL" vmlinuz-new && head -c 4096 /dev/zero >>vmlinuz-new # another kernel, same command line
CASES=("base" "trialB try_slot=B try_count=0" "tampered ab_extra_cmdline=init=/bin/sh" "committedB active_slot=B")

# pass 1: what is measured
build_initrd initrd-plain.img
make_esp esp-plain.img "$KERNEL" initrd-plain.img
make_esp esp-plain-newkernel.img vmlinuz-new initrd-plain.img
for c in "${CASES[@]}"; do set -- $c; boot "measure-$1" esp-plain.img '' "${@:2}"; report "measure-$1"; done
boot measure-newkernel esp-plain-newkernel.img ''; report measure-newkernel

# seal a secret under PolicyOR(PolicyPCR(7,8 of base), PolicyPCR(7,8 of trialB)) on a fresh swtpm
mkdir -p seal/state
swtpm socket --tpmstate dir="$WORK/seal/state" --tpm2 --server type=unixio,path="$WORK/seal/srv.sock" \
  --ctrl type=unixio,path="$WORK/seal/srv.sock.ctrl" --flags startup-clear,not-need-init &
SEAL_TPM=$!
for _ in $(seq 50); do [ -S "$WORK/seal/srv.sock" ] && break; sleep 0.1; done
export TPM2TOOLS_TCTI="swtpm:path=$WORK/seal/srv.sock"
n=0
for c in base trialB; do
  n=$((n + 1))
  for p in 7 8; do grep "^PCR$p=" "run-measure-$c/result" | cut -d= -f2 | xxd -r -p; done >"seal/pcrs-$n.bin"
  tpm2_startauthsession -S seal/trial.ctx
  tpm2_policypcr -S seal/trial.ctx -l sha256:7,8 -f "seal/pcrs-$n.bin" -L "seal/branch-$n.policy" >/dev/null
  tpm2_flushcontext seal/trial.ctx
done
tpm2_startauthsession -S seal/trial.ctx
tpm2_policyor -S seal/trial.ctx -L seal/or.policy sha256:seal/branch-1.policy,seal/branch-2.policy >/dev/null
tpm2_flushcontext seal/trial.ctx
tpm2_createprimary -C o -g sha256 -G ecc -c seal/prim.ctx >/dev/null
head -c 32 /dev/urandom >seal/secret.bin
tpm2_create -C seal/prim.ctx -L seal/or.policy -i seal/secret.bin -u seal/seal.pub -r seal/seal.priv \
  -a "fixedtpm|fixedparent" >/dev/null
kill "$SEAL_TPM" && wait "$SEAL_TPM" || true
mkdir -p sealed && cp seal/seal.pub seal/seal.priv seal/branch-1.policy seal/branch-2.policy sealed/

# pass 2: the same boots with the sealed object in the initrd and the sealing TPM's state
build_initrd initrd-seal.img sealed
make_esp esp-seal.img "$KERNEL" initrd-seal.img
make_esp esp-seal-newkernel.img vmlinuz-new initrd-seal.img
for c in "${CASES[@]}"; do set -- $c; boot "unseal-$1" esp-seal.img seal/state "${@:2}"; report "unseal-$1"; done
boot unseal-newkernel esp-seal-newkernel.img seal/state; report unseal-newkernel
