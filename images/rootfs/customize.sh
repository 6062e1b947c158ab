#!/bin/bash
# customize.sh TREE VERSION VARIANT DROPLET_DEB NODEJS_DEB PUBKEY [PCR8_TABLE]
# Turns an extracted base rootfs into one slot's tree: the nodejs and droplet Debian packages installed with dpkg
# (droplet.service from the package, plus the image's drop-in), the hook units, the OS version, the trusted
# OS-signing public key (PUBKEY) and the variant's changes (variants/VARIANT.sh).
# With PCR8_TABLE, the encrypted image's slot: encrypted/ (the LUKS2 data partition's configuration, fstab and
# unlock unit) and the GRUB build's PCR 8 prediction table at /usr/lib/outpost/pcr8-predictions.json.
set -euo pipefail
TREE=$1 VERSION=$2 VARIANT=$3 DROPLET_DEB=$4 NODEJS_DEB=$5 PUBKEY=$6 PCR8_TABLE=${7:-}
HERE=$(cd "$(dirname "$0")" && pwd)

# Static files: fstab, hostname, networkd DHCP, the hook runner
cp -R --preserve=mode "$HERE/overlay/." "$TREE/"
mkdir -p "$TREE/outpost" "$TREE/boot/efi" "$TREE/etc/outpost/trusted-keys"

# Identity of this slot: what the agent reports
printf '%s\n' "$VERSION" >"$TREE/etc/outpost/os-version"
printf '%s\n' qemu-x86_64 >"$TREE/etc/outpost/device-type"
cp "$PUBKEY" "$TREE/etc/outpost/trusted-keys/os-signing.pub"

# The agent as operators install it: dpkg resolves droplet's Depends (nodejs first, built from the host's node by
# steps/nodejs-deb.sh), runs its postinst outside a chroot against the tree (DPKG_ROOT: workload user, device root,
# enablement link) and records both packages in the tree's dpkg database.
dpkg --root="$TREE" --force-script-chrootless --log=/dev/null -i "$NODEJS_DEB" "$DROPLET_DEB" >/dev/null
dpkg --root="$TREE" -s droplet | grep -q '^Status: install ok installed' || { echo "customize: droplet is not installed" >&2; exit 1; }
# grub-editenv from the host, to commit/try slots in grubenv on the ESP
install -m 0755 "$(command -v grub-editenv)" "$TREE/usr/local/bin/grub-editenv"
"$HERE/check-libs.sh" "$TREE" /usr/bin/node /usr/local/bin/grub-editenv \
  $(cd "$TREE" && find opt/outpost/agent/node_modules -name '*.node' -path '*/build/Release/*' -printf '/%p ')

# sshd's host keys are made at first boot (outpost-ssh-host-keys.service), never shipped in the image
rm -f "$TREE"/etc/ssh/ssh_host_*

# The encrypted image: its files over the plain image's, its unit (pulled in by fstab's x-systemd.requires=)
UNITS=("$HERE"/units/*)
if [ -n "$PCR8_TABLE" ]; then
  cp -R --preserve=mode "$HERE/encrypted/overlay/." "$TREE/"
  install -m 0644 "$PCR8_TABLE" "$TREE/usr/lib/outpost/pcr8-predictions.json"
  UNITS+=("$HERE"/encrypted/units/*)
fi

# Units, enabled the way `systemctl enable` would (a link per WantedBy=)
for unit in "${UNITS[@]}"; do
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
