#!/bin/bash
# customize.sh TREE VERSION VARIANT AGENT NODE PUBKEY
# Turns an extracted base rootfs into one slot's tree: droplet (AGENT: bundle file or tree folder)
# with node (NODE binary) as a systemd service, its hook units, the OS version, the trusted
# OS-signing public key (PUBKEY) and the variant's changes (variants/VARIANT.sh).
set -euo pipefail
TREE=$1 VERSION=$2 VARIANT=$3 AGENT=$4 NODE=$5 PUBKEY=$6
HERE=$(cd "$(dirname "$0")" && pwd)

# Static files: fstab, hostname, networkd DHCP, the hook runner
cp -R --preserve=mode "$HERE/overlay/." "$TREE/"
mkdir -p "$TREE/outpost" "$TREE/boot/efi" "$TREE/opt/outpost" "$TREE/etc/outpost/trusted-keys"

# Identity of this slot: what the agent reports
printf '%s\n' "$VERSION" >"$TREE/etc/outpost/os-version"
printf '%s\n' qemu-x86_64 >"$TREE/etc/outpost/device-type"
cp "$PUBKEY" "$TREE/etc/outpost/trusted-keys/os-signing.pub"

# node (the host's: same Debian release, so the same glibc and libstdc++), stripped of debug symbols
install -m 0755 "$NODE" "$TREE/usr/local/bin/node"
if command -v strip >/dev/null; then strip --strip-all "$TREE/usr/local/bin/node"; fi
# grub-editenv from the host, to commit/try slots in grubenv on the ESP
install -m 0755 "$(command -v grub-editenv)" "$TREE/usr/local/bin/grub-editenv"
"$HERE/check-libs.sh" "$TREE" /usr/local/bin/node /usr/local/bin/grub-editenv

# droplet: one bundled file, or the fallback tree with droplet.mjs at its top
if [ -d "$AGENT" ]; then cp -R "$AGENT/." "$TREE/opt/outpost/"; else install -m 0644 "$AGENT" "$TREE/opt/outpost/droplet.mjs"; fi

# Units, enabled the way `systemctl enable` would (a link per WantedBy=)
for unit in "$HERE"/units/*; do
  name=$(basename "$unit")
  install -m 0644 "$unit" "$TREE/usr/lib/systemd/system/$name"
  for target in $(sed -n 's/^WantedBy=//p' "$unit"); do
    mkdir -p "$TREE/etc/systemd/system/$target.wants"
    ln -sf "/usr/lib/systemd/system/$name" "$TREE/etc/systemd/system/$target.wants/$name"
  done
done
ln -sf /usr/lib/systemd/system/systemd-networkd.service "$TREE/etc/systemd/system/multi-user.target.wants/"

# Boot time under TCG: no timers, no e2scrub, no gettys on VTs (the serial getty stays),
# first boot is not a "first boot" (fixed machine-id) and needs no ConditionNeedsUpdate work.
rm -f "$TREE"/etc/systemd/system/timers.target.wants/* "$TREE"/etc/systemd/system/multi-user.target.wants/e2scrub_reap.service
rm -f "$TREE"/etc/systemd/system/getty.target.wants/getty@tty1.service
ln -sf /dev/null "$TREE/etc/systemd/system/getty-static.service"
echo 0123456789abcdef0123456789abcdef >"$TREE/etc/machine-id"
touch "$TREE/etc/.updated" "$TREE/var/.updated"

# Test image: root logs in on the serial console without a password
sed -i 's/^root:[^:]*:/root::/' "$TREE/etc/shadow"

"$HERE/variants/$VARIANT.sh" "$TREE"
